-- Storage per lead (issue 13): what a lead row and its indexes hold twice, dropped.
-- (docs/PERFORMANCE.md, "Cost per request (issue 13)" → "Storage", has the sizes.)
--
-- 1. One email index. leads_email_idx (tenant_id, company_email) served the equality
--    lookups (duplicate warnings, an import's match by email) and leads_email_c_idx
--    (tenant_id, company_email COLLATE "C", id) the sort and the short-term prefix search:
--    the same keys twice, as an equality in the column's collation could not use the "C"
--    index. The emails are stored lowercased and compared as bytes, so the column itself
--    now has the "C" collation and the one index serves both. The same for clients.
SET LOCAL maintenance_work_mem = '256MB';

DROP INDEX leads_email_idx;
DROP INDEX clients_match_email_idx;

-- 2. The client id of a mobile create is unique where it is given, which is rarely: the
--    unique key indexed every lead's NULL. (Dropped here, created after the rewrite.)
ALTER TABLE leads DROP CONSTRAINT leads_tenant_id_client_id_key;

-- 3. Addresses as arrays of their parts (app/store/address.go): the object's six keys were
--    half of every address. The search text loses its last word, the phone number alone,
--    which the number with its dial code before it already holds (Contact.searchText): an
--    empty number left a trailing space instead. One ALTER TABLE per table: a single
--    rewrite of the rows, which also rebuilds every index packed (the trigram index as a
--    fresh build, a third of its incrementally grown size).
ALTER TABLE leads
  ALTER COLUMN company_email TYPE text COLLATE "C",
  ALTER COLUMN billing_address TYPE jsonb USING CASE WHEN jsonb_typeof(billing_address) = 'object' THEN jsonb_build_array(
    COALESCE(billing_address->>'flatNo', ''), COALESCE(billing_address->>'street', ''), COALESCE(billing_address->>'city', ''),
    COALESCE(billing_address->>'state', ''), COALESCE(billing_address->>'zip', ''), COALESCE(billing_address->>'country', ''))
    ELSE billing_address END,
  ALTER COLUMN shipping_address TYPE jsonb USING CASE WHEN jsonb_typeof(shipping_address) = 'object' THEN jsonb_build_array(
    COALESCE(shipping_address->>'flatNo', ''), COALESCE(shipping_address->>'street', ''), COALESCE(shipping_address->>'city', ''),
    COALESCE(shipping_address->>'state', ''), COALESCE(shipping_address->>'zip', ''), COALESCE(shipping_address->>'country', ''))
    ELSE shipping_address END,
  ALTER COLUMN search_text TYPE text USING CASE
    WHEN company_phone_number <> '' AND right(search_text, length(company_phone_number) + 1) = ' ' || company_phone_number
      THEN left(search_text, -(length(company_phone_number) + 1))
    WHEN company_phone_number = '' AND right(search_text, 1) = ' ' THEN left(search_text, -1)
    ELSE search_text END;
ALTER TABLE clients
  ALTER COLUMN company_email TYPE text COLLATE "C",
  ALTER COLUMN billing_address TYPE jsonb USING CASE WHEN jsonb_typeof(billing_address) = 'object' THEN jsonb_build_array(
    COALESCE(billing_address->>'flatNo', ''), COALESCE(billing_address->>'street', ''), COALESCE(billing_address->>'city', ''),
    COALESCE(billing_address->>'state', ''), COALESCE(billing_address->>'zip', ''), COALESCE(billing_address->>'country', ''))
    ELSE billing_address END,
  ALTER COLUMN shipping_address TYPE jsonb USING CASE WHEN jsonb_typeof(shipping_address) = 'object' THEN jsonb_build_array(
    COALESCE(shipping_address->>'flatNo', ''), COALESCE(shipping_address->>'street', ''), COALESCE(shipping_address->>'city', ''),
    COALESCE(shipping_address->>'state', ''), COALESCE(shipping_address->>'zip', ''), COALESCE(shipping_address->>'country', ''))
    ELSE shipping_address END,
  ALTER COLUMN search_text TYPE text USING CASE
    WHEN company_phone_number <> '' AND right(search_text, length(company_phone_number) + 1) = ' ' || company_phone_number
      THEN left(search_text, -(length(company_phone_number) + 1))
    WHEN company_phone_number = '' AND right(search_text, 1) = ' ' THEN left(search_text, -1)
    ELSE search_text END;

CREATE UNIQUE INDEX leads_client_id_key ON leads (tenant_id, client_id) WHERE client_id IS NOT NULL;

-- The search text's 1,000-entry histogram (20261122000009_search_statistics), kept through
-- the change of type, and the statistics the rewrite dropped.
ALTER TABLE leads ALTER COLUMN search_text SET STATISTICS 1000;
ALTER TABLE clients ALTER COLUMN search_text SET STATISTICS 1000;
ANALYZE leads;
ANALYZE clients;
