-- CSV imports of leads and clients: one row per import (its file, mapping, mode, progress
-- and counts), the uploaded file kept beside it, and one row per data row the import
-- processed: what happened to it, the record it created or updated, the before-values of an
-- update (so the import can be undone) and the reason of a skip or a failure.
CREATE TABLE imports (
  tenant_id     INTEGER NOT NULL REFERENCES tenants (id),
  id            INTEGER PRIMARY KEY,
  user_id       INTEGER NOT NULL,
  entity        TEXT NOT NULL,
  file_name     TEXT NOT NULL,
  file_size     INTEGER NOT NULL,
  delimiter     TEXT NOT NULL,
  encoding      TEXT NOT NULL,
  header        TEXT NOT NULL,
  preview       TEXT NOT NULL,
  total_rows    INTEGER NOT NULL,
  mapping       TEXT NOT NULL,
  mode          TEXT NOT NULL DEFAULT '',
  match_key     TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL,
  next_row      INTEGER NOT NULL DEFAULT 0,
  created_count INTEGER NOT NULL DEFAULT 0,
  updated_count INTEGER NOT NULL DEFAULT 0,
  skipped_count INTEGER NOT NULL DEFAULT 0,
  failed_count  INTEGER NOT NULL DEFAULT 0,
  undo_total    INTEGER NOT NULL DEFAULT 0,
  undone_count  INTEGER NOT NULL DEFAULT 0,
  error         TEXT NOT NULL DEFAULT '',
  claim         TEXT NOT NULL DEFAULT '',
  heartbeat_at  TIMESTAMP,
  started_at    TIMESTAMP,
  finished_at   TIMESTAMP,
  undone_at     TIMESTAMP,
  created_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id)
);
CREATE INDEX imports_user_idx ON imports (tenant_id, user_id, id);
-- The worker's sweep: imports waiting to run or to be undone, and ones whose runner stopped.
CREATE INDEX imports_active_idx ON imports (status, heartbeat_at) WHERE status IN ('queued', 'running', 'undo_queued', 'undoing');

CREATE TABLE import_files (
  tenant_id INTEGER NOT NULL,
  import_id INTEGER NOT NULL,
  content   BLOB NOT NULL,
  PRIMARY KEY (tenant_id, import_id),
  FOREIGN KEY (tenant_id, import_id) REFERENCES imports (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE import_rows (
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
) WITHOUT ROWID;

-- An import matches clients by email or phone, as leads already are.
CREATE INDEX clients_match_email_idx ON clients (tenant_id, company_email);
CREATE INDEX clients_match_phone_idx ON clients (tenant_id, company_phone_number);
