CREATE TABLE clients (
  tenant_id            INTEGER NOT NULL REFERENCES tenants (id),
  id                   INTEGER PRIMARY KEY,
  lead_id              INTEGER,
  customer_title       TEXT NOT NULL DEFAULT '',
  customer_name        TEXT NOT NULL,
  company_name         TEXT NOT NULL DEFAULT '',
  company_email        TEXT NOT NULL DEFAULT '',
  company_dial_code    TEXT NOT NULL DEFAULT '',
  company_phone_number TEXT NOT NULL DEFAULT '',
  company_type_id      INTEGER,
  owner_id             INTEGER,
  created_by           INTEGER,
  billing_address      TEXT,
  shipping_address     TEXT,
  notes                TEXT NOT NULL DEFAULT '',
  search_text          TEXT NOT NULL DEFAULT '',
  created_at           TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at           TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  UNIQUE (tenant_id, lead_id),
  FOREIGN KEY (tenant_id, company_type_id) REFERENCES lead_masters (tenant_id, id),
  FOREIGN KEY (tenant_id, owner_id) REFERENCES users (tenant_id, id),
  FOREIGN KEY (tenant_id, created_by) REFERENCES users (tenant_id, id)
);
CREATE INDEX clients_owner_idx ON clients (tenant_id, owner_id, id);
CREATE INDEX clients_created_by_idx ON clients (tenant_id, created_by, id);
CREATE INDEX clients_name_idx ON clients (tenant_id, lower(customer_name), id);
CREATE INDEX clients_created_idx ON clients (tenant_id, created_at, id);

CREATE TABLE documents (
  tenant_id   INTEGER NOT NULL REFERENCES tenants (id),
  id          INTEGER PRIMARY KEY,
  entity      TEXT NOT NULL,
  entity_id   INTEGER NOT NULL,
  name        TEXT NOT NULL,
  tag         TEXT NOT NULL DEFAULT '',
  media_type  TEXT NOT NULL,
  size_bytes  INTEGER NOT NULL,
  storage_key TEXT NOT NULL,
  created_by  INTEGER,
  created_at  TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, storage_key),
  FOREIGN KEY (tenant_id, created_by) REFERENCES users (tenant_id, id)
);
CREATE INDEX documents_entity_idx ON documents (tenant_id, entity, entity_id, id);

CREATE TABLE reminders (
  tenant_id   INTEGER NOT NULL REFERENCES tenants (id),
  id          INTEGER PRIMARY KEY,
  lead_id     INTEGER NOT NULL,
  title       TEXT NOT NULL,
  note        TEXT NOT NULL DEFAULT '',
  due_at      TIMESTAMP NOT NULL,
  assignee_id INTEGER NOT NULL,
  fired_at    TIMESTAMP,
  done_at     TIMESTAMP,
  created_by  INTEGER,
  created_at  TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at  TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  FOREIGN KEY (tenant_id, lead_id) REFERENCES leads (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, assignee_id) REFERENCES users (tenant_id, id),
  FOREIGN KEY (tenant_id, created_by) REFERENCES users (tenant_id, id)
);
CREATE INDEX reminders_lead_idx ON reminders (tenant_id, lead_id, due_at);
CREATE INDEX reminders_assignee_idx ON reminders (tenant_id, assignee_id, due_at) WHERE done_at IS NULL;
CREATE INDEX reminders_unfired_idx ON reminders (due_at) WHERE fired_at IS NULL;
