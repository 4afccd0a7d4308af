-- scripts/bench -S: an install of many shops (issue 40).  The caller sets
-- @tenants (at most 10,000), @active (the first of them: a site, an
-- active campaign, an SMS message, an active one-step scenario, live
-- sending, and a day of events and leads each), @events and @leads (of
-- each active tenant's day).  Ids are made from the tenant's number so
-- that the script can name them: tenant N is 01a30000-0000-7000-8000-
-- and N in 12 hexadecimal digits; its site 01a30001-..., campaign
-- 01a30002-..., message 01a30003-..., scenario 01a30004-..., step
-- 01a30005-....  Tenant 1 is the noisy one, tenant 2 the quiet one.
-- no SMS quiet hours: the run's sends must not wait for 09:00 JST
INSERT INTO tenants (id, name, plan, delivery_mode, delivery_enabled_at,
  sms_quiet_start, sms_quiet_end)
SELECT CAST(CONCAT('01a30000-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CONCAT('scale ', seq), 'pro', IF(seq <= @active, 'live', 'off'),
  IF(seq <= @active, NOW(6), NULL), 0, 0
FROM seq_1_to_10000 WHERE seq <= @tenants;

INSERT INTO sites (id, tenant_id, name, domain, public_key)
SELECT CAST(CONCAT('01a30001-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30000-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CONCAT('shop ', seq), CONCAT('s', seq, '.scale.example'),
  CONCAT('pk_scale', LPAD(seq, 24, '0'))
FROM seq_1_to_10000 WHERE seq <= @active;

INSERT INTO campaigns (id, tenant_id, site_id, campaign_key, name, status,
  abandon_wait_minutes, first_activated_at)
SELECT CAST(CONCAT('01a30002-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30000-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30001-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  'scale', 'scale', 'active', 30, NOW(6) - INTERVAL 30 DAY
FROM seq_1_to_10000 WHERE seq <= @active;

INSERT INTO messages (id, tenant_id, channel, body, link_params)
SELECT CAST(CONCAT('01a30003-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30000-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  'sms', 'スケール商店です。続きはこちら {{link_url}}', '{}'
FROM seq_1_to_10000 WHERE seq <= @active;

INSERT INTO scenarios (id, tenant_id, campaign_id, name, status)
SELECT CAST(CONCAT('01a30004-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30000-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30002-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  'scale', 'active'
FROM seq_1_to_10000 WHERE seq <= @active;

INSERT INTO scenario_steps (id, tenant_id, scenario_id, position, message_id,
  delay_minutes)
SELECT CAST(CONCAT('01a30005-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30000-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30004-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID),
  1, CAST(CONCAT('01a30003-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) AS UUID), 0
FROM seq_1_to_10000 WHERE seq <= @active;

-- a day of events of each active tenant (the 24 hours before the last
-- ten minutes, which the script adds later), a visitor every 4 events
INSERT INTO tag_events (id, tenant_id, site_id, campaign_id, visitor_id,
  session_id, event_type, url, url_path, received_at)
SELECT UUID(),
  CAST(CONCAT('01a30000-0000-7000-8000-', LPAD(HEX(t.seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30001-0000-7000-8000-', LPAD(HEX(t.seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30002-0000-7000-8000-', LPAD(HEX(t.seq), 12, '0')) AS UUID),
  LPAD(e.seq DIV 4, 36, '0'), LPAD(e.seq DIV 4, 36, '0'),
  ELT(1 + e.seq % 4, 'page_view', 'page_view', 'form_start', 'capture'),
  'https://shop.example/form', '/form',
  NOW(6) - INTERVAL 10 MINUTE - INTERVAL (e.seq * 86400 DIV @events) SECOND
FROM seq_1_to_10000 t JOIN seq_1_to_10000 e
WHERE t.seq <= @active AND e.seq <= @events;

-- and its leads of the day, judged and followed up already
INSERT INTO leads (id, tenant_id, site_id, campaign_id, visitor_id, status,
  consent_state, pii_state, captured_at, abandoned_at, created_at,
  last_activity_at)
SELECT UUID(),
  CAST(CONCAT('01a30000-0000-7000-8000-', LPAD(HEX(t.seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30001-0000-7000-8000-', LPAD(HEX(t.seq), 12, '0')) AS UUID),
  CAST(CONCAT('01a30002-0000-7000-8000-', LPAD(HEX(t.seq), 12, '0')) AS UUID),
  UUID(), 'abandoned', 'notice_optout', 'absent',
  NOW(6) - INTERVAL (l.seq * 3600) SECOND,
  NOW(6) - INTERVAL (l.seq * 3600 - 1800) SECOND,
  NOW(6) - INTERVAL (l.seq * 3600) SECOND,
  NOW(6) - INTERVAL (l.seq * 3600) SECOND
FROM seq_1_to_10000 t JOIN seq_1_to_10000 l
WHERE t.seq <= @active AND l.seq <= @leads;
