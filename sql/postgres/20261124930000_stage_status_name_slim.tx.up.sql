-- The stage + status + name index carried owner_id and created_by so an "own records"
-- user's capped count of a stage + status filter could read the index alone. That count now
-- comes from lead_counts (20261124860000), so the two columns only spare the page a heap
-- visit per examined entry (about 175 for an own user's 21 rows); they cost 35 MiB at
-- 2,000,000 leads (issue 13: the database must stay under 1 GB per million leads).
DROP INDEX leads_stage_status_name_idx;
CREATE INDEX leads_stage_status_name_idx
  ON leads (tenant_id, lead_stage_id, lead_status_id, (lower(customer_name)) COLLATE "C", id);
