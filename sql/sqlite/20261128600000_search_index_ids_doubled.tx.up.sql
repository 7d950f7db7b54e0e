-- The search indexes keep each record under its id doubled (rowid = id × 2; Go's
-- searchRowidScale in app/store/list_search.go reads them back), in the same order as the
-- ids, with a gap between neighbours. A delete from a contentless FTS5 index marks the rowid
-- in a hash kept with the segment that holds it, at slot (rowid / pages) % slots, with
-- linear probing: the consecutive ids an import creates and then updates or undoes filled
-- runs of neighbouring slots, and every lookup that landed in a run walked it. A merge looks
-- up every entry it copies and a search every match it reads, so after 100,000 consecutive
-- leads of a million changed, the importer's tidy took 24 s of merging instead of 6 s, and
-- searches were four to six times slower until it had run. With the ids doubled, the
-- marks of consecutive ids take every other slot. Measured in docs/PERFORMANCE.md,
-- "Twenty-third round". The tables are otherwise as migration 20261128300000 made them.
DROP TRIGGER IF EXISTS leads_fts_insert;
DROP TRIGGER IF EXISTS leads_fts_delete;
DROP TRIGGER IF EXISTS leads_fts_update;
DROP TABLE IF EXISTS leads_fts;
CREATE VIRTUAL TABLE leads_fts USING fts5(search_text, content='', contentless_delete=1, tokenize='trigram');
INSERT INTO leads_fts (rowid, search_text) SELECT id * 2, search_text FROM leads;
INSERT INTO leads_fts (leads_fts) VALUES ('optimize');
INSERT INTO leads_fts (leads_fts, rank) VALUES ('deletemerge', 0);
CREATE TRIGGER leads_fts_insert AFTER INSERT ON leads BEGIN
  INSERT INTO leads_fts (rowid, search_text) VALUES (NEW.id * 2, NEW.search_text);
END;
CREATE TRIGGER leads_fts_delete AFTER DELETE ON leads BEGIN
  DELETE FROM leads_fts WHERE rowid = OLD.id * 2;
END;
CREATE TRIGGER leads_fts_update AFTER UPDATE OF search_text ON leads
WHEN OLD.search_text IS NOT NEW.search_text
BEGIN
  UPDATE leads_fts SET search_text = NEW.search_text WHERE rowid = NEW.id * 2;
END;

DROP TRIGGER IF EXISTS clients_fts_insert;
DROP TRIGGER IF EXISTS clients_fts_delete;
DROP TRIGGER IF EXISTS clients_fts_update;
DROP TABLE IF EXISTS clients_fts;
CREATE VIRTUAL TABLE clients_fts USING fts5(search_text, content='', contentless_delete=1, tokenize='trigram');
INSERT INTO clients_fts (rowid, search_text) SELECT id * 2, search_text FROM clients;
INSERT INTO clients_fts (clients_fts) VALUES ('optimize');
INSERT INTO clients_fts (clients_fts, rank) VALUES ('deletemerge', 0);
CREATE TRIGGER clients_fts_insert AFTER INSERT ON clients BEGIN
  INSERT INTO clients_fts (rowid, search_text) VALUES (NEW.id * 2, NEW.search_text);
END;
CREATE TRIGGER clients_fts_delete AFTER DELETE ON clients BEGIN
  DELETE FROM clients_fts WHERE rowid = OLD.id * 2;
END;
CREATE TRIGGER clients_fts_update AFTER UPDATE OF search_text ON clients
WHEN OLD.search_text IS NOT NEW.search_text
BEGIN
  UPDATE clients_fts SET search_text = NEW.search_text WHERE rowid = NEW.id * 2;
END;
