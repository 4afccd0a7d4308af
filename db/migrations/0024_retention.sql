-- 0024: retention of what grows with traffic (issue 18; formback.fcgi(8)
-- "Retention"): formback-deliver deletes tag events, audit-log rows and
-- message links past their configured age, oldest first, by these keys.

ALTER TABLE tag_events ADD KEY IF NOT EXISTS tag_events_received (received_at);
ALTER TABLE audit_log ADD KEY IF NOT EXISTS audit_log_created (created_at);
ALTER TABLE links ADD KEY IF NOT EXISTS links_created (created_at);
