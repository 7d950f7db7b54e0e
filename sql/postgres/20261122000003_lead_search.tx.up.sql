-- The lead list at a million leads per tenant: indexed search, keyset paging by every sort
-- column, and counts that need no scan of the leads.

-- Search: the lowercased search_text under a trigram index scoped by tenant (btree_gin puts
-- tenant_id in the same GIN index). The extensions live in public, so a schema per test or
-- per tenant group finds them through search_path.
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public;
CREATE INDEX leads_search_idx ON leads USING gin (tenant_id, search_text gin_trgm_ops);

-- Sort and keyset indexes, each led by tenant_id and ended by id (the tie-breaker). Text keys
-- use the "C" collation: byte order, the same order SQLite gives, and the one in which a
-- range (term <= key < term || U+10FFFF) is exactly a prefix match, for terms too short
-- for trigrams. The name index replaces the default-collation one.
DROP INDEX leads_name_idx;
CREATE INDEX leads_customer_name_c_idx ON leads (tenant_id, lower(customer_name) COLLATE "C", id);
CREATE INDEX leads_company_name_c_idx ON leads (tenant_id, lower(company_name) COLLATE "C", id);
CREATE INDEX leads_email_c_idx ON leads (tenant_id, company_email COLLATE "C", id);
CREATE INDEX leads_created_idx ON leads (tenant_id, created_at, id);
CREATE INDEX leads_source_idx ON leads (tenant_id, lead_source_id, id);
CREATE INDEX leads_type_idx ON leads (tenant_id, lead_type_id, id);

-- Lead counts by stage, owner and creator (0 stands for none), kept by statement triggers:
-- the total, the won and lost cards and the stage and owner filters are counted from this
-- small table, for every user's record scope, instead of from the leads.
CREATE TABLE lead_counts (
  tenant_id  bigint NOT NULL REFERENCES tenants (id),
  stage_id   bigint NOT NULL,
  owner_id   bigint NOT NULL,
  created_by bigint NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (tenant_id, stage_id, owner_id, created_by)
);

INSERT INTO lead_counts (tenant_id, stage_id, owner_id, created_by, n)
SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), count(*)
FROM leads GROUP BY 1, 2, 3, 4;

-- One upsert per statement and group, in key order (so two statements never lock the same
-- counters in opposite orders); an update that moves no lead between groups writes nothing.
CREATE FUNCTION lead_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lead_counts AS c (tenant_id, stage_id, owner_id, created_by, n)
    SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, stage_id, owner_id, created_by) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO lead_counts AS c (tenant_id, stage_id, owner_id, created_by, n)
    SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, stage_id, owner_id, created_by) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO lead_counts AS c (tenant_id, stage_id, owner_id, created_by, n)
    SELECT t, s, o, b, sum(d) FROM (
      SELECT tenant_id AS t, COALESCE(lead_stage_id, 0) AS s, COALESCE(owner_id, 0) AS o,
             COALESCE(created_by, 0) AS b, 1 AS d FROM new_rows
      UNION ALL
      SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), -1 FROM old_rows
    ) AS moves
    GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, stage_id, owner_id, created_by) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$ SET search_path FROM CURRENT;

CREATE TRIGGER lead_counts_insert AFTER INSERT ON leads
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_counts_apply();
CREATE TRIGGER lead_counts_delete AFTER DELETE ON leads
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_counts_apply();
CREATE TRIGGER lead_counts_update AFTER UPDATE ON leads
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_counts_apply();
