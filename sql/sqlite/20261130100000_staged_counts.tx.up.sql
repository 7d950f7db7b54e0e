-- Counters a transaction that writes many leads or clients adds up once, at its end, as
-- PostgreSQL's counts_stage()/counts_flush() do (issue 13; docs/PERFORMANCE.md,
-- "Thirty-sixth round").
--
-- Every lead written moves up to ten counters through the triggers: its lead_counts row,
-- through that up to three lead_user_counts rows, up to three lead_day_counts rows and
-- through each its lead_month_counts row, each an upsert that seeks its own index (a client
-- moves three client_day_counts rows). An import's batch of 2,000 leads moves a few hundred
-- lead_counts keys and a few thousand day keys, over and over. Inserting 20,000 leads in one
-- statement took 3.8–4.0 s with those triggers and 2.2–3.0 s without them.
--
-- A transaction that puts a row in counts_staged (Scope.stageCounts: an import's batch, a
-- bulk change or delete, a conversion) has the triggers below set each record's moves aside
-- instead, one row a record in staged_lead_moves or staged_client_moves (+1 for a record as
-- written, -1 for a record as it was), and its flush (Scope.flushCounts, the last statements
-- before its commit) adds them up and upserts each counter table once, in key order, the
-- months from the moves rather than from each day counter's trigger
-- (counts_staged.flushing). The tables are empty again before the commit. SQLite has one
-- writer at a time, so no other transaction ever sees a row in them: every other write
-- goes to the counters as before. The counters the flush writes are the triggers' own:
-- checkCounters after the store's import and bulk tests, importertest.Scenario after each
-- step of an import.
CREATE TABLE counts_staged (flushing INTEGER NOT NULL DEFAULT 0);
CREATE TABLE staged_lead_moves (
  tenant_id  INTEGER NOT NULL,
  stage_id   INTEGER NOT NULL,
  status_id  INTEGER NOT NULL,
  source_id  INTEGER NOT NULL,
  owner_id   INTEGER,
  created_by INTEGER,
  day        TEXT NOT NULL,
  n          INTEGER NOT NULL
);
CREATE TABLE staged_client_moves (
  tenant_id  INTEGER NOT NULL,
  owner_id   INTEGER,
  created_by INTEGER,
  day        TEXT NOT NULL,
  n          INTEGER NOT NULL
);
-- Each move once for the tenant (user 0), once for its owner, once for its creator when
-- another user: the day and month counters' users.
CREATE VIEW staged_lead_user_moves AS
  SELECT tenant_id, 0 AS user_id, day, stage_id, status_id, source_id, n FROM staged_lead_moves
  UNION ALL
  SELECT tenant_id, owner_id, day, stage_id, status_id, source_id, n FROM staged_lead_moves WHERE owner_id IS NOT NULL
  UNION ALL
  SELECT tenant_id, created_by, day, stage_id, status_id, source_id, n FROM staged_lead_moves
  WHERE created_by IS NOT NULL AND created_by IS NOT owner_id;
CREATE VIEW staged_client_user_moves AS
  SELECT tenant_id, 0 AS user_id, day, n FROM staged_client_moves
  UNION ALL
  SELECT tenant_id, owner_id, day, n FROM staged_client_moves WHERE owner_id IS NOT NULL
  UNION ALL
  SELECT tenant_id, created_by, day, n FROM staged_client_moves WHERE created_by IS NOT NULL AND created_by IS NOT owner_id;

CREATE TRIGGER lead_moves_insert AFTER INSERT ON leads
WHEN EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  INSERT INTO staged_lead_moves VALUES (NEW.tenant_id, COALESCE(NEW.lead_stage_id, 0), COALESCE(NEW.lead_status_id, 0),
    COALESCE(NEW.lead_source_id, 0), NEW.owner_id, NEW.created_by, date(NEW.created_at), 1);
END;
CREATE TRIGGER lead_moves_delete AFTER DELETE ON leads
WHEN EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  INSERT INTO staged_lead_moves VALUES (OLD.tenant_id, COALESCE(OLD.lead_stage_id, 0), COALESCE(OLD.lead_status_id, 0),
    COALESCE(OLD.lead_source_id, 0), OLD.owner_id, OLD.created_by, date(OLD.created_at), -1);
END;
CREATE TRIGGER lead_moves_update
AFTER UPDATE OF tenant_id, lead_stage_id, lead_status_id, lead_source_id, owner_id, created_by, created_at ON leads
WHEN EXISTS (SELECT 1 FROM counts_staged) AND (OLD.tenant_id IS NOT NEW.tenant_id
  OR OLD.lead_stage_id IS NOT NEW.lead_stage_id OR OLD.lead_status_id IS NOT NEW.lead_status_id
  OR OLD.lead_source_id IS NOT NEW.lead_source_id OR OLD.owner_id IS NOT NEW.owner_id
  OR OLD.created_by IS NOT NEW.created_by OR date(OLD.created_at) IS NOT date(NEW.created_at))
