// Leads (issue 42, item 3): a lead's page with its history (events, the
// judgement, each delivery, the conversion) and converting it by hand,
// asked first and the page read again after; the list's filters (every
// status, campaign, days) and its CSV; the search by contact, whose
// contact goes in a POST body and nowhere else (not the URL, the
// fragment, the history or a link); the lists kept fresh by a timer
// that stops with its screen.
import { test, beforeEach, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, settle } from './dom.mjs';
import { route } from '../router.js';
import { session } from '../shell.js';
import { setCsrf } from '../api.js';
import { history } from '../screens/leads.js';
import { pollMs } from '../ui.js';
import { options } from '../labels.js';

const id = '0b7e2f7c-1d2a-4f3b-9c8d-7e6f5a4b3c2d';
const cid = '1c8f3a8d-2e3b-4a4c-8d9e-8f7a6b5c4d3e';
const me = { member: { id: 'm1', email: 'owner@shop.example',
  role: 'member' }, tenant_id: 't1', csrf_token: 'tok' };
const page = (data) => ({ data, has_more: false, next_cursor: null });
const hostile = '<img src=x onerror=alert(1)>';
const contact = '090-1234-5678';

// a lead followed up: captured, judged abandoned, an SMS sent, an email
// failed, the last email waiting (LeadDetailOut, DeliveryOut)
const leadOf = (over) => ({ id, status: 'sent', consent_state: 'none',
  site: { id, name: 's', domain: 'shop.example' },
  campaign: { id: cid, key: 'k', name: hostile },
  email_masked: 'ta***@example.jp', tel_masked: '090-****-5678',
  pii_state: 'present', tel_kind: 'mobile', sms_capable: true,
  created_at: '2026-11-27T01:00:00Z', captured_at: '2026-11-27T01:02:00Z',
  abandoned_at: '2026-11-27T01:32:00Z', converted_at: null,
  conversion_source: null, suppress_reason: null,
  landing_url: 'https://shop.example/lp', referrer: null, utm: {},
  lp_key: '/lp', timeline: [
    { type: 'page_view', role: 'form', path: hostile, campaign: 'k',
      at: '2026-11-27T01:00:00Z' },
    { type: 'capture', role: 'form', path: '/form', campaign: 'k',
      at: '2026-11-27T01:02:00Z' }], ...over });
const dl = (n, over) => ({ id: `d${n}`, lead_id: id, channel: 'sms',
  to_masked: '090-****-5678', pii_state: 'present',
  campaign: { id: cid, key: 'k', name: 'c' },
  scenario: { id: 's', key: 's', name: 'おすすめ' },
  step: { id: `st${n}`, position: n + 1 }, created_at: '2026-11-27T01:32:00Z',
  scheduled_at: '2026-11-27T02:00:00Z', sent_at: null, cancel_reason: null,
  error_code: null, segments: null, ...over });
const sent = [dl(0, { status: 'sent', sent_at: '2026-11-27T02:00:05Z',
  segments: 1 }),
dl(1, { status: 'failed', channel: 'email', to_masked: 'ta***@example.jp',
  scheduled_at: '2026-11-27T03:00:00Z', error_code: 'smtp_550' }),
dl(2, { status: 'scheduled', channel: 'email',
  to_masked: 'ta***@example.jp', scheduled_at: '2026-11-28T01:00:00Z' })];

let calls, lead, deliveries;
beforeEach(() => {
  installDom();
  session.me = me;
  setCsrf('tok');
  lead = leadOf({});
  deliveries = sent;
  calls = fakeFetch(({ url, method }) => {
    const path = url.pathname.replace('/api/v1', '');
    if (method === 'POST' && path === `/admin/leads/${id}/convert`) {
      lead = leadOf({ status: 'converted', converted_at:
        '2026-11-27T05:00:00Z', conversion_source: 'manual' });
      deliveries = [sent[0], sent[1], { ...sent[2], status: 'cancelled',
        cancel_reason: 'converted' }];
      return { body: lead };
    }
    if (method === 'POST' && path === '/admin/leads/search')
      return { body: page([leadOf({})]) };
    if (path === `/leads/${id}`) return { body: lead };
    if (path === `/admin/leads/${id}/deliveries`)
      return { body: page(deliveries) };
    if (path === '/campaigns') return { body: page([{ id: cid,
      name: 'c' }]) };
    if (path === '/leads') return { body: page([leadOf({})]) };
    return { body: page([]) };
  });
});
afterEach(() => mock.timers.reset());

async function go(hash) {
  location.hash = hash;
  await route();
  await settle(15);
  return document.getElementById('app');
}
const cardOf = (app, title) => [...app.querySelectorAll('section.card')]
  .find((s) => s.querySelector('h2')?.textContent === title);
const cells = (el) => [...el.querySelectorAll('tbody tr')].map((tr) =>
  [...tr.querySelectorAll('td')].map((td) => td.textContent));
