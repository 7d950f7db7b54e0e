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
-- whole tenant's twelve counters for an administrator, the user's for an "own" scope.
-- A team scope and an owner filter still sum lead_counts.
--
-- Kept from lead_counts by statement triggers: every write of a lead reaches lead_counts
-- (its own triggers, or an import batch's counts_flush, once a batch), and each statement
-- that changes lead_counts adds its moves here in one statement, in key order.
CREATE TABLE lead_user_counts (
  tenant_id bigint NOT NULL,
  user_id   bigint NOT NULL, -- 0: every lead of the tenant
  stage_id  bigint NOT NULL,
  status_id bigint NOT NULL,
  n         bigint NOT NULL,
  PRIMARY KEY (tenant_id, user_id, stage_id, status_id)
);
SELECT tenant_rls('lead_user_counts');

-- Each statement's moves: lead_counts' rows as written (+n) and as they were (-n), to the
-- tenant's counter (user 0), the owner's and the creator's when another user (0: none).
-- The transition tables are visible to this function's own statements only, hence one
-- statement for each kind of write.
CREATE FUNCTION lead_user_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lead_user_counts AS c (tenant_id, user_id, stage_id, status_id, n)
    SELECT m.tenant_id, u.id, m.stage_id, m.status_id, sum(m.n)
    FROM (SELECT tenant_id, stage_id, status_id, owner_id, created_by, n FROM new_rows) AS m,
      LATERAL (VALUES (0::bigint), (NULLIF(m.owner_id, 0)),
        (CASE WHEN m.created_by <> m.owner_id THEN NULLIF(m.created_by, 0) END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3, 4 HAVING sum(m.n) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO lead_user_counts AS c (tenant_id, user_id, stage_id, status_id, n)
    SELECT m.tenant_id, u.id, m.stage_id, m.status_id, sum(m.n)
    FROM (SELECT tenant_id, stage_id, status_id, owner_id, created_by, -n AS n FROM old_rows) AS m,
      LATERAL (VALUES (0::bigint), (NULLIF(m.owner_id, 0)),
        (CASE WHEN m.created_by <> m.owner_id THEN NULLIF(m.created_by, 0) END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3, 4 HAVING sum(m.n) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO lead_user_counts AS c (tenant_id, user_id, stage_id, status_id, n)
    SELECT m.tenant_id, u.id, m.stage_id, m.status_id, sum(m.n)
    FROM (SELECT tenant_id, stage_id, status_id, owner_id, created_by, n FROM new_rows
          UNION ALL SELECT tenant_id, stage_id, status_id, owner_id, created_by, -n FROM old_rows) AS m,
      LATERAL (VALUES (0::bigint), (NULLIF(m.owner_id, 0)),
        (CASE WHEN m.created_by <> m.owner_id THEN NULLIF(m.created_by, 0) END)) AS u (id)
    WHERE u.id IS NOT NULL
    GROUP BY 1, 2, 3, 4 HAVING sum(m.n) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, user_id, stage_id, status_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END
$$ SET search_path FROM CURRENT;

CREATE TRIGGER lead_user_counts_insert AFTER INSERT ON lead_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_user_counts_apply();
CREATE TRIGGER lead_user_counts_update AFTER UPDATE ON lead_counts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_user_counts_apply();
CREATE TRIGGER lead_user_counts_delete AFTER DELETE ON lead_counts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lead_user_counts_apply();

-- The counters of the leads there are.
INSERT INTO lead_user_counts (tenant_id, user_id, stage_id, status_id, n)
SELECT m.tenant_id, u.id, m.stage_id, m.status_id, sum(m.n)
FROM lead_counts AS m,
  LATERAL (VALUES (0::bigint), (NULLIF(m.owner_id, 0)),
    (CASE WHEN m.created_by <> m.owner_id THEN NULLIF(m.created_by, 0) END)) AS u (id)
WHERE u.id IS NOT NULL
GROUP BY 1, 2, 3, 4 HAVING sum(m.n) <> 0;
