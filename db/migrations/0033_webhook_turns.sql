-- 0033: webhooks isolated per endpoint (issue 40; hookrules.h;
-- formback-webhooks(8), "Turns" and "Retries, pauses and stopped
-- endpoints").
--
-- The state the stop rules read and write, beside consecutive_failures:
-- when the failures began (an endpoint is stopped only by failures that
-- span 72 hours), the pause of an endpoint that does not answer (a
-- circuit breaker: its records are not tried, so they keep their
-- attempts), the owner's last "failing" mail, and when it was stopped.
ALTER TABLE webhook_endpoints
  ADD COLUMN IF NOT EXISTS failing_since DATETIME(6) NULL
    COMMENT 'the first failed attempt since the last success'
    AFTER consecutive_failures,
  ADD COLUMN IF NOT EXISTS unanswered INT NOT NULL DEFAULT 0
    COMMENT 'attempts in a row without an answer' AFTER failing_since,
  ADD COLUMN IF NOT EXISTS pause_trips INT NOT NULL DEFAULT 0
    COMMENT 'pauses in a row; 0: not paused' AFTER unanswered,
  ADD COLUMN IF NOT EXISTS paused_until DATETIME(6) NULL AFTER pause_trips,
  ADD COLUMN IF NOT EXISTS failing_mailed_at DATETIME(6) NULL
    AFTER paused_until,
  ADD COLUMN IF NOT EXISTS disabled_at DATETIME(6) NULL AFTER disabled_reason;

-- Endpoints failing when this is applied: their failures are taken to
-- begin at the last one (later than they did: never stopped sooner).
UPDATE webhook_endpoints SET failing_since = last_failure_at
  WHERE consecutive_failures > 0 AND failing_since IS NULL;

-- The turns over endpoints: a pass finds the endpoints with due records
-- by one dive each into (status, endpoint_id, next_attempt_at), and
-- claims each one's oldest due records on the same index.
ALTER TABLE webhook_deliveries ADD KEY IF NOT EXISTS webhook_deliveries_turn
  (status, endpoint_id, next_attempt_at, id);

-- The fan-out's turns over tenants: the tenants with events to fan out
-- by one dive each, each one's oldest first, so one tenant's thousands
-- of events are not made into records before another's one.
ALTER TABLE outbox ADD KEY IF NOT EXISTS outbox_webhook_tenant
  (topic, processed_at, tenant_id, id);
