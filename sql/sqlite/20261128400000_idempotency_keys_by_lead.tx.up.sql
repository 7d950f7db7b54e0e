-- A lead's delete cascades to its idempotency keys (ON DELETE CASCADE), and the database
-- looks them up by (tenant_id, lead_id) for every lead deleted. Keyed by (tenant_id, key)
-- alone, that lookup read every key of the tenant: with 100,000 keys (one a lead created
-- from the mobile app), deleting 4,000 leads took 3 min 29 s on SQLite instead of 0.45 s,
-- and 27.1 s on PostgreSQL instead of 0.12 s (docs/PERFORMANCE.md, "Twenty-first round"):
-- an import's undo or a bulk delete grew with the square of the tenant's size.
CREATE INDEX idempotency_keys_lead_idx ON idempotency_keys (tenant_id, lead_id);
