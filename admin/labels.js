// Every enumerated value the admin UI shows, in Japanese, through one
// table: label(kind, value).  A value the table does not know (the
// contract lets enumerations grow) shows as 「その他(value)」.  The node
// tests check that every value src/openapi-schemas.json lists has its
// label, and every write operation its audit action.  paramLabel()
// names the field an error's param points at as the forms label it.

const tables = {
  block_type: { heading: '見出し', text: '本文', button: 'ボタン',
    image: '画像', divider: '区切り線' },
  channel: { sms: 'SMS', email: 'メール' },
  campaign_status: { active: '有効', paused: '一時停止中',
    archived: 'アーカイブ' },
  scenario_status: { draft: '下書き', active: '有効', paused: '一時停止中' },
  role: { landing: 'ランディング', form: 'フォーム', thanks: '完了(サンクス)' },
  match_type: { prefix: '前方一致', glob: 'ワイルドカード', regex: '正規表現',
    query: 'クエリ', host: 'ホスト' },
  detected_by: { manual: '手動', preset: 'プリセット', auto: '自動検出' },
  lead_status: { started: '入力開始', captured: '取得', abandoned: '離脱',
    queued: '送信待ち', sent: '送信済み', converted: 'コンバージョン',
    suppressed: '送信対象外' },
  delivery_status: { scheduled: '予定', sending: '送信中', sent: '送信済み',
    delivered: '到達', failed: '失敗', cancelled: '取り消し',
    suppressed: '送信対象外' },
  consent_mode: { none: 'なし', notice_optout: '通知と配信停止',
    explicit: '明示の同意' },
  template_key: { concise: '簡潔', formal: 'かしこまった', standard: '標準' },
  delivery_mode: { off: '停止', test_only: 'テスト送信先のみ', live: '本番' },
  pii_state: { present: 'あり', absent: 'なし(削除済み)', error: '読み出せない' },
  tel_kind: { mobile: '携帯電話', ip: 'IP 電話', landline: '固定電話' },
  conversion_source: { tag: '完了ページのタグ',
    tag_visitor: '同じ訪問者の別キャンペーンでの完了',
    hash_match: '同じ連絡先での完了', cart_api: 'カート連携',
    manual: '手動' },
  lead_date_field: { created_at: '作成日時', captured_at: '取得日時',
    abandoned_at: '離脱日時', converted_at: 'コンバージョン日時' },
  delivery_date_field: { created_at: '作成日時', scheduled_at: '予定日時',
    sent_at: '送信日時' },
  suppress_reason: { check_error: '確認エラー', not_found: '見つからない',
    delivery_disabled: '送信が停止中', campaign_inactive: 'キャンペーンが無効',
    campaign_paused: 'キャンペーンが一時停止中',
    scenario_inactive: 'シナリオが無効',
    scenario_paused: 'シナリオが一時停止中',
    before_activation: '有効にする前のリード', stale: '古いリード',
    converted: 'コンバージョン済み', lead_ineligible: '送信の条件を満たさない',
    no_contact: '連絡先なし', not_test_recipient: 'テスト送信先ではない',
    opted_out: '配信停止の申し出', suppressed: '配信停止リスト',
    invalid_contact: '連絡先が不正', sender_unverified: '送信元が未確認',
    free_quota_exhausted: '無料枠を使い切った',
    subscription_inactive: '契約が無効', balance_exhausted: '残高不足',
    cap_exceeded: '送信上限を超えた',
    erased: '本人の請求で削除' },
  cancel_reason: { converted: 'コンバージョン済み', suppressed: '配信停止リスト',
    opted_out: '配信停止の申し出', cap_exceeded: '送信上限を超えた',
    invalid_contact: '連絡先が不正', step_removed: 'ステップが削除された',
    erased: '本人の請求で削除' },
  suppression_kind: { email: 'メール', tel: '電話' },
  suppression_scope: { tenant: 'すべてのキャンペーン',
    campaign: 'このキャンペーンのみ' },
  suppression_reason: { opt_out: '配信停止の申し出', manual: '手動',
    bounce: '不達', complaint: '苦情', undeliverable: '宛先不明' },
  event: { 'lead.captured': 'リード取得', 'lead.abandoned': 'リード離脱',
    'delivery.sent': '送信', 'delivery.failed': '送信失敗',
    'conversion.detected': 'コンバージョン',
    'usage.threshold_reached': '送信数が上限に近づいた' },
  tag_event: { page_view: 'ページ表示', form_start: '入力開始',
    capture: '連絡先の取得', consent: '同意', conversion: 'コンバージョン' },
  webhook_status: { enabled: '有効', disabled: '停止中' },
  disabled_reason: { consecutive_failures: '失敗が続いたため',
    gone: '受信側が 410 Gone を返したため' },
  webhook_delivery_status: { pending: '送信待ち', sending: '送信中',
    succeeded: '成功', failed: '失敗' },
  pp_finding: { input_capture_not_disclosed: '入力途中の取得の記載がない',
    sms_not_disclosed: 'SMS 送信の記載がない',
    email_not_disclosed: 'メール送信の記載がない',
    optout_not_disclosed: '配信停止方法の記載がない',
    not_https: 'https ではない' },
  pp_severity: { required: '必須', recommended: '推奨' },
  pp_status: { passed: '問題なし', failed: '不足あり', error: '確認できない' },
  report_unit: { visit: '訪問', lead: 'リード', message: '通' },
  member_role: { owner: 'オーナー', admin: '管理者', member: 'メンバー',
    viewer: '閲覧のみ' },
  member_status: { active: '有効', suspended: '停止中', deleted: '削除済み',
    invited: '招待中' },
  key_kind: { live: '本番', test: 'テスト' },
  totp_status: { disabled: '未設定', pending: '設定中', enabled: '有効' },
  two_factor_method: { totp: '認証アプリの確認コード',
    recovery_code: 'リカバリーコード' },
  key_status: { active: '有効', revoked: '無効' },
  actor_type: { api_key: 'API キー', session: 'メンバー', cli: '運用者',
    system: 'システム' },
  quarantine_kind: { address: '送信元アドレス', network: '送信元ネットワーク',
    visitor: '訪問者', site: 'サイト全体(通常の件数を超えた分)' },
  quarantine_status: { quarantined: '保留中', released: '解除済み',
    discarded: '破棄済み' },
  import_result: { created: '登録', exists: '登録済み', invalid: '不正' },
  encoding: { 'utf-8': 'UTF-8', 'utf-8-bom': 'UTF-8(BOM 付き)',
    shift_jis: 'Shift_JIS' },
  recipient_kind: { tel: '電話', email: 'メール' },
  recipient_status: { pending: '確認待ち', confirmed: '確認済み' },
  test_send_status: { pending: '送信待ち', sent: '送信済み', failed: '失敗' },
  plan: { free: 'Free', starter: 'Starter', growth: 'Growth', pro: 'Pro' },
  password_reset_status: { accepted: '受け付け' },
  // the audit log's action: an operationId, or what formbackctl and the
  // sign-in write (src/ctl/*.c, src/api/admin.c)
  audit_action: {
    createCampaign: 'キャンペーンを作成', updateCampaign: 'キャンペーンを変更',
    replaceCampaignUrlRules: 'URL ルールを保存',
    replaceCampaignFormProfile: 'フォームの設定を保存',
    duplicateCampaign: 'キャンペーンを複製',
    testSiteUrlRules: 'URL の一致テスト',
    createCampaignScenario: 'シナリオを作成',
    createCampaignScenarioFromPreset: 'プリセットからシナリオを作成',
    updateScenario: 'シナリオを変更', deleteScenario: 'シナリオを削除',
    replaceScenarioSteps: 'ステップを保存', duplicateScenario: 'シナリオを複製',
    createMessage: 'メッセージを作成', estimateSmsSegments: 'SMS の文字数',
    updateMessage: 'メッセージを変更', deleteMessage: 'メッセージを削除',
    duplicateMessage: 'メッセージを複製', previewMessage: 'メッセージの表示確認',
    createTestSend: 'テスト送信', createSuppression: '配信停止を追加',
    deleteSuppression: '配信停止を削除',
    searchLeads: 'リードを連絡先で検索',
    exportPersonalData: '個人データを開示', erasePersonalData: '個人データを削除',
    'personal_data.export': '個人データを開示',
    'personal_data.erase': '個人データを削除', convertLead: 'リードを成約にする',
    createWebhookEndpoint: 'Webhook を追加',
    deleteWebhookEndpoint: 'Webhook を削除',
    redeliverWebhookDelivery: 'Webhook を再送',
    enableWebhookEndpoint: 'Webhook を再開',
    recoverWebhookEndpoint: '停止中の Webhook を再送',
    testWebhookEndpoint: 'Webhook のテスト送信',
    createAdminSession: 'ログイン', deleteAdminSession: 'ログアウト',
    createPasswordReset: 'パスワードの再設定を依頼',
    acceptInvitation: '招待を承諾', inviteMember: 'メンバーを招待',
    updateMember: 'メンバーを変更', createApiKey: 'API キーを発行',
    revokeApiKey: 'API キーを無効化', importSuppressions: '配信停止を CSV で登録',
    addTestRecipient: 'テスト送信先を追加',
    confirmTestRecipient: 'テスト送信先を確認',
    deleteTestRecipient: 'テスト送信先を削除', createSite: 'サイトを追加',
    updateSite: 'サイトを変更', updateConsentSettings: '同意の設定を変更',
    setDeliveryStatus: '送信の切り替え', releaseQuarantine: '保留を解除',
    discardQuarantine: '保留を破棄', optOut: '配信停止(受信者)',
    smsReceipt: 'SMS の到達通知', emailReceipt: 'メールの到達通知',
    preflightTagEvent: 'タグの事前確認',
    signin: 'ログイン', 'signin.failed': 'ログイン失敗',
    'signin.password': 'ログイン(パスワード確認済み)',
    'signin.two_factor_failed': 'ログイン失敗(確認コード)',
    'recovery_code.used': 'リカバリーコードを使用',
    'member.totp_reset': '2段階認証をリセット(運用者)',
    completeAdminSignIn: 'ログイン(2段階認証)',
    beginTotpEnrolment: '2段階認証の設定を開始',
    confirmTotpEnrolment: '2段階認証を有効化', disableTotp: '2段階認証を無効化',
    createRecoveryCodes: 'リカバリーコードを再発行',
    setTwoFactorPolicy: '2段階認証の必須設定を変更',
    'invitation.accepted': '招待を承諾',
    'password_reset.requested': 'パスワードの再設定を依頼',
    'password_reset.accepted': 'パスワードを再設定',
    'flood.quarantined': 'リードを保留', opt_out: '配信停止(受信者)',
    url_takeover: 'URL の引き継ぎ', 'apikey.create': 'API キーを発行',
    'apikey.revoke': 'API キーを無効化',
    'campaign.set_status': 'キャンペーンの状態を変更',
    'scenario.set_status': 'シナリオの状態を変更',
    'delivery_switch.set': '送信の切り替え', 'lead.convert': 'リードを完了に',
    'member.create': 'メンバーを作成', 'member.invite': 'メンバーを招待',
    'member.set_password': 'パスワードを設定', 'member.suspend': 'メンバーを停止',
    'member.delete': 'メンバーを削除', 'quarantine.release': '保留を解除',
    'quarantine.discard': '保留を破棄', 'site.create': 'サイトを追加',
    'site.privacy_policy_url': 'プライバシーポリシーの URL を変更',
    'site.sending_released': 'サイトの送信を再開',
    'tenant.create': 'アカウントを作成', 'tenant.quiet_hours': '送信しない時間帯',
    'tenant.send_quota': '送信上限', 'test_recipient.add': 'テスト送信先を追加',
    'test_recipient.remove': 'テスト送信先を削除',
    'webhook_endpoint.enable': 'Webhook を再開' },
  target_type: { campaign: 'キャンペーン', scenario: 'シナリオ',
    message: 'メッセージ', site: 'サイト', member: 'メンバー',
    api_key: 'API キー', suppression: '配信停止', lead: 'リード',
    quarantine: '保留', tenant: 'アカウント', test_recipient: 'テスト送信先',
    webhook_endpoint: 'Webhook', webhook_delivery: 'Webhook の配信',
    consent_settings: '同意の設定', delivery_status: '送信の切り替え',
    session: 'ログイン', test_send: 'テスト送信', contact: '連絡先' },
};

