-- Mail delivery (issue 12's foundation): the outbox, a tenant's SMTP server, and the
-- addresses that unsubscribed from its bulk mail. app/mail's sender delivers the outbox.

-- The outbox and the email history are one table: a message is written here (in the
-- transaction of whatever causes it) as queued, claimed by a sender (sending, with a lease
-- and a claim token), then sent, failed, or skipped as unsubscribed. from_address empty:
-- the tenant's configured sender at delivery.
CREATE TABLE emails (
  tenant_id         INTEGER NOT NULL REFERENCES tenants (id),
  id                INTEGER PRIMARY KEY,
  kind              TEXT NOT NULL,
  purpose           TEXT NOT NULL DEFAULT '',
  to_address        TEXT NOT NULL,
  to_name           TEXT NOT NULL DEFAULT '',
  from_address      TEXT NOT NULL DEFAULT '',
  from_name         TEXT NOT NULL DEFAULT '',
  subject           TEXT NOT NULL,
  body_text         TEXT NOT NULL DEFAULT '',
  body_html         TEXT NOT NULL DEFAULT '',
  message_id        TEXT NOT NULL DEFAULT '',
  unsubscribe_token TEXT NOT NULL DEFAULT '',
  lead_id           INTEGER,
  client_id         INTEGER,
  created_by        INTEGER,
  status            TEXT NOT NULL DEFAULT 'queued',
  attempts          INTEGER NOT NULL DEFAULT 0,
  next_attempt_at   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  lease_until       TIMESTAMP,
  claim             TEXT NOT NULL DEFAULT '',
  last_error        TEXT NOT NULL DEFAULT '',
  sent_at           TIMESTAMP,
  created_at        TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at        TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  CHECK (kind IN ('transactional', 'bulk')),
  CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'unsubscribed'))
);
CREATE INDEX emails_due_idx ON emails (tenant_id, next_attempt_at) WHERE status IN ('queued', 'sending');
CREATE INDEX emails_status_idx ON emails (tenant_id, status, id DESC);
CREATE INDEX emails_lead_idx ON emails (tenant_id, lead_id, id DESC) WHERE lead_id IS NOT NULL;
CREATE INDEX emails_client_idx ON emails (tenant_id, client_id, id DESC) WHERE client_id IS NOT NULL;
CREATE UNIQUE INDEX emails_unsubscribe_idx ON emails (tenant_id, unsubscribe_token) WHERE unsubscribe_token <> '';

-- A tenant's own SMTP server; without one the server-wide SMTP_URL is used. The password
-- is sealed with AES-GCM under CRM_SECRET_KEY (app/secret), never stored in clear.
CREATE TABLE mail_settings (
  tenant_id    INTEGER NOT NULL PRIMARY KEY REFERENCES tenants (id),
  host         TEXT NOT NULL,
  port         INTEGER NOT NULL,
  security     TEXT NOT NULL,
  username     TEXT NOT NULL DEFAULT '',
  password     TEXT NOT NULL DEFAULT '',
  from_address TEXT NOT NULL,
  from_name    TEXT NOT NULL DEFAULT '',
  updated_at   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (security IN ('starttls', 'tls', 'none'))
);

-- Addresses (lower case) that unsubscribed from the tenant's bulk mail.
CREATE TABLE email_unsubscribes (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  address    TEXT NOT NULL,
  email_id   INTEGER,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (tenant_id, address)
);
