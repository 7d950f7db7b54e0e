-- Storage per lead, third round (issue 13; docs/PERFORMANCE.md, "Sixth round").
--
-- The stage, status and owner indexes were (tenant_id, X, id), and grew half full: a new
-- lead goes at the end of its stage's run, and nbtree packs such "ascending within a group"
-- inserts (its split after the new item, _bt_afternewitemoff) only for tuples of at most
-- two 8-byte keys; these had three, so a full page at the end of a run split in half and
-- its left half stayed so (52.7 % leaf density on a seed of 2 × 1,000,000; 133 MB each).
-- A master's or a user's id belongs to one tenant (lead_masters and users have an identity
-- id, and leads reference them through (tenant_id, id)), so (X, id) finds the same rows in
-- the same order as (tenant_id, X, id) did: the list's filters and its sort by stage or
-- status read one range per value newest first (list_pages.go's pageByGroup), the "own
-- records" scope ORs the owner's range with the creator's. Two keys: inserts pack them to
-- 90 % (≈ 60 MB each at 2,000,000 leads).
--
-- Without tenant_id a NULL of one tenant would sit beside every other tenant's NULLs, and a
-- page of the "no stage" group would walk them all: the three indexes hold only values, and
-- leads_unset_idx holds each tenant's leads that miss one of them (few: a lead gets the
-- default stage and status, and an owner, when created), in the tenant's id order.
SET LOCAL maintenance_work_mem = '256MB';
DROP INDEX leads_stage_idx;
DROP INDEX leads_status_idx;
DROP INDEX leads_owner_idx;
CREATE INDEX leads_stage_idx ON leads (lead_stage_id, id) WHERE lead_stage_id IS NOT NULL;
CREATE INDEX leads_status_idx ON leads (lead_status_id, id) WHERE lead_status_id IS NOT NULL;
CREATE INDEX leads_owner_idx ON leads (owner_id, id) WHERE owner_id IS NOT NULL;
CREATE INDEX leads_unset_idx ON leads (tenant_id, id)
  WHERE lead_stage_id IS NULL OR lead_status_id IS NULL OR owner_id IS NULL;
