-- A tenant's sign-in with an OpenID Connect provider (Google, Microsoft Entra, Keycloak…).
-- The client secret is sealed with AES-GCM under the server's CRM_SECRET_KEY, never stored
-- in clear. only_sso refuses password sign-in to the tenant's users, except the built-in
-- Administrator role's (the break-glass rule, docs/ARCHITECTURE.md).
CREATE TABLE tenant_sso (
  tenant_id     INTEGER NOT NULL PRIMARY KEY REFERENCES tenants (id),
  provider_name TEXT NOT NULL,
  issuer        TEXT NOT NULL,
  client_id     TEXT NOT NULL,
  client_secret TEXT NOT NULL,
  only_sso      BOOLEAN NOT NULL DEFAULT 0,
  updated_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
