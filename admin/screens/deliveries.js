// Deliveries: every message scheduled or sent, by status (masked
// recipients only).
import { api } from '../api.js';
import { h, clear, card, badge, jst, pagedTable } from '../ui.js';
import { shell } from '../shell.js';
import { label, options } from '../labels.js';

const statuses = [['', 'すべて'], ...options('delivery_status')];

export function deliveries() {
  const filter = h('select', null,
    statuses.map(([v, t]) => h('option', { value: v }, t)));
  const list = h('div');
  const load = () => clear(list, pagedTable((c) =>
    api('GET', '/deliveries', undefined, { cursor: c, status: filter.value }),
  [
    ['状態', (d) => badge('delivery_status', d.status)],
    ['チャネル', (d) => label('channel', d.channel)],
    ['宛先', (d) => d.to_masked],
    ['キャンペーン', (d) => d.campaign ? d.campaign.name : '—'],
    ['リード', (d) => h('a', { href: `#/leads/${d.lead_id}` }, '表示')],
    ['予定', (d) => jst(d.scheduled_at)], ['送信', (d) => jst(d.sent_at)],
    ['理由', (d) => d.cancel_reason ?
      label('cancel_reason', d.cancel_reason) : d.error_code || ''],
  ]));
  filter.addEventListener('change', load);
  shell('配信', card(null, h('label', null, '状態', filter), list));
  load();
}
