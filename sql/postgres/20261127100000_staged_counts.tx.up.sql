-- Counters an import's batch adds up once, at its end (issue 13; docs/PERFORMANCE.md,
-- "Eighth round").
--
-- The counters' statement triggers (lead_counts, lead_day_counts and through it
-- lead_month_counts, client_day_counts) upsert their rows at the end of every statement
-- that writes leads or clients, and hold them locked to the commit. An import's batch runs
-- a dozen such statements (its update groups), each upserting the same counters again, and
-- two batches in flight at once would each hold some counters while waiting for others the
-- other holds: a deadlock.
--
-- A transaction that calls counts_stage() has its triggers set each statement's moves
-- aside instead (a row of the counted columns and +1 for a row written, -1 for a row as it
-- was, in temporary tables of its session), and counts_flush() adds the moves up and applies
-- them to the counters in one statement per table, in key order, as the last step before the
-- commit. Any other transaction is unchanged. The counters it writes are the triggers' own:
-- importertest.Scenario recounts them after each step of an import, checkCounters after
-- the store's import tests.
--
-- The counters lose their foreign key to tenants: they are derived from the leads and
-- clients, whose own keys hold the tenant, and the key's check was a third of the time of
-- a batch's flush (a lookup of the tenant for each of ~6,000 day counters a batch).

CREATE FUNCTION counts_stage() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF to_regclass('pg_temp.staged_lead_moves') IS NULL THEN
    CREATE TEMPORARY TABLE staged_lead_moves (tenant_id bigint NOT NULL, stage_id bigint, status_id bigint,
      source_id bigint, owner_id bigint, created_by bigint, created_at timestamptz NOT NULL, n int NOT NULL)
      ON COMMIT DELETE ROWS;
    CREATE TEMPORARY TABLE staged_client_moves (tenant_id bigint NOT NULL, owner_id bigint, created_by bigint,
      created_at timestamptz NOT NULL, n int NOT NULL) ON COMMIT DELETE ROWS;
  END IF;
  PERFORM set_config('app.counts_staged', 'on', true);
END
$$ SET search_path FROM CURRENT;

