-- Dashboard figures at a million leads per tenant: leads and clients pre-counted per UTC day
-- ('YYYY-MM-DD'), kept in step by triggers in the transaction that changes the rows, so a
-- dashboard reads a few thousand counters instead of the leads.
--
-- user_id says whose counters a row holds: 0 counts every lead of the tenant (the "all"
-- record scope); a user's id counts the leads that user owns or created (the "own" scope:
-- owner_id = user OR created_by = user). A lead is counted once under 0, once under its
-- owner, and once more under its creator when the creator is someone else. 0 stands for
-- "none" in stage_id, status_id and source_id.
CREATE TABLE lead_day_counts (
  tenant_id INTEGER NOT NULL REFERENCES tenants (id),
  user_id   INTEGER NOT NULL,
  day       TEXT NOT NULL,
  stage_id  INTEGER NOT NULL,
  status_id INTEGER NOT NULL,
  source_id INTEGER NOT NULL,
  n         INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, user_id, day, stage_id, status_id, source_id)
) WITHOUT ROWID;

CREATE TABLE client_day_counts (
  tenant_id INTEGER NOT NULL REFERENCES tenants (id),
  user_id   INTEGER NOT NULL,
  day       TEXT NOT NULL,
  n         INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, user_id, day)
) WITHOUT ROWID;

-- Counters for the rows already there: each lead once per whose-counter (all, owner, creator).
INSERT INTO lead_day_counts (tenant_id, user_id, day, stage_id, status_id, source_id, n)
SELECT l.tenant_id, CASE w.k WHEN 0 THEN 0 WHEN 1 THEN l.owner_id
         ELSE CASE WHEN l.created_by IS NOT l.owner_id THEN l.created_by END END AS uid,
       date(l.created_at), COALESCE(l.lead_stage_id, 0), COALESCE(l.lead_status_id, 0),
       COALESCE(l.lead_source_id, 0), count(*)
FROM leads AS l, (SELECT 0 AS k UNION ALL SELECT 1 UNION ALL SELECT 2) AS w
WHERE uid IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO client_day_counts (tenant_id, user_id, day, n)
SELECT c.tenant_id, CASE w.k WHEN 0 THEN 0 WHEN 1 THEN c.owner_id
         ELSE CASE WHEN c.created_by IS NOT c.owner_id THEN c.created_by END END AS uid,
       date(c.created_at), count(*)
FROM clients AS c, (SELECT 0 AS k UNION ALL SELECT 1 UNION ALL SELECT 2) AS w
WHERE uid IS NOT NULL
GROUP BY 1, 2, 3;

CREATE TRIGGER lead_day_counts_insert AFTER INSERT ON leads BEGIN
  INSERT INTO lead_day_counts (tenant_id, user_id, day, stage_id, status_id, source_id, n)
  SELECT NEW.tenant_id, u.id, date(NEW.created_at), COALESCE(NEW.lead_stage_id, 0),
         COALESCE(NEW.lead_status_id, 0), COALESCE(NEW.lead_source_id, 0), 1
  FROM (SELECT 0 AS id UNION SELECT NEW.owner_id UNION SELECT NEW.created_by) AS u
  WHERE u.id IS NOT NULL
  ON CONFLICT (tenant_id, user_id, day, stage_id, status_id, source_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER lead_day_counts_delete AFTER DELETE ON leads BEGIN
  UPDATE lead_day_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND user_id IN (0, OLD.owner_id, OLD.created_by) AND day = date(OLD.created_at)
    AND stage_id = COALESCE(OLD.lead_stage_id, 0) AND status_id = COALESCE(OLD.lead_status_id, 0)
    AND source_id = COALESCE(OLD.lead_source_id, 0);
END;

CREATE TRIGGER lead_day_counts_update
AFTER UPDATE OF tenant_id, lead_stage_id, lead_status_id, lead_source_id, owner_id, created_by, created_at ON leads
WHEN OLD.tenant_id IS NOT NEW.tenant_id OR OLD.lead_stage_id IS NOT NEW.lead_stage_id
  OR OLD.lead_status_id IS NOT NEW.lead_status_id OR OLD.lead_source_id IS NOT NEW.lead_source_id
  OR OLD.owner_id IS NOT NEW.owner_id OR OLD.created_by IS NOT NEW.created_by
  OR date(OLD.created_at) IS NOT date(NEW.created_at)
BEGIN
  UPDATE lead_day_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND user_id IN (0, OLD.owner_id, OLD.created_by) AND day = date(OLD.created_at)
    AND stage_id = COALESCE(OLD.lead_stage_id, 0) AND status_id = COALESCE(OLD.lead_status_id, 0)
    AND source_id = COALESCE(OLD.lead_source_id, 0);
  INSERT INTO lead_day_counts (tenant_id, user_id, day, stage_id, status_id, source_id, n)
  SELECT NEW.tenant_id, u.id, date(NEW.created_at), COALESCE(NEW.lead_stage_id, 0),
         COALESCE(NEW.lead_status_id, 0), COALESCE(NEW.lead_source_id, 0), 1
  FROM (SELECT 0 AS id UNION SELECT NEW.owner_id UNION SELECT NEW.created_by) AS u
  WHERE u.id IS NOT NULL
  ON CONFLICT (tenant_id, user_id, day, stage_id, status_id, source_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER client_day_counts_insert AFTER INSERT ON clients BEGIN
  INSERT INTO client_day_counts (tenant_id, user_id, day, n)
  SELECT NEW.tenant_id, u.id, date(NEW.created_at), 1
  FROM (SELECT 0 AS id UNION SELECT NEW.owner_id UNION SELECT NEW.created_by) AS u
  WHERE u.id IS NOT NULL
  ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER client_day_counts_delete AFTER DELETE ON clients BEGIN
  UPDATE client_day_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND user_id IN (0, OLD.owner_id, OLD.created_by) AND day = date(OLD.created_at);
END;

CREATE TRIGGER client_day_counts_update AFTER UPDATE OF tenant_id, owner_id, created_by, created_at ON clients
WHEN OLD.tenant_id IS NOT NEW.tenant_id OR OLD.owner_id IS NOT NEW.owner_id OR OLD.created_by IS NOT NEW.created_by
  OR date(OLD.created_at) IS NOT date(NEW.created_at)
BEGIN
  UPDATE client_day_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND user_id IN (0, OLD.owner_id, OLD.created_by) AND day = date(OLD.created_at);
  INSERT INTO client_day_counts (tenant_id, user_id, day, n)
  SELECT NEW.tenant_id, u.id, date(NEW.created_at), 1
  FROM (SELECT 0 AS id UNION SELECT NEW.owner_id UNION SELECT NEW.created_by) AS u
  WHERE u.id IS NOT NULL
  ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET n = n + 1;
END;