BEGIN
  INSERT INTO staged_lead_moves VALUES (OLD.tenant_id, COALESCE(OLD.lead_stage_id, 0), COALESCE(OLD.lead_status_id, 0),
    COALESCE(OLD.lead_source_id, 0), OLD.owner_id, OLD.created_by, date(OLD.created_at), -1),
    (NEW.tenant_id, COALESCE(NEW.lead_stage_id, 0), COALESCE(NEW.lead_status_id, 0),
    COALESCE(NEW.lead_source_id, 0), NEW.owner_id, NEW.created_by, date(NEW.created_at), 1);
END;

CREATE TRIGGER client_moves_insert AFTER INSERT ON clients
WHEN EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  INSERT INTO staged_client_moves VALUES (NEW.tenant_id, NEW.owner_id, NEW.created_by, date(NEW.created_at), 1);
END;
CREATE TRIGGER client_moves_delete AFTER DELETE ON clients
WHEN EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  INSERT INTO staged_client_moves VALUES (OLD.tenant_id, OLD.owner_id, OLD.created_by, date(OLD.created_at), -1);
END;
CREATE TRIGGER client_moves_update AFTER UPDATE OF tenant_id, owner_id, created_by, created_at ON clients
WHEN EXISTS (SELECT 1 FROM counts_staged) AND (OLD.tenant_id IS NOT NEW.tenant_id OR OLD.owner_id IS NOT NEW.owner_id
  OR OLD.created_by IS NOT NEW.created_by OR date(OLD.created_at) IS NOT date(NEW.created_at))
BEGIN
  INSERT INTO staged_client_moves VALUES (OLD.tenant_id, OLD.owner_id, OLD.created_by, date(OLD.created_at), -1),
    (NEW.tenant_id, NEW.owner_id, NEW.created_by, date(NEW.created_at), 1);
END;

