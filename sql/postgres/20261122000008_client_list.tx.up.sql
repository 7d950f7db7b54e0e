-- The client list at scale, as the lead list: indexed search and keyset paging by every sort
-- column, each index led by tenant_id and ended by id (the tie-breaker).

-- Search: the lowercased search_text under a trigram index scoped by tenant (btree_gin puts
-- tenant_id in the same GIN index; pg_trgm and btree_gin come with the lead search migration).
CREATE INDEX clients_search_idx ON clients USING gin (tenant_id, search_text gin_trgm_ops);

-- Text keys in the "C" collation: byte order, the order SQLite gives, and the one in which a
-- range (term <= key < term || U+10FFFF) is exactly a prefix match, for terms too short for
-- trigrams. The customer name index replaces the default-collation one. Creation time
-- (clients_created_idx) and owner (clients_owner_idx) have theirs already.
DROP INDEX clients_name_idx;
CREATE INDEX clients_customer_name_c_idx ON clients (tenant_id, lower(customer_name) COLLATE "C", id);
CREATE INDEX clients_company_name_c_idx ON clients (tenant_id, lower(company_name) COLLATE "C", id);
CREATE INDEX clients_email_c_idx ON clients (tenant_id, company_email COLLATE "C", id);
