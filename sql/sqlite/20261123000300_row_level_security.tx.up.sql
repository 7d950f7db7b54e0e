-- SQLite has no row-level security: the store's tenant filter (store.Scope) is the only wall
-- on the embedded database. The PostgreSQL migration of this stamp adds the policies; this
-- one keeps the two migration ledgers in step.
SELECT 1;
