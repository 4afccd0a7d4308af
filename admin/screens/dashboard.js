// The dashboard: the delivery switch and this month's sends, captures per
// day, and the funnel of the last 7 and 30 days.
import { api } from '../api.js';
import { h, clear, card, errorBox, badge, form } from '../ui.js';
import { shell, canAdmin } from '../shell.js';
import { label, options } from '../labels.js';


function isoDaysAgo(n) {
  const d = new Date(Date.now() - n * 86400e3);
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

// The date in Japan n days ago (YYYY-MM-DD).
function jstDay(n) {
  return new Date(Date.now() + 9 * 3600e3 - n * 86400e3).toISOString()
    .slice(0, 10);
}

// One bar of a chart: label, value / max of the width, the value's text.
function bar(label, value, max, text) {
  const fill = h('div', { class: 'fill' });
  fill.style.width = `${Math.round((value / max) * 100)}%`;
  return h('div', { class: 'bar' }, h('span', null, label), fill,
    h('span', null, text));
}

function modeForm(mode) {
  return form([{ name: 'mode', label: '送信', type: 'select', value: mode,
    options: options('delivery_mode') }], '変更', async (v) => {
    const n = await api('PUT', '/admin/delivery_status', { mode: v.mode });
    return `送信は「${label('delivery_mode', n.mode)}」になりました。`;
  }, 'inline');
}

async function delivery(box) {
  try {
    const [s, u] = await Promise.all([api('GET', '/delivery_status'),
      api('GET', '/admin/usage')]);
    const meter = h('meter', { min: 0, max: u.quota, value: u.sends,
      'aria-label': '今月の送信数' });
    clear(box, h('p', null, '現在: ', badge('delivery_mode', s.mode)),
      h('p', null, `今月(${u.month})の送信 ${u.sends} / ${u.quota} 通` +
        `(${label('plan', u.plan)} プラン) `, meter),
      canAdmin() ? modeForm(s.mode) : null);
  } catch (e) { clear(box, errorBox(e)); }
}

async function daily(box) {
  try {
    const r = await api('GET', '/reports/daily', undefined,
      { from: jstDay(30), to: jstDay(-1) });
    const count = (d) => d.counts.capture.captured || 0;
    const max = Math.max(1, ...r.days.map(count));
    clear(box, h('div', { class: 'bars' }, r.days.map((d) =>
      bar(d.date.slice(5), count(d), max, d.computed ?
        String(d.counts.capture.captured ?? 0) : '集計前'))),
    h('p', { class: 'muted' },
      '取得したリードの数。集計は formback-aggregate が行います。'));
  } catch (e) { clear(box, errorBox(e)); }
}

async function funnel(box) {
  for (const days of [7, 30]) {
    try {
      const r = await api('GET', '/reports/funnel', undefined,
        { from: isoDaysAgo(days), to: isoDaysAgo(0) });
      const max = Math.max(1, ...r.faces.map((f) => f.value));
      box.append(h('h3', null, `直近 ${days} 日`), h('div', { class: 'bars' },
        r.faces.map((f) => bar(f.label, f.value, max, String(f.value)))));
    } catch (e) { box.append(errorBox(e)); }
  }
}

export async function dashboard() {
  const sw = h('div'), fun = h('div'), days = h('div');
  shell('ダッシュボード', card('配信の状態', sw), card('ファネル', fun),
    card('日別(直近 30 日、日本時間)', days));
  await delivery(sw);
  await daily(days);
  await funnel(fun);
}
