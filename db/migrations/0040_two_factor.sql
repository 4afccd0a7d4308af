-- 0040: two-factor sign-in (issue 43, item 4; src/totp.h, formback.fcgi(8)
-- SESSIONS).
--
-- The owner's switch: every member of the tenant needs a second factor;
-- one without can reach only the enrolment and sign-out until enrolled.
ALTER TABLE tenants ADD COLUMN IF NOT EXISTS two_factor_required TINYINT(1)
  NOT NULL DEFAULT 0 COMMENT 'members without TOTP may only enrol'
  AFTER delivery_enabled_at;

-- A member's TOTP secret (RFC 6238), sealed as contacts are (pii_seal:
-- XChaCha20-Poly1305 under the master key of secret_key_id, the tenant,
-- the member's id and "totp_secret" as associated data); never in clear.
-- Pending until confirmed with a first code; last_step is the TOTP step
-- of the last code accepted: a code of that step or an earlier one is
-- a replay.
CREATE TABLE IF NOT EXISTS member_totp (
  member_id     UUID NOT NULL PRIMARY KEY,
  tenant_id     UUID NOT NULL,
  secret_sealed VARBINARY(128) NOT NULL,
  secret_key_id INT UNSIGNED NOT NULL,
  confirmed_at  DATETIME(6) NULL COMMENT 'NULL: enrolment begun, not active',
  last_step     BIGINT NOT NULL DEFAULT -1,
  created_at    DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  CONSTRAINT fk_member_totp_member FOREIGN KEY (member_id) REFERENCES members (id)
) ENGINE=InnoDB;

-- One-time recovery codes, 10 per confirmed enrolment, each sealed as
-- the secret is (the tenant, the code's id and "recovery_code" as
-- associated data), so a key rotation re-seals them like any sealed
-- column; used once.
CREATE TABLE IF NOT EXISTS member_recovery_codes (
  id          UUID NOT NULL PRIMARY KEY,
  member_id   UUID NOT NULL,
  tenant_id   UUID NOT NULL,
  code_sealed VARBINARY(64) NOT NULL,
  code_key_id INT UNSIGNED NOT NULL,
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  used_at     DATETIME(6) NULL,
  KEY member_recovery_codes_member (member_id, used_at),
  CONSTRAINT fk_recovery_member FOREIGN KEY (member_id) REFERENCES members (id)
) ENGINE=InnoDB;

-- The sign-in's second step: after the password of a member with TOTP,
-- a challenge token ("fbc_"; only its BLAKE2b-256 kept) lives 5 minutes,
-- takes 5 wrong codes at most, and is used once.
CREATE TABLE IF NOT EXISTS signin_challenges (
  id         UUID NOT NULL PRIMARY KEY,
  tenant_id  UUID NOT NULL,
  member_id  UUID NOT NULL,
  token_hash BINARY(32) NOT NULL,
  tries      INT NOT NULL DEFAULT 0,
  created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  expires_at DATETIME(6) NOT NULL,
  used_at    DATETIME(6) NULL,
  UNIQUE KEY signin_challenges_token (token_hash),
  KEY signin_challenges_expires (expires_at),
  CONSTRAINT fk_signin_challenges_member FOREIGN KEY (member_id)
    REFERENCES members (id)
) ENGINE=InnoDB;
