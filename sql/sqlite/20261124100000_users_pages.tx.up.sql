-- Users admin pages: a user's personal title (a name of the tenant's title master, as a
-- lead's customer_title), the indexes the user list's sorts page through, and the security
-- log's filters by kind and by user.
ALTER TABLE users ADD COLUMN title TEXT NOT NULL DEFAULT '';
CREATE INDEX users_name_idx ON users (tenant_id, lower(name), id);
CREATE INDEX users_email_idx ON users (tenant_id, email, id);
CREATE INDEX users_created_idx ON users (tenant_id, created_at, id);
CREATE INDEX security_log_kind_idx ON security_log (tenant_id, kind, id);
CREATE INDEX security_log_subject_idx ON security_log (tenant_id, subject_user_id, id);
CREATE INDEX security_log_actor_idx ON security_log (tenant_id, actor_user_id, id);
