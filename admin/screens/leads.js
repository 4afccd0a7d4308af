// Leads: the list by status, and a lead's page with its timeline (masked
// contacts only).
import { api } from '../api.js';
import { h, clear, card, errorBox, badge, jst, pagedTable } from '../ui.js';
import { shell } from '../shell.js';

const statuses = [['', 'すべて'], ['captured', '取得'], ['abandoned', '離脱'],
  ['sent', '送信済み'], ['converted', '転換']];

export function leads() {
  const filter = h('select', null,
    statuses.map(([v, t]) => h('option', { value: v }, t)));
  const list = h('div');
  const load = () => clear(list, pagedTable((c) => api('GET', '/leads',
    undefined, { cursor: c, status: filter.value }), [
    ['状態', (l) => h('a', { href: `#/leads/${l.id}` }, badge(l.status))],
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
    ['離脱', jst(l.abandoned_at)], ['転換', jst(l.converted_at)]];
}

export async function lead(id) {
  const box = h('div');
  shell('リード', box);
  try {
    const l = await api('GET', `/leads/${id}`);
    const rows = facts(l).map(([k, v]) => h('tr', null,
      h('th', { scope: 'row' }, k), h('td', null, v || '—')));
    const timeline = (l.timeline || []).map((t) => h('tr', null,
      h('td', null, jst(t.at)), h('td', null, t.type || ''),
      h('td', null, t.role || ''), h('td', null, t.path || '')));
    clear(box, card([badge(l.status), ' ', l.campaign ? l.campaign.name : ''],
      h('table', null, h('tbody', null, rows))),
    card('経過', h('table', null, h('tbody', null, timeline))));
  } catch (e) { clear(box, errorBox(e)); }
}
