-- 0015: outbound webhooks (contract: Webhook endpoints, Events; issue 14;
-- formback.fcgi(8) "Webhooks", formback-webhooks(8)).
--
-- An endpoint's secret is sealed under the master key of secret_key_id
-- (pii_seal, field "webhook_secret"), never hashed: the sender needs it.
-- A deleted endpoint keeps its row (deleted_at) so its delivery log
-- stays readable to the operator; the API answers 404 for it.
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id                   UUID NOT NULL PRIMARY KEY,
  tenant_id            UUID NOT NULL,
  url                  VARCHAR(2048) CHARACTER SET ascii NOT NULL
    COMMENT 'as url_href() serialized it',
  events               VARCHAR(512) CHARACTER SET ascii NOT NULL
    COMMENT 'JSON array of event types',
  secret_sealed        VARBINARY(128) NOT NULL,
  secret_key_id        INT UNSIGNED NOT NULL,
  status               ENUM('enabled','disabled') NOT NULL DEFAULT 'enabled',
  disabled_reason      VARCHAR(32) CHARACTER SET ascii NULL
    COMMENT 'consecutive_failures or gone (410)',
  consecutive_failures INT NOT NULL DEFAULT 0,
  last_success_at      DATETIME(6) NULL,
  last_failure_at      DATETIME(6) NULL,
  created_at           DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at           DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  deleted_at           DATETIME(6) NULL,
  KEY webhook_endpoints_tenant (tenant_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- One event for one endpoint: the first send and its retries are one
-- row (attempts counts them); a redelivery is a new row of the same event
-- and body.  The body is kept as the bytes sent, so every attempt signs
-- and sends exactly them.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id               UUID NOT NULL PRIMARY KEY,
  tenant_id        UUID NOT NULL,
  endpoint_id      UUID NOT NULL,
  event_id         UUID NOT NULL COMMENT 'the outbox row; the envelope id',
  event_type       VARCHAR(64) CHARACTER SET ascii NOT NULL,
  body             MEDIUMBLOB NOT NULL,
  redelivery_of    UUID NULL,
  status           ENUM('pending','sending','succeeded','failed') NOT NULL
    DEFAULT 'pending',
  attempts         INT NOT NULL DEFAULT 0,
  next_attempt_at  DATETIME(6) NULL,
  claim_token      BINARY(16) NULL,
  claim_until      DATETIME(6) NULL,
  response_status  SMALLINT NULL,
  error            VARCHAR(64) CHARACTER SET utf8mb4 NULL,
  last_attempt_at  DATETIME(6) NULL,
  created_at       DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at       DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  UNIQUE KEY webhook_deliveries_event (endpoint_id, event_id, redelivery_of),
  KEY webhook_deliveries_due (status, next_attempt_at, id),
  KEY webhook_deliveries_endpoint (tenant_id, endpoint_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
