-- 0008: the collector's intake queue (design 3, 6).
--
-- POST /tag/v1/events checks an event, seals its contacts and files it
-- here with one INSERT (the site looked up by the same statement), then
-- answers 204.  The lead life cycle is applied from this queue in
-- receive order, by one applier at a time (the row lock on
-- tag_ingest_applier): a formback.fcgi worker with no request waiting,
-- and formback-abandon before it judges.  Applying an event moves it to
-- tag_events and deletes it here, in one transaction with the lead
-- writes and outbox rows it causes.
--
-- Contacts are sealed as on leads, with "ingest" and the event id as
-- associated data; they are dropped here when the site's tenant asks for
-- explicit consent and the event does not carry it.
CREATE TABLE IF NOT EXISTS tag_ingest (
  id           UUID NOT NULL PRIMARY KEY COMMENT 'UUIDv7 from the collector: receive order',
  tenant_id    UUID NOT NULL,
  site_id      UUID NOT NULL,
  visitor_id   CHAR(36) CHARACTER SET ascii NOT NULL,
  session_id   CHAR(36) CHARACTER SET ascii NOT NULL,
  event_type   ENUM('page_view','form_start','capture','consent','conversion') NOT NULL,
  campaign_key VARCHAR(64) NULL COMMENT 'as the tag sent it; resolved when applied',
  role         ENUM('landing','form','thanks') NULL,
  url          VARCHAR(2048) NOT NULL,
  referrer     VARCHAR(2048) NULL,
  consent      BOOLEAN NULL,
  client_ts    BIGINT NULL,
  tel_sealed   VARBINARY(200) NULL COMMENT 'normalised, sealed',
  email_sealed VARBINARY(600) NULL COMMENT 'normalised, sealed',
  pii_key_id   INT NOT NULL,
  attempts     TINYINT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'failed applications; 3 parks the event',
  last_error   VARCHAR(255) NULL,
  received_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- One row: whoever holds its lock applies the queue.
CREATE TABLE IF NOT EXISTS tag_ingest_applier (
  id TINYINT UNSIGNED NOT NULL PRIMARY KEY
) ENGINE=InnoDB;
INSERT IGNORE INTO tag_ingest_applier (id) VALUES (1);
