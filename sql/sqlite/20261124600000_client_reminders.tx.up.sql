-- A reminder belongs to a lead or to a client (exactly one): a client created without a
-- lead gets its own reminders (its keep-in-touch calls and meetings among them). SQLite
-- cannot drop a NOT NULL: the table is rebuilt, its rows and ids kept (nothing refers to it).
CREATE TABLE reminders_new (
  tenant_id   INTEGER NOT NULL REFERENCES tenants (id),
  id          INTEGER PRIMARY KEY,
  lead_id     INTEGER,
  client_id   INTEGER,
  title       TEXT NOT NULL,
  note        TEXT NOT NULL DEFAULT '',
  due_at      TIMESTAMP NOT NULL,
  assignee_id INTEGER NOT NULL,
  fired_at    TIMESTAMP,
  done_at     TIMESTAMP,
  created_by  INTEGER,
  created_at  TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at  TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  kit_id      INTEGER,
  UNIQUE (tenant_id, id),
  CHECK ((lead_id IS NULL) <> (client_id IS NULL)),
  FOREIGN KEY (tenant_id, lead_id) REFERENCES leads (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, client_id) REFERENCES clients (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, assignee_id) REFERENCES users (tenant_id, id),
  FOREIGN KEY (tenant_id, created_by) REFERENCES users (tenant_id, id)
);
INSERT INTO reminders_new (tenant_id, id, lead_id, title, note, due_at, assignee_id, fired_at, done_at, created_by, created_at, updated_at, kit_id)
SELECT tenant_id, id, lead_id, title, note, due_at, assignee_id, fired_at, done_at, created_by, created_at, updated_at, kit_id FROM reminders;
DROP TABLE reminders;
ALTER TABLE reminders_new RENAME TO reminders;
CREATE INDEX reminders_lead_idx ON reminders (tenant_id, lead_id, due_at);
CREATE INDEX reminders_client_idx ON reminders (tenant_id, client_id, due_at) WHERE client_id IS NOT NULL;
CREATE INDEX reminders_assignee_idx ON reminders (tenant_id, assignee_id, due_at) WHERE done_at IS NULL;
CREATE INDEX reminders_unfired_idx ON reminders (due_at) WHERE fired_at IS NULL;
CREATE INDEX reminders_kit_idx ON reminders (tenant_id, assignee_id, due_at) WHERE kit_id IS NOT NULL;
