// A scenario's steps as a timeline from the abandonment (as a flow view
// reads): when each message goes, by which channel, what holds it (the
// SMS quiet hours) and what stops the rest (the deliveries' cancel
// reasons).  Drawn from the steps being edited, so it follows the table.
import { h } from './ui.js';
import { label } from './labels.js';

// Minutes as the shops read a delay: 0 「すぐ」, else days, hours and
// minutes, the zero parts left out (90 → 「1 時間 30 分」).
export function duration(min) {
  const m = Math.max(0, Math.floor(Number(min) || 0));
  if (m === 0) return 'すぐ';
  const d = Math.floor(m / 1440), hr = Math.floor((m % 1440) / 60);
  const parts = [];
  if (d) parts.push(`${d} 日`);
  if (hr) parts.push(`${hr} 時間`);
  if (m % 60) parts.push(`${m % 60} 分`);
  return parts.join(' ');
}

// Text cut to n characters, 「…」 saying so.
const clip = (t, n) => (t.length > n ? `${t.slice(0, n)}…` : t);

// The steps [{message_id, delay_minutes}] in the order they are sent
// (by delay, the table's order among equals), each with its number in
// the table (no), its channel and message (from msgs, the message list)
// and the wait since the step before (gap, minutes; null for the first).
export function timelineSteps(steps, msgs) {
  const byId = new Map((msgs || []).map((m) => [m.id, m]));
  const out = steps.map((st, i) => {
    const m = byId.get(st.message_id);
    return { no: i + 1, delay: Math.max(0, Number(st.delay_minutes) || 0),
      channel: m ? m.channel : st.channel || null,
      text: m ? clip(m.subject || m.body || '', 60) : '' };
  });
  out.sort((a, b) => a.delay - b.delay || a.no - b.no);
  out.forEach((s, i) => { s.gap = i ? s.delay - out[i - 1].delay : null; });
  return out;
}

// What stops a lead's remaining steps (cancel_reason values, in the
// order the sending job checks them).
export const stops = ['converted', 'opted_out', 'suppressed',
  'invalid_contact', 'cap_exceeded'];

// The start: when a lead is judged abandoned (the scenario's wait, else
// the campaign's).
function startItem(wait) {
  return h('li', { class: 'start' }, h('div', { class: 'when' },
    '離脱と判定'), h('div', { class: 'note' }, wait ? '入力が止まってから' +
      ` ${duration(wait)}後` : '入力が止まってから、キャンペーンの待ち時間の後'));
}

function stepItem(s) {
  return h('li', { class: `step ${s.channel || ''}` },
    h('div', { class: 'when' }, s.delay ? `離脱の ${duration(s.delay)}後`
      : '離脱後すぐ'),
    h('div', null, `ステップ ${s.no}: `,
      h('span', { class: `badge ${s.channel || ''}` },
        s.channel ? label('channel', s.channel) : 'メッセージ未選択'),
      s.text ? ` ${s.text}` : null),
    s.gap ? h('div', { class: 'gap' }, `前のステップから ${duration(s.gap)}`)
      : null,
    s.channel === 'sms' ? h('div', { class: 'note' }, '夜間の送信停止時間' +
      '(既定は 21:00〜9:00、日本時間)にかかるときは、明けてから送ります。')
      : null);
}

// The timeline of a scenario (its abandon_wait_minutes) with these steps.
export function timelineView(wait, steps, msgs) {
  const items = timelineSteps(steps, msgs);
  return h('ol', { class: 'timeline', 'aria-label': 'ステップのタイムライン' },
    startItem(wait),
    items.length ? items.map(stepItem) : h('li', { class: 'step' },
      h('div', { class: 'note' }, 'ステップがありません。')),
    h('li', { class: 'stop' }, h('div', { class: 'when' }, '停止する条件'),
      h('div', { class: 'note' }, '次のときは、残りのステップを送りません。'),
      h('ul', null, stops.map((r) => h('li', null,
        label('cancel_reason', r))))));
}
