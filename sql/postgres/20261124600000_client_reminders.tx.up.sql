-- A reminder belongs to a lead or to a client (exactly one): a client created without a
-- lead gets its own reminders (its keep-in-touch calls and meetings among them).
ALTER TABLE reminders ALTER COLUMN lead_id DROP NOT NULL;
ALTER TABLE reminders ADD COLUMN client_id bigint;
ALTER TABLE reminders ADD FOREIGN KEY (tenant_id, client_id) REFERENCES clients (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE reminders ADD CONSTRAINT reminders_one_record CHECK ((lead_id IS NULL) <> (client_id IS NULL));
CREATE INDEX reminders_client_idx ON reminders (tenant_id, client_id, due_at) WHERE client_id IS NOT NULL;
