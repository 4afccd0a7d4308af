-- 0004: deliveries (one scheduled or sent message to a lead) and the
-- suppression list (contract: Delivery, Suppression).  Contacts are kept
-- only as blind indexes and masks here (design 6).

CREATE TABLE IF NOT EXISTS deliveries (
  id            UUID NOT NULL PRIMARY KEY,
  tenant_id     UUID NOT NULL,
  lead_id       UUID NOT NULL,
  campaign_id   UUID NOT NULL,
  scenario_id   UUID NOT NULL,
  step_id       UUID NULL COMMENT 'NULL once the step is gone',
  step_no       INT NULL COMMENT '1-based',
  message_id    UUID NULL,
  channel       ENUM('sms','email') NOT NULL,
  status        ENUM('scheduled','sending','sent','delivered','failed','cancelled','suppressed') NOT NULL,
  to_masked     VARCHAR(300) NULL,
  pii_state     ENUM('present','absent','error') NOT NULL,
  scheduled_at  DATETIME(6) NOT NULL,
  sent_at       DATETIME(6) NULL,
  cancel_reason VARCHAR(32) CHARACTER SET ascii NULL,
  error_code    VARCHAR(64) NULL,
  claim_token   CHAR(36) CHARACTER SET ascii NULL,
  claim_until   DATETIME(6) NULL,
  attempts      INT NOT NULL DEFAULT 0,
  provider_id   VARCHAR(128) NULL,
  created_at    DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at    DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  UNIQUE KEY deliveries_lead_step (lead_id, step_id),
  KEY deliveries_due (status, scheduled_at, id),
  KEY deliveries_tenant (tenant_id, id),
  KEY deliveries_lead (tenant_id, lead_id),
  CONSTRAINT fk_deliveries_lead FOREIGN KEY (lead_id) REFERENCES leads (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS suppressions (
  id          UUID NOT NULL PRIMARY KEY,
  tenant_id   UUID NOT NULL,
  kind        ENUM('email','tel') NOT NULL,
  bidx        BINARY(32) NOT NULL COMMENT 'keyed BLAKE2b of the normalised value',
  masked      VARCHAR(300) NOT NULL,
  scope       ENUM('tenant','campaign') NOT NULL,
  campaign_id UUID NULL,
  reason      ENUM('opt_out','manual','bounce','complaint','undeliverable') NOT NULL,
  memo        VARCHAR(500) NULL,
  expires_at  DATETIME(6) NULL,
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY suppressions_tenant (tenant_id, id),
  KEY suppressions_lookup (tenant_id, bidx)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
