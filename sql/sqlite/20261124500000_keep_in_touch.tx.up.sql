-- Keep in touch (issue 12): plans that, on a lead or a client, produce a reminder (calls,
-- meetings) or an email at each occurrence, from a start time in the owner's time zone.
-- app/jobs's worker claims a due plan, produces its occurrence and advances next_at in one
-- transaction, so each occurrence is produced once.
CREATE TABLE keep_in_touch (
  tenant_id     INTEGER NOT NULL REFERENCES tenants (id),
  id            INTEGER PRIMARY KEY,
  lead_id       INTEGER,
  client_id     INTEGER,
  kit_type      text NOT NULL,
  event_type_id INTEGER,
  interval_type text NOT NULL,
  start_at      TIMESTAMP NOT NULL,
  time_zone     text NOT NULL DEFAULT '',
  template_id   INTEGER,
  subject       text NOT NULL DEFAULT '',
  note          text NOT NULL DEFAULT '',
  owner_id      INTEGER NOT NULL,
  active        BOOLEAN NOT NULL DEFAULT 1,
  seq           integer NOT NULL DEFAULT 0,
  next_at       TIMESTAMP,
  last_at       TIMESTAMP,
  created_by    INTEGER,
  created_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  FOREIGN KEY (tenant_id, lead_id) REFERENCES leads (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, client_id) REFERENCES clients (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, event_type_id) REFERENCES lead_masters (tenant_id, id),
  FOREIGN KEY (tenant_id, owner_id) REFERENCES users (tenant_id, id),
  FOREIGN KEY (tenant_id, created_by) REFERENCES users (tenant_id, id),
  CHECK ((lead_id IS NULL) <> (client_id IS NULL)),
  CHECK (kit_type IN ('email', 'call', 'meeting')),
  CHECK (interval_type IN ('once', 'daily', 'weekly', 'monthly', 'quarterly', 'yearly'))
);
CREATE INDEX keep_in_touch_due_idx ON keep_in_touch (tenant_id, next_at) WHERE active = 1 AND next_at IS NOT NULL;
CREATE INDEX keep_in_touch_lead_idx ON keep_in_touch (tenant_id, lead_id) WHERE lead_id IS NOT NULL;
CREATE INDEX keep_in_touch_client_idx ON keep_in_touch (tenant_id, client_id) WHERE client_id IS NOT NULL;
CREATE INDEX keep_in_touch_owner_idx ON keep_in_touch (tenant_id, owner_id, next_at);

-- The reminders a plan produced (the meeting dashboard's past occurrences).
ALTER TABLE reminders ADD COLUMN kit_id INTEGER;
CREATE INDEX reminders_kit_idx ON reminders (tenant_id, assignee_id, due_at) WHERE kit_id IS NOT NULL;