export function label(kind, value) {
  if (value === null || value === undefined || value === '') return '—';
  const t = tables[kind];
  if (t && Object.hasOwn(t, value)) return t[value];
  return `その他(${value})`;
}

// Why a message or a webhook failed, as the sending job records it: not
// a fixed vocabulary (DeliveryOut error_code, WebhookDeliveryOut error),
// so the known codes are in words, the codes with a number name it, and
// any other text shows beside a word, never alone.
const failures = {
  send: { message_invalid: 'メッセージが不正', render_failed: '本文を作れない',
    pii_error: '連絡先を読み出せない',
    outcome_unknown: '送信したか不明(再送しません)',
    sms_gateway_not_configured: 'SMS の送信先が未設定',
    gateway_unreachable: 'SMS ゲートウェイに接続できない',
    smtp_unreachable: 'メールサーバーに接続できない',
    smtp_error: 'メールサーバーのエラー', test: 'テスト' },
  webhook: { 'endpoint stopped': '送信先が停止中',
    'secret cannot be opened': '署名の鍵を読み出せない',
    'cannot sign': '署名できない' },
};
const numbered = [[/^smtp_(\d{3})$/, 'メールサーバーが拒否'],
  [/^gateway_(\d{3})$/, 'SMS ゲートウェイが拒否'],
  [/^HTTP (\d{3})$/, '受信側の応答']];

