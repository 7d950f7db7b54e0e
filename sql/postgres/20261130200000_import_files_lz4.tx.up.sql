-- An import's file compressed with lz4 instead of PostgreSQL's own pglz, where the server
-- was built with lz4 (issue 13; docs/PERFORMANCE.md, "Fortieth round").
--
-- An import reads its whole file before its first batch, and its upload writes it. For the
-- bench's realistic file of 100,000 rows (33.9 MB), over one connection: written in 0.23 s
-- instead of 0.60 s, read back in 75 ms instead of 104-202 ms, and stored in 10.1 MB instead
-- of 12.7 MB. A file stored before keeps pglz, which PostgreSQL still reads.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings
             WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE import_files ALTER COLUMN content SET COMPRESSION lz4;
  END IF;
END
$$;