const writes = () => calls.filter((c) => c.method !== 'GET');
const button = (app, text) => [...app.querySelectorAll('button')]
  .find((b) => b.textContent === text);

test('history: events, judgement, deliveries and conversion in order',
  () => {
    const l = leadOf({ converted_at: '2026-11-27T04:00:00Z',
      conversion_source: 'tag' });
    assert.deepEqual(history(l, sent).map(([at, what]) => [at, what]), [
      ['2026-11-27T01:00:00Z', 'ページ表示'],
      ['2026-11-27T01:02:00Z', '連絡先の取得'],
      ['2026-11-27T01:32:00Z', '離脱と判定'],
      ['2026-11-27T02:00:05Z', 'SMS: 送信済み'],
      ['2026-11-27T03:00:00Z', 'メール: 失敗'],
      ['2026-11-27T04:00:00Z', 'コンバージョン']]);
    assert.deepEqual(history({ timeline: [] }, null), []);
  });

test('a lead\'s page: facts, deliveries with their reasons, history',
  async () => {
    const app = await go(`#/leads/${id}`);
    assert.equal(app.querySelector('img'), null, 'markup from the server');
    const head = app.querySelector('section.card h2');
    assert.equal(head.textContent, `送信済み ${hostile}`);
    const facts = Object.fromEntries([...app.querySelectorAll(
      'section.card tbody tr')].filter((tr) => tr.querySelector('th'))
      .map((tr) => [tr.querySelector('th').textContent,
        tr.querySelector('td').textContent]));
    assert.equal(facts['電話の種類'], '携帯電話');
    assert.notEqual(facts['離脱の判定'], '—');
    assert.equal(facts['コンバージョン'], '—');
    const d = cells(cardOf(app, '配信'));
    assert.equal(d.length, 3);
    assert.deepEqual(d.map((r) => [r[0], r[1], r[3], r[6], r[7]]), [
      ['ステップ 1(おすすめ)', 'SMS', '送信済み', '', '1'],
      ['ステップ 2(おすすめ)', 'メール', '失敗',
        'メールサーバーが拒否(550)', '—'],
      ['ステップ 3(おすすめ)', 'メール', '予定', '', '—']]);
    const h = cells(cardOf(app, '経過'));
    assert.deepEqual(h.map((r) => r[1]), ['ページ表示', '連絡先の取得',
      '離脱と判定', 'SMS: 送信済み', 'メール: 失敗']);
    assert.equal(h[0][2], `フォーム ${hostile}`);
    assert.equal(app.querySelectorAll('.error').length, 0);
  });

test('成約にする: asked, nothing on やめる, then converted and redrawn',
  async () => {
    let app = await go(`#/leads/${id}`);
    button(app, '成約にする').click();
    assert.match(app.textContent, /送信待ちの配信を取り消します。よろしいですか/);
    assert.equal(document.activeElement.textContent, 'やめる');
    button(app, 'やめる').click();
    assert.deepEqual(writes(), []);
    button(app, '成約にする').click();
    const ok = app.querySelector('.confirm .question').parentNode
      .querySelector('button');
    ok.click();
    await settle(15);
    assert.deepEqual(writes().map((c) => [c.method, c.url.pathname,
      c.headers['X-CSRF-Token']]), [['POST',
      `/api/v1/admin/leads/${id}/convert`, 'tok']]);
    app = document.getElementById('app');
    // read again: the lead and its deliveries as the server now has them
    assert.equal(calls.filter((c) => c.method === 'GET' &&
      c.url.pathname === `/api/v1/leads/${id}`).length, 2);
    assert.equal(app.querySelector('section.card h2 .badge').textContent,
      'コンバージョン');
    assert.match(app.querySelector('.notice').textContent, /成約にしました/);
    assert.equal(button(app, '成約にする'), undefined);
    assert.match(cardOf(app, '操作').textContent, /コンバージョン済み/);
    const d = cells(cardOf(app, '配信'));
    assert.deepEqual([d[2][3], d[2][6]], ['取り消し', 'コンバージョン済み']);
    assert.equal(cells(cardOf(app, '経過')).at(-1)[1], 'コンバージョン');
  });

test('a viewer, and a finished lead, have no action', async () => {
  session.me = { ...me, member: { ...me.member, role: 'viewer' } };
  let app = await go(`#/leads/${id}`);
  assert.equal(button(app, '成約にする'), undefined);
  assert.match(cardOf(app, '操作').textContent, /閲覧のみ/);
  session.me = me;
  lead = leadOf({ status: 'suppressed', suppress_reason: 'opted_out' });
  app = await go(`#/leads/${id}`);
  assert.equal(button(app, '成約にする'), undefined);
});

