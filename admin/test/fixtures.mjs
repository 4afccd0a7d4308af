// The fixed data the server seeds (db/migrations/0003_scenarios.sql):
// the message examples and the scenario presets, read from the
// migration itself so the tests follow it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const top = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const topDir = top;

// The rows of `INSERT IGNORE INTO <table> VALUES (...), (...);` as
// arrays of values: SQL strings ('' for a quote), NULL, numbers.
export function sqlRows(sql, table) {
  const start = sql.indexOf(`INSERT IGNORE INTO ${table} VALUES`);
  if (start < 0) throw new Error(`no rows of ${table}`);
  let i = sql.indexOf('(', start);
  const rows = [];
  let row = null;
  for (; i < sql.length; i++) {
    const c = sql[i];
    if (c === '(' && row === null) row = [];
    else if (c === ')' && row !== null) { rows.push(row); row = null; }
    else if (c === ';' && row === null) break;
    else if (row === null || /[\s,]/.test(c)) continue;
    else if (c === "'") {
      let s = '';
      for (i++; ; i++) {
        if (sql[i] === "'" && sql[i + 1] === "'") { s += "'"; i++; }
        else if (sql[i] === "'") break;
        else s += sql[i];
      }
      row.push(s);
    } else {
      const m = /^(NULL|-?\d+)/.exec(sql.slice(i));
      row.push(m[1] === 'NULL' ? null : Number(m[1]));
      i += m[1].length - 1;
    }
  }
  return rows;
}

const sql = readFileSync(join(top, 'db/migrations/0003_scenarios.sql'),
  'utf8');

// MessageExampleOut rows, as GET /message_examples gives them
export const examples = sqlRows(sql, 'message_examples').map(
  ([key, channel, position, delay_minutes, label, body, subject, blocks]) =>
    ({ key, channel, position, delay_minutes, label, body, subject,
      blocks: blocks === null ? null : JSON.parse(blocks) }));

// {key, name, steps: [{example, delay_minutes}]}
export const presets = sqlRows(sql, 'scenario_presets').map(
  ([key, , name, , steps]) => ({ key, name, steps: JSON.parse(steps) }));

// A funnel (FunnelReportOut) of two days, as GET /reports/funnel
// answers it, with the groups of group_by=campaign.
export const funnelReport = {
  object: 'funnel_report',
  range: { from: '2026-11-26T15:00:00Z', to: '2026-11-28T15:00:00Z',
    site_id: null, campaign_id: null },
  unit: '訪問(ページタグのセッション)。',
  faces: [
    { key: 'visited', label: '訪問', value: 40, unit: 'visit',
      reference: 'received_at' },
    { key: 'form_started', label: '入力開始', value: 20, unit: 'visit',
      reference: 'received_at' },
    { key: 'captured', label: '連絡先の取得', value: 9, unit: 'visit',
      reference: 'received_at' },
    { key: 'abandoned', label: '離脱', value: 6, unit: 'lead',
      reference: 'abandoned_at' },
    { key: 'messaged', label: 'フォロー送信', value: 0, unit: 'lead',
      reference: 'sent_at' },
    { key: 'recovered', label: '回復(離脱後のコンバージョン)', value: 1,
      unit: 'lead', reference: 'converted_at' }],
  metrics: [
    { key: 'form_start_rate', label: '入力開始率', value: 0.5,
      numerator: 20, denominator: 40 },
    { key: 'capture_rate', label: '連絡先取得率', value: 0.45,
      numerator: 9, denominator: 20 },
    { key: 'recovery_rate', label: '回復率', value: 0.1667, numerator: 1,
      denominator: 6 }],
  volumes: { page_view: 55 }, conversion_events: 2, converted: 2,
  converted_spillover: 0, converted_hash_match: 0, delivered_inferred: 0,
  excluded_no_session: 0, imputed_by_visitor: 0, unassigned_share: null,
  groups: [
    { campaign_id: '0b7e2f7c-1d2a-4f3b-9c8d-7e6f5a4b3c2d',
      campaign_key: 'spring', campaign_name: '<b>春</b>', page_view: 50,
      form_start: 22, capture: 10, conversion: 2, abandoned: 6,
      converted: 2, converted_spillover: 0, converted_hash_match: 0 },
    { campaign_id: null, campaign_key: null, campaign_name: 'キャンペーン外',
      page_view: 5, form_start: 0, capture: 0, conversion: 0, abandoned: 0,
      converted: 0, converted_spillover: 0, converted_hash_match: 0 }],
};

const dlv = (sent) => ({ sent, delivered: sent, opened: null, clicked: 0,
  converted: 0 });
// One day of DailyReportOut: computed with its counts, or not yet.
function day(date, captured, abandoned, sent, recovered) {
  const none = captured === null;
  return { date, computed: !none, counts: {
    traffic: none ? null : { page_view: 1, visits: 1, form_start: 1,
      capture: 1 },
    capture: { captured, abandoned },
    conversion: { abandoned, converted: recovered },
    delivery: none ? { sent: null, delivered: null, opened: null,
      clicked: null, converted: null } : dlv(sent) },
  delivery_by_channel: { sms: dlv(sent), email: dlv(0) },
  converted_spillover: none ? null : 0,
  converted_hash_match: none ? null : 0 };
}

// A daily report (DailyReportOut) of the same two days, the second not
// counted yet.
export const dailyReport = {
  object: 'daily_report',
  range: { from: '2026-11-27', to: '2026-11-29', timezone: 'Asia/Tokyo',
    site_id: null, campaign_id: null, scenario_id: null },
  refreshed_at: '2026-11-28T09:40:00Z',
  not_computed_dates: ['2026-11-28'],
  faces: [
    { key: 'captured', label: '連絡先の取得', value: 2, unit: 'lead',
      reference: 'captured_at' },
    { key: 'abandoned', label: '離脱', value: 1, unit: 'lead',
      reference: 'abandoned_at' },
    { key: 'sent', label: 'フォロー送信', value: 3, unit: 'message',
      reference: 'sent_at' },
    { key: 'recovered', label: '回復(離脱後のコンバージョン)', value: 0,
      unit: 'lead', reference: 'converted_at' }],
  metrics: [{ key: 'recovery_rate', label: '回復率', value: 0,
    numerator: 0, denominator: 1 }],
  converted_spillover: 0, converted_hash_match: 0,
  days: [day('2026-11-27', 2, 1, 3, 0),
    day('2026-11-28', null, null, null, null)],
  notes: { recovered_cv: '回復は…', traffic_unit: '訪問は…',
    delivery: '送信は…' },
};
