CREATE TABLE saved_views (
  tenant_id  INTEGER NOT NULL,
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL,
  name       TEXT NOT NULL,
  query      TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, user_id, name),
  FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX leads_email_idx ON leads (tenant_id, company_email);
CREATE INDEX leads_phone_idx ON leads (tenant_id, company_phone_number);
