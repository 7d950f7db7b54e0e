-- Issue 13, slow shapes (app/store/dashboard.go, leads_list*.go, list*.go).
--
-- 1. lead_month_counts: the per-day lead counters (lead_day_counts) summed by month
--    ('YYYY-MM-01'), so a dashboard over a long period (all time, this year) reads the whole
--    months of the period here and only its partial first and last months by day: about 36
--    rows a month instead of 36 a day. Kept by triggers on lead_day_counts itself, in the
--    same transaction, so the months always equal the sum of their days (whatever writes the
--    day counters). The other columns are lead_day_counts'.
--
-- 2. leads_stage_status_name_idx (tenant_id, lead_stage_id, lead_status_id,
--    lower(customer_name), id): serves a stage + status filter sorted by name as one index
--    range, common and rare combinations alike, keyset cursors both ways, and its capped
--    count without reading the rows (owner_id and created_by last, for an "own records"
--    user's count).
--
-- Indexes the list's plans rely on (keep them; TestLeadListPlansUseIndexes holds them):
--   the leads' rowid (id), leads_tenant_idx, leads_name_idx, leads_company_name_idx,
--   leads_email_idx, leads_created_idx, leads_stage_idx, leads_status_idx, leads_source_idx,
--   leads_owner_idx, leads_created_by_idx, leads_fts (FTS5 trigram),
--   leads_stage_status_name_idx (this migration), lead_counts, lead_day_counts and
--   lead_month_counts primary keys.
CREATE TABLE lead_month_counts (
  tenant_id INTEGER NOT NULL REFERENCES tenants (id),
  user_id   INTEGER NOT NULL,
  month     TEXT NOT NULL,
  stage_id  INTEGER NOT NULL,
  status_id INTEGER NOT NULL,
  source_id INTEGER NOT NULL,
  n         INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, user_id, month, stage_id, status_id, source_id)
) WITHOUT ROWID;

INSERT INTO lead_month_counts (tenant_id, user_id, month, stage_id, status_id, source_id, n)
SELECT tenant_id, user_id, substr(day, 1, 7) || '-01', stage_id, status_id, source_id, sum(n)
FROM lead_day_counts
GROUP BY 1, 2, 3, 4, 5, 6;

CREATE TRIGGER lead_month_counts_insert AFTER INSERT ON lead_day_counts BEGIN
  INSERT INTO lead_month_counts (tenant_id, user_id, month, stage_id, status_id, source_id, n)
  VALUES (NEW.tenant_id, NEW.user_id, substr(NEW.day, 1, 7) || '-01', NEW.stage_id, NEW.status_id, NEW.source_id, NEW.n)
  ON CONFLICT (tenant_id, user_id, month, stage_id, status_id, source_id) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER lead_month_counts_delete AFTER DELETE ON lead_day_counts BEGIN
  UPDATE lead_month_counts SET n = n - OLD.n
  WHERE tenant_id = OLD.tenant_id AND user_id = OLD.user_id AND month = substr(OLD.day, 1, 7) || '-01'
    AND stage_id = OLD.stage_id AND status_id = OLD.status_id AND source_id = OLD.source_id;
END;

-- The day counters' key never changes in place (their triggers upsert by key); should one
-- move, the old month loses the old count and the new month gains the new.
CREATE TRIGGER lead_month_counts_update AFTER UPDATE ON lead_day_counts BEGIN
  UPDATE lead_month_counts SET n = n - OLD.n
  WHERE tenant_id = OLD.tenant_id AND user_id = OLD.user_id AND month = substr(OLD.day, 1, 7) || '-01'
    AND stage_id = OLD.stage_id AND status_id = OLD.status_id AND source_id = OLD.source_id;
  INSERT INTO lead_month_counts (tenant_id, user_id, month, stage_id, status_id, source_id, n)
  VALUES (NEW.tenant_id, NEW.user_id, substr(NEW.day, 1, 7) || '-01', NEW.stage_id, NEW.status_id, NEW.source_id, NEW.n)
  ON CONFLICT (tenant_id, user_id, month, stage_id, status_id, source_id) DO UPDATE SET n = n + excluded.n;
END;

CREATE INDEX leads_stage_status_name_idx
  ON leads (tenant_id, lead_stage_id, lead_status_id, lower(customer_name), id, owner_id, created_by);
