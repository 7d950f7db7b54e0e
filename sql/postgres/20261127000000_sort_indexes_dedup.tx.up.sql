-- Storage per lead, fourth round (issue 13; docs/PERFORMANCE.md, "Seventh round").
--
-- The text sort indexes were (tenant_id, key, id): the id made every entry unique, so
-- nbtree could not deduplicate a name shared by many leads, and a new lead went at the end
-- of its name's run, which split full pages in half for good (the customer-name index was
-- 54.5 % full on a seed of 2 × 1,000,000, the stage + status + name index 68.6 %, together
-- with the company and email indexes 664 MB, 0.33 GB a million leads).
--
-- Without the id, equal keys share one entry and a list of row pointers (deduplication):
-- a tenant's thousands of "Priya Sharma" cost little more than one. The lists still read
-- these indexes in the sort's order and stop after a page: the key from the index, the
-- tie on the id by an incremental sort of each run of equal keys (PostgreSQL's
-- "Incremental Sort", presorted on the key), and a keyset cursor's (key, id) row
-- comparison seeks the index on the key and filters the tie. A run is read whole, so a page
-- costs the leads sharing its names (on the bench's seed of 1,600 names, ~600 a name; real
-- names repeat far less). SQLite keeps its (tenant_id, key, id) indexes: its file was
-- under the budget, and its planner has no incremental sort.
SET LOCAL maintenance_work_mem = '256MB';
DROP INDEX leads_customer_name_c_idx;
DROP INDEX leads_company_name_c_idx;
DROP INDEX leads_email_c_idx;
DROP INDEX leads_stage_status_name_idx;
CREATE INDEX leads_customer_name_c_idx ON leads (tenant_id, (lower(customer_name)) COLLATE "C");
CREATE INDEX leads_company_name_c_idx ON leads (tenant_id, (lower(company_name)) COLLATE "C");
CREATE INDEX leads_email_c_idx ON leads (tenant_id, company_email);
CREATE INDEX leads_stage_status_name_idx
  ON leads (tenant_id, lead_stage_id, lead_status_id, (lower(customer_name)) COLLATE "C");
