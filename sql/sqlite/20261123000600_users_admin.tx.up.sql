-- Team administration, users half: profile fields, soft deletion, the 2FA flag of a role,
-- single-use links (invitations, password resets) and the security log.
ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN last_sign_in_at TIMESTAMP;
ALTER TABLE users ADD COLUMN deleted_at TIMESTAMP;
ALTER TABLE roles ADD COLUMN require_2fa BOOLEAN NOT NULL DEFAULT 0;

CREATE TABLE user_links (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL,
  purpose    TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  expires_at TIMESTAMP NOT NULL,
  used_at    TIMESTAMP,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, token_hash),
  FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE security_log (
  tenant_id       INTEGER NOT NULL REFERENCES tenants (id),
  id              INTEGER PRIMARY KEY,
  kind            TEXT NOT NULL,
  actor_user_id   INTEGER,
  subject_user_id INTEGER,
  detail          TEXT NOT NULL DEFAULT '',
  created_at      TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id)
);
CREATE INDEX security_log_recent_idx ON security_log (tenant_id, id DESC);
