-- 0026: the funnel over any range from hourly rollups and the raw edges
-- (issue 15; formback-aggregate(8), "Hourly rollups").
--
-- A visit counts in the range that holds its first event of a stage
-- (its first page view, form start, capture), so visits add up over
-- hours like every other count.  formback-aggregate writes one row per
-- (tenant, UTC hour, site, campaign key) for each hour that can no longer
-- change: ended more than five minutes ago (the database's clock) and
-- older than every event still waiting in tag_ingest (parked ones
-- aside; `formbackctl tag-queue retry-parked` takes back the hours of
-- the events it sends again).  report_hour_state holds the tenant's
-- rolled hours [rolled_from, rolled_until); the funnel reads those rows
-- for the whole hours of its range inside them, and the raw events for
-- the rest.
CREATE TABLE IF NOT EXISTS report_event_hours (
  tenant_id        UUID NOT NULL,
  hour             DATETIME NOT NULL COMMENT 'UTC, the hour''s start',
  site_id          UUID NOT NULL,
  campaign_key     CHAR(36) CHARACTER SET ascii NOT NULL
    COMMENT 'a campaign id, - for pages under none, * for the site (visits counted once across campaigns)',
  page_view        INT UNSIGNED NOT NULL,
  form_start       INT UNSIGNED NOT NULL,
  capture          INT UNSIGNED NOT NULL,
  consent          INT UNSIGNED NOT NULL,
  conversion       INT UNSIGNED NOT NULL,
  visits           INT UNSIGNED NOT NULL,
  form_visits      INT UNSIGNED NOT NULL,
  capture_visits   INT UNSIGNED NOT NULL,
  no_session       INT UNSIGNED NOT NULL,
  by_visitor       INT UNSIGNED NOT NULL,
  unassigned_views INT UNSIGNED NOT NULL,
  PRIMARY KEY (tenant_id, hour, site_id, campaign_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS report_hour_state (
  tenant_id    UUID NOT NULL PRIMARY KEY,
  rolled_from  DATETIME NULL COMMENT 'UTC hour; NULL: nothing rolled yet',
  rolled_until DATETIME NULL COMMENT 'UTC hour, excluded'
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- One row: formback-aggregate rolls hours holding it shared; taking
-- hours back (parked events sent again) holds it alone.
CREATE TABLE IF NOT EXISTS report_hour_lock (
  id TINYINT UNSIGNED NOT NULL PRIMARY KEY
) ENGINE=InnoDB;
INSERT IGNORE INTO report_hour_lock (id) VALUES (1);

-- Whether a session had an event of a stage before a time (its first
-- event of the stage: the rollups, the funnel's edges; a lead's landing
-- page) is one look-up of this key, campaign included, no row read.
ALTER TABLE tag_events
  ADD KEY IF NOT EXISTS tag_events_session_stage (site_id, session_id,
    event_type, received_at, campaign_id),
  DROP KEY IF EXISTS tag_events_session;
