-- lead_counts gains the status (see the PostgreSQL migration): a WITHOUT ROWID table keeps
-- its primary key for life, so the table is made again with the new key and refilled.
DROP TRIGGER lead_counts_insert;
DROP TRIGGER lead_counts_delete;
DROP TRIGGER lead_counts_update;
DROP TABLE lead_counts;
CREATE TABLE lead_counts (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  stage_id   INTEGER NOT NULL,
  status_id  INTEGER NOT NULL,
  owner_id   INTEGER NOT NULL,
  created_by INTEGER NOT NULL,
  n          INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, stage_id, status_id, owner_id, created_by)
) WITHOUT ROWID;

INSERT INTO lead_counts (tenant_id, stage_id, status_id, owner_id, created_by, n)
SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(lead_status_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), count(*)
FROM leads GROUP BY 1, 2, 3, 4, 5;

CREATE TRIGGER lead_counts_insert AFTER INSERT ON leads BEGIN
  INSERT INTO lead_counts (tenant_id, stage_id, status_id, owner_id, created_by, n)
  VALUES (NEW.tenant_id, COALESCE(NEW.lead_stage_id, 0), COALESCE(NEW.lead_status_id, 0), COALESCE(NEW.owner_id, 0),
          COALESCE(NEW.created_by, 0), 1)
  ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER lead_counts_delete AFTER DELETE ON leads BEGIN
  UPDATE lead_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND stage_id = COALESCE(OLD.lead_stage_id, 0)
    AND status_id = COALESCE(OLD.lead_status_id, 0)
    AND owner_id = COALESCE(OLD.owner_id, 0) AND created_by = COALESCE(OLD.created_by, 0);
END;
CREATE TRIGGER lead_counts_update AFTER UPDATE OF lead_stage_id, lead_status_id, owner_id, created_by ON leads
WHEN OLD.lead_stage_id IS NOT NEW.lead_stage_id OR OLD.lead_status_id IS NOT NEW.lead_status_id
  OR OLD.owner_id IS NOT NEW.owner_id OR OLD.created_by IS NOT NEW.created_by
BEGIN
  UPDATE lead_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND stage_id = COALESCE(OLD.lead_stage_id, 0)
    AND status_id = COALESCE(OLD.lead_status_id, 0)
    AND owner_id = COALESCE(OLD.owner_id, 0) AND created_by = COALESCE(OLD.created_by, 0);
  INSERT INTO lead_counts (tenant_id, stage_id, status_id, owner_id, created_by, n)
  VALUES (NEW.tenant_id, COALESCE(NEW.lead_stage_id, 0), COALESCE(NEW.lead_status_id, 0), COALESCE(NEW.owner_id, 0),
          COALESCE(NEW.created_by, 0), 1)
  ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = n + 1;
END;
