-- An import's rows are kept in the order they are written, not by row number. The importer
-- applies a window of a file's rows in the order of the records they change
-- (importer.Window), so each batch records outcomes of rows from all over the window. In a
-- WITHOUT ROWID table every row, with its before-values (a whole record, about 1 KB), sits in
-- its key's B-tree: each batch rewrote pages all over the import's rows, and undid what the
-- order saved on the leads (docs/PERFORMANCE.md, "Twentieth round"). A rowid table appends
-- them; the key's index holds the row numbers only.
CREATE TABLE import_rows_in_write_order (
  tenant_id INTEGER NOT NULL,
  import_id INTEGER NOT NULL,
  row_no    INTEGER NOT NULL,
  outcome   TEXT NOT NULL,
  entity_id INTEGER,
  before    TEXT,
  reason    TEXT,
  undone    BOOLEAN NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, import_id, row_no),
  FOREIGN KEY (tenant_id, import_id) REFERENCES imports (tenant_id, id) ON DELETE CASCADE
);

INSERT INTO import_rows_in_write_order (tenant_id, import_id, row_no, outcome, entity_id, before, reason, undone)
SELECT tenant_id, import_id, row_no, outcome, entity_id, before, reason, undone FROM import_rows;

DROP TABLE import_rows;

ALTER TABLE import_rows_in_write_order RENAME TO import_rows;
