-- The list's total and its won/lost summary from a few counters instead of lead_counts' all
-- (see the PostgreSQL migration): lead_user_counts keeps the leads by stage and status for
-- the tenant (user_id 0) and for each user who owns or created them (the creator when
-- another user than the owner). Kept from lead_counts by its own triggers: each change of a
-- counter adds its difference to the tenant's, the owner's and the creator's (0: none); a
-- change of nothing (a counter at 0 deleted by DropEmptyCounters) adds no row.
CREATE TABLE lead_user_counts (
  tenant_id INTEGER NOT NULL,
  user_id   INTEGER NOT NULL, -- 0: every lead of the tenant
  stage_id  INTEGER NOT NULL,
  status_id INTEGER NOT NULL,
  n         INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, user_id, stage_id, status_id)
) WITHOUT ROWID;

CREATE TRIGGER lead_user_counts_insert AFTER INSERT ON lead_counts BEGIN
  INSERT INTO lead_user_counts (tenant_id, user_id, stage_id, status_id, n)
  SELECT NEW.tenant_id, u.id, NEW.stage_id, NEW.status_id, NEW.n
  FROM (SELECT 0 AS id UNION ALL SELECT NEW.owner_id WHERE NEW.owner_id <> 0
        UNION ALL SELECT NEW.created_by WHERE NEW.created_by NOT IN (0, NEW.owner_id)) AS u
  WHERE NEW.n <> 0
  ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = n + excluded.n;
END;
-- A counter's n changes (its key never does: lead_counts' triggers upsert by key).
CREATE TRIGGER lead_user_counts_update AFTER UPDATE ON lead_counts
WHEN NEW.tenant_id = OLD.tenant_id AND NEW.stage_id = OLD.stage_id AND NEW.status_id = OLD.status_id
  AND NEW.owner_id = OLD.owner_id AND NEW.created_by = OLD.created_by
BEGIN
  INSERT INTO lead_user_counts (tenant_id, user_id, stage_id, status_id, n)
  SELECT NEW.tenant_id, u.id, NEW.stage_id, NEW.status_id, NEW.n - OLD.n
  FROM (SELECT 0 AS id UNION ALL SELECT NEW.owner_id WHERE NEW.owner_id <> 0
        UNION ALL SELECT NEW.created_by WHERE NEW.created_by NOT IN (0, NEW.owner_id)) AS u
  WHERE NEW.n <> OLD.n
  ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER lead_user_counts_rekey AFTER UPDATE ON lead_counts
WHEN NOT (NEW.tenant_id = OLD.tenant_id AND NEW.stage_id = OLD.stage_id AND NEW.status_id = OLD.status_id
  AND NEW.owner_id = OLD.owner_id AND NEW.created_by = OLD.created_by)
BEGIN
  INSERT INTO lead_user_counts (tenant_id, user_id, stage_id, status_id, n)
  SELECT OLD.tenant_id, u.id, OLD.stage_id, OLD.status_id, -OLD.n
  FROM (SELECT 0 AS id UNION ALL SELECT OLD.owner_id WHERE OLD.owner_id <> 0
        UNION ALL SELECT OLD.created_by WHERE OLD.created_by NOT IN (0, OLD.owner_id)) AS u
  WHERE OLD.n <> 0
  ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = n + excluded.n;
  INSERT INTO lead_user_counts (tenant_id, user_id, stage_id, status_id, n)
  SELECT NEW.tenant_id, u.id, NEW.stage_id, NEW.status_id, NEW.n
  FROM (SELECT 0 AS id UNION ALL SELECT NEW.owner_id WHERE NEW.owner_id <> 0
        UNION ALL SELECT NEW.created_by WHERE NEW.created_by NOT IN (0, NEW.owner_id)) AS u
  WHERE NEW.n <> 0
  ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER lead_user_counts_delete AFTER DELETE ON lead_counts BEGIN
  INSERT INTO lead_user_counts (tenant_id, user_id, stage_id, status_id, n)
  SELECT OLD.tenant_id, u.id, OLD.stage_id, OLD.status_id, -OLD.n
  FROM (SELECT 0 AS id UNION ALL SELECT OLD.owner_id WHERE OLD.owner_id <> 0
        UNION ALL SELECT OLD.created_by WHERE OLD.created_by NOT IN (0, OLD.owner_id)) AS u
  WHERE OLD.n <> 0
  ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = n + excluded.n;
END;

-- The counters of the leads there are.
INSERT INTO lead_user_counts (tenant_id, user_id, stage_id, status_id, n)
SELECT tenant_id, user_id, stage_id, status_id, sum(n) FROM (
  SELECT tenant_id, 0 AS user_id, stage_id, status_id, n FROM lead_counts
  UNION ALL SELECT tenant_id, owner_id, stage_id, status_id, n FROM lead_counts WHERE owner_id <> 0
  UNION ALL SELECT tenant_id, created_by, stage_id, status_id, n FROM lead_counts WHERE created_by NOT IN (0, owner_id)
) GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0;
