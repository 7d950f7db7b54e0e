-- A day counter's change reaches its month in one statement. Every lead written moves up to
-- three day counters (the tenant's, its owner's and its creator's), nearly always an
-- existing row's n: the month trigger took the old n from its month and added the new, two
-- statements where the difference does (the month row exists while its days do). Inserting
-- 40,000 leads in batches of 2,000: 5.0–6.0 s before, 5.0–5.2 s after, 4.5–5.2 s with no
-- month counters at all (docs/PERFORMANCE.md, "Twenty-first round"). A change of a day
-- counter's key, which no trigger makes, still moves its n from one month to the other.
DROP TRIGGER lead_month_counts_update;
CREATE TRIGGER lead_month_counts_update AFTER UPDATE OF n ON lead_day_counts
WHEN OLD.tenant_id = NEW.tenant_id AND OLD.user_id = NEW.user_id AND OLD.day = NEW.day
  AND OLD.stage_id = NEW.stage_id AND OLD.status_id = NEW.status_id AND OLD.source_id = NEW.source_id
BEGIN
  UPDATE lead_month_counts SET n = n + NEW.n - OLD.n
  WHERE tenant_id = NEW.tenant_id AND user_id = NEW.user_id AND month = substr(NEW.day, 1, 7) || '-01'
    AND stage_id = NEW.stage_id AND status_id = NEW.status_id AND source_id = NEW.source_id;
END;
CREATE TRIGGER lead_month_counts_move AFTER UPDATE ON lead_day_counts
WHEN OLD.tenant_id IS NOT NEW.tenant_id OR OLD.user_id IS NOT NEW.user_id OR OLD.day IS NOT NEW.day
  OR OLD.stage_id IS NOT NEW.stage_id OR OLD.status_id IS NOT NEW.status_id OR OLD.source_id IS NOT NEW.source_id
BEGIN
  UPDATE lead_month_counts SET n = n - OLD.n
  WHERE tenant_id = OLD.tenant_id AND user_id = OLD.user_id AND month = substr(OLD.day, 1, 7) || '-01'
    AND stage_id = OLD.stage_id AND status_id = OLD.status_id AND source_id = OLD.source_id;
  INSERT INTO lead_month_counts (tenant_id, user_id, month, stage_id, status_id, source_id, n)
  VALUES (NEW.tenant_id, NEW.user_id, substr(NEW.day, 1, 7) || '-01', NEW.stage_id, NEW.status_id, NEW.source_id, NEW.n)
  ON CONFLICT (tenant_id, user_id, month, stage_id, status_id, source_id) DO UPDATE SET n = n + excluded.n;
END;
