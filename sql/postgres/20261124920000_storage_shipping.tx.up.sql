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
  IF TG_OP = 'UPDATE' AND NEW.shipping_address = '[]' AND OLD.shipping_address = '[]' THEN
    NEW.shipping_address := OLD.billing_address;
  END IF;
  IF NEW.shipping_address = NEW.billing_address THEN
    NEW.shipping_address := '[]';
  END IF;
  RETURN NEW;
END
$$;

-- 3. Addresses as text: each part after a unit separator (U+001F), "\x1f12B\x1fMG Road\x1f…"
--    (app/store/address.go), 40 bytes for the typical address where the JSON array of the
--    first round took 74 (jsonb's header and an offset for each of the six parts). A part
--    holding a unit separator itself keeps the JSON array (as text). The same for clients,
--    whose addresses the same code writes.
CREATE FUNCTION address_text(a jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN a IS NULL THEN NULL
    -- (jsonb's text writes a unit separator as \u001f)
    WHEN strpos(a::text, '\u001f') > 0 THEN a::text
    WHEN jsonb_typeof(a) = 'object' THEN
      chr(31) || COALESCE(a->>'flatNo', '') || chr(31) || COALESCE(a->>'street', '') || chr(31) || COALESCE(a->>'city', '') ||
      chr(31) || COALESCE(a->>'state', '') || chr(31) || COALESCE(a->>'zip', '') || chr(31) || COALESCE(a->>'country', '')
    WHEN jsonb_typeof(a) <> 'array' THEN a::text
    WHEN jsonb_array_length(a) <> 6 THEN a::text
    ELSE chr(31) || COALESCE(a->>0, '') || chr(31) || COALESCE(a->>1, '') || chr(31) || COALESCE(a->>2, '') ||
      chr(31) || COALESCE(a->>3, '') || chr(31) || COALESCE(a->>4, '') || chr(31) || COALESCE(a->>5, '')
  END
$$;

-- The rows written before: one rewrite of each table (an ALTER with USING), which also
-- rebuilds the remaining indexes packed.
ALTER TABLE leads
  ALTER COLUMN billing_address TYPE text USING address_text(billing_address),
  ALTER COLUMN shipping_address TYPE text
    USING CASE WHEN shipping_address = billing_address THEN '[]' ELSE address_text(shipping_address) END;
ALTER TABLE clients
  ALTER COLUMN billing_address TYPE text USING address_text(billing_address),
  ALTER COLUMN shipping_address TYPE text USING address_text(shipping_address);
DROP FUNCTION address_text(jsonb);

CREATE INDEX leads_type_idx ON leads (tenant_id, lead_type_id);
CREATE INDEX leads_source_idx ON leads (tenant_id, lead_source_id);
CREATE INDEX leads_created_by_idx ON leads (tenant_id, created_by);

-- (After the ALTER: a column in a trigger's WHEN or UPDATE OF cannot change type.)
CREATE TRIGGER leads_shipping_compact_insert BEFORE INSERT ON leads
  FOR EACH ROW WHEN (NEW.shipping_address = NEW.billing_address) EXECUTE FUNCTION leads_shipping_compact();
CREATE TRIGGER leads_shipping_compact_update BEFORE UPDATE OF billing_address, shipping_address ON leads
  FOR EACH ROW EXECUTE FUNCTION leads_shipping_compact();

