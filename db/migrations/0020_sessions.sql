-- 0020: members sign in (issue 16).  Passwords are Argon2id strings of
-- libsodium (crypto_pwhash_str); session, invitation and reset tokens are
-- stored as their BLAKE2b-256 only, like API keys.  All InnoDB: every
-- web host sees every session and every sign-in failure.
ALTER TABLE members
  MODIFY role ENUM('owner','admin','member','viewer') NOT NULL DEFAULT 'member',
  ADD COLUMN IF NOT EXISTS password_hash VARCHAR(128) CHARACTER SET ascii NULL AFTER status,
  ADD COLUMN IF NOT EXISTS password_changed_at DATETIME(6) NULL AFTER password_hash,
  ADD KEY IF NOT EXISTS members_email_any (email);

-- A signed-in member's session: idle and absolute expiry, ended by sign
-- out, suspension, deletion or a password change (ended_at set).
CREATE TABLE IF NOT EXISTS sessions (
  id           UUID NOT NULL PRIMARY KEY,
  tenant_id    UUID NOT NULL,
  member_id    UUID NOT NULL,
  token_hash   BINARY(32) NOT NULL,
  client_addr  VARCHAR(45) CHARACTER SET ascii NULL,
  created_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  last_seen_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  expires_at   DATETIME(6) NOT NULL COMMENT 'absolute expiry',
  ended_at     DATETIME(6) NULL,
  UNIQUE KEY sessions_token (token_hash),
  KEY sessions_member (member_id, ended_at),
  KEY sessions_expires (expires_at),
  CONSTRAINT fk_sessions_member FOREIGN KEY (member_id) REFERENCES members (id)
) ENGINE=InnoDB;

-- One-time links: the first password of an invited member, or a reset.
CREATE TABLE IF NOT EXISTS invitations (
  id           UUID NOT NULL PRIMARY KEY,
  tenant_id    UUID NOT NULL,
  member_id    UUID NOT NULL,
  purpose      ENUM('invite','reset') NOT NULL,
  token_hash   BINARY(32) NULL COMMENT 'set when the email is sent',
  created_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  expires_at   DATETIME(6) NOT NULL,
  sent_at      DATETIME(6) NULL,
  used_at      DATETIME(6) NULL,
  UNIQUE KEY invitations_token (token_hash),
  KEY invitations_member (member_id, used_at),
  KEY invitations_pending (sent_at, created_at),
  CONSTRAINT fk_invitations_member FOREIGN KEY (member_id) REFERENCES members (id)
) ENGINE=InnoDB;

-- Sign-in failures per account (the address typed, lower-cased) and per
-- client address, keyed by BLAKE2b-256 of "account:" or "address:" and
-- the value: growing delays without a row per attempt.
CREATE TABLE IF NOT EXISTS signin_throttle (
  subject_hash BINARY(32) NOT NULL PRIMARY KEY,
  failures     INT NOT NULL DEFAULT 0,
  last_failure_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  blocked_until DATETIME(6) NULL,
  KEY signin_throttle_last (last_failure_at)
) ENGINE=InnoDB;

-- Addresses are compared lower-cased from now on (sign-in, invitations).
UPDATE members SET email = LOWER(email) WHERE email <> LOWER(email);

-- An API key's last use, stamped at most once a minute (formback.fcgi(8)).
ALTER TABLE api_keys
  ADD COLUMN IF NOT EXISTS name VARCHAR(100) NULL AFTER scopes,
  ADD COLUMN IF NOT EXISTS last_used_at DATETIME(6) NULL AFTER revoked_at;
