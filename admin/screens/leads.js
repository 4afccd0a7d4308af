// Leads: the list by status, and a lead's page with its timeline (masked
// contacts only).
import { api } from '../api.js';
import { h, clear, card, errorBox, badge, jst, pagedTable,
  dataTable } from '../ui.js';
import { shell } from '../shell.js';
import { label, options } from '../labels.js';

const statuses = [['', 'すべて'], ...options('lead_status')];

export function leads() {
  const filter = h('select', null,
    statuses.map(([v, t]) => h('option', { value: v }, t)));
  const list = h('div');
  const load = () => clear(list, pagedTable((c) => api('GET', '/leads',
    undefined, { cursor: c, status: filter.value }), [
    ['状態', (l) => h('a', { href: `#/leads/${l.id}` },
      badge('lead_status', l.status))],
    ['キャンペーン', (l) => l.campaign ? l.campaign.name : '—'],
    ['メール', (l) => l.email_masked || '—'],
    ['電話', (l) => l.tel_masked || '—'],
    ['作成', (l) => jst(l.created_at)],
  ]));
  filter.addEventListener('change', load);
  shell('リード', card(null, h('label', null, '状態', filter), list));
  load();
}

function facts(l) {
  return [['メール', l.email_masked], ['電話', l.tel_masked],
    ['ランディングページ', l.landing_url], ['参照元', l.referrer],
    ['作成', jst(l.created_at)], ['取得', jst(l.captured_at)],
    ['離脱', jst(l.abandoned_at)], ['コンバージョン', jst(l.converted_at)],
    ['コンバージョンの検出', l.conversion_source ?
      label('conversion_source', l.conversion_source) : null],
    ['送信しない理由', l.suppress_reason ?
      label('suppress_reason', l.suppress_reason) : null],
    ['同意', label('consent_mode', l.consent_state)]];
}

export async function lead(id) {
  const box = h('div');
  shell('リード', box);
  try {
    const l = await api('GET', `/leads/${id}`);
    const rows = facts(l).map(([k, v]) => h('tr', null,
      h('th', { scope: 'row' }, k), h('td', null, v || '—')));
    const timeline = (l.timeline || []).map((t) => [jst(t.at),
      label('tag_event', t.type), t.role ? label('role', t.role) : '',
      t.path || '']);
    clear(box, card([badge('lead_status', l.status), ' ',
      l.campaign ? l.campaign.name : ''],
      h('table', null, h('tbody', null, rows))),
    card('経過', dataTable(['日時', 'できごと', 'ページの役割', 'パス'],
      timeline)));
  } catch (e) { clear(box, errorBox(e)); }
}
