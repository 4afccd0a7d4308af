-- 0021: test recipients that members add and confirm, and test sends
-- (issue 16).  A recipient added through the admin API keeps its contact
-- sealed (as a lead's) so a test send can reach it, and counts only once
-- the code it was sent is typed back; the operator's rows (formbackctl
-- test-recipient add) are confirmed as they are made.  A test send is a
-- message rendered with sample values for one confirmed recipient, sent
-- by formback-deliver, never a delivery to a lead.
ALTER TABLE test_recipients
  ADD COLUMN IF NOT EXISTS contact_sealed VARBINARY(600) NULL AFTER masked,
  ADD COLUMN IF NOT EXISTS pii_key_id INT NULL AFTER contact_sealed,
  ADD COLUMN IF NOT EXISTS confirmed_at DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS code_hash BINARY(32) NULL COMMENT 'BLAKE2b-256 of id:code',
  ADD COLUMN IF NOT EXISTS code_sent_at DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS code_tries INT NOT NULL DEFAULT 0,
  ADD KEY IF NOT EXISTS test_recipients_code (confirmed_at, code_sent_at);
UPDATE test_recipients SET confirmed_at = created_at WHERE confirmed_at IS NULL;

CREATE TABLE IF NOT EXISTS test_sends (
  id           UUID NOT NULL PRIMARY KEY,
  tenant_id    UUID NOT NULL,
  message_id   UUID NOT NULL,
  recipient_id UUID NOT NULL,
  member_id    UUID NULL COMMENT 'who asked',
  status       ENUM('pending','sent','failed') NOT NULL DEFAULT 'pending',
  error        VARCHAR(64) CHARACTER SET ascii NULL,
  created_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  sent_at      DATETIME(6) NULL,
  KEY test_sends_pending (status, created_at),
  KEY test_sends_tenant (tenant_id, id)
) ENGINE=InnoDB;