test('the list filters by every status, campaign and days; its CSV too',
  async () => {
    const app = await go('#/leads');
    const status = app.querySelector('#lead-status');
    assert.deepEqual([...status.options].map((o) => o.value),
      ['', ...options('lead_status').map(([v]) => v)]);
    assert.ok(['queued', 'sent'].every((v) =>
      [...status.options].some((o) => o.value === v)));
    status.value = 'queued';
    app.querySelector('#lead-campaign').value = cid;
    app.querySelector('#lead-date-field').value = 'abandoned_at';
    app.querySelector('#lead-from').value = '2026-11-01';
    app.querySelector('#lead-to').value = '2026-11-30';
    app.querySelector('#lead-to').dispatchEvent(new Event('change'));
    await settle(15);
    const q = Object.fromEntries(calls.filter((c) =>
      c.url.pathname === '/api/v1/leads').at(-1).url.searchParams);
    const want = { status: 'queued', campaign_id: cid,
      date_field: 'abandoned_at', from: '2026-11-01T00:00:00+09:00',
      to: '2026-12-01T00:00:00+09:00' };
    assert.deepEqual(q, want);
    const a = app.querySelector('a[download]');
    const href = new URL(a.getAttribute('href'), location.origin);
    assert.equal(href.pathname, '/api/v1/admin/leads/export');
    assert.deepEqual(Object.fromEntries(href.searchParams), want);
    assert.equal(a.textContent, 'CSV で書き出す');
  });

test('the search by contact posts it, and puts it nowhere else',
  async () => {
    const app = await go('#/leads');
    const before = location.href;
    const input = app.querySelector('#lead-contact');
    assert.equal(input.getAttribute('name'), null, 'a form could not send it');
    input.value = contact;
    app.querySelector('form[role=search]').dispatchEvent(new Event('submit',
      { cancelable: true }));
    await settle(15);
    const post = writes();
    assert.deepEqual(post.map((c) => [c.method, c.url.pathname]),
      [['POST', '/api/v1/admin/leads/search']]);
    assert.deepEqual(JSON.parse(post[0].body), { contact });
    const digits = /1234|5678|090-1234/;
    for (const c of calls) assert.doesNotMatch(c.url.href, digits);
    assert.equal(location.href, before);
    assert.doesNotMatch(location.href + location.hash, digits);
    assert.equal(window.history.state, null);
    for (const a of app.querySelectorAll('a'))
      assert.doesNotMatch(a.getAttribute('href') || '', digits);
    assert.match(app.textContent, /入力した連絡先のリード: 1 件/);
    assert.equal(app.querySelector('a[download]').hidden, true);
    // 「更新」 asks again by POST, never by a URL
    button(app, '更新').click();
    await settle(15);
    assert.equal(writes().length, 2);
    for (const c of calls) assert.doesNotMatch(c.url.href, digits);
    button(app, '検索をやめる').click();
    await settle(15);
    assert.equal(input.value, '');
    assert.equal(app.querySelector('a[download]').hidden, false);
  });

test('the list refreshes every 30 s while shown and visible', async () => {
  mock.timers.enable({ apis: ['setInterval'] });
  const listed = () => calls.filter((c) =>
    c.url.pathname === '/api/v1/leads').length;
  await go('#/leads');
  assert.equal(listed(), 1);
  mock.timers.tick(pollMs);
  await settle(15);
  assert.equal(listed(), 2);
  Object.defineProperty(document, 'visibilityState',
    { value: 'hidden', configurable: true });
  mock.timers.tick(pollMs);
  await settle(15);
  assert.equal(listed(), 2, 'not while hidden');
  Object.defineProperty(document, 'visibilityState',
    { value: 'visible', configurable: true });
  button(document, '更新').click();
  await settle(15);
  assert.equal(listed(), 3);
  // another screen: the timer ends
  await go('#/suppressions');
  const n = calls.length;
  mock.timers.tick(pollMs * 3);
  await settle(15);
  assert.equal(calls.filter((c) => c.url.pathname === '/api/v1/leads')
    .length, 3);
  assert.equal(calls.length, n);
});

test('the exports of deliveries and suppressions follow their filters',
  async () => {
    let app = await go('#/deliveries');
    const sel = app.querySelector('main select');
    sel.value = 'cancelled';
    sel.dispatchEvent(new Event('change'));
    await settle(15);
    let href = app.querySelector('a[download]').getAttribute('href');
    assert.equal(href, '/api/v1/admin/deliveries/export?status=cancelled');
    app = await go('#/suppressions');
    app.querySelector('input[type=search]').value = contact;
    const [kind] = app.querySelectorAll('.filters select');
    kind.value = 'tel';
    kind.dispatchEvent(new Event('change'));
    await settle(15);
    href = app.querySelector('a[download]').getAttribute('href');
    assert.equal(href, '/api/v1/admin/suppressions/export?kind=tel');
    assert.match(app.textContent, /書き出しは検索語を使わず/);
  });
