-- lead_counts gains the status: a list filtered by stage and status (and owner) — the
-- board's columns, a saved view, the stage+status filter sorted by name — then takes its
-- total from the counters, exactly and in one read of a few hundred rows, instead of
-- counting up to 10,001 leads through an index (issue 13). The table stays a few rows per
-- stage × status × owner × creator.
ALTER TABLE lead_counts ADD COLUMN status_id bigint NOT NULL DEFAULT 0;
ALTER TABLE lead_counts DROP CONSTRAINT lead_counts_pkey;
DELETE FROM lead_counts;
INSERT INTO lead_counts (tenant_id, stage_id, status_id, owner_id, created_by, n)
SELECT tenant_id, COALESCE(lead_stage_id, 0), COALESCE(lead_status_id, 0), COALESCE(owner_id, 0), COALESCE(created_by, 0), count(*)
FROM leads GROUP BY 1, 2, 3, 4, 5;
ALTER TABLE lead_counts ADD PRIMARY KEY (tenant_id, stage_id, status_id, owner_id, created_by);

CREATE OR REPLACE FUNCTION lead_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
