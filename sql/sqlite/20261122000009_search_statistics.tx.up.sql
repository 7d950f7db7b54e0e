-- PostgreSQL only (a larger histogram for search_text, see the postgres folder): SQLite's
-- searches go through the FTS5 trigram table, whose plan does not depend on statistics.
SELECT 1;
