-- The shipping address's trigger (20261124920000_storage_shipping) runs only for a row whose
-- addresses change (issue 13; docs/PERFORMANCE.md, "Thirteenth round").
--
-- An import's batch now updates its records with one statement, which names every column
-- any of them changes and gives the others their own value back. A trigger BEFORE UPDATE OF
-- a column fires for every row of a statement that names the column, so each row of a batch
-- where one record moved house called the function. For a row whose two addresses stay as
-- they were, the function leaves them as they are (a stored "[]" stays "[]"), so the WHEN
-- clause changes no result, only which rows pay for a call.
DROP TRIGGER leads_shipping_compact_update ON leads;
CREATE TRIGGER leads_shipping_compact_update BEFORE UPDATE OF billing_address, shipping_address ON leads
  FOR EACH ROW
  WHEN (NEW.billing_address IS DISTINCT FROM OLD.billing_address OR NEW.shipping_address IS DISTINCT FROM OLD.shipping_address)
  EXECUTE FUNCTION leads_shipping_compact();
