-- Storage per lead, second round (issue 13): nothing to change on SQLite; the version is
-- kept beside PostgreSQL's.
-- - The PostgreSQL migration stores a shipping address equal to the billing address as "[]"
--   with a BEFORE trigger; SQLite has no BEFORE trigger that can change the row, and an
--   AFTER trigger would write every such lead twice (imports). SQLite stores both (0.9 GB a
--   million leads already); the app reads "[]" the same on both engines (address.go).
-- - The (tenant_id, X, id) indexes lose their id on PostgreSQL to be deduplicated; a SQLite
--   index holds the rowid (the id) in every entry anyway, so dropping it saves nothing.
SELECT 1;
