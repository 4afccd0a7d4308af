// Deliveries: every message scheduled or sent, by status and campaign
// (masked recipients only), kept fresh, and the CSV of the filters.
import { api, apiUrl } from '../api.js';
import { h, clear, card, badge, jst, pagedTable, freshness,
  exportLink } from '../ui.js';
import { shell } from '../shell.js';
import { label, options, failure } from '../labels.js';
import { campaignSelect } from '../filters.js';

const statuses = [['', 'すべて'], ...options('delivery_status')];

export function deliveries() {
  const filter = h('select', null,
    statuses.map(([v, t]) => h('option', { value: v }, t)));
  const camp = campaignSelect(null);
  const list = h('div');
  const link = exportLink(apiUrl('/admin/deliveries/export'));
  let table = null;
  const load = () => {
    const q = { status: filter.value, campaign_id: camp.value };
    const u = apiUrl('/admin/deliveries/export', q);
    link.setAttribute('href', u.pathname + u.search);
    table = pagedTable((c) => api('GET', '/deliveries', undefined,
      { cursor: c, ...q }), [
      ['状態', (d) => badge('delivery_status', d.status)],
      ['チャネル', (d) => label('channel', d.channel)],
      ['宛先', (d) => d.to_masked],
      ['キャンペーン', (d) => d.campaign ? d.campaign.name : '—'],
      ['リード', (d) => h('a', { href: `#/leads/${d.lead_id}` }, '表示')],
      ['予定', (d) => jst(d.scheduled_at)], ['送信', (d) => jst(d.sent_at)],
      ['理由', (d) => d.cancel_reason ?
        label('cancel_reason', d.cancel_reason) :
        d.error_code ? failure('send', d.error_code) : ''],
    ]);
    clear(list, table);
  };
  filter.addEventListener('change', load);
  camp.addEventListener('change', load);
  const refresh = (quiet) => quiet && (table.pages > 1 ||
    list.contains(document.activeElement)) ? null : table.refresh();
  shell('配信', card(null, h('div', { class: 'row filters' },
    h('label', null, '状態', filter), h('label', null, 'キャンペーン', camp)),
  h('div', { class: 'row' }, freshness(list, refresh), link), list));
  load();
}
