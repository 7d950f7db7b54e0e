-- The planner's statistics of leads and clients, refreshed by the app after a large import
-- or undo (app/store/statistics.go, importer.Runner's tidy). A table never analyzed (a new
-- database, autovacuum off or not yet by) looks to the planner like 200 rows a tenant: an
-- import's statements then read the whole tenant for each batch instead of probing their
-- records (an update of 100,000 rows: 2 min 42 s instead of 37 s). Autovacuum's analyze
-- waits for a tenth of the table to change, which a large tenant's import in a larger
-- table may not reach. The application role owns no table and may not ANALYZE: this
-- function runs as the owner, for these two tables only.
CREATE FUNCTION refresh_statistics(tbl text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  IF tbl NOT IN ('leads', 'clients') THEN
    RAISE EXCEPTION 'refresh_statistics: not for %', tbl;
  END IF;
  EXECUTE format('ANALYZE %I', tbl);
END
$$ SET search_path FROM CURRENT;
