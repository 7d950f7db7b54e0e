-- Dashboard figures at a million leads per tenant: leads and clients pre-counted per UTC day,
-- kept in step by statement triggers in the transaction that changes the rows, so a
-- dashboard reads a few thousand counters instead of the leads.
--
-- user_id says whose counters a row holds: 0 counts every lead of the tenant (the "all"
-- record scope); a user's id counts the leads that user owns or created (the "own" scope:
-- owner_id = user OR created_by = user). A lead is counted once under 0, once under its
-- owner, and once more under its creator when the creator is someone else. 0 stands for
-- "none" in stage_id, status_id and source_id.
CREATE TABLE lead_day_counts (
  tenant_id bigint NOT NULL REFERENCES tenants (id),
  user_id   bigint NOT NULL,
  day       date   NOT NULL,
  stage_id  bigint NOT NULL,
  status_id bigint NOT NULL,
  source_id bigint NOT NULL,
  n         bigint NOT NULL,
  PRIMARY KEY (tenant_id, user_id, day, stage_id, status_id, source_id)
);

CREATE TABLE client_day_counts (
  tenant_id bigint NOT NULL REFERENCES tenants (id),
  user_id   bigint NOT NULL,
  day       date   NOT NULL,
  n         bigint NOT NULL,
  PRIMARY KEY (tenant_id, user_id, day)
);

INSERT INTO lead_day_counts (tenant_id, user_id, day, stage_id, status_id, source_id, n)
SELECT l.tenant_id, u.id, (l.created_at AT TIME ZONE 'UTC')::date, COALESCE(l.lead_stage_id, 0),
       COALESCE(l.lead_status_id, 0), COALESCE(l.lead_source_id, 0), count(*)
FROM leads AS l, LATERAL (VALUES (0::bigint), (l.owner_id),
  (CASE WHEN l.created_by IS DISTINCT FROM l.owner_id THEN l.created_by END)) AS u (id)
WHERE u.id IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO client_day_counts (tenant_id, user_id, day, n)
SELECT c.tenant_id, u.id, (c.created_at AT TIME ZONE 'UTC')::date, count(*)
FROM clients AS c, LATERAL (VALUES (0::bigint), (c.owner_id),
  (CASE WHEN c.created_by IS DISTINCT FROM c.owner_id THEN c.created_by END)) AS u (id)
WHERE u.id IS NOT NULL
GROUP BY 1, 2, 3;

-- One upsert per statement, grouped and in key order (two statements never lock the same
-- counters in opposite orders); an update that moves no lead between counters writes nothing.
CREATE FUNCTION lead_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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

CREATE TRIGGER lead_day_counts_insert AFTER INSERT ON leads
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_day_counts_apply();
CREATE TRIGGER lead_day_counts_delete AFTER DELETE ON leads
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_day_counts_apply();
CREATE TRIGGER lead_day_counts_update AFTER UPDATE ON leads
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_day_counts_apply();

CREATE FUNCTION client_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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

CREATE TRIGGER client_day_counts_insert AFTER INSERT ON clients
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION client_day_counts_apply();
CREATE TRIGGER client_day_counts_delete AFTER DELETE ON clients
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION client_day_counts_apply();
CREATE TRIGGER client_day_counts_update AFTER UPDATE ON clients
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION client_day_counts_apply();
