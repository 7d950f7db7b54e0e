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

-- The event types (Settings) every tenant starts with, for the tenants that exist already
-- (new tenants get them from store.EnsureDefaultMasters), named in the tenant's language.
INSERT INTO lead_masters (tenant_id, kind, name, sort_order)
WITH n (locale, ord, name) AS (VALUES
    ('en_US', 1, 'Email'),
    ('en_US', 2, 'Call'),
    ('en_US', 3, 'Meeting'),
    ('en_AU', 1, 'Email'),
    ('en_AU', 2, 'Call'),
    ('en_AU', 3, 'Meeting'),
    ('fr_FR', 1, 'E-mail'),
    ('fr_FR', 2, 'Appel'),
    ('fr_FR', 3, 'Rendez-vous'),
    ('es_ES', 1, 'Correo'),
    ('es_ES', 2, 'Llamada'),
    ('es_ES', 3, 'Reunión'),
    ('de_DE', 1, 'E-Mail'),
    ('de_DE', 2, 'Anruf'),
    ('de_DE', 3, 'Treffen'),
    ('pt_PT', 1, 'E-mail'),
    ('pt_PT', 2, 'Chamada'),
    ('pt_PT', 3, 'Reunião'),
    ('it_IT', 1, 'Email'),
    ('it_IT', 2, 'Chiamata'),
    ('it_IT', 3, 'Incontro'),
    ('cs_CZ', 1, 'E-mail'),
    ('cs_CZ', 2, 'Hovor'),
    ('cs_CZ', 3, 'Schůzka')
)
SELECT t.id, 'event_type', n.name, n.ord
FROM tenants AS t JOIN n ON n.locale = CASE WHEN t.default_locale IN ('en_US', 'en_AU', 'fr_FR', 'es_ES', 'de_DE', 'pt_PT', 'it_IT', 'cs_CZ') THEN t.default_locale ELSE 'en_US' END
WHERE true
ON CONFLICT (tenant_id, kind, name) DO NOTHING;
