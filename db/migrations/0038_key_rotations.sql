-- 0038: a master key rotation that ends (issue 43 item 7; formback.conf(5)
-- "KEY ROTATION", formbackctl(8) "keys rotate").
--
-- One row per rotation, by the key id it seals under: formbackctl keys
-- rotate re-seals every sealed column under the newest key of
-- pii_key_file in batches, one short transaction each, and keeps here
-- where it is (the table in hand and the last row id done), in the
-- batch's own transaction, so that a rotation killed at any point goes
-- on from its last batch when run again.  Rows written meanwhile carry
-- their key id (leads.pii_key_id, tag_ingest.pii_key_id,
-- test_recipients.pii_key_id, webhook_endpoints.secret_key_id) and are
-- left alone when it is the newest.
CREATE TABLE IF NOT EXISTS key_rotations (
  to_key_id    INT UNSIGNED NOT NULL PRIMARY KEY
    COMMENT 'the key id every sealed column is re-sealed under',
  phase        VARCHAR(32) CHARACTER SET ascii NOT NULL DEFAULT 'leads'
    COMMENT 'the table in hand, in keys.c order; done when finished',
  after_id     UUID NULL COMMENT 'the last row id of phase done',
  resealed     BIGINT UNSIGNED NOT NULL DEFAULT 0,
  unopened     BIGINT UNSIGNED NOT NULL DEFAULT 0
    COMMENT 'rows no key of the file opened: left as they were',
  batches      BIGINT UNSIGNED NOT NULL DEFAULT 0,
  started_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  finished_at  DATETIME(6) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
