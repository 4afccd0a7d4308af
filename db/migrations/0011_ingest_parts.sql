-- 0011: the intake queue in parts, applied in parallel.
--
-- One applier at a time kept every visitor's events in order but used
-- one connection's worth of the database.  Each event now belongs to one
-- of 8 parts by a hash of its visitor (the collector computes it), each
-- part has its own applier turn (a row of tag_ingest_applier), and the
-- queue is ordered by (part, id): a visitor's events stay in receive
-- order, and up to 8 appliers work at once.

ALTER TABLE tag_ingest
  ADD COLUMN IF NOT EXISTS part TINYINT UNSIGNED NOT NULL DEFAULT 0
    COMMENT 'FNV-1a of visitor_id mod 8: whose applier turn' AFTER id,
  DROP PRIMARY KEY, ADD PRIMARY KEY (part, id);

INSERT IGNORE INTO tag_ingest_applier (id) VALUES (0), (2), (3), (4), (5), (6), (7);
