-- Storage per lead (issue 13): what a lead row and its indexes hold twice, dropped.
-- (docs/PERFORMANCE.md, "Cost per request (issue 13)" → "Storage", has the sizes.)

-- 1. leads_tenant_idx (tenant_id, id) is the index of the table's UNIQUE (tenant_id, id)
--    a second time (both end with the rowid, which is the id).
DROP INDEX leads_tenant_idx;

-- 2. Addresses as arrays of their parts (app/store/address.go): the object's six keys were
--    half of every address.
UPDATE leads SET billing_address = json_array(COALESCE(json_extract(billing_address, '$.flatNo'), ''), COALESCE(json_extract(billing_address, '$.street'), ''), COALESCE(json_extract(billing_address, '$.city'), ''), COALESCE(json_extract(billing_address, '$.state'), ''), COALESCE(json_extract(billing_address, '$.zip'), ''), COALESCE(json_extract(billing_address, '$.country'), '')) WHERE billing_address LIKE '{%';
UPDATE leads SET shipping_address = json_array(COALESCE(json_extract(shipping_address, '$.flatNo'), ''), COALESCE(json_extract(shipping_address, '$.street'), ''), COALESCE(json_extract(shipping_address, '$.city'), ''), COALESCE(json_extract(shipping_address, '$.state'), ''), COALESCE(json_extract(shipping_address, '$.zip'), ''), COALESCE(json_extract(shipping_address, '$.country'), '')) WHERE shipping_address LIKE '{%';
UPDATE clients SET billing_address = json_array(COALESCE(json_extract(billing_address, '$.flatNo'), ''), COALESCE(json_extract(billing_address, '$.street'), ''), COALESCE(json_extract(billing_address, '$.city'), ''), COALESCE(json_extract(billing_address, '$.state'), ''), COALESCE(json_extract(billing_address, '$.zip'), ''), COALESCE(json_extract(billing_address, '$.country'), '')) WHERE billing_address LIKE '{%';
UPDATE clients SET shipping_address = json_array(COALESCE(json_extract(shipping_address, '$.flatNo'), ''), COALESCE(json_extract(shipping_address, '$.street'), ''), COALESCE(json_extract(shipping_address, '$.city'), ''), COALESCE(json_extract(shipping_address, '$.state'), ''), COALESCE(json_extract(shipping_address, '$.zip'), ''), COALESCE(json_extract(shipping_address, '$.country'), '')) WHERE shipping_address LIKE '{%';

-- 3. The search text loses its last word, the phone number alone, which the number with its
--    dial code before it already holds (Contact.searchText); an empty number left a trailing
--    space instead. The FTS5 tables are rebuilt once from the new text rather than row by
--    row through their update triggers.
DROP TRIGGER leads_fts_update;
UPDATE leads SET search_text = CASE
    WHEN company_phone_number <> '' AND substr(search_text, -(length(company_phone_number) + 1)) = ' ' || company_phone_number
      THEN substr(search_text, 1, length(search_text) - length(company_phone_number) - 1)
    WHEN company_phone_number = '' AND substr(search_text, -1) = ' ' THEN substr(search_text, 1, length(search_text) - 1)
    ELSE search_text END;
INSERT INTO leads_fts (leads_fts) VALUES ('rebuild');
CREATE TRIGGER leads_fts_update AFTER UPDATE OF search_text ON leads BEGIN
  INSERT INTO leads_fts (leads_fts, rowid, search_text) VALUES ('delete', OLD.id, OLD.search_text);
  INSERT INTO leads_fts (rowid, search_text) VALUES (NEW.id, NEW.search_text);
END;
DROP TRIGGER clients_fts_update;
UPDATE clients SET search_text = CASE
    WHEN company_phone_number <> '' AND substr(search_text, -(length(company_phone_number) + 1)) = ' ' || company_phone_number
      THEN substr(search_text, 1, length(search_text) - length(company_phone_number) - 1)
    WHEN company_phone_number = '' AND substr(search_text, -1) = ' ' THEN substr(search_text, 1, length(search_text) - 1)
    ELSE search_text END;
INSERT INTO clients_fts (clients_fts) VALUES ('rebuild');
CREATE TRIGGER clients_fts_update AFTER UPDATE OF search_text ON clients BEGIN
  INSERT INTO clients_fts (clients_fts, rowid, search_text) VALUES ('delete', OLD.id, OLD.search_text);
  INSERT INTO clients_fts (rowid, search_text) VALUES (NEW.id, NEW.search_text);
END;
INSERT INTO leads_fts (leads_fts) VALUES ('optimize');
INSERT INTO clients_fts (clients_fts) VALUES ('optimize');
