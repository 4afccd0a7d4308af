-- 0003: scenarios, steps, messages; fixed data: message examples and
-- scenario presets (contract: Scenario, Message, MessageExampleOut).

CREATE TABLE IF NOT EXISTS messages (
  id               UUID NOT NULL PRIMARY KEY,
  tenant_id        UUID NOT NULL,
  channel          ENUM('sms','email') NOT NULL,
  subject          VARCHAR(255) NULL,
  body             TEXT NULL,
  body_html        MEDIUMTEXT NULL,
  header_image_url VARCHAR(2048) NULL,
  link_url         VARCHAR(2048) NULL,
  link_params      JSON NOT NULL,
  blocks           JSON NULL,
  sms_segments     INT NULL,
  created_at       DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at       DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY messages_tenant (tenant_id, id),
  KEY messages_channel (tenant_id, channel, id),
  CONSTRAINT fk_messages_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS scenario_steps (
  id            UUID NOT NULL PRIMARY KEY,
  tenant_id     UUID NOT NULL,
  scenario_id   UUID NOT NULL,
  position      INT NOT NULL,
  message_id    UUID NOT NULL,
  delay_minutes INT NOT NULL,
  created_at    DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY scenario_steps_scenario (tenant_id, scenario_id, position),
  KEY scenario_steps_message (tenant_id, message_id),
  CONSTRAINT fk_steps_scenario FOREIGN KEY (scenario_id) REFERENCES scenarios (id),
  CONSTRAINT fk_steps_message FOREIGN KEY (message_id) REFERENCES messages (id)
) ENGINE=InnoDB;

-- Fixed data.  SMS texts carry the store-name placeholder 【店舗名】, which
-- must be replaced before a scenario using them can be activated.
CREATE TABLE IF NOT EXISTS message_examples (
  example_key   VARCHAR(32) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  channel       ENUM('sms','email') NOT NULL,
  position      INT NOT NULL,
  delay_minutes INT NOT NULL,
  label         VARCHAR(100) NOT NULL,
  body          TEXT NULL,
  subject       VARCHAR(255) NULL,
  blocks        JSON NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT IGNORE INTO message_examples VALUES
('sms_1', 'sms', 1, 30, 'SMS 1通目(30分後)',
 '【店舗名】です。ご入力ありがとうございました。お手続きがまだ完了していないようです。続きはこちらから:{{link_url}} 配信停止:{{optout_url}}',
 NULL, NULL),
('sms_2', 'sms', 2, 4320, 'SMS 2通目(3日後)',
 '【店舗名】です。{{product_name}}のお申し込みは本日もお受けしています。よろしければご覧ください:{{link_url}} 配信停止:{{optout_url}}',
 NULL, NULL),
('email_1', 'email', 1, 60, 'メール 1通目(1時間後)', NULL,
 'お手続きが完了していません',
 '[{"type":"heading","text":"ご入力ありがとうございました"},{"type":"text","text":"お申し込みのお手続きがまだ完了していないようです。下のボタンから続きをご入力いただけます。"},{"type":"button","text":"お手続きを続ける","url":"{{link_url}}"},{"type":"divider"},{"type":"text","text":"このメールに心当たりがない場合は破棄してください。"}]'),
('email_2', 'email', 2, 1440, 'メール 2通目(1日後)', NULL,
 '{{product_name}}のお申し込みについて',
 '[{"type":"heading","text":"{{product_name}}のご案内"},{"type":"text","text":"昨日はご覧いただきありがとうございました。お申し込みはいつでも再開できます。"},{"type":"button","text":"お申し込みページへ","url":"{{link_url}}"}]'),
('email_3', 'email', 3, 10080, 'メール 3通目(7日後)', NULL,
 '最後のご案内です',
 '[{"type":"heading","text":"最後のご案内"},{"type":"text","text":"今後このご案内はお送りしません。ご興味がございましたら下のボタンからどうぞ。"},{"type":"button","text":"ページを見る","url":"{{link_url}}"}]');

CREATE TABLE IF NOT EXISTS scenario_presets (
  preset_key  VARCHAR(32) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  position    INT NOT NULL,
  name        VARCHAR(100) NOT NULL,
  description VARCHAR(255) NOT NULL,
  steps       JSON NOT NULL COMMENT '[{"example":key,"delay_minutes":n}] in order'
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT IGNORE INTO scenario_presets VALUES
('sms_single', 1, 'SMS 1通', '30分後にSMSを1通だけ送ります。',
 '[{"example":"sms_1","delay_minutes":30}]'),
('recommended', 2, 'おすすめ(3通)', 'SMS(30分後)、メール(1時間後)、メール(1日後)の3通です。',
 '[{"example":"sms_1","delay_minutes":30},{"example":"email_1","delay_minutes":60},{"example":"email_2","delay_minutes":1440}]'),
('full', 3, 'しっかりフォロー(5通)', 'SMSとメールで7日間に5通お送りします。',
 '[{"example":"sms_1","delay_minutes":30},{"example":"email_1","delay_minutes":60},{"example":"email_2","delay_minutes":1440},{"example":"sms_2","delay_minutes":4320},{"example":"email_3","delay_minutes":10080}]');
