-- The lead list at a million leads: indexed search, keyset paging by every sort column, and
-- counts that need no scan of the leads.

-- Search: an FTS5 trigram index over leads.search_text (external content: the text lives
-- once, in leads), kept in step by triggers. A phrase query is a case-insensitive substring
-- match of 3 characters or more; shorter terms use the prefix indexes below.
CREATE VIRTUAL TABLE leads_fts USING fts5(search_text, content='leads', content_rowid='id', tokenize='trigram');
CREATE TRIGGER leads_fts_insert AFTER INSERT ON leads BEGIN
  INSERT INTO leads_fts (rowid, search_text) VALUES (NEW.id, NEW.search_text);
END;
CREATE TRIGGER leads_fts_delete AFTER DELETE ON leads BEGIN
  INSERT INTO leads_fts (leads_fts, rowid, search_text) VALUES ('delete', OLD.id, OLD.search_text);
END;
CREATE TRIGGER leads_fts_update AFTER UPDATE OF search_text ON leads BEGIN
  INSERT INTO leads_fts (leads_fts, rowid, search_text) VALUES ('delete', OLD.id, OLD.search_text);
  INSERT INTO leads_fts (rowid, search_text) VALUES (NEW.id, NEW.search_text);
END;
INSERT INTO leads_fts (leads_fts) VALUES ('rebuild');

-- Sort and keyset indexes, each led by tenant_id and ended by id. (Customer name, stage,
-- status and owner have theirs since the leads migration; email's comes with the duplicate
-- check; an index on a rowid table carries the id at its end anyway.)
CREATE INDEX leads_company_name_idx ON leads (tenant_id, lower(company_name), id);
CREATE INDEX leads_created_idx ON leads (tenant_id, created_at, id);
CREATE INDEX leads_source_idx ON leads (tenant_id, lead_source_id, id);
CREATE INDEX leads_type_idx ON leads (tenant_id, lead_type_id, id);

-- Lead counts by stage, owner and creator (0 stands for none), kept by triggers: the total,
-- the won and lost cards and the stage and owner filters are counted from this small table,
-- for every user's record scope, instead of from the leads.
CREATE TABLE lead_counts (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  stage_id   INTEGER NOT NULL,
  owner_id   INTEGER NOT NULL,
  created_by INTEGER NOT NULL,
  n          INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, stage_id, owner_id, created_by)
) WITHOUT ROWID;

INSERT INTO lead_counts (tenant_id, stage_id, owner_id, created_by, n)
SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), count(*)
FROM leads GROUP BY 1, 2, 3, 4;

CREATE TRIGGER lead_counts_insert AFTER INSERT ON leads BEGIN
  INSERT INTO lead_counts (tenant_id, stage_id, owner_id, created_by, n)
  VALUES (NEW.tenant_id, COALESCE(NEW.lead_stage_id, 0), COALESCE(NEW.owner_id, 0), COALESCE(NEW.created_by, 0), 1)
  ON CONFLICT (tenant_id, stage_id, owner_id, created_by) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER lead_counts_delete AFTER DELETE ON leads BEGIN
  UPDATE lead_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND stage_id = COALESCE(OLD.lead_stage_id, 0)
    AND owner_id = COALESCE(OLD.owner_id, 0) AND created_by = COALESCE(OLD.created_by, 0);
END;
CREATE TRIGGER lead_counts_update AFTER UPDATE OF lead_stage_id, owner_id, created_by ON leads
WHEN OLD.lead_stage_id IS NOT NEW.lead_stage_id OR OLD.owner_id IS NOT NEW.owner_id OR OLD.created_by IS NOT NEW.created_by
BEGIN
  UPDATE lead_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND stage_id = COALESCE(OLD.lead_stage_id, 0)
    AND owner_id = COALESCE(OLD.owner_id, 0) AND created_by = COALESCE(OLD.created_by, 0);
  INSERT INTO lead_counts (tenant_id, stage_id, owner_id, created_by, n)
  VALUES (NEW.tenant_id, COALESCE(NEW.lead_stage_id, 0), COALESCE(NEW.owner_id, 0), COALESCE(NEW.created_by, 0), 1)
  ON CONFLICT (tenant_id, stage_id, owner_id, created_by) DO UPDATE SET n = n + 1;
END;
