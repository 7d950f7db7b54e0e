-- Each cell of a role's matrix (feature × action) gets its own record scope: none, own, team
-- or all. Existing grants keep exactly their rights: an action granted keeps the feature's
-- scope (own stays own), export follows view (exports rode on view) and import follows create
-- (imports needed create; an updating import still needs update too).
ALTER TABLE role_permissions ADD COLUMN view_scope TEXT NOT NULL DEFAULT 'none';
ALTER TABLE role_permissions ADD COLUMN create_scope TEXT NOT NULL DEFAULT 'none';
ALTER TABLE role_permissions ADD COLUMN update_scope TEXT NOT NULL DEFAULT 'none';
ALTER TABLE role_permissions ADD COLUMN delete_scope TEXT NOT NULL DEFAULT 'none';
ALTER TABLE role_permissions ADD COLUMN export_scope TEXT NOT NULL DEFAULT 'none';
ALTER TABLE role_permissions ADD COLUMN import_scope TEXT NOT NULL DEFAULT 'none';

UPDATE role_permissions SET
  view_scope   = CASE WHEN can_view   THEN scope ELSE 'none' END,
  create_scope = CASE WHEN can_create THEN scope ELSE 'none' END,
  update_scope = CASE WHEN can_update THEN scope ELSE 'none' END,
  delete_scope = CASE WHEN can_delete THEN scope ELSE 'none' END,
  export_scope = CASE WHEN can_view   THEN scope ELSE 'none' END,
  import_scope = CASE WHEN can_create THEN scope ELSE 'none' END;

-- A role's matrix is saved against the version it was read at, so a concurrent save is
-- refused instead of silently lost.
ALTER TABLE roles ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

CREATE TABLE teams (
  tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (tenant_id, id),
  UNIQUE (tenant_id, name)
);

CREATE TABLE team_members (
  tenant_id INTEGER NOT NULL,
  team_id   INTEGER NOT NULL,
  user_id   INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, team_id, user_id),
  FOREIGN KEY (tenant_id, team_id) REFERENCES teams (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);

-- "Whose teams am I in", the first step of a team scope.
CREATE INDEX team_members_user_idx ON team_members (tenant_id, user_id, team_id);