-- The triggers that move the counters directly (the clients' at the end), now only while
-- nothing is staged, and the month triggers of the day counters, now only while no flush
-- runs (it writes the months itself). Their bodies are unchanged.
DROP TRIGGER lead_counts_insert;
CREATE TRIGGER lead_counts_insert AFTER INSERT ON leads
WHEN NOT EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  INSERT INTO lead_counts (tenant_id, stage_id, status_id, owner_id, created_by, n)
  VALUES (NEW.tenant_id, COALESCE(NEW.lead_stage_id, 0), COALESCE(NEW.lead_status_id, 0), COALESCE(NEW.owner_id, 0),
          COALESCE(NEW.created_by, 0), 1)
  ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = n + 1;
END;

DROP TRIGGER lead_counts_update;
CREATE TRIGGER lead_counts_update AFTER UPDATE OF lead_stage_id, lead_status_id, owner_id, created_by ON leads
WHEN NOT EXISTS (SELECT 1 FROM counts_staged) AND (OLD.lead_stage_id IS NOT NEW.lead_stage_id OR OLD.lead_status_id IS NOT NEW.lead_status_id
  OR OLD.owner_id IS NOT NEW.owner_id OR OLD.created_by IS NOT NEW.created_by)
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

DROP TRIGGER lead_counts_delete;
CREATE TRIGGER lead_counts_delete AFTER DELETE ON leads
WHEN NOT EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  UPDATE lead_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND stage_id = COALESCE(OLD.lead_stage_id, 0)
    AND status_id = COALESCE(OLD.lead_status_id, 0)
    AND owner_id = COALESCE(OLD.owner_id, 0) AND created_by = COALESCE(OLD.created_by, 0);
END;

DROP TRIGGER lead_day_counts_insert;
CREATE TRIGGER lead_day_counts_insert AFTER INSERT ON leads
WHEN NOT EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  INSERT INTO lead_day_counts (tenant_id, user_id, day, stage_id, status_id, source_id, n)
  SELECT NEW.tenant_id, u.id, date(NEW.created_at), COALESCE(NEW.lead_stage_id, 0),
         COALESCE(NEW.lead_status_id, 0), COALESCE(NEW.lead_source_id, 0), 1
  FROM (SELECT 0 AS id UNION SELECT NEW.owner_id UNION SELECT NEW.created_by) AS u
  WHERE u.id IS NOT NULL
  ON CONFLICT (tenant_id, user_id, day, stage_id, status_id, source_id) DO UPDATE SET n = n + 1;
END;

DROP TRIGGER lead_day_counts_update;
CREATE TRIGGER lead_day_counts_update
AFTER UPDATE OF tenant_id, lead_stage_id, lead_status_id, lead_source_id, owner_id, created_by, created_at ON leads
WHEN NOT EXISTS (SELECT 1 FROM counts_staged) AND (OLD.tenant_id IS NOT NEW.tenant_id OR OLD.lead_stage_id IS NOT NEW.lead_stage_id
  OR OLD.lead_status_id IS NOT NEW.lead_status_id OR OLD.lead_source_id IS NOT NEW.lead_source_id
  OR OLD.owner_id IS NOT NEW.owner_id OR OLD.created_by IS NOT NEW.created_by
  OR date(OLD.created_at) IS NOT date(NEW.created_at))
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

DROP TRIGGER lead_day_counts_delete;
CREATE TRIGGER lead_day_counts_delete AFTER DELETE ON leads
WHEN NOT EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  UPDATE lead_day_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND user_id IN (0, OLD.owner_id, OLD.created_by) AND day = date(OLD.created_at)
    AND stage_id = COALESCE(OLD.lead_stage_id, 0) AND status_id = COALESCE(OLD.lead_status_id, 0)
    AND source_id = COALESCE(OLD.lead_source_id, 0);
END;

DROP TRIGGER lead_month_counts_insert;
CREATE TRIGGER lead_month_counts_insert AFTER INSERT ON lead_day_counts
WHEN NOT EXISTS (SELECT 1 FROM counts_staged WHERE flushing = 1)
BEGIN
  INSERT INTO lead_month_counts (tenant_id, user_id, month, stage_id, status_id, source_id, n)
  VALUES (NEW.tenant_id, NEW.user_id, substr(NEW.day, 1, 7) || '-01', NEW.stage_id, NEW.status_id, NEW.source_id, NEW.n)
  ON CONFLICT (tenant_id, user_id, month, stage_id, status_id, source_id) DO UPDATE SET n = n + excluded.n;
END;

DROP TRIGGER lead_month_counts_update;
CREATE TRIGGER lead_month_counts_update AFTER UPDATE OF n ON lead_day_counts
WHEN NOT EXISTS (SELECT 1 FROM counts_staged WHERE flushing = 1) AND (OLD.tenant_id = NEW.tenant_id AND OLD.user_id = NEW.user_id AND OLD.day = NEW.day
  AND OLD.stage_id = NEW.stage_id AND OLD.status_id = NEW.status_id AND OLD.source_id = NEW.source_id)
BEGIN
  UPDATE lead_month_counts SET n = n + NEW.n - OLD.n
  WHERE tenant_id = NEW.tenant_id AND user_id = NEW.user_id AND month = substr(NEW.day, 1, 7) || '-01'
    AND stage_id = NEW.stage_id AND status_id = NEW.status_id AND source_id = NEW.source_id;
END;

DROP TRIGGER client_day_counts_insert;
CREATE TRIGGER client_day_counts_insert AFTER INSERT ON clients
WHEN NOT EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  INSERT INTO client_day_counts (tenant_id, user_id, day, n)
  SELECT NEW.tenant_id, u.id, date(NEW.created_at), 1
  FROM (SELECT 0 AS id UNION SELECT NEW.owner_id UNION SELECT NEW.created_by) AS u
  WHERE u.id IS NOT NULL
  ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET n = n + 1;
END;

DROP TRIGGER client_day_counts_update;
CREATE TRIGGER client_day_counts_update AFTER UPDATE OF tenant_id, owner_id, created_by, created_at ON clients
WHEN NOT EXISTS (SELECT 1 FROM counts_staged) AND (OLD.tenant_id IS NOT NEW.tenant_id OR OLD.owner_id IS NOT NEW.owner_id OR OLD.created_by IS NOT NEW.created_by
  OR date(OLD.created_at) IS NOT date(NEW.created_at))
BEGIN
  UPDATE client_day_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND user_id IN (0, OLD.owner_id, OLD.created_by) AND day = date(OLD.created_at);
  INSERT INTO client_day_counts (tenant_id, user_id, day, n)
  SELECT NEW.tenant_id, u.id, date(NEW.created_at), 1
  FROM (SELECT 0 AS id UNION SELECT NEW.owner_id UNION SELECT NEW.created_by) AS u
  WHERE u.id IS NOT NULL
  ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET n = n + 1;
END;

DROP TRIGGER client_day_counts_delete;
CREATE TRIGGER client_day_counts_delete AFTER DELETE ON clients
WHEN NOT EXISTS (SELECT 1 FROM counts_staged)
BEGIN
  UPDATE client_day_counts SET n = n - 1
  WHERE tenant_id = OLD.tenant_id AND user_id IN (0, OLD.owner_id, OLD.created_by) AND day = date(OLD.created_at);
END;
