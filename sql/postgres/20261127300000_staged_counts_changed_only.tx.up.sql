-- An import batch's update stages counter moves only for the leads whose counted columns
-- change (issue 13; docs/PERFORMANCE.md, "Thirteenth round").
--
-- lead_counts_apply, in a transaction that stages its counts (counts_stage), set aside two
-- moves for every updated lead, +1 as it is and -1 as it was, and counts_flush added them
-- up at the batch's end. For a lead whose stage, status, source, owner, creator and
-- creation time stay as they were (three in four leads of the realistic update file), the
-- two cancel out, and the flush grouped them for nothing: six rows a lead once the day
-- counters' users are spread. The update's moves now come from the old and new rows joined
-- by id, kept where a counted column differs. The join is a hash join: an import batch's
-- transaction plans without them (pgImportSettings), which would compare each of a batch's
-- rows with every other.

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
$$ SET search_path FROM CURRENT SET enable_hashjoin = on;
