-- My profile, two-factor sign-in and forgotten passwords: a user's TOTP secret and its
-- last used time step (a code works once), single-use recovery codes (hashed), named API
-- tokens with an expiry, the user's browser sessions (to list them and sign out the
-- others), and the second-step challenges of the API sign-in (hashed, 5 minutes, once).
ALTER TABLE users ADD COLUMN totp_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN totp_enabled_at TIMESTAMP;
ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_tokens ADD COLUMN expires_at TIMESTAMP;
CREATE INDEX api_tokens_user_idx ON api_tokens (tenant_id, user_id);

CREATE TABLE recovery_codes (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL,
  code_hash  TEXT NOT NULL,
  used_at    TIMESTAMP,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, user_id, code_hash),
  FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE user_sessions (
  tenant_id     INTEGER NOT NULL REFERENCES tenants (id),
  id            INTEGER PRIMARY KEY,
  user_id       INTEGER NOT NULL,
  session_token TEXT NOT NULL,
  user_agent    TEXT NOT NULL DEFAULT '',
  ip            TEXT NOT NULL DEFAULT '',
  created_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, session_token),
  FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX user_sessions_user_idx ON user_sessions (tenant_id, user_id);

CREATE TABLE login_challenges (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL,
  token_hash TEXT NOT NULL,
  expires_at TIMESTAMP NOT NULL,
  used_at    TIMESTAMP,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, token_hash),
  FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
