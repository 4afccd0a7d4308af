// The router and every screen drawn from a stand-in of /api/v1: each
// fragment opens its screen (title, cards, no error box), the open
// screens need no session, and without a session a screen goes to
// sign-in.  The browser walk (tests/e2e/admin.mjs) does the rest.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, settle } from './dom.mjs';
import { funnelReport, dailyReport } from './fixtures.mjs';
import { route, resolve, open, routes } from '../router.js';
import { session } from '../shell.js';
import { campaign } from '../screens/campaigns.js';
import { signIn } from '../screens/signin.js';

const id = '0b7e2f7c-1d2a-4f3b-9c8d-7e6f5a4b3c2d';
const me = { member: { id: 'm1', email: 'owner@shop.example',
  role: 'owner' }, tenant_id: 't1', csrf_token: 'tok' };
const page = (data) => ({ data, has_more: false, next_cursor: null });
const hostile = '<img src=x onerror=alert(1)>';

// GET answers by path (the rest: an empty page); writes answer {}
const gets = {
  '/admin/session': me,
  '/delivery_status': { mode: 'test_only' },
  '/admin/usage': { month: '2026-11', sends: 3, quota: 1000, plan: 'pro' },
  '/reports/daily': dailyReport,
  '/reports/funnel': funnelReport,
  '/consent_settings': { consent_mode: 'none',
    consent_checkbox_enabled: false, optout_text: { title: 't' } },
  [`/sites/${id}`]: { id, name: hostile, domain: 'shop.example.jp',
    snippets: [{ campaign_name: 'c', html: '<script src=x></script>' }] },
  [`/campaigns/${id}`]: { id, name: hostile, key: 'k', status: 'paused',
    site_id: id, url_rules: [{ role: 'form', match_type: 'prefix',
      pattern: '/form' }], form_profile: {}, abandon_wait_minutes: 30 },
  [`/scenarios/${id}`]: { id, name: 's', status: 'paused', campaign_id: id,
    steps: [{ delay_minutes: 30, message_id: 'm' }] },
  [`/leads/${id}`]: { id, status: 'captured', campaign: { name: 'c' },
    email_masked: 'o***@example.jp', timeline: [{ at: null, type: 'x' }] },
  '/sites': page([{ id, name: hostile, domain: 'd', public_key: 'pk' }]),
  '/campaigns': page([{ id, name: 'c', key: 'k', status: 'active' }]),
  '/webhook_endpoints': page([{ id, url: 'https://h.example/x',
    status: 'disabled', disabled_reason: 'gone', events: ['lead.captured'] },
  { id, url: 'https://h.example/y', status: 'enabled', events: [] }]),
  '/admin/quarantines': page([{ id, hour: null, kind: 'address',
    source: '192.0.2.1', threshold: 10, leads: 12,
    status: 'quarantined' }]),
};

let calls;
beforeEach(() => {
  installDom();
  calls = fakeFetch(({ url, method }) => {
    const path = url.pathname.replace('/api/v1', '');
    if (method !== 'GET') return { status: 200, body: {} };
    return { status: 200, body: gets[path] ?? page([]) };
  });
});

// Open hash as the browser would, and let its requests answer.
async function go(hash) {
  location.hash = hash;
  await route();
  await settle(10);
  return document.getElementById('app');
}

const screens = [
  ['#/', 'ダッシュボード', 4], ['', 'ダッシュボード', 4],
  ['#/sites', 'サイト', 3], [`#/sites/${id}`, 'サイト', 2],
  ['#/campaigns', 'キャンペーン', 2], [`#/campaigns/${id}`, 'キャンペーン', 5],
  [`#/scenarios/${id}`, 'シナリオ', 2], ['#/messages', 'メッセージ', 2],
  ['#/leads', 'リード', 1], [`#/leads/${id}`, 'リード', 4],
  ['#/reports', 'レポート', 4],
  ['#/deliveries', '配信', 1], ['#/suppressions', '配信停止', 3],
  ['#/webhooks', 'Webhook', 3], ['#/settings', '設定', 5],
  ['#/account', 'アカウント', 2],
  ['#/privacy', '個人データの開示・削除', 1],
];

for (const [hash, title, cards] of screens)
  test(`${hash || '(no fragment)'} draws ${title}`, async () => {
    session.me = me;
    const app = await go(hash);
    assert.equal(app.querySelector('main h1').textContent, title);
    assert.equal(document.title, `${title} | Formback 管理画面`);
    assert.equal(app.querySelectorAll('main section.card').length, cards);
    const errors = [...app.querySelectorAll('.error')];
    assert.deepEqual(errors.map((e) => e.textContent), []);
    assert.equal(app.querySelector('img'), null, 'markup from the server');
    assert.equal(app.querySelector('main script'), null);
    assert.equal(app.querySelector('header .who').firstChild.textContent,
      'owner@shop.example(オーナー)');
    // the menu marks the screen's entry (a scenario's is none)
    const current = [...app.querySelectorAll('nav a[aria-current=page]')];
    const entry = hash.split('/').slice(0, 2).join('/') || '#/';
    assert.deepEqual(current.map((a) => a.getAttribute('href')),
      entry === '#/scenarios' ? [] : [entry]);
  });

test('a viewer sees no settings to change', async () => {
  session.me = { ...me, member: { ...me.member, role: 'viewer' } };
  let app = await go('#/settings');
  assert.equal(app.querySelectorAll('main section.card').length, 0);
  app = await go('#/sites');
  assert.equal(app.querySelectorAll('main section.card').length, 1);
  app = await go('#/');
  assert.equal(app.querySelector('main form'), null);
});

