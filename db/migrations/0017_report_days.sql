-- 0017: the daily report's figures per JST day (formback-aggregate(8);
-- contract: Reports, DailyReportOut; issue 15).
--
-- formback-aggregate recounts a (tenant, day) from the raw rows into
-- these tables in one transaction, holding the day's row of
-- report_aggregations: a rerun writes the same rows, and copies on
-- several hosts take turns.  Counts that add up are kept at the finest
-- grain the filters need and summed when read; visits (distinct
-- sessions) do not add up, so they are kept per campaign, per site
-- ('*' campaign) and for the tenant ('*' site and campaign).
CREATE TABLE IF NOT EXISTS report_aggregations (
  tenant_id     UUID NOT NULL,
  day           DATE NOT NULL COMMENT 'JST',
  aggregated_at DATETIME(6) NULL COMMENT 'NULL: claimed, never finished',
  PRIMARY KEY (tenant_id, day)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS report_traffic_days (
  tenant_id    UUID NOT NULL,
  day          DATE NOT NULL,
  site_key     CHAR(36) CHARACTER SET ascii NOT NULL COMMENT 'a site id, or *',
  campaign_key CHAR(36) CHARACTER SET ascii NOT NULL
    COMMENT 'a campaign id, - for pages under none, * for all',
  page_view    INT NOT NULL,
  visits       INT NOT NULL,
  form_start   INT NOT NULL,
  capture      INT NOT NULL,
  PRIMARY KEY (tenant_id, day, site_key, campaign_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS report_lead_days (
  tenant_id   UUID NOT NULL,
  day         DATE NOT NULL,
  site_id     UUID NOT NULL,
  campaign_id UUID NOT NULL,
  captured    INT NOT NULL,
  abandoned   INT NOT NULL,
  recovered   INT NOT NULL,
  spillover   INT NOT NULL,
  hash_match  INT NOT NULL,
  PRIMARY KEY (tenant_id, day, site_id, campaign_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS report_message_days (
  tenant_id    UUID NOT NULL,
  day          DATE NOT NULL,
  site_id      UUID NOT NULL,
  campaign_id  UUID NOT NULL,
  scenario_id  UUID NOT NULL,
  step_key     CHAR(36) CHARACTER SET ascii NOT NULL
    COMMENT 'the step id, or deleted-<n> / deleted when its row is gone',
  step_no      INT NULL,
  step_deleted BOOLEAN NOT NULL,
  channel      ENUM('sms','email') NOT NULL,
  sent         INT NOT NULL,
  delivered    INT NOT NULL,
  opened       INT NOT NULL,
  clicked      INT NOT NULL,
  converted    INT NOT NULL,
  PRIMARY KEY (tenant_id, day, site_id, campaign_id, scenario_id, step_key, channel)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
