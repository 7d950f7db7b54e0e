-- lead_counts' rows never change their key (its triggers upsert by key, and on PostgreSQL
-- lead_user_counts follows the leads' moves, not lead_counts' rows), so the trigger that
-- moved a re-keyed counter's users (migration 20261129100000) never has work to do. It is
-- dropped here rather than cut from that migration, which databases have applied as it was.
DROP TRIGGER IF EXISTS lead_user_counts_rekey;
