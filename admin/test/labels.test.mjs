// Japanese throughout (issue 42): every value an enumeration of
// src/openapi-schemas.json lists has its label, under the kind the UI
// shows that field with; a new enumerated field fails here until it is
// given a kind.  Every write operation of src/route.c has its audit
// action, and the lead and delivery reasons of the contract theirs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { topDir } from './fixtures.mjs';
import { label, tables, paramLabel, failure } from '../labels.js';

const schemas = JSON.parse(readFileSync(join(topDir,
  'src/openapi-schemas.json'), 'utf8'));

// "Schema.property" (".items" for an array's items) -> the kind
const kinds = {
  'ConsentTemplateOut.key': 'template_key',
  'ConsentSettingsOut.consent_template_key': 'template_key',
  'ConsentSettingsOut.consent_mode': 'consent_mode',
  'LeadOut.consent_state': 'consent_mode',
  'PpCheckOut.consent_mode': 'consent_mode',
  'DeliveryStatusOut.mode': 'delivery_mode',
  'DeliveryStatusIn.mode': 'delivery_mode',
  'CampaignIn.status': 'campaign_status',
  'CampaignPatch.status': 'campaign_status',
  'CampaignListItemOut.status': 'campaign_status',
  'CampaignDetailOut.status': 'campaign_status',
  'UrlRuleOut.role': 'role', 'UrlRuleIn.role': 'role',
  'MatchRuleOut.role': 'role', 'MatchTestOut.role': 'role',
  'UrlRuleOut.match_type': 'match_type', 'UrlRuleIn.match_type': 'match_type',
  'MatchRuleOut.match_type': 'match_type',
  'FormProfileOut.detected_by': 'detected_by',
  'LeadOut.status': 'lead_status', 'LeadOut.pii_state': 'pii_state',
  'DeliveryOut.pii_state': 'pii_state', 'LeadOut.tel_kind': 'tel_kind',
  'LeadOut.conversion_source': 'conversion_source',
  'ConversionDetectedData.conversion_source': 'conversion_source',
  'LeadListOut.date_field': 'lead_date_field',
  'ScenarioOut.status': 'scenario_status',
  'ScenarioIn.status': 'scenario_status',
  'ScenarioPatch.status': 'scenario_status',
  'ScenarioOut.steps.items.channel': 'channel', 'MessageIn.channel': 'channel',
  'MessageOut.channel': 'channel',
  'MessageExampleListOut.data.items.channel': 'channel',
  'DeliveryOut.channel': 'channel', 'DailyStepGroupOut.channel': 'channel',
  'LeadCapturedData.channels.items': 'channel',
  'DeliveryEventData.channel': 'channel', 'MemberPatch.role': 'member_role',
  'ConsentSettingsPatch.consent_mode': 'consent_mode',
  'MessagePatch.channel': 'channel',
  'MessageIn.blocks.items.type': 'block_type',
  'MessagePatch.blocks.items.type': 'block_type',
  'MessageOut.blocks.items.type': 'block_type',
  'DeliveryOut.status': 'delivery_status',
  'DeliveryListOut.date_field': 'delivery_date_field',
  'SuppressionOut.kind': 'suppression_kind',
  'SuppressionImportRowOut.kind': 'suppression_kind',
  'SuppressionOut.scope': 'suppression_scope',
  'SuppressionIn.scope': 'suppression_scope',
  'SuppressionOut.reason': 'suppression_reason',
  'WebhookEndpointIn.events.items': 'event',
  'WebhookEndpointOut.events.items': 'event',
  'WebhookEndpointCreatedOut.events.items': 'event',
  'WebhookDeliveryOut.event_type': 'event',
  'WebhookEndpointOut.status': 'webhook_status',
  'WebhookEndpointCreatedOut.status': 'webhook_status',
  'WebhookEndpointOut.disabled_reason': 'disabled_reason',
  'WebhookEndpointCreatedOut.disabled_reason': 'disabled_reason',
  'WebhookDeliveryOut.status': 'webhook_delivery_status',
  'PpFindingOut.code': 'pp_finding', 'PpFindingOut.severity': 'pp_severity',
  'PpCheckOut.status': 'pp_status', 'ReportFaceOut.unit': 'report_unit',
  'SessionMemberOut.role': 'member_role', 'MemberOut.role': 'member_role',
  'SessionTenantOut.role': 'member_role',
  'MemberInviteIn.role': 'member_role', 'MemberOut.status': 'member_status',
  'MemberPatch.status': 'member_status',
  'ApiKeyOut.kind': 'key_kind', 'ApiKeyCreatedOut.kind': 'key_kind',
  'ApiKeyIn.kind': 'key_kind', 'ApiKeyOut.status': 'key_status',
  'ApiKeyCreatedOut.status': 'key_status',
  'AuditEntryOut.actor_type': 'actor_type',
  'QuarantineOut.kind': 'quarantine_kind',
  'QuarantineOut.status': 'quarantine_status',
  'SuppressionImportRowOut.result': 'import_result',
  'SuppressionImportOut.encoding': 'encoding',
  'TestRecipientOut.kind': 'recipient_kind',
  'TestRecipientOut.status': 'recipient_status',
  'TestSendOut.status': 'test_send_status', 'UsageOut.plan': 'plan',
  'DeliveryEventData.status': 'delivery_status',
  'PasswordResetOut.status': 'password_reset_status',
  'TotpOut.status': 'totp_status', 'TotpEnrolmentOut.status': 'totp_status',
  'TwoFactorChallengeOut.methods.items': 'two_factor_method',
  'PersonalDataSubjectOut.kind': 'suppression_kind',
  'PersonalDataContactOut.kind': 'suppression_kind',
  'PersonalDataContactOut.pii_state': 'pii_state',
  'PersonalDataDeliveryOut.channel': 'channel',
  'PersonalDataEventOut.type': 'tag_event',
  'PersonalDataWebhookOut.status': 'webhook_delivery_status',
};
// enumerations that are no value a person reads: a record's `object`,
// the fixed time zone, the "all" of scopes, the threshold percentages
const notShown = new RegExp(['\\.object$', '^DailyRangeOut\\.timezone$',
  '^ApiKeyIn\\.scopes', '^UsageThresholdReachedData\\.threshold_percent$']
  .join('|'));

