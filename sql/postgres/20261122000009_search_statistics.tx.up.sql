-- Search plans at a million leads. PostgreSQL estimates `search_text LIKE '%term%'` from the
-- column's histogram; with the default 100 entries any term seems to match about 1 % of the
-- rows, and under the search's LIMIT the planner then reads the table in order until enough
-- rows match (1.3 s for a name that 600 leads of a million carry) or ANDs the trigram index
-- with a 1,000,000-entry tenant index. A histogram of 1,000 entries puts rare terms on the
-- trigram index and leaves the table walk to words common enough to stop early.
ALTER TABLE leads ALTER COLUMN search_text SET STATISTICS 1000;
ALTER TABLE clients ALTER COLUMN search_text SET STATISTICS 1000;
ANALYZE leads;
ANALYZE clients;
