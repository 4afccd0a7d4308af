-- 0002: capture -- URL rules, form profiles, raw tag events, leads.

CREATE TABLE IF NOT EXISTS url_rules (
  id          UUID NOT NULL PRIMARY KEY,
  tenant_id   UUID NOT NULL,
  campaign_id UUID NOT NULL,
  position    INT NOT NULL,
  role        ENUM('landing','form','thanks') NOT NULL,
  match_type  ENUM('prefix','glob','regex','query','host') NOT NULL,
  pattern     VARCHAR(512) NOT NULL,
  priority    INT NULL COMMENT 'lower first; NULL last',
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY url_rules_campaign (tenant_id, campaign_id, position),
  CONSTRAINT fk_url_rules_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS form_profiles (
  campaign_id         UUID NOT NULL PRIMARY KEY,
  tenant_id           UUID NOT NULL,
  tel_selectors       JSON NOT NULL,
  email_selectors     JSON NOT NULL,
  consent_selector    VARCHAR(256) NULL,
  tel_split_selectors JSON NULL,
  detected_by         ENUM('manual','preset','auto') NOT NULL,
  detected_at         DATETIME(6) NULL,
  updated_at          DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  CONSTRAINT fk_form_profiles_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Publishing state of each site's tag configuration (design 2).
ALTER TABLE sites
  ADD COLUMN IF NOT EXISTS published_at DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS publish_error VARCHAR(255) NULL;

-- Every event the tag sends, kept raw for the reports (page views, form
-- starts, captures without their contact, consents, conversions).
CREATE TABLE IF NOT EXISTS tag_events (
  id          UUID NOT NULL PRIMARY KEY,
  tenant_id   UUID NOT NULL,
  site_id     UUID NOT NULL,
  campaign_id UUID NULL,
  lead_id     UUID NULL,
  visitor_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  session_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  event_type  ENUM('page_view','form_start','capture','consent','conversion') NOT NULL,
  role        ENUM('landing','form','thanks') NULL,
  url         VARCHAR(2048) NOT NULL,
  url_path    VARCHAR(2048) NOT NULL COMMENT 'pathname, for reports and takeover checks',
  referrer    VARCHAR(2048) NULL,
  consent     BOOLEAN NULL,
  client_ts   BIGINT NULL COMMENT 'the browser clock, ms; display only',
  received_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY tag_events_site (tenant_id, site_id, received_at),
  KEY tag_events_campaign (campaign_id, event_type, received_at),
  KEY tag_events_visitor (site_id, visitor_id, received_at),
  KEY tag_events_session (site_id, session_id, received_at),
  KEY tag_events_lead (lead_id, received_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Leads.  Contacts are sealed (XChaCha20-Poly1305 under a subkey of the
-- master key, tenant and lead id as associated data) with a keyed BLAKE2b
-- blind index for equality look-ups and the contract's masked form
-- (design 6); nothing here holds a contact in clear.
CREATE TABLE IF NOT EXISTS leads (
  id                UUID NOT NULL PRIMARY KEY,
  tenant_id         UUID NOT NULL,
  site_id           UUID NOT NULL,
  campaign_id       UUID NOT NULL,
  visitor_id        CHAR(36) CHARACTER SET ascii NOT NULL,
  session_id        CHAR(36) CHARACTER SET ascii NULL,
  status            ENUM('started','captured','abandoned','queued','sent','converted','suppressed') NOT NULL,
  consent_state     ENUM('none','notice_optout','explicit') NOT NULL DEFAULT 'none',
  email_sealed      VARBINARY(600) NULL,
  email_bidx        BINARY(32) NULL,
  email_masked      VARCHAR(300) NULL,
  tel_sealed        VARBINARY(200) NULL,
  tel_bidx          BINARY(32) NULL,
  tel_masked        VARCHAR(32) NULL,
  pii_key_id        INT NULL,
  pii_state         ENUM('present','absent','error') NOT NULL DEFAULT 'absent',
  tel_kind          ENUM('mobile','ip','landline') NULL,
  sms_capable       BOOLEAN NOT NULL DEFAULT FALSE,
  landing_url       VARCHAR(2048) NULL,
  referrer          VARCHAR(2048) NULL,
  utm               JSON NULL,
  lp_key            VARCHAR(255) NULL,
  created_at        DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  captured_at       DATETIME(6) NULL,
  last_activity_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  abandoned_at      DATETIME(6) NULL,
  converted_at      DATETIME(6) NULL,
  conversion_source ENUM('tag','tag_visitor','hash_match','cart_api','manual') NULL,
  suppress_reason   VARCHAR(32) CHARACTER SET ascii NULL,
  updated_at        DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY leads_tenant (tenant_id, id),
  KEY leads_campaign (tenant_id, campaign_id, id),
  KEY leads_site (tenant_id, site_id, id),
  KEY leads_visitor (site_id, visitor_id, campaign_id, status),
  KEY leads_abandon (status, last_activity_at, id),
  KEY leads_email (tenant_id, email_bidx),
  KEY leads_tel (tenant_id, tel_bidx),
  KEY leads_created (tenant_id, created_at),
  KEY leads_captured (tenant_id, captured_at),
  KEY leads_abandoned (tenant_id, abandoned_at),
  KEY leads_converted (tenant_id, converted_at),
  CONSTRAINT fk_leads_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
