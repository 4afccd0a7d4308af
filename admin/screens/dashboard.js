// The dashboard: the setup checklist until the shop is live, the
// delivery switch and this month's sends, and the last 30 days' funnel
// and daily counts as the reports screen shows them (report.js: the
// same requests and figures, so the two agree).
import { api } from '../api.js';
import { h, clear, card, errorBox, badge, notice,
  confirmButton } from '../ui.js';
import { shell, canAdmin } from '../shell.js';
import { label, options } from '../labels.js';
import { lastDays, jstStart } from '../filters.js';
import { loadReport, drawReport } from '../report.js';

// The sending switch: a change to live asks first (real SMS and email
// to the leads, counted against the quota); done(n) redraws what shows
// the mode, so no badge keeps the old one.
function modeForm(mode, done) {
  const sel = h('select', { id: 'delivery-mode' },
    options('delivery_mode').map(([v, t]) =>
      h('option', { value: v, selected: v === mode }, t)));
  const out = h('span', { class: 'row' });
  const run = async () => {
    const n = await api('PUT', '/admin/delivery_status', { mode: sel.value });
    await done(`送信を「${label('delivery_mode', n.mode)}」にしました。`);
  };
  const change = h('button', { type: 'button', onclick: async () => {
    clear(out);
    if (sel.value === mode) return;
    if (sel.value !== 'live') {
      try { await run(); } catch (e) { clear(out, errorBox(e)); }
      return;
    }
    const c = confirmButton('本番に切り替える', '本番にすると、リードに ' +
      'SMS・メールが実際に送られ、送信数に数えられます。よろしいですか?',
    run, { cls: '' });
    clear(out, c);
    c.querySelector('button').click();
  } }, '変更');
  return h('div', { class: 'row' }, h('label', { for: 'delivery-mode' },
    '送信', sel), change, out);
}

// The delivery card (again after a change, with its message).
async function delivery(box, redraw, msg) {
  try {
    const [s, u] = await Promise.all([api('GET', '/delivery_status'),
      api('GET', '/admin/usage')]);
    const meter = h('meter', { min: 0, max: u.quota, value: u.sends,
      'aria-label': '今月の送信数' });
    clear(box, h('p', null, '現在: ', badge('delivery_mode', s.mode)),
      h('p', null, `今月(${u.month})の送信 ${u.sends} / ${u.quota} 通` +
        `(${label('plan', u.plan)} プラン) `, meter),
      canAdmin() ? modeForm(s.mode, redraw) : null,
      msg ? notice(msg) : null);
    return s;
  } catch (e) { clear(box, errorBox(e)); return null; }
}

// What a shop does before it sends: [label, where, done?]; each is asked
// of the API, and one it cannot tell shows as not done.
async function setupSteps() {
  const get = (path, q) => api('GET', path, undefined, q).catch(() => null);
  const month = lastDays(30);
  const [sites, camps, funnel, sends] = await Promise.all([
    get('/sites', { limit: 1 }), get('/campaigns', { limit: 200 }),
    get('/reports/funnel', { from: jstStart(month.from),
      to: jstStart(month.to) }),
    get('/admin/test_sends', { limit: 50 })]);
  const list = camps ? camps.data : [];
  const details = await Promise.all(list.slice(0, 10).map((c) =>
    get(`/campaigns/${c.id}`)));
  const first = list[0] ? `#/campaigns/${list[0].id}` : '#/campaigns';
  const seen = funnel && funnel.faces.some((f) => f.key === 'visited' &&
    f.value > 0);
  return [
    ['サイトを登録する', '#/sites', !!(sites && sites.data.length)],
    ['タグ(スニペット)をサイトに貼る(ページの表示が届くと完了)',
      sites && sites.data[0] ? `#/sites/${sites.data[0].id}` : '#/sites',
      !!seen],
    ['キャンペーンを作る', '#/campaigns', list.length > 0],
    ['URL ルールを決める', first,
      details.some((d) => d && d.url_rules.length > 0)],
    ['シナリオを有効にする', first,
      list.some((c) => c.active_scenario_count > 0)],
    ['テスト送信で届くことを確かめる', '#/messages',
      !!(sends && sends.data.some((t) => t.status === 'sent'))],
    ['送信を「本番」にする', '#/', false],
  ];
}

// The setup checklist, until the shop sends for real.
async function checklist(box, mode) {
  if (mode === 'live') return box.closest('section')?.remove();
  const steps = await setupSteps();
  const left = steps.filter(([, , done]) => !done).length;
  clear(box, h('p', null, `あと ${left} 項目で、離脱したお客さまへの` +
    '送信が始まります。'), h('ol', { class: 'checklist' },
    steps.map(([t, href, done]) => h('li', { class: done ? 'done' : '' },
      h('span', { class: 'mark', 'aria-hidden': 'true' }, done ? '✓' : '・'),
      h('span', null, h('a', { href }, t), h('span', { class: 'muted' },
        done ? '(完了)' : '(未完了)'))))));
}

// The last 30 days, as the reports screen's preset of 30 days shows them.
async function recent(fun, days) {
  const r = await loadReport(lastDays(30));
  drawReport(r, fun, days);
  const more = () => h('p', null, h('a', { href: '#/reports' },
    '期間やキャンペーンを変えてレポートで見る'));
  fun.append(more());
  days.append(more());
}

export async function dashboard() {
  const sw = h('div'), fun = h('div'), days = h('div'), setup = h('div');
  shell('ダッシュボード', card('はじめの設定', setup), card('配信の状態', sw),
    card('ファネル(直近 30 日)', fun), card('日別(直近 30 日、日本時間)', days));
  const redraw = async (msg) => {
    const s = await delivery(sw, redraw, msg);
    await checklist(setup, s ? s.mode : null);
  };
  await redraw();
  await recent(fun, days);
}
