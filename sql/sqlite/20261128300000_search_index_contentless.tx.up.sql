-- The search indexes keep no copy of the text and forget a record by its id alone. An FTS5
-- table over external content ('leads') could only forget a record by being given its old
-- text: every delete and every change of the text tokenized the old text again into its
-- trigrams and wrote a delete marker for each, as much work as indexing it. A contentless
-- table with contentless_delete (SQLite 3.43) marks the id deleted instead. Searches read
-- the index's rowids only (list_search.go), never its text, so nothing else changes.
--
-- deletemerge 0: by default FTS5 rewrites a segment whole once a tenth of its rows are marked
-- deleted, inside whichever write crosses that line: for an index merged into one segment
-- that is the whole index (120,000 leads: 1–2.8 s in one transaction, growing with the
-- index). The marks cost a search little, and the index's segments are merged, the
-- deleted entries dropped, when FTS5 merges a level or the importer tidies the index
-- (TidySearchIndex).
DROP TRIGGER leads_fts_insert;
DROP TRIGGER leads_fts_delete;
DROP TRIGGER leads_fts_update;
DROP TABLE leads_fts;
CREATE VIRTUAL TABLE leads_fts USING fts5(search_text, content='', contentless_delete=1, tokenize='trigram');
INSERT INTO leads_fts (rowid, search_text) SELECT id, search_text FROM leads;
INSERT INTO leads_fts (leads_fts) VALUES ('optimize');
INSERT INTO leads_fts (leads_fts, rank) VALUES ('deletemerge', 0);
CREATE TRIGGER leads_fts_insert AFTER INSERT ON leads BEGIN
  INSERT INTO leads_fts (rowid, search_text) VALUES (NEW.id, NEW.search_text);
END;
CREATE TRIGGER leads_fts_delete AFTER DELETE ON leads BEGIN
  DELETE FROM leads_fts WHERE rowid = OLD.id;
END;
CREATE TRIGGER leads_fts_update AFTER UPDATE OF search_text ON leads
WHEN OLD.search_text IS NOT NEW.search_text
BEGIN
  UPDATE leads_fts SET search_text = NEW.search_text WHERE rowid = NEW.id;
END;

DROP TRIGGER clients_fts_insert;
DROP TRIGGER clients_fts_delete;
DROP TRIGGER clients_fts_update;
DROP TABLE clients_fts;
CREATE VIRTUAL TABLE clients_fts USING fts5(search_text, content='', contentless_delete=1, tokenize='trigram');
INSERT INTO clients_fts (rowid, search_text) SELECT id, search_text FROM clients;
INSERT INTO clients_fts (clients_fts) VALUES ('optimize');
INSERT INTO clients_fts (clients_fts, rank) VALUES ('deletemerge', 0);
CREATE TRIGGER clients_fts_insert AFTER INSERT ON clients BEGIN
  INSERT INTO clients_fts (rowid, search_text) VALUES (NEW.id, NEW.search_text);
END;
CREATE TRIGGER clients_fts_delete AFTER DELETE ON clients BEGIN
  DELETE FROM clients_fts WHERE rowid = OLD.id;
END;
CREATE TRIGGER clients_fts_update AFTER UPDATE OF search_text ON clients
WHEN OLD.search_text IS NOT NEW.search_text
BEGIN
  UPDATE clients_fts SET search_text = NEW.search_text WHERE rowid = NEW.id;
END;
