-- The list's total and its won/lost summary from a few counters instead of lead_counts' all
-- (issue 13; docs/PERFORMANCE.md, "Twenty-eighth round").
--
-- Page 1 of the lead list reads its total, won and lost from lead_counts, whose key is
-- stage, status, owner and creator: 1,200 counters for a tenant of ten users, summed by
-- every list request (0.3–0.4 ms, a quarter to a third of page 1's SQL, and 11 % of the
-- database's time under the bench's mixed load). Won and lost, and a total filtered on
-- stage and status only, need neither the owner nor the creator, except for the scope's
-- own records. lead_user_counts keeps the same leads by stage and status for the tenant as a
-- whole (user_id 0) and for each user who owns or created them (a lead counted once for its
-- owner and once for its creator when another user, as lead_day_counts fans out): the
-- whole tenant's dozen counters for an administrator, the user's for an "own" scope.
-- A team scope and an owner filter still sum lead_counts.
--
-- Kept by the same functions as lead_counts, from the same moves, right after it: a
-- statement's triggers (lead_counts_apply) and an import batch's or a staged
-- transaction's flush (counts_flush), each in one upsert in key order. (Triggers on
-- lead_counts would have added its moves in two passes, the rows an upsert inserted and
-- those it updated, and two writers could each lock a counter the other waits for.)
CREATE TABLE lead_user_counts (
  tenant_id bigint NOT NULL,
  user_id   bigint NOT NULL, -- 0: every lead of the tenant
  stage_id  bigint NOT NULL,
  status_id bigint NOT NULL,
  n         bigint NOT NULL,
  PRIMARY KEY (tenant_id, user_id, stage_id, status_id)
);
SELECT tenant_rls('lead_user_counts');

CREATE OR REPLACE FUNCTION lead_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('app.counts_staged', true) = 'on' THEN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO pg_temp.staged_lead_moves
      SELECT tenant_id, lead_stage_id, lead_status_id, lead_source_id, owner_id, created_by, created_at, 1 FROM new_rows;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO pg_temp.staged_lead_moves
      SELECT tenant_id, lead_stage_id, lead_status_id, lead_source_id, owner_id, created_by, created_at, -1 FROM old_rows;
    ELSE
      -- Only the rows whose counted columns change: the others' two moves cancel out.
      INSERT INTO pg_temp.staged_lead_moves
      SELECT m.* FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id,
        LATERAL (VALUES (n.tenant_id, n.lead_stage_id, n.lead_status_id, n.lead_source_id, n.owner_id, n.created_by, n.created_at, 1),
                        (o.tenant_id, o.lead_stage_id, o.lead_status_id, o.lead_source_id, o.owner_id, o.created_by, o.created_at, -1)) AS m
      WHERE (n.tenant_id, n.lead_stage_id, n.lead_status_id, n.lead_source_id, n.owner_id, n.created_by, n.created_at)
        IS DISTINCT FROM (o.tenant_id, o.lead_stage_id, o.lead_status_id, o.lead_source_id, o.owner_id, o.created_by, o.created_at);
    END IF;
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lead_counts AS c (tenant_id, stage_id, status_id, owner_id, created_by, n)
    SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(lead_status_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = c.n + EXCLUDED.n;
    INSERT INTO lead_user_counts AS c (tenant_id, user_id, stage_id, status_id, n)
    SELECT m.t, u.id, m.s, m.st, sum(m.d) FROM (SELECT tenant_id AS t, COALESCE(lead_stage_id, 0) AS s, COALESCE(lead_status_id, 0) AS st, owner_id AS o, created_by AS b, 1 AS d FROM new_rows) AS m,
      LATERAL (VALUES (0::bigint), (m.o), (CASE WHEN m.b IS DISTINCT FROM m.o THEN m.b END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3, 4 HAVING sum(m.d) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO lead_counts AS c (tenant_id, stage_id, status_id, owner_id, created_by, n)
    SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(lead_status_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = c.n + EXCLUDED.n;
    INSERT INTO lead_user_counts AS c (tenant_id, user_id, stage_id, status_id, n)
    SELECT m.t, u.id, m.s, m.st, sum(m.d) FROM (SELECT tenant_id AS t, COALESCE(lead_stage_id, 0) AS s, COALESCE(lead_status_id, 0) AS st, owner_id AS o, created_by AS b, -1 AS d FROM old_rows) AS m,
      LATERAL (VALUES (0::bigint), (m.o), (CASE WHEN m.b IS DISTINCT FROM m.o THEN m.b END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3, 4 HAVING sum(m.d) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = c.n + EXCLUDED.n;
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
    INSERT INTO lead_user_counts AS c (tenant_id, user_id, stage_id, status_id, n)
    SELECT m.t, u.id, m.s, m.st, sum(m.d) FROM (SELECT tenant_id AS t, COALESCE(lead_stage_id, 0) AS s, COALESCE(lead_status_id, 0) AS st, owner_id AS o, created_by AS b, 1 AS d FROM new_rows
      UNION ALL SELECT tenant_id AS t, COALESCE(lead_stage_id, 0) AS s, COALESCE(lead_status_id, 0) AS st, owner_id AS o, created_by AS b, -1 AS d FROM old_rows) AS m,
      LATERAL (VALUES (0::bigint), (m.o), (CASE WHEN m.b IS DISTINCT FROM m.o THEN m.b END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3, 4 HAVING sum(m.d) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$ SET search_path FROM CURRENT SET enable_hashjoin = on;

CREATE OR REPLACE FUNCTION counts_flush() RETURNS void LANGUAGE plpgsql AS $$
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

  INSERT INTO lead_user_counts AS c (tenant_id, user_id, stage_id, status_id, n)
  SELECT r.tenant_id, u.id, COALESCE(r.stage_id, 0), COALESCE(r.status_id, 0), sum(r.n)
  FROM pg_temp.staged_lead_moves AS r, LATERAL (VALUES (0::bigint), (r.owner_id),
    (CASE WHEN r.created_by IS DISTINCT FROM r.owner_id THEN r.created_by END)) AS u (id)
  WHERE u.id IS NOT NULL
  GROUP BY 1, 2, 3, 4 HAVING sum(r.n) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = c.n + EXCLUDED.n;

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

-- The counters of the leads there are.
INSERT INTO lead_user_counts (tenant_id, user_id, stage_id, status_id, n)
SELECT m.tenant_id, u.id, m.stage_id, m.status_id, sum(m.n)
FROM lead_counts AS m,
  LATERAL (VALUES (0::bigint), (NULLIF(m.owner_id, 0)),
    (CASE WHEN m.created_by <> m.owner_id THEN NULLIF(m.created_by, 0) END)) AS u (id)
WHERE u.id IS NOT NULL
GROUP BY 1, 2, 3, 4 HAVING sum(m.n) <> 0;