CREATE FUNCTION counts_flush() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('app.counts_staged', true) IS DISTINCT FROM 'on' THEN
    RETURN;
  END IF;
  PERFORM set_config('app.counts_staged', 'off', true); -- what the transaction writes after goes straight to the counters
  -- The months from the moves, below, rather than from the day counters' own trigger: a
  -- batch's leads fall on thousands of days but a few dozen months.
  PERFORM set_config('app.counts_flushing', 'on', true);
  INSERT INTO lead_counts AS c (tenant_id, stage_id, status_id, owner_id, created_by, n)
  SELECT tenant_id, COALESCE(stage_id, 0), COALESCE(status_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), sum(n)
  FROM pg_temp.staged_lead_moves
  GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = c.n + EXCLUDED.n;

  INSERT INTO lead_day_counts AS c (tenant_id, user_id, day, stage_id, status_id, source_id, n)
  SELECT r.tenant_id, u.id, (r.created_at AT TIME ZONE 'UTC')::date, COALESCE(r.stage_id, 0),
         COALESCE(r.status_id, 0), COALESCE(r.source_id, 0), sum(r.n)
  FROM pg_temp.staged_lead_moves AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
    (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
  WHERE u.id IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.n) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (tenant_id, user_id, day, stage_id, status_id, source_id) DO UPDATE SET n = c.n + EXCLUDED.n;

  PERFORM set_config('app.counts_flushing', 'off', true);

  INSERT INTO lead_month_counts AS c (tenant_id, user_id, month, stage_id, status_id, source_id, n)
  SELECT r.tenant_id, u.id, date_trunc('month', (r.created_at AT TIME ZONE 'UTC')::date)::date, COALESCE(r.stage_id, 0),
         COALESCE(r.status_id, 0), COALESCE(r.source_id, 0), sum(r.n)
  FROM pg_temp.staged_lead_moves AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
    (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
  WHERE u.id IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.n) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (tenant_id, user_id, month, stage_id, status_id, source_id) DO UPDATE SET n = c.n + EXCLUDED.n;

  INSERT INTO client_day_counts AS c (tenant_id, user_id, day, n)
  SELECT r.tenant_id, u.id, (r.created_at AT TIME ZONE 'UTC')::date, sum(r.n)
  FROM pg_temp.staged_client_moves AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
    (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
  WHERE u.id IS NOT NULL
  GROUP BY 1, 2, 3 HAVING sum(r.n) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET n = c.n + EXCLUDED.n;

  DELETE FROM pg_temp.staged_lead_moves;
  DELETE FROM pg_temp.staged_client_moves;
END
$$ SET search_path FROM CURRENT;

-- The leads' moves serve both lead_counts and lead_day_counts: lead_counts_apply sets them
-- aside and lead_day_counts_apply, when staged, has nothing left to do.
CREATE OR REPLACE FUNCTION lead_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('app.counts_staged', true) = 'on' THEN
    IF TG_OP <> 'DELETE' THEN
      INSERT INTO pg_temp.staged_lead_moves
      SELECT tenant_id, lead_stage_id, lead_status_id, lead_source_id, owner_id, created_by, created_at, 1 FROM new_rows;
    END IF;
    IF TG_OP <> 'INSERT' THEN
      INSERT INTO pg_temp.staged_lead_moves
      SELECT tenant_id, lead_stage_id, lead_status_id, lead_source_id, owner_id, created_by, created_at, -1 FROM old_rows;
    END IF;
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lead_counts AS c (tenant_id, stage_id, status_id, owner_id, created_by, n)
    SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(lead_status_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO lead_counts AS c (tenant_id, stage_id, status_id, owner_id, created_by, n)
    SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(lead_status_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO lead_counts AS c (tenant_id, stage_id, status_id, owner_id, created_by, n)
    SELECT t, s, st, o, b, sum(d) FROM (
      SELECT tenant_id AS t, COALESCE(lead_stage_id, 0) AS s, COALESCE(lead_status_id, 0) AS st,
             COALESCE(owner_id, 0) AS o, COALESCE(created_by, 0) AS b, 1 AS d FROM new_rows
      UNION ALL
      SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(lead_status_id, 0), COALESCE(owner_id, 0),
             COALESCE(created_by, 0), -1 FROM old_rows
    ) AS moves
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$ SET search_path FROM CURRENT;

CREATE OR REPLACE FUNCTION lead_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('app.counts_staged', true) = 'on' THEN
    RETURN NULL; -- lead_counts_apply set the moves aside
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lead_day_counts AS c (tenant_id, user_id, day, stage_id, status_id, source_id, n)
    SELECT r.tenant_id, u.id, (r.created_at AT TIME ZONE 'UTC')::date, COALESCE(r.lead_stage_id, 0),
           COALESCE(r.lead_status_id, 0), COALESCE(r.lead_source_id, 0), count(*)
    FROM new_rows AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
      (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (tenant_id, user_id, day, stage_id, status_id, source_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO lead_day_counts AS c (tenant_id, user_id, day, stage_id, status_id, source_id, n)
    SELECT r.tenant_id, u.id, (r.created_at AT TIME ZONE 'UTC')::date, COALESCE(r.lead_stage_id, 0),
           COALESCE(r.lead_status_id, 0), COALESCE(r.lead_source_id, 0), -count(*)
    FROM old_rows AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
      (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (tenant_id, user_id, day, stage_id, status_id, source_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO lead_day_counts AS c (tenant_id, user_id, day, stage_id, status_id, source_id, n)
    SELECT t, u, d, s, st, so, sum(x) FROM (
      SELECT r.tenant_id AS t, u.id AS u, (r.created_at AT TIME ZONE 'UTC')::date AS d,
             COALESCE(r.lead_stage_id, 0) AS s, COALESCE(r.lead_status_id, 0) AS st,
             COALESCE(r.lead_source_id, 0) AS so, 1 AS x
      FROM new_rows AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
        (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
      WHERE u.id IS NOT NULL
      UNION ALL
      SELECT r.tenant_id, u.id, (r.created_at AT TIME ZONE 'UTC')::date, COALESCE(r.lead_stage_id, 0),
             COALESCE(r.lead_status_id, 0), COALESCE(r.lead_source_id, 0), -1
      FROM old_rows AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
        (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
      WHERE u.id IS NOT NULL
    ) AS moves
    GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(x) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (tenant_id, user_id, day, stage_id, status_id, source_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END

$$ SET search_path FROM CURRENT;

CREATE OR REPLACE FUNCTION client_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('app.counts_staged', true) = 'on' THEN
    IF TG_OP <> 'DELETE' THEN
      INSERT INTO pg_temp.staged_client_moves SELECT tenant_id, owner_id, created_by, created_at, 1 FROM new_rows;
    END IF;
    IF TG_OP <> 'INSERT' THEN
      INSERT INTO pg_temp.staged_client_moves SELECT tenant_id, owner_id, created_by, created_at, -1 FROM old_rows;
    END IF;
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO client_day_counts AS c (tenant_id, user_id, day, n)
    SELECT r.tenant_id, u.id, (r.created_at AT TIME ZONE 'UTC')::date, count(*)
    FROM new_rows AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
      (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO client_day_counts AS c (tenant_id, user_id, day, n)
    SELECT r.tenant_id, u.id, (r.created_at AT TIME ZONE 'UTC')::date, -count(*)
    FROM old_rows AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
      (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO client_day_counts AS c (tenant_id, user_id, day, n)
    SELECT t, u, d, sum(x) FROM (
      SELECT r.tenant_id AS t, u.id AS u, (r.created_at AT TIME ZONE 'UTC')::date AS d, 1 AS x
      FROM new_rows AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
        (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
      WHERE u.id IS NOT NULL
      UNION ALL
      SELECT r.tenant_id, u.id, (r.created_at AT TIME ZONE 'UTC')::date, -1
      FROM old_rows AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
        (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
      WHERE u.id IS NOT NULL
    ) AS moves
    GROUP BY 1, 2, 3 HAVING sum(x) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END

$$ SET search_path FROM CURRENT;

-- counts_flush writes the months of its moves itself.
CREATE OR REPLACE FUNCTION lead_month_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('app.counts_flushing', true) = 'on' THEN
    RETURN NULL;
  END IF;
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

ALTER TABLE lead_counts DROP CONSTRAINT IF EXISTS lead_counts_tenant_id_fkey;
ALTER TABLE lead_day_counts DROP CONSTRAINT IF EXISTS lead_day_counts_tenant_id_fkey;
ALTER TABLE lead_month_counts DROP CONSTRAINT IF EXISTS lead_month_counts_tenant_id_fkey;
ALTER TABLE client_day_counts DROP CONSTRAINT IF EXISTS client_day_counts_tenant_id_fkey;
