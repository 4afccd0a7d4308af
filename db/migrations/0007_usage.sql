-- 0007: the monthly sending quota (messages counted per tenant and JST
-- month, with the 80% and 100% notices sent once each) and the test
-- recipients that delivery mode test_only sends to.

ALTER TABLE tenants ADD COLUMN IF NOT EXISTS send_quota INT NULL
  COMMENT 'messages per JST month; NULL: the plan''s';

CREATE TABLE IF NOT EXISTS usage_months (
  tenant_id    UUID NOT NULL,
  month        CHAR(7) CHARACTER SET ascii NOT NULL COMMENT 'JST month, YYYY-MM',
  sends        INT NOT NULL DEFAULT 0
    COMMENT 'messages handed to a provider, or in flight, this month',
  notified_pct TINYINT NOT NULL DEFAULT 0
    COMMENT 'the highest threshold (80, 100) already announced',
  updated_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (tenant_id, month),
  CONSTRAINT fk_usage_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS test_recipients (
  id          UUID NOT NULL PRIMARY KEY,
  tenant_id   UUID NOT NULL,
  kind        ENUM('email','tel') NOT NULL,
  bidx        BINARY(32) NOT NULL COMMENT 'keyed BLAKE2b of the normalised value',
  masked      VARCHAR(300) NOT NULL,
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  UNIQUE KEY test_recipients_contact (tenant_id, kind, bidx),
  CONSTRAINT fk_test_recipients_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- formback-deliver reads back the rows of its claim by token.
ALTER TABLE deliveries ADD KEY IF NOT EXISTS deliveries_claim (claim_token);