test('the open screens need no session', async () => {
  session.me = null;
  for (const [hash, h1] of [['#/signin', 'Formback にログイン'],
    ['#/reset', 'パスワードの再設定'],
    [`#/accept/fbi_${'a'.repeat(43)}`, 'パスワードの設定']]) {
    const app = await go(hash);
    assert.equal(app.querySelector('main h1').textContent, h1);
  }
  assert.equal(calls.length, 0);
});

test('without a session a screen goes to sign-in', async () => {
  session.me = null;
  fakeFetch(() => ({ status: 401, body: { error: {
    code: 'session_required', message: 'ログインしてください' } } }));
  await go('#/campaigns');
  assert.equal(location.hash, '#/signin');
  assert.equal(session.me, null);
});

test('the session is asked once, and its CSRF token used', async () => {
  session.me = null;
  await go('#/leads');
  assert.equal(calls[0].url.pathname, '/api/v1/admin/session');
  assert.equal(session.me.csrf_token, 'tok');
  const n = calls.length;
  await go('#/deliveries');
  assert.ok(calls.slice(n).every((c) =>
    c.url.pathname !== '/api/v1/admin/session'));
  await go(`#/campaigns/${id}`);
  document.querySelector('main .row button').click();
  await settle();
  const patch = calls.find((c) => c.method === 'PATCH');
  assert.equal(patch.url.pathname, `/api/v1/campaigns/${id}`);
  assert.equal(patch.headers['X-CSRF-Token'], 'tok');
  assert.deepEqual(JSON.parse(patch.body), { status: 'active' });
});

test('an unknown fragment says so', async () => {
  session.me = me;
  const app = await go('#/nothing');
  assert.equal(app.querySelector('main p').textContent,
    'ページが見つかりません。');
});

test('resolve: ids must be UUIDs, tokens fbi_ and 43 characters', () => {
  assert.deepEqual(resolve(routes, `#/campaigns/${id}`),
    [campaign, [id]]);
  assert.equal(resolve(routes, '#/campaigns/1'), null);
  assert.equal(resolve(routes, `#/campaigns/${id}/x`), null);
  assert.equal(resolve(open, `#/accept/fbi_${'a'.repeat(42)}`), null);
  assert.deepEqual(resolve(open, `#/accept/fbi_${'a'.repeat(43)}`)[1],
    [`fbi_${'a'.repeat(43)}`]);
  assert.equal(resolve(open, '#/campaigns'), null);
  assert.notEqual(signIn, null);
});

test('a sign-in to several tenants asks which one', async () => {
  session.me = null;
  const tenants = [{ id: 't1', name: '本店' }, { id: 't2', name: hostile }];
  fakeFetch(({ body }) => JSON.parse(body).tenant_id ?
    { status: 200, body: me } :
    { status: 409, body: { error: { code: 'tenant_required',
      message: 'm', tenants } } });
  let app = await go('#/signin');
  app.querySelector('input[name=email]').value = 'o@shop.example';
  app.querySelector('input[name=password]').value = 'pw';
  app.querySelector('button').click();
  await settle(10);
  app = document.getElementById('app');
  const sel = app.querySelector('select[name=tenant_id]');
  assert.deepEqual([...sel.options].map((o) => o.textContent),
    ['本店', hostile]);
  assert.equal(app.querySelector('input[name=email]').value,
    'o@shop.example');
  app.querySelector('input[name=password]').value = 'pw';
  app.querySelector('button').click();
  await settle(10);
  assert.equal(session.me.csrf_token, 'tok');
  assert.equal(location.hash, '#/');
});

test('the tenant chosen at sign-in is named in the header', async () => {
  session.me = null;
  const tenants = [{ id: 't1', name: '本店' }, { id: 't2', name: hostile }];
  fakeFetch(({ url, body }) => url.pathname.endsWith('/admin/session') &&
    body && !JSON.parse(body).tenant_id ?
    { status: 409, body: { error: { code: 'tenant_required', message: 'm',
      tenants } } } : { status: 200, body: url.pathname.endsWith('session') ?
      { ...me, tenant_id: 't2' } : page([]) });
  let app = await go('#/signin');
  app.querySelector('input[name=email]').value = 'o@shop.example';
  app.querySelector('input[name=password]').value = 'pw';
  app.querySelector('button').click();
  await settle(10);
  app = document.getElementById('app');
  app.querySelector('select[name=tenant_id]').value = 't2';
  app.querySelector('input[name=password]').value = 'pw';
  app.querySelector('button').click();
  await settle(10);
  app = await go('#/leads');
  assert.equal(app.querySelector('header .tenant').textContent, hostile);
});

test('the menu folds behind its button (a phone\'s width)', async () => {
  session.me = me;
  const app = await go('#/leads');
  const toggle = app.querySelector('header .menu-toggle');
  assert.equal(toggle.getAttribute('aria-controls'), 'menu');
  assert.equal(app.querySelector('nav#menu').tagName, 'NAV');
  assert.equal(toggle.getAttribute('aria-expanded'), 'false');
  toggle.click();
  assert.equal(toggle.getAttribute('aria-expanded'), 'true');
  assert.ok(app.querySelector('header').classList.contains('open'));
  toggle.click();
  assert.ok(!app.querySelector('header').classList.contains('open'));
});

test('every list is a table whose cells name their column', async () => {
  session.me = me;
  const app = await go('#/campaigns');
  const td = app.querySelector('table.cards tbody td');
  assert.equal(td.dataset.label, '名前');
});
