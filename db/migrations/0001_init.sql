-- 0001: tenants, members, API keys, sites, consent, campaigns, scenarios,
-- and the request core's tables (rate limit, idempotency, audit, outbox).
-- Every row of tenant data carries tenant_id (design 6).  Times are UTC.

CREATE TABLE IF NOT EXISTS tenants (
  id                  UUID NOT NULL PRIMARY KEY,
  name                VARCHAR(200) NOT NULL,
  plan                ENUM('free','starter','growth','pro') NOT NULL DEFAULT 'free',
  rate_limit          INT NULL COMMENT 'custom requests per 60 s; NULL: the plan value',
  delivery_mode       ENUM('off','test_only','live') NOT NULL DEFAULT 'off',
  delivery_enabled_at DATETIME(6) NULL,
  auth_epoch          BIGINT NOT NULL DEFAULT 1 COMMENT 'bumped by every change to who may call: key revoked, member suspended, limit changed',
  created_at          DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at          DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The sliding-log rate limit (contract: Limits; design 6), one row per
-- tenant, admitted by one INSERT ... ON DUPLICATE KEY UPDATE ... RETURNING
-- of db/core.c: `total` counts every admitted request; `ring` holds 61
-- slots of 12 digits, the running total at the end of each second from
-- base-60 to base, so the requests of the last 60 seconds are total minus
-- the leftmost slot after shifting the ring to the current second: exact
-- to the second, atomic for every worker on every host.  `epoch` mirrors
-- tenants.auth_epoch so a worker's cached API key look-up is checked in
-- the same statement (src/authcache.c).  A MEMORY table: counting writes
-- no redo log and no request waits on an fsync for the limiter; a
-- database restart forgets the last minute's counts.
SET STATEMENT max_heap_table_size = 268435456 FOR
CREATE TABLE IF NOT EXISTS rate_ring (
  tenant_id  UUID NOT NULL PRIMARY KEY,
  base       BIGINT NOT NULL COMMENT 'unix second of the rightmost slot',
  total      BIGINT NOT NULL,
  ring       VARCHAR(732) CHARACTER SET ascii NOT NULL,
  admitted   TINYINT NOT NULL,
  at_sec     BIGINT NOT NULL COMMENT 'database clock of the last admission',
  lim        INT NOT NULL,
  epoch      BIGINT NOT NULL
) ENGINE=MEMORY;

CREATE TABLE IF NOT EXISTS members (
  id          UUID NOT NULL PRIMARY KEY,
  tenant_id   UUID NOT NULL,
  email       VARCHAR(254) NOT NULL,
  role        ENUM('owner','admin','member') NOT NULL DEFAULT 'member',
  status      ENUM('active','suspended','deleted') NOT NULL DEFAULT 'active',
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  UNIQUE KEY members_email (tenant_id, email),
  CONSTRAINT fk_members_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- API keys are stored as BLAKE2b-256 of the key string, never in clear.
CREATE TABLE IF NOT EXISTS api_keys (
  id          UUID NOT NULL PRIMARY KEY,
  tenant_id   UUID NOT NULL,
  member_id   UUID NOT NULL,
  kind        ENUM('live','test') NOT NULL,
  key_hash    BINARY(32) NOT NULL,
  key_prefix  VARCHAR(16) CHARACTER SET ascii NOT NULL COMMENT 'first characters, for display',
  scopes      VARCHAR(512) CHARACTER SET ascii NOT NULL,
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  revoked_at  DATETIME(6) NULL,
  UNIQUE KEY api_keys_hash (key_hash),
  KEY api_keys_tenant (tenant_id, id),
  CONSTRAINT fk_api_keys_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id),
  CONSTRAINT fk_api_keys_member FOREIGN KEY (member_id) REFERENCES members (id)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS sites (
  id          UUID NOT NULL PRIMARY KEY,
  tenant_id   UUID NOT NULL,
  name        VARCHAR(200) NOT NULL,
  domain      VARCHAR(253) NOT NULL,
  public_key  VARCHAR(32) CHARACTER SET ascii NOT NULL,
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  UNIQUE KEY sites_public_key (public_key),
  KEY sites_tenant (tenant_id, id),
  CONSTRAINT fk_sites_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Fixed data: the consent wording templates (contract: Consent settings).
CREATE TABLE IF NOT EXISTS consent_templates (
  template_key VARCHAR(16) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  position     INT NOT NULL,
  main         TEXT NOT NULL,
  note         TEXT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT IGNORE INTO consent_templates (template_key, position, main, note) VALUES
('concise', 1,
 '入力途中の内容について、SMS・メールでご案内をお送りすることがあります。',
 '配信はいつでも停止できます。'),
('standard', 2,
 'ご入力いただいた電話番号・メールアドレス宛に、お手続きが完了していない場合のご案内をSMSまたはメールでお送りすることがあります。',
 'ご案内が不要な場合は、メッセージ内のリンクからいつでも配信を停止できます。詳しくはプライバシーポリシーをご確認ください。'),
('formal', 3,
 '当社は、お客様が本フォームに入力された電話番号およびメールアドレスを、お申し込み手続きが完了していない場合のご案内(SMS・電子メール)の送信に利用いたします。',
 '配信の停止は各メッセージに記載のリンクから随時お手続きいただけます。個人情報の取り扱いについては当社プライバシーポリシーをご参照ください。');

CREATE TABLE IF NOT EXISTS consent_settings (
  tenant_id                   UUID NOT NULL PRIMARY KEY,
  consent_checkbox_enabled    BOOLEAN NOT NULL DEFAULT FALSE,
  consent_default_checked     BOOLEAN NOT NULL DEFAULT FALSE,
  consent_template_key        VARCHAR(16) CHARACTER SET ascii NULL DEFAULT 'standard',
  consent_optout_link_enabled BOOLEAN NOT NULL DEFAULT TRUE,
  consent_mode                ENUM('none','notice_optout','explicit') NOT NULL DEFAULT 'notice_optout',
  optout_title                VARCHAR(200) NOT NULL DEFAULT '配信停止',
  optout_body                 TEXT NOT NULL,
  optout_link_label           VARCHAR(100) NOT NULL DEFAULT '配信を停止する',
  updated_at                  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  CONSTRAINT fk_consent_settings_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id),
  CONSTRAINT fk_consent_settings_template FOREIGN KEY (consent_template_key)
    REFERENCES consent_templates (template_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS campaigns (
  id                   UUID NOT NULL PRIMARY KEY,
  tenant_id            UUID NOT NULL,
  site_id              UUID NOT NULL,
  campaign_key         VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  name                 VARCHAR(200) NOT NULL,
  product_name         VARCHAR(200) NULL,
  status               ENUM('active','paused','archived') NOT NULL,
  abandon_wait_minutes INT NOT NULL,
  first_activated_at   DATETIME(6) NULL COMMENT 'NULL: never run',
  created_at           DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at           DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  UNIQUE KEY campaigns_key (tenant_id, campaign_key),
  KEY campaigns_tenant (tenant_id, id),
  KEY campaigns_site (tenant_id, site_id, id),
  KEY campaigns_status (tenant_id, status, id),
  CONSTRAINT fk_campaigns_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id),
  CONSTRAINT fk_campaigns_site FOREIGN KEY (site_id) REFERENCES sites (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS scenarios (
  id                   UUID NOT NULL PRIMARY KEY,
  tenant_id            UUID NOT NULL,
  campaign_id          UUID NOT NULL,
  name                 VARCHAR(200) NOT NULL,
  status               ENUM('draft','active','paused') NOT NULL DEFAULT 'draft',
  abandon_wait_minutes INT NULL,
  deleted_at           DATETIME(6) NULL,
  created_at           DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at           DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY scenarios_campaign (tenant_id, campaign_id, id),
  CONSTRAINT fk_scenarios_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id),
  CONSTRAINT fk_scenarios_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Idempotency (contract: Idempotency; design 6).  A row is inserted in
-- the request's own transaction, so a concurrent request with the same key
-- meets its lock (answered 409 at once) and a 5xx rollback removes it.
CREATE TABLE IF NOT EXISTS idempotency_keys (
  tenant_id     UUID NOT NULL,
  endpoint      VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  idem_key      VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  request_hash  BINARY(32) NOT NULL,
  status_code   INT NULL,
  response_body MEDIUMTEXT NULL,
  created_at    DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (tenant_id, endpoint, idem_key),
  KEY idempotency_keys_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS audit_log (
  id          UUID NOT NULL PRIMARY KEY,
  tenant_id   UUID NOT NULL,
  actor_type  ENUM('api_key','session','cli','system') NOT NULL,
  actor_id    UUID NULL,
  request_id  VARCHAR(64) CHARACTER SET ascii NULL,
  action      VARCHAR(64) CHARACTER SET ascii NOT NULL,
  target_type VARCHAR(32) CHARACTER SET ascii NULL,
  target_id   UUID NULL,
  detail      JSON NULL,
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY audit_log_tenant (tenant_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The outbox: every event (webhook events, operator emails, tag
-- publishing) is written here in the transaction that causes it.
CREATE TABLE IF NOT EXISTS outbox (
  id           UUID NOT NULL PRIMARY KEY,
  tenant_id    UUID NOT NULL,
  topic        ENUM('webhook','email','publish') NOT NULL,
  event_type   VARCHAR(64) CHARACTER SET ascii NOT NULL,
  payload      JSON NOT NULL,
  created_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  processed_at DATETIME(6) NULL,
  KEY outbox_pending (topic, processed_at, id),
  KEY outbox_tenant (tenant_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
