-- After the rewrite of 20261124920000_storage_shipping: the visibility map (index-only
-- scans: the capped counts) and the statistics, by VACUUM, which cannot run in a transaction.
VACUUM (ANALYZE) leads;
--bun:split
-- lead_day_counts: each new lead updates three of its rows (the tenant's, the owner's, the
-- creator's) in place; a table filled 100 % cannot keep the new versions on their page, so
-- its primary key gets an entry for every version and both grow to two or three times their
-- rows (79 + 90 MB for 552,049 rows on crm_bench at 2 × 1,000,000 leads). Rewritten packed
-- once here; from now on fillfactor 90 leaves room for the in-place (HOT) updates, which add
-- no index entries.
ALTER TABLE lead_day_counts SET (fillfactor = 90);
--bun:split
VACUUM (FULL, ANALYZE) lead_day_counts;
