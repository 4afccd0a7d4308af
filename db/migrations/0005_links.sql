-- 0005: short links of sent messages (click, open, opt-out) and each
-- tenant's SMS quiet hours (minutes after midnight, JST).

CREATE TABLE IF NOT EXISTS links (
  token        CHAR(10) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  tenant_id    UUID NOT NULL,
  delivery_id  UUID NOT NULL,
  lead_id      UUID NOT NULL,
  kind         ENUM('click','open','optout') NOT NULL,
  url          VARCHAR(2048) NULL,
  hits         INT NOT NULL DEFAULT 0,
  first_hit_at DATETIME(6) NULL,
  created_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY links_delivery (tenant_id, delivery_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

ALTER TABLE tenants
  ADD COLUMN IF NOT EXISTS sms_quiet_start INT NOT NULL DEFAULT 1260 COMMENT '21:00 JST',
  ADD COLUMN IF NOT EXISTS sms_quiet_end INT NOT NULL DEFAULT 540 COMMENT '09:00 JST';
