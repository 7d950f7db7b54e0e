-- SQLite keeps a rowid primary key; UNIQUE (tenant_id, id) lets composite foreign keys point at it.
CREATE TABLE tenants (
  id             INTEGER PRIMARY KEY,
  name           TEXT NOT NULL,
  default_locale TEXT NOT NULL DEFAULT 'fr_FR',
  created_at     TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE sessions (
  token     TEXT PRIMARY KEY,
  data      BLOB NOT NULL,
  expiry_ms INTEGER NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry_ms);

CREATE TABLE user_directory (
  email     TEXT PRIMARY KEY,
  tenant_id INTEGER NOT NULL REFERENCES tenants (id),
  user_id   INTEGER NOT NULL
);

CREATE TABLE roles (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  builtin    BOOLEAN NOT NULL DEFAULT 0,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  UNIQUE (tenant_id, name)
);

CREATE TABLE role_permissions (
  tenant_id  INTEGER NOT NULL,
  role_id    INTEGER NOT NULL,
  feature    TEXT NOT NULL,
  can_view   BOOLEAN NOT NULL DEFAULT 0,
  can_create BOOLEAN NOT NULL DEFAULT 0,
  can_update BOOLEAN NOT NULL DEFAULT 0,
  can_delete BOOLEAN NOT NULL DEFAULT 0,
  scope      TEXT NOT NULL DEFAULT 'all',
  PRIMARY KEY (tenant_id, role_id, feature),
  FOREIGN KEY (tenant_id, role_id) REFERENCES roles (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE users (
  tenant_id     INTEGER NOT NULL REFERENCES tenants (id),
  id            INTEGER PRIMARY KEY,
  email         TEXT NOT NULL,
  name          TEXT NOT NULL,
  phone         TEXT NOT NULL DEFAULT '',
  password_hash TEXT NOT NULL,
  role_id       INTEGER NOT NULL,
  locale        TEXT NOT NULL DEFAULT '',
  active        BOOLEAN NOT NULL DEFAULT 1,
  created_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  UNIQUE (tenant_id, email),
  FOREIGN KEY (tenant_id, role_id) REFERENCES roles (tenant_id, id)
);

CREATE TABLE api_tokens (
  tenant_id    INTEGER NOT NULL,
  id           INTEGER PRIMARY KEY,
  user_id      INTEGER NOT NULL,
  token_hash   TEXT NOT NULL,
  created_at   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  last_used_at TIMESTAMP,
  revoked_at   TIMESTAMP,
  UNIQUE (tenant_id, token_hash),
  FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE audit_log (
  tenant_id     INTEGER NOT NULL REFERENCES tenants (id),
  id            INTEGER PRIMARY KEY,
  actor_user_id INTEGER,
  entity        TEXT NOT NULL,
  entity_id     INTEGER NOT NULL,
  action        TEXT NOT NULL,
  before        TEXT,
  after         TEXT,
  created_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX audit_log_entity_idx ON audit_log (tenant_id, entity, entity_id, id DESC);
