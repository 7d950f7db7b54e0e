-- A tenant's sign-in with an OpenID Connect provider (Google, Microsoft Entra, Keycloak…).
-- The client secret is sealed with AES-GCM under the server's CRM_SECRET_KEY, never stored
-- in clear. only_sso refuses password sign-in to the tenant's users, except the built-in
-- Administrator role's (the break-glass rule, docs/ARCHITECTURE.md).
CREATE TABLE tenant_sso (
  tenant_id     bigint NOT NULL PRIMARY KEY REFERENCES tenants (id),
  provider_name text NOT NULL,
  issuer        text NOT NULL,
  client_id     text NOT NULL,
  client_secret text NOT NULL,
  only_sso      boolean NOT NULL DEFAULT false,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- Row-level security, as on every tenant table (20261123000300).
SELECT tenant_rls('tenant_sso');
