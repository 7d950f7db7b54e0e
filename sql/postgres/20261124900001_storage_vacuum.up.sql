-- After the rewrite of 20261124900000_storage: the visibility map, which index-only scans
-- (the capped counts of the lists) need, is set by VACUUM, which cannot run in a transaction.
VACUUM (ANALYZE) leads, clients
