-- Storage per lead, second round (issue 13; docs/PERFORMANCE.md, "Cost per request (issue
-- 13)" → "Storage" → "Second round" has the sizes and the plans measured at a million).
SET LOCAL maintenance_work_mem = '256MB';

-- 1. The type, source and creator indexes lose their id: (tenant_id, X) instead of
--    (tenant_id, X, id). B-tree deduplication then stores each (tenant, value) once with a
--    list of row pointers, 6 bytes a lead instead of 36 (39 MB → 7 MB a million leads each).
--    What they served, and how it is served now (plans at a million, the PERFORMANCE.md
--    section; TestLeadListPlansUseIndexes holds them at 20,000):
--    - a filter by a common type or source, newest first: the primary key walked backwards
--      with the filter, stopping at the page's end (the planner's choice already at 10-30 %
--      of the leads); a rare value: these indexes, then the few rows sorted by id;
--    - the sort by source (each source in turn): the same, per source;
--    - the capped counts (10,001): an index-only scan of these indexes, as before;
--    - created_by: the "own records" scope's BitmapOr (owner_id = me OR created_by = me),
--      a bitmap, which needs no id order.
--    leads_owner_idx, leads_stage_idx and leads_status_idx keep their id: an owner or a
--    stage is often common and old at once (a rep who left, the won leads), where walking
--    the primary key from the newest lead would read most of the tenant.
--    (Dropped before the rewrite below, created after it: each is built once.)
DROP INDEX leads_type_idx;
DROP INDEX leads_source_idx;
DROP INDEX leads_created_by_idx;

-- 2. A shipping address equal to the billing address (most leads give one address) is
--    stored as the empty JSON array "[]" (5 bytes instead of ~75), and read back as a copy of
--    the billing address (app/store/address.go, Contact.AfterScanRow). A trigger writes it,
--    whatever wrote the row (forms, API, imports' set-based updates, undo, seed); the app
--    never writes "[]" itself (an address always has its six parts). On an update that keeps
--    the marker while changing the billing address, the shipping address is first put back
--    to the old billing address it stood for.
CREATE FUNCTION leads_shipping_compact() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.shipping_address = '[]'::jsonb AND OLD.shipping_address = '[]'::jsonb THEN
    NEW.shipping_address := OLD.billing_address;
  END IF;
  IF NEW.shipping_address = NEW.billing_address THEN
    NEW.shipping_address := '[]'::jsonb;
  END IF;
  RETURN NEW;
END
$$;

-- The rows written before: one rewrite of the table (an ALTER with USING), which also
-- rebuilds the remaining indexes packed.
ALTER TABLE leads ALTER COLUMN shipping_address TYPE jsonb
  USING CASE WHEN shipping_address = billing_address THEN '[]'::jsonb ELSE shipping_address END;

CREATE INDEX leads_type_idx ON leads (tenant_id, lead_type_id);
CREATE INDEX leads_source_idx ON leads (tenant_id, lead_source_id);
CREATE INDEX leads_created_by_idx ON leads (tenant_id, created_by);

-- (After the ALTER: a column in a trigger's WHEN or UPDATE OF cannot change type.)
CREATE TRIGGER leads_shipping_compact_insert BEFORE INSERT ON leads
  FOR EACH ROW WHEN (NEW.shipping_address = NEW.billing_address) EXECUTE FUNCTION leads_shipping_compact();
CREATE TRIGGER leads_shipping_compact_update BEFORE UPDATE OF billing_address, shipping_address ON leads
  FOR EACH ROW EXECUTE FUNCTION leads_shipping_compact();

