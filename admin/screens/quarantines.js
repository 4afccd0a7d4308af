// Held leads (a card of the settings screen): a flood's leads held per
// source and hour (issue 40); nothing is sent to them until released;
// discarding asks once more before it acts.
import { api } from '../api.js';
import { h, clear, errorBox, badge, jst, pagedTable } from '../ui.js';
import { label } from '../labels.js';

function source(q) {
  // (opmail.c's flood_mail() names the kinds in the same words)
  const kind = label('quarantine_kind', q.kind);
  return q.source ? `${kind}: ${q.source}` : kind;
}

// A held row's buttons: release, or discard after a second question.
function actions(q, load) {
  if (q.status !== 'quarantined') return jst(q.decided_at);
  const decide = (how) => async (ev) => {
    const cell = ev.target.closest('td');
    try {
      await api('POST', `/admin/quarantines/${q.id}/${how}`);
      load();
    } catch (e) { clear(cell, errorBox(e)); }
  };
  const cell = h('span', null);
  const ask = () => clear(cell,
    `${q.leads} 件のリードを破棄し、送信しません。よろしいですか?`, ' ',
    h('button', { type: 'button', class: 'danger',
      onclick: decide('discard') }, '破棄する'), ' ',
    h('button', { type: 'button', class: 'secondary',
      onclick: () => clear(cell, ...buttons()) }, 'やめる'));
  const buttons = () => [h('button', { type: 'button',
    onclick: decide('release') }, '送信を再開'), ' ',
  h('button', { type: 'button', class: 'danger', onclick: ask }, '破棄')];
  return clear(cell, ...buttons());
}

// The held leads, drawn in box.
export function quarantines(box) {
  const list = h('div');
  const status = h('select', { 'aria-label': '表示する保留',
    onchange: () => load() }, [['quarantined', '保留中'], ['', 'すべて']]
    .map(([v, t]) => h('option', { value: v }, t)));
  const load = () => clear(list, pagedTable((c) =>
    api('GET', '/admin/quarantines', undefined,
      { cursor: c, status: status.value }), [
    ['時間帯', (q) => jst(q.hour)], ['サイト', (q) => q.domain || q.site_id],
    ['送信元', source], ['上限', (q) => q.threshold],
    ['リード', (q) => q.leads],
    ['状態', (q) => badge('quarantine_status', q.status)],
    ['', (q) => actions(q, load)],
  ]));
  clear(box, h('p', { class: 'muted' }, '1 つの送信元から上限を超えて' +
    '届いたリードと、サイトの通常の件数を超えた分のリードです。' +
    '送信を再開するまで SMS・メールは送りません。' +
    'サイトのほかのリードへの送信は続いています。'),
  h('label', null, '表示 ', status), list);
  load();
}
