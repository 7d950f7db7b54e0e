CREATE TABLE lead_masters (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  id         INTEGER PRIMARY KEY,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  sort_order INTEGER NOT NULL DEFAULT 0,
  is_default BOOLEAN NOT NULL DEFAULT 0,
  is_won     BOOLEAN NOT NULL DEFAULT 0,
  is_lost    BOOLEAN NOT NULL DEFAULT 0,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  UNIQUE (tenant_id, kind, name)
);
CREATE INDEX lead_masters_kind_idx ON lead_masters (tenant_id, kind, sort_order, id);

CREATE TABLE leads (
  tenant_id            INTEGER NOT NULL REFERENCES tenants (id),
  id                   INTEGER PRIMARY KEY,
  client_id            TEXT,
  customer_title       TEXT NOT NULL DEFAULT '',
  customer_name        TEXT NOT NULL,
  company_name         TEXT NOT NULL DEFAULT '',
  company_email        TEXT NOT NULL DEFAULT '',
  company_dial_code    TEXT NOT NULL DEFAULT '',
  company_phone_number TEXT NOT NULL DEFAULT '',
  company_type_id      INTEGER,
  lead_type_id         INTEGER,
  lead_source_id       INTEGER,
  lead_status_id       INTEGER,
  lead_stage_id        INTEGER,
  owner_id             INTEGER,
  created_by           INTEGER,
  billing_address      TEXT,
  shipping_address     TEXT,
  notes                TEXT NOT NULL DEFAULT '',
  search_text          TEXT NOT NULL DEFAULT '',
  created_at           TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at           TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  UNIQUE (tenant_id, client_id),
  FOREIGN KEY (tenant_id, company_type_id) REFERENCES lead_masters (tenant_id, id),
  FOREIGN KEY (tenant_id, lead_type_id) REFERENCES lead_masters (tenant_id, id),
  FOREIGN KEY (tenant_id, lead_source_id) REFERENCES lead_masters (tenant_id, id),
  FOREIGN KEY (tenant_id, lead_status_id) REFERENCES lead_masters (tenant_id, id),
  FOREIGN KEY (tenant_id, lead_stage_id) REFERENCES lead_masters (tenant_id, id),
  FOREIGN KEY (tenant_id, owner_id) REFERENCES users (tenant_id, id),
  FOREIGN KEY (tenant_id, created_by) REFERENCES users (tenant_id, id)
);
CREATE INDEX leads_tenant_idx ON leads (tenant_id, id);
CREATE INDEX leads_stage_idx ON leads (tenant_id, lead_stage_id, id);
CREATE INDEX leads_status_idx ON leads (tenant_id, lead_status_id, id);
CREATE INDEX leads_owner_idx ON leads (tenant_id, owner_id, id);
CREATE INDEX leads_created_by_idx ON leads (tenant_id, created_by, id);
CREATE INDEX leads_name_idx ON leads (tenant_id, lower(customer_name), id);

CREATE TABLE lead_logos (
  tenant_id  INTEGER NOT NULL,
  lead_id    INTEGER NOT NULL,
  media_type TEXT NOT NULL,
  data       BLOB NOT NULL,
  PRIMARY KEY (tenant_id, lead_id),
  FOREIGN KEY (tenant_id, lead_id) REFERENCES leads (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE idempotency_keys (
  tenant_id    INTEGER NOT NULL REFERENCES tenants (id),
  key          TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  lead_id      INTEGER NOT NULL,
  created_at   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (tenant_id, key),
  FOREIGN KEY (tenant_id, lead_id) REFERENCES leads (tenant_id, id) ON DELETE CASCADE
);
