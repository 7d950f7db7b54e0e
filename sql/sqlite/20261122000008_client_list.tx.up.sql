-- The client list at scale, as the lead list: indexed search and keyset paging by every sort
-- column, each index led by tenant_id (an index on a rowid table carries the id at its end).

-- Search: an FTS5 trigram index over clients.search_text (external content: the text lives
-- once, in clients), kept in step by triggers. A phrase query is a case-insensitive substring
-- match of 3 characters or more; shorter terms use the name, company and email indexes.
CREATE VIRTUAL TABLE clients_fts USING fts5(search_text, content='clients', content_rowid='id', tokenize='trigram');
CREATE TRIGGER clients_fts_insert AFTER INSERT ON clients BEGIN
  INSERT INTO clients_fts (rowid, search_text) VALUES (NEW.id, NEW.search_text);
END;
CREATE TRIGGER clients_fts_delete AFTER DELETE ON clients BEGIN
  INSERT INTO clients_fts (clients_fts, rowid, search_text) VALUES ('delete', OLD.id, OLD.search_text);
END;
CREATE TRIGGER clients_fts_update AFTER UPDATE OF search_text ON clients BEGIN
  INSERT INTO clients_fts (clients_fts, rowid, search_text) VALUES ('delete', OLD.id, OLD.search_text);
  INSERT INTO clients_fts (rowid, search_text) VALUES (NEW.id, NEW.search_text);
END;
INSERT INTO clients_fts (clients_fts) VALUES ('rebuild');

-- Sort and keyset indexes. Customer name (clients_name_idx), creation time
-- (clients_created_idx), owner (clients_owner_idx) and email (clients_match_email_idx) have
-- theirs already; the company sort gets one.
CREATE INDEX clients_company_name_idx ON clients (tenant_id, lower(company_name), id);
