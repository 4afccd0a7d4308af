-- 0014: limits on the public collector (issue 11; formback.fcgi(8),
-- "Abuse limits").  The tag's events are unauthenticated: a flood of
-- made-up contacts must cost the sender, not the shop.
--
-- tag_flood counts, per site, client address (an IPv4 address, or the
-- /64 of an IPv6 one) and UTC hour, the events and the captures that
-- carry a contact; the collector adds a batch's counts to its worker's
-- shard of the counter and reads the sum of the shards, and refuses
-- (429) what passes the configured limits.  Rows of past hours are
-- pruned by formback-abandon.
CREATE TABLE IF NOT EXISTS tag_flood (
  site_id   UUID NOT NULL,
  addr      VARBINARY(16) NOT NULL COMMENT 'IPv4 address, or the /64 of an IPv6 one',
  hour      DATETIME NOT NULL COMMENT 'the UTC hour counted',
  shard     TINYINT UNSIGNED NOT NULL COMMENT 'the counting worker: no shared row lock',
  events    INT UNSIGNED NOT NULL DEFAULT 0,
  captures  INT UNSIGNED NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, addr, hour, shard),
  KEY tag_flood_hour (hour)
) ENGINE=InnoDB;

-- A visitor's lead takes so many captures with a contact, no more
-- (tag_visitor_captures): cycling made-up numbers through one lead
-- changes nothing.
ALTER TABLE leads
  ADD COLUMN IF NOT EXISTS captures SMALLINT UNSIGNED NOT NULL DEFAULT 0
    COMMENT 'captures with a contact applied to this lead';

-- New captured leads per site and UTC hour (of the events' receive
-- times): an hour past the site's ceiling (the larger of a floor and a
-- multiple of its busiest hour of the 7 days before) holds the site's
-- sending until someone releases it (formbackctl site release).
CREATE TABLE IF NOT EXISTS site_lead_hours (
  site_id UUID NOT NULL,
  hour    DATETIME NOT NULL,
  leads   INT UNSIGNED NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, hour)
) ENGINE=InnoDB;

ALTER TABLE sites
  ADD COLUMN IF NOT EXISTS sending_held_at DATETIME(6) NULL
    COMMENT 'new leads passed the ceiling: nothing is sent for the site until released',
  ADD COLUMN IF NOT EXISTS sending_held_leads INT UNSIGNED NULL COMMENT 'new leads of the hour that held it',
  ADD KEY IF NOT EXISTS sites_domain (domain);