export function failure(kind, value) {
  if (value === null || value === undefined || value === '') return '—';
  const t = failures[kind] || {};
  if (Object.hasOwn(t, value)) return t[value];
  for (const [re, text] of numbered) {
    const m = re.exec(value);
    if (m) return `${text}(${m[1]})`;
  }
  return kind === 'webhook' ? `接続エラー(${value})` : `エラー(${value})`;
}

// The values a kind knows, as [value, label] (for a select).
export function options(kind) {
  return Object.entries(tables[kind] || {});
}

// The fields of the forms, by the name the API gives them (error.param).
const fields = {
  name: '名前', key: 'キー', site_id: 'サイト', campaign_id: 'キャンペーン',
  scenario_id: 'シナリオ', message_id: 'メッセージ', url: 'URL',
  email: 'メールアドレス', password: 'パスワード', domain: 'ドメイン',
  subject: '件名', body: '本文', body_html: 'HTML', value:
  '電話番号またはメールアドレス', contact: '電話番号またはメールアドレス',
  expires_at: '期限(2027-03-31T23:59:59+09:00 のように日時と時差、未来の日時)',
  memo: 'メモ', events: 'イベント', role: '権限', status: '状態',
  abandon_wait_minutes: '離脱と判定するまでの分数', product_name: '商品名',
  tel_selectors: '電話番号の欄', tel_split_selectors: '分割された電話番号の欄',
  email_selectors: 'メールアドレスの欄', consent_selector: '同意のチェックボックス',
  mode: '送信', code: '確認コード', preset_key: 'プリセット',
  delay_minutes: '遅延(分)', privacy_policy_url: 'プライバシーポリシーの URL',
  scopes: 'スコープ', kind: '種類', link_url: 'リンク先の URL',
  header_image_url: 'ヘッダー画像の URL', link_params: 'リンクのパラメータ',
  consent_mode: '同意の方式', consent_checkbox_enabled: '同意のチェックボックス',
  optout_text: '配信停止ページの文言', 'optout_text.title': '配信停止ページの見出し',
  tenant_id: 'アカウント', channel: 'チャネル', from: '期間の始め',
  to: '期間の終わり', scope: '範囲', rules: 'URL ルール', steps: 'ステップ',
  blocks: 'ブロック', pattern: 'パターン', match_type: '種類',
  priority: '優先度', alt: '代替テキスト', text: '文言', type: '種類',
  token: 'リンク', q: '検索',
};
const items = { rules: ['URL ルール', ' 行目'], steps: ['ステップ', ' つ目'],
  blocks: ['ブロック', ' つ目'] };
const ruleFields = { role: '役割' };

// The field an error's param names, as the form labels it:
// "rules[1].match_type" is 「URL ルール 2 行目の「種類」」; null when
// the param is none or unknown (the message then stands alone).
export function paramLabel(param) {
  if (!param) return null;
  const m = /^(rules|steps|blocks)\[(\d+)\](?:\.([a-z_]+))?$/.exec(param);
  if (m) {
    const [list, unit] = items[m[1]];
    const where = `${list} ${Number(m[2]) + 1}${unit}`;
    if (!m[3]) return where;
    const f = (m[1] === 'rules' && ruleFields[m[3]]) || fields[m[3]];
    return f ? `${where}の「${f}」` : where;
  }
  return Object.hasOwn(fields, param) ? fields[param] : null;
}

export { tables };
