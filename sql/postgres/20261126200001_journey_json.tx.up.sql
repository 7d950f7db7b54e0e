-- The journey's before and after as json, not jsonb (issue 13; docs/PERFORMANCE.md, "Sixth
-- round"). An import writes an entry for every lead it creates, changes or undoes, and the
-- parse of each into jsonb's binary form was a third of the entries' insert (4,000 entries
-- of a deleted lead's ~620-byte JSON: 93 ms into jsonb, 59 ms into json). Nothing reads
-- inside them but the journey's filter of updates that only changed the fields with
-- entries of their own (json_object_keys, app/store/leads_changes.go) on the entries of a
-- page; the app reads them back whole, as text.
ALTER TABLE audit_log
  ALTER COLUMN before TYPE json USING before::json,
  ALTER COLUMN after TYPE json USING after::json;
