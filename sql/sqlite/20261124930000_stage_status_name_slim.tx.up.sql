-- The stage + status + name index as on PostgreSQL, without the owner and creator columns
-- (the stage + status counts come from lead_counts now).
DROP INDEX leads_stage_status_name_idx;
CREATE INDEX leads_stage_status_name_idx
  ON leads (tenant_id, lead_stage_id, lead_status_id, lower(customer_name), id);
