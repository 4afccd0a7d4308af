-- 0041: blind indexes that a key rotation re-keys (issue 43 item 7;
-- docs/internals/key-rotation.md "The blind indexes"; formback.conf(5)
-- "KEY ROTATION").
--
-- Every blind index has two slots: the column it always had (slot 1)
-- and a second one beside it (slot 2), each row naming the key id each
-- slot was computed under (bidx_key, bidx2_key; NULL: slot 1 of a row
-- written before this migration, under the key of the lowest id, or a
-- slot a writer could not vouch for).  index_keys says which key each
-- slot is under now and which slot is in force: writers fill every slot
-- that has a key, look-ups match either, and a rotation fills the other
-- slot under the newest key for old rows, then switches.
CREATE TABLE IF NOT EXISTS index_keys (
  id           TINYINT UNSIGNED NOT NULL PRIMARY KEY DEFAULT 1,
  slot1_key    INT UNSIGNED NULL
    COMMENT 'the key id of slot 1; NULL in both slots: the lowest id',
  slot2_key    INT UNSIGNED NULL COMMENT 'the key id of slot 2, or none',
  in_force     TINYINT UNSIGNED NOT NULL DEFAULT 1
    COMMENT 'the slot complete in every row: 1 or 2',
  updated_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  CONSTRAINT index_keys_one CHECK (id = 1),
  CONSTRAINT index_keys_slot CHECK (in_force IN (1, 2))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
INSERT IGNORE INTO index_keys (id) VALUES (1);

ALTER TABLE leads
  ADD COLUMN IF NOT EXISTS email_bidx2 BINARY(32) NULL AFTER email_bidx,
  ADD COLUMN IF NOT EXISTS tel_bidx2 BINARY(32) NULL AFTER tel_bidx,
  ADD COLUMN IF NOT EXISTS bidx_key INT UNSIGNED NULL,
  ADD COLUMN IF NOT EXISTS bidx2_key INT UNSIGNED NULL,
  ADD KEY IF NOT EXISTS leads_email2 (tenant_id, email_bidx2),
  ADD KEY IF NOT EXISTS leads_tel2 (tenant_id, tel_bidx2);

ALTER TABLE suppressions
  MODIFY bidx BINARY(32) NULL COMMENT 'slot 1 (index_keys)',
  ADD COLUMN IF NOT EXISTS bidx2 BINARY(32) NULL AFTER bidx,
  ADD COLUMN IF NOT EXISTS bidx_key INT UNSIGNED NULL,
  ADD COLUMN IF NOT EXISTS bidx2_key INT UNSIGNED NULL,
  ADD KEY IF NOT EXISTS suppressions_lookup2 (tenant_id, bidx2);

ALTER TABLE test_recipients
  MODIFY bidx BINARY(32) NULL COMMENT 'slot 1 (index_keys)',
  ADD COLUMN IF NOT EXISTS bidx2 BINARY(32) NULL AFTER bidx,
  ADD COLUMN IF NOT EXISTS bidx_key INT UNSIGNED NULL,
  ADD COLUMN IF NOT EXISTS bidx2_key INT UNSIGNED NULL,
  ADD UNIQUE KEY IF NOT EXISTS test_recipients_contact2 (tenant_id, kind, bidx2);

-- the index re-key's progress, beside the re-seal's
ALTER TABLE key_rotations
  ADD COLUMN IF NOT EXISTS bidx_phase VARCHAR(32) CHARACTER SET ascii
    NOT NULL DEFAULT 'leads'
    COMMENT 'the table in hand; switched when the new slot is in force',
  ADD COLUMN IF NOT EXISTS bidx_after_id UUID NULL,
  ADD COLUMN IF NOT EXISTS rekeyed BIGINT UNSIGNED NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS pass_rekeyed BIGINT UNSIGNED NOT NULL DEFAULT 0
    COMMENT 'rows the pass in hand re-keyed: a pass of none ends it',
  ADD COLUMN IF NOT EXISTS unrekeyed BIGINT UNSIGNED NOT NULL DEFAULT 0
    COMMENT 'suppressions nothing re-keyed in the last pass',
  ADD COLUMN IF NOT EXISTS bidx_started_at DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS pass_started_at DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS switched_at DATETIME(6) NULL;
