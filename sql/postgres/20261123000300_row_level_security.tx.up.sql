-- Row-level security, the second wall behind the store's tenant filter: on every tenant table
-- a row is visible and writable only while app.tenant_id names its tenant. The server sets
-- app.tenant_id before each statement from the Scope that built it (app/store/rls.go) and
-- connects as a role that owns nothing and cannot bypass row-level security; FORCE binds the
-- tables' owner too, unless it is a superuser or BYPASSRLS (the migrating role).
--
-- current_setting(…, true) is NULL when the setting was never made, and '' once it has been
-- cleared; both compare as NULL, so a statement without a tenant sees no tenant row and can
-- write none, rather than failing.
--
-- A migration that adds a tenant table calls SELECT tenant_rls('the_table'); in the same
-- migration. The catalog test (app/store/catalog_test.go) fails on a table with tenant_id
-- that has no policy. tenants, sessions and user_directory are read before a tenant is known
-- and stay without one.
CREATE FUNCTION tenant_rls(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', tbl);
  EXECUTE format($p$CREATE POLICY tenant_isolation ON %s
    USING (tenant_id = NULLIF(current_setting('app.tenant_id', true), '')::bigint)
    WITH CHECK (tenant_id = NULLIF(current_setting('app.tenant_id', true), '')::bigint)$p$, tbl);
END
$$;

SELECT tenant_rls('roles');
SELECT tenant_rls('role_permissions');
SELECT tenant_rls('users');
SELECT tenant_rls('api_tokens');
SELECT tenant_rls('audit_log');
SELECT tenant_rls('lead_masters');
SELECT tenant_rls('leads');
SELECT tenant_rls('lead_logos');
SELECT tenant_rls('idempotency_keys');
SELECT tenant_rls('lead_counts');
SELECT tenant_rls('saved_views');
SELECT tenant_rls('clients');
SELECT tenant_rls('documents');
SELECT tenant_rls('reminders');
SELECT tenant_rls('imports');
SELECT tenant_rls('import_files');
SELECT tenant_rls('import_rows');
SELECT tenant_rls('lead_day_counts');
SELECT tenant_rls('client_day_counts');


-- Under row-level security a condition of the query may run before the policy's only if its
-- functions are LEAKPROOF (they reveal nothing of a row they are shown, not even by failing);
-- any other stays a filter on the rows the policy lets through, so it cannot drive an index.
-- The list's search (search_text LIKE '%term%' on the trigram index) and its keyset paging
-- and prefix search (lower(name) COLLATE "C" >= …) would then read every row of the tenant.
-- lower(text) cannot fail on valid text, and LIKE fails only on a pattern ending in the escape
-- character, which the store's patterns never do (escapeLike); marking the two LEAKPROOF keeps
-- those plans. Only a superuser may (it applies to this database); a migrating role that is
-- not one gets a warning, and the DBA can run the two statements (docs/ARCHITECTURE.md).
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION pg_catalog.lower(text) LEAKPROOF;
    ALTER FUNCTION pg_catalog.textlike(text, text) LEAKPROOF;
  ELSIF NOT (SELECT proleakproof FROM pg_proc WHERE oid = 'pg_catalog.textlike(text, text)'::regprocedure) THEN
    RAISE WARNING 'lower(text) and textlike(text, text) are not LEAKPROOF: under row-level security the lead and client search cannot use its indexes. As a superuser run: ALTER FUNCTION pg_catalog.lower(text) LEAKPROOF; ALTER FUNCTION pg_catalog.textlike(text, text) LEAKPROOF;';
  END IF;
END
$$;
