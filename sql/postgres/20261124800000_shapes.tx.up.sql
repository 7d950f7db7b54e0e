-- Issue 13, slow shapes (app/store/dashboard.go, leads_list*.go, list*.go).
--
-- 1. lead_month_counts: the per-day lead counters (lead_day_counts) summed by month, so a
--    dashboard over a long period (all time, this year) reads the whole months of the period
--    here and only its partial first and last months by day: about 36 rows a month instead of
--    36 a day (26,000+ rows for two years). Kept by statement triggers on lead_day_counts
--    itself, in the same transaction, so the months always equal the sum of their days
--    (whatever writes the day counters: the leads' triggers, imports, undo). month is the
--    first day of the month; the other columns are lead_day_counts'.
--
-- 2. leads_stage_status_name_idx (tenant_id, lead_stage_id, lead_status_id,
--    lower(customer_name) COLLATE "C", id): serves a stage + status filter sorted by name
--    (the list's ?lead_stage_id=X&lead_status_id=Y&sort=name) as one index range, for common
--    and rare combinations alike, keyset cursors both ways, and its capped count (10,001
--    entries) without touching the heap; owner_id and created_by are included so an "own
--    records" user's count (owner_id = me OR created_by = me) is an index-only scan too.
--
-- Indexes the list's plans rely on (keep them; TestLeadListPlansUseIndexes holds them):
--   leads_pkey (tenant_id, id); leads_customer_name_c_idx; leads_company_name_c_idx;
--   leads_email_c_idx; leads_created_idx; leads_stage_idx; leads_status_idx;
--   leads_source_idx; leads_owner_idx; leads_created_by_idx; leads_search_idx (trigram);
--   leads_stage_status_name_idx (this migration); lead_counts_pkey;
--   lead_day_counts_pkey; lead_month_counts_pkey (this migration).
CREATE TABLE lead_month_counts (
  tenant_id bigint NOT NULL REFERENCES tenants (id),
  user_id   bigint NOT NULL,
  month     date   NOT NULL,
  stage_id  bigint NOT NULL,
  status_id bigint NOT NULL,
  source_id bigint NOT NULL,
  n         bigint NOT NULL,
  PRIMARY KEY (tenant_id, user_id, month, stage_id, status_id, source_id)
);
SELECT tenant_rls('lead_month_counts');

INSERT INTO lead_month_counts (tenant_id, user_id, month, stage_id, status_id, source_id, n)
SELECT tenant_id, user_id, date_trunc('month', day)::date, stage_id, status_id, source_id, sum(n)
FROM lead_day_counts
GROUP BY 1, 2, 3, 4, 5, 6;

-- One grouped upsert per statement on the day counters, in key order (as theirs).
CREATE FUNCTION lead_month_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lead_month_counts AS c (tenant_id, user_id, month, stage_id, status_id, source_id, n)
    SELECT r.tenant_id, r.user_id, date_trunc('month', r.day)::date, r.stage_id, r.status_id, r.source_id, sum(r.n)
    FROM new_rows AS r
    GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.n) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (tenant_id, user_id, month, stage_id, status_id, source_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO lead_month_counts AS c (tenant_id, user_id, month, stage_id, status_id, source_id, n)
    SELECT r.tenant_id, r.user_id, date_trunc('month', r.day)::date, r.stage_id, r.status_id, r.source_id, -sum(r.n)
    FROM old_rows AS r
    GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.n) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (tenant_id, user_id, month, stage_id, status_id, source_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO lead_month_counts AS c (tenant_id, user_id, month, stage_id, status_id, source_id, n)
    SELECT t, u, m, s, st, so, sum(x) FROM (
      SELECT r.tenant_id AS t, r.user_id AS u, date_trunc('month', r.day)::date AS m, r.stage_id AS s,
             r.status_id AS st, r.source_id AS so, r.n AS x
      FROM new_rows AS r
      UNION ALL
      SELECT r.tenant_id, r.user_id, date_trunc('month', r.day)::date, r.stage_id, r.status_id, r.source_id, -r.n
      FROM old_rows AS r
    ) AS moves
    GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(x) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (tenant_id, user_id, month, stage_id, status_id, source_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$ SET search_path FROM CURRENT;

CREATE TRIGGER lead_month_counts_insert AFTER INSERT ON lead_day_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_month_counts_apply();
CREATE TRIGGER lead_month_counts_delete AFTER DELETE ON lead_day_counts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_month_counts_apply();
CREATE TRIGGER lead_month_counts_update AFTER UPDATE ON lead_day_counts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_month_counts_apply();

CREATE INDEX leads_stage_status_name_idx
  ON leads (tenant_id, lead_stage_id, lead_status_id, (lower(customer_name)) COLLATE "C", id)
  INCLUDE (owner_id, created_by);
