-- Email templates (issue 12, campaigns): a template's default subject and body (Markdown,
-- which may hold plain HTML; sanitised when rendered) with merge fields, its per-locale
-- variants, and the bulk sends of a template to a list of leads (a job, its recipients).

CREATE TABLE email_templates (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  subject    TEXT NOT NULL,
  body       TEXT NOT NULL,
  created_by INTEGER,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  UNIQUE (tenant_id, name)
);

-- A language's variant of a template (locale: one of the admin locales, "fr_FR").
CREATE TABLE email_template_variants (
  tenant_id   INTEGER NOT NULL REFERENCES tenants (id),
  template_id INTEGER NOT NULL,
  locale      TEXT NOT NULL,
  subject     TEXT NOT NULL,
  body        TEXT NOT NULL,
  PRIMARY KEY (tenant_id, template_id, locale),
  FOREIGN KEY (tenant_id, template_id) REFERENCES email_templates (tenant_id, id) ON DELETE CASCADE
);

-- A bulk send of a template to leads: queued, running, done or failed, with its counts.
-- The template's name is kept: the report outlives a deleted template.
CREATE TABLE email_sends (
  tenant_id            INTEGER NOT NULL REFERENCES tenants (id),
  id                   INTEGER PRIMARY KEY,
  template_id          INTEGER NOT NULL,
  template_name        TEXT NOT NULL,
  created_by           INTEGER,
  status               TEXT NOT NULL DEFAULT 'queued',
  total                INTEGER NOT NULL DEFAULT 0,
  processed            INTEGER NOT NULL DEFAULT 0,
  queued               INTEGER NOT NULL DEFAULT 0,
  skipped_no_email     INTEGER NOT NULL DEFAULT 0,
  skipped_unsubscribed INTEGER NOT NULL DEFAULT 0,
  skipped_invalid      INTEGER NOT NULL DEFAULT 0,
  last_error           TEXT NOT NULL DEFAULT '',
  created_at           TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  finished_at          TIMESTAMP,
  UNIQUE (tenant_id, id),
  CHECK (status IN ('queued', 'running', 'done', 'failed'))
);
CREATE INDEX email_sends_pending_idx ON email_sends (tenant_id, id) WHERE status IN ('queued', 'running');

-- The leads of a send, fixed when it is created; outcome '' until its batch runs, then
-- queued, no_email, unsubscribed or invalid (gone meanwhile, or a rendered subject refused).
CREATE TABLE email_send_recipients (
  tenant_id INTEGER NOT NULL REFERENCES tenants (id),
  send_id   INTEGER NOT NULL,
  lead_id   INTEGER NOT NULL,
  outcome   TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (tenant_id, send_id, lead_id),
  FOREIGN KEY (tenant_id, send_id) REFERENCES email_sends (tenant_id, id) ON DELETE CASCADE
);