// [path, values] of every enum under a schema
function enums(node, path, out) {
  if (!node || typeof node !== 'object') return out;
  if (Array.isArray(node.enum)) out.push([path, node.enum]);
  for (const [k, v] of Object.entries(node.properties || {}))
    enums(v, `${path}.${k}`, out);
  if (node.items) enums(node.items, `${path}.items`, out);
  for (const alt of ['oneOf', 'anyOf', 'allOf'])
    (node[alt] || []).forEach((x, i) => enums(x, `${path}.${alt}${i}`, out));
  return out;
}

test('every enumerated value of the schemas has its Japanese label', () => {
  const found = [];
  for (const [name, s] of Object.entries(schemas))
    for (const [path, values] of enums(s, name, [])) {
      if (notShown.test(path)) continue;
      const kind = kinds[path];
      assert.ok(kind, `${path} (${values.join(', ')}) has no kind`);
      for (const v of values.filter((x) => x !== null)) {
        assert.ok(Object.hasOwn(tables[kind], v), `${path}: ${v}`);
        assert.doesNotMatch(label(kind, v), /その他/);
      }
      found.push(path);
    }
  assert.ok(found.length > 60, `only ${found.length} enumerations found`);
});

test('the contract\'s reasons have labels', () => {
  for (const v of ['check_error', 'not_found', 'delivery_disabled',
    'campaign_inactive', 'campaign_paused', 'scenario_inactive',
    'scenario_paused', 'before_activation', 'stale', 'converted',
    'lead_ineligible', 'no_contact', 'not_test_recipient', 'opted_out',
    'suppressed', 'invalid_contact', 'sender_unverified',
    'free_quota_exhausted', 'subscription_inactive', 'balance_exhausted',
    'cap_exceeded'])
    assert.ok(Object.hasOwn(tables.suppress_reason, v), v);
  for (const v of ['converted', 'suppressed', 'opted_out', 'cap_exceeded',
    'invalid_contact', 'step_removed'])
    assert.ok(Object.hasOwn(tables.cancel_reason, v), v);
});

test('every write operation and formbackctl action has an audit label', () => {
  const route = readFileSync(join(topDir, 'src/route.c'), 'utf8');
  const row = new RegExp('\\.method = "(\\w+)",\\s*\\.path = "[^"]+",' +
    '\\s*\\.fn = \\w+,\\s*\\.operation_id = "(\\w+)"', 'g');
  const ops = [...route.matchAll(row)]
    .filter((m) => m[1] !== 'GET').map((m) => m[2]);
  assert.ok(ops.length > 30);
  const cli = [];
  for (const f of ['apikey', 'campaign', 'lead', 'member', 'quarantine',
    'scenario', 'site', 'tenant', 'test-recipient', 'webhook', 'personal']) {
    const src = readFileSync(join(topDir, `src/ctl/${f}.c`), 'utf8');
    for (const m of src.matchAll(/"([a-z_]+\.[a-z_]+)"/g))
      if (!/\.[ch]$/.test(m[1])) cli.push(m[1]);
  }
  // what src/api/admin.c, src/links.c, src/tag/quarantine.c and the
  // takeover warning write
  const other = ['signin', 'signin.failed', 'url_takeover',
    'invitation.accepted', 'password_reset.requested',
    'password_reset.accepted', 'flood.quarantined', 'opt_out',
    'signin.password', 'signin.two_factor_failed', 'recovery_code.used'];
  for (const a of [...ops, ...cli, ...other])
    assert.ok(Object.hasOwn(tables.audit_action, a), a);
});

test('an unknown value is shown as other, never raw alone', () => {
  assert.equal(label('lead_status', 'waiting'), 'その他(waiting)');
  assert.equal(label('lead_status', null), '—');
});

test('paramLabel: the form\'s words for the API\'s field names', () => {
  assert.equal(paramLabel('rules[1].match_type'), 'URL ルール 2 行目の「種類」');
  assert.equal(paramLabel('rules[0].role'), 'URL ルール 1 行目の「役割」');
  assert.equal(paramLabel('steps[2].delay_minutes'),
    'ステップ 3 つ目の「遅延(分)」');
  assert.equal(paramLabel('blocks[4]'), 'ブロック 5 つ目');
  assert.equal(paramLabel('name'), '名前');
  assert.equal(paramLabel('constructor'), null);
  assert.equal(paramLabel(null), null);
});

test('failures of sends and webhooks are in words, never raw alone', () => {
  assert.equal(failure('send', 'outcome_unknown'), '送信したか不明(再送しません)');
  assert.equal(failure('send', 'smtp_550'), 'メールサーバーが拒否(550)');
  assert.equal(failure('send', 'gateway_503'), 'SMS ゲートウェイが拒否(503)');
  assert.equal(failure('send', 'smtp_unreachable'),
    'メールサーバーに接続できない');
  assert.equal(failure('send', 'odd_thing'), 'エラー(odd_thing)');
  assert.equal(failure('webhook', 'endpoint stopped'), '送信先が停止中');
  assert.equal(failure('webhook', 'HTTP 500'), '受信側の応答(500)');
  assert.equal(failure('webhook', 'Connection refused'),
    '接続エラー(Connection refused)');
  assert.equal(failure('send', null), '—');
});
