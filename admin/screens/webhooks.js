// Webhooks: the endpoints with why one does not send now, their actions
// (test, resume, delete), an endpoint's delivery history with redelivery,
// and adding one (its signing secret shown once).
import { api } from '../api.js';
import { h, clear, card, errorBox, notice, badge, jst, form, pagedTable,
  copyButton, confirmButton } from '../ui.js';
import { shell } from '../shell.js';
import { label, failure } from '../labels.js';

const events = ['lead.captured', 'lead.abandoned', 'delivery.sent',
  'delivery.failed', 'conversion.detected', 'usage.threshold_reached'];

// Why an endpoint does not send now, in words (formback-webhooks(8)).
function hookState(w) {
  if (w.status === 'disabled')
    return `停止中: ${w.disabled_reason === 'gone' ?
      '受信側が 410 Gone を返しました' : '72 時間以上失敗が続きました'}` +
      `(${jst(w.disabled_at)})`;
  if (w.paused_until) return `応答がないため ${jst(w.paused_until)} まで一時停止中`;
  if (w.failing_since)
    return `${jst(w.failing_since)} から失敗 ${w.consecutive_failures} 回`;
  return '';
}

// wk: the screen: list (the endpoints), note (what an action of a row did,
// above the list), history (one endpoint's deliveries).

// An action of a row: its outcome (or error) in the note above the list.
function act(wk, label, cls, run) {
  return h('button', { type: 'button', class: cls, onclick: async (ev) => {
    ev.target.disabled = true;
    try { clear(wk.note, h('p', { class: 'notice' }, await run())); load(wk); }
    catch (e) { clear(wk.note, errorBox(e)); ev.target.disabled = false; }
  } }, label);
}

// enable, then queue again what ended "endpoint stopped" (10,000 a call)
async function resume(w) {
  await api('POST', `/webhook_endpoints/${w.id}/enable`);
  let n = 0, r;
  do {
    r = await api('POST', `/webhook_endpoints/${w.id}/recover`);
    n += r.queued;
  } while (r.has_more);
  return `再開しました。停止中のイベント ${n} 件を再送します。`;
}

async function testSend(w) {
  const d = await api('POST', `/webhook_endpoints/${w.id}/test`);
  return `テストイベント(${label('event', d.event_type)})を` +
    '送信待ちにしました。' +
    '1 分以内に送信されます。';
}

function actions(wk, w) {
  const remove = async () => {
    await api('DELETE', `/webhook_endpoints/${w.id}`);
    clear(wk.note, notice(`${w.url} を削除しました。`));
    load(wk);
  };
  return h('span', { class: 'row' },
    h('button', { type: 'button', class: 'secondary',
      onclick: () => log(wk, w) }, '配信履歴'),
    w.status === 'disabled' ? act(wk, '再開', '', () => resume(w))
      : act(wk, 'テスト送信', 'secondary', () => testSend(w)),
    confirmButton('削除', `${w.url} を削除します。送信待ちのイベントも` +
      '送られなくなります。よろしいですか?', remove,
    { aria: `${w.url} を削除` }));
}

function load(wk) {
  clear(wk.list, pagedTable((c) => api('GET', '/webhook_endpoints',
    undefined, { cursor: c }), [
    ['URL', (w) => w.url],
    ['状態', (w) => h('span', null, badge('webhook_status', w.status), ' ',
      hookState(w))],
    ['イベント', (w) => w.events.map((e) => label('event', e)).join('、')],
    ['', (w) => actions(wk, w)],
  ]));
}

function redeliver(wk, w, d) {
  return h('button', { type: 'button', class: 'secondary',
    onclick: async (ev) => {
      try {
        await api('POST', `/webhook_deliveries/${d.id}/redeliver`);
        log(wk, w);
      } catch (e) { ev.target.replaceWith(errorBox(e)); }
    } }, '再送');
}

// An endpoint's delivery history, below the list.
function log(wk, w) {
  clear(wk.history, h('h2', null, `配信履歴: ${w.url}`), pagedTable((c) =>
    api('GET', `/webhook_endpoints/${w.id}/deliveries`, undefined,
      { cursor: c }), [
    ['イベント', (d) => label('event', d.event_type)],
    ['状態', (d) => badge('webhook_delivery_status', d.status)],
    ['試行', (d) => String(d.attempts)],
    ['応答', (d) => d.response_status ? `HTTP ${d.response_status}`
      : failure('webhook', d.error)],
    ['作成', (d) => jst(d.created_at)],
    ['', (d) => redeliver(wk, w, d)],
  ]));
}

function addForm(wk, secret) {
  return form([
    { name: 'url', label: 'URL(https)', type: 'url', required: true },
  ], '追加', async (v) => {
    const w = await api('POST', '/webhook_endpoints', { url: v.url, events });
    clear(secret, h('p', null, '署名の秘密鍵(この画面でしか表示されません):'),
      h('p', { class: 'secret' }, w.secret), copyButton(w.secret));
    load(wk);
  });
}

export function webhooks() {
  const wk = { list: h('div'), note: h('div'), history: h('div') };
  const secret = h('div');
  shell('Webhook', card(null, wk.note, wk.list), card(null, wk.history),
    card('エンドポイントを追加', addForm(wk, secret), secret));
  load(wk);
}
