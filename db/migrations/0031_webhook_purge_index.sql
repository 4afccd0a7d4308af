-- 0031: formback-webhooks' purge of finished delivery records older than
-- the retention ("created_at < ? AND status IN ('succeeded', 'failed')")
-- read every finished record of every tenant on each pass, the due index
-- leading with the status; it reads the old ones on their creation now.

ALTER TABLE webhook_deliveries ADD KEY IF NOT EXISTS webhook_deliveries_created (created_at);
