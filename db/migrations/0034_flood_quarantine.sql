-- 0034: a flood quarantines itself, not the shop (issue 40; formback.fcgi(8)
-- "Abuse limits").
--
-- 0014 held a whole site's sending once its new leads of an hour passed
-- a ceiling, real visitors' follow-ups included, until an operator
-- released it.  Now the leads of a source that passed a limit (a client
-- address, its /24 or /48, a visitor) and the site's new leads past its
-- ceiling are put in a quarantine batch: they are not judged and nothing
-- is sent to them until the batch is released (back into the normal
-- flow) or discarded (suppressed, nothing sent), per batch, by the
-- owners and admins or an operator.  The site's other leads go on.
--
-- One batch per site, kind of source, source and UTC hour.  src is what
-- identifies the source: a keyed BLAKE2b of an address or network (so no
-- lead row holds a visitor's address), a visitor's id, nothing for the
-- site's excess; `source` is what the owner is shown.
CREATE TABLE IF NOT EXISTS flood_quarantines (
  id          UUID NOT NULL PRIMARY KEY COMMENT 'UUIDv7',
  tenant_id   UUID NOT NULL,
  site_id     UUID NOT NULL,
  kind        ENUM('address','network','visitor','site') NOT NULL,
  src         VARBINARY(40) NOT NULL,
  source      VARCHAR(64) CHARACTER SET ascii NULL
    COMMENT 'the address, network or visitor shown; NULL for the site',
  hour        DATETIME NOT NULL COMMENT 'the UTC hour of its leads',
  threshold   INT UNSIGNED NOT NULL COMMENT 'the limit or ceiling passed',
  leads       INT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'leads put in it',
  status      ENUM('quarantined','released','discarded') NOT NULL
    DEFAULT 'quarantined',
  decided_at  DATETIME(6) NULL,
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  UNIQUE KEY flood_quarantines_source (site_id, kind, src, hour),
  KEY flood_quarantines_tenant (tenant_id, id),
  KEY flood_quarantines_status (tenant_id, status, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The sources of an hour's captures, per site: an applier adds its
-- batch's captures to their rows first, and holds them until it commits;
-- a source that passes a limit has its row's quarantine_id set under the
-- same lock before its leads are put in the batch, so that no lead of
-- the source slips between the two (tag/quarantine.c).  Pruned a day
-- after their hour.
CREATE TABLE IF NOT EXISTS flood_sources (
  site_id       UUID NOT NULL,
  hour          DATETIME NOT NULL,
  kind          ENUM('address','network','visitor') NOT NULL,
  src           VARBINARY(40) NOT NULL,
  captures      INT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'applied',
  quarantine_id UUID NULL,
  PRIMARY KEY (site_id, hour, kind, src),
  KEY flood_sources_hour (hour)
) ENGINE=InnoDB;

-- Where a capture came from: the collector keys the client address (an
-- IPv4 address, the /64 of an IPv6 one) and its network (/24, /48) with
-- the index key, and the lead keeps its last capture's.
ALTER TABLE tag_ingest
  ADD COLUMN IF NOT EXISTS src_addr BINARY(32) NULL
    COMMENT 'keyed BLAKE2b of the client address',
  ADD COLUMN IF NOT EXISTS src_net BINARY(32) NULL
    COMMENT 'keyed BLAKE2b of its /24 or /48';

ALTER TABLE leads
  ADD COLUMN IF NOT EXISTS quarantine_id UUID NULL
    COMMENT 'flood_quarantines: not judged, nothing sent until released',
  ADD COLUMN IF NOT EXISTS src_addr BINARY(32) NULL
    COMMENT 'its last capture''s client address, keyed BLAKE2b',
  ADD COLUMN IF NOT EXISTS src_net BINARY(32) NULL
    COMMENT 'and that address''s /24 or /48',
  ADD KEY IF NOT EXISTS leads_quarantine (tenant_id, quarantine_id),
  ADD KEY IF NOT EXISTS leads_abandon_tenant
    (status, tenant_id, quarantine_id, last_activity_at, id)
    COMMENT 'formback-abandon''s turns (0032): no held lead read';
