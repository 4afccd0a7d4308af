-- 0016: privacy-policy checks (contract: Endpoints, Sites, pp-checks;
-- issue 14; formback.fcgi(8) "Privacy-policy checks").
--
-- A site's privacy-policy URL (formbackctl site set), kept as the URL
-- parser serialized it; formback-webhooks fetches it through the address
-- rule once a day, and after every change, and keeps each check.
ALTER TABLE sites
  ADD COLUMN IF NOT EXISTS privacy_policy_url VARCHAR(2048) CHARACTER SET ascii NULL
    COMMENT 'https, as url_href() serialized it' AFTER domain;

CREATE TABLE IF NOT EXISTS pp_checks (
  id            UUID NOT NULL PRIMARY KEY,
  tenant_id     UUID NOT NULL,
  site_id       UUID NOT NULL,
  url           VARCHAR(2048) CHARACTER SET ascii NOT NULL,
  consent_mode  VARCHAR(16) CHARACTER SET ascii NOT NULL
    COMMENT 'the tenant''s mode the page was judged for',
  status        ENUM('passed','failed','error') NOT NULL,
  http_status   SMALLINT NULL,
  findings      TEXT CHARACTER SET utf8mb4 NOT NULL COMMENT 'JSON array',
  page_sha256   CHAR(64) CHARACTER SET ascii NULL,
  error         VARCHAR(64) CHARACTER SET utf8mb4 NULL,
  checked_at    DATETIME(6) NOT NULL,
  KEY pp_checks_site (tenant_id, site_id, id),
  KEY pp_checks_latest (site_id, checked_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
