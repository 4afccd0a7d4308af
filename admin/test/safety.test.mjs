// Guidance and safety (issue 42): every destructive or costly action
// asks first and does nothing on 「やめる」; the delivery switch's badge
// follows a change; a role change says so; an invited member shows as
// invited; the setup checklist shows until the shop is live.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, settle } from './dom.mjs';
import { funnelReport, dailyReport } from './fixtures.mjs';
import { route } from '../router.js';
import { session } from '../shell.js';

const id = '0b7e2f7c-1d2a-4f3b-9c8d-7e6f5a4b3c2d';
const me = { member: { id: 'm1', email: 'owner@shop.example',
  role: 'owner' }, tenant_id: 't1', csrf_token: 'tok' };
const page = (data) => ({ data, has_more: false, next_cursor: null });

let calls, mode;
const gets = () => ({
  '/delivery_status': { mode },
  '/admin/usage': { month: '2026-11', sends: 3, quota: 1000, plan: 'pro' },
  '/reports/daily': dailyReport,
  '/reports/funnel': funnelReport,
  '/sites': page([{ id, name: 's', domain: 'd' }]),
  '/campaigns': page([{ id, name: 'c', key: 'k', status: 'active',
    active_scenario_count: 0, scenario_count: 1 }]),
  [`/campaigns/${id}`]: { id, name: 'c', key: 'k', status: 'paused',
    site_id: id, url_rules: [], form_profile: {} },
  [`/campaigns/${id}/scenarios`]: page([{ id, name: 'シナリオA',
    status: 'draft', steps: [] }]),
  '/suppressions': page([{ id, value_masked: '090-****-2222',
    reason: 'manual', scope: 'tenant', deletable: true }]),
  '/webhook_endpoints': page([{ id, url: 'https://h.example/x',
    status: 'enabled', events: ['lead.captured'] }]),
  '/admin/api_keys': page([{ id, prefix: 'fb_live_abcd', kind: 'live',
    status: 'active' }]),
  '/admin/members': page([{ id: 'm1', email: 'owner@shop.example',
    role: 'owner', status: 'active', has_password: true },
  { id, email: 'new@shop.example', role: 'member', status: 'active',
    has_password: false }]),
  '/admin/test_recipients': { data: [{ id, masked: 'o***@shop.example',
    status: 'confirmed' }] },
});

beforeEach(() => {
  installDom();
  session.me = me;
  mode = 'test_only';
  calls = fakeFetch(({ url, method, body }) => {
    const path = url.pathname.replace('/api/v1', '');
    if (method === 'PUT' && path === '/admin/delivery_status') {
      mode = JSON.parse(body).mode;
      return { body: { mode } };
    }
    if (method === 'PATCH') return { body: JSON.parse(body) };
    if (method === 'DELETE') return { status: 204 };
    if (method !== 'GET') return { body: {} };
    return { body: gets()[path] ?? page([]) };
  });
});

async function go(hash) {
  location.hash = hash;
  await route();
  await settle(15);
  return document.getElementById('app');
}
const writes = () => calls.filter((c) => c.method !== 'GET');
const byAria = (app, aria) => app.querySelector(`button[aria-label="${aria}"]`);

// [screen, the button's aria-label, the write it makes when confirmed]
const asks = [
  ['#/suppressions', '090-****-2222 の配信停止を削除',
    ['DELETE', `/suppressions/${id}`]],
  ['#/webhooks', 'https://h.example/x を削除',
    ['DELETE', `/webhook_endpoints/${id}`]],
  ['#/settings', 'キー fb_live_abcd を無効にする',
    ['DELETE', `/admin/api_keys/${id}`]],
  ['#/settings', 'o***@shop.example を削除',
    ['DELETE', `/admin/test_recipients/${id}`]],
  ['#/settings', 'new@shop.example を停止',
    ['PATCH', `/admin/members/${id}`]],
  [`#/campaigns/${id}`, 'シナリオ「シナリオA」を削除',
    ['DELETE', `/scenarios/${id}`]],
];

for (const [hash, aria, [method, path]] of asks)
  test(`${aria}: asked first, nothing on やめる`, async () => {
    let app = await go(hash);
    byAria(app, aria).click();
    const box = byAria(app, aria) ? null : app.querySelector('.confirm ' +
      '.question').closest('.confirm');
    assert.ok(box, 'the question shows');
    assert.match(box.textContent, /よろしいですか/);
    assert.equal(document.activeElement.textContent, 'やめる');
    assert.deepEqual(writes(), []);
    [...box.querySelectorAll('button')].find((b) =>
      b.textContent === 'やめる').click();
    assert.deepEqual(writes(), []);
    app = document.getElementById('app');
    byAria(app, aria).click();
    const ok = app.querySelector('.confirm .question').parentNode
      .querySelector('button');
    ok.click();
    await settle(10);
    assert.deepEqual(writes().map((c) => [c.method,
      c.url.pathname.replace('/api/v1', '')]), [[method, path]]);
  });

test('going live asks, then the badge and checklist follow', async () => {
  let app = await go('#/');
  assert.ok([...app.querySelectorAll('h2')].some((x) =>
    x.textContent === 'はじめの設定'));
  const done = [...app.querySelectorAll('ol.checklist li.done a')]
    .map((a) => a.textContent);
  assert.deepEqual(done, ['サイトを登録する',
    'タグ(スニペット)をサイトに貼る(ページの表示が届くと完了)',
    'キャンペーンを作る']);
  assert.equal(app.querySelector('.badge').textContent, 'テスト送信先のみ');
  app.querySelector('#delivery-mode').value = 'live';
  [...app.querySelectorAll('button')].find((b) =>
    b.textContent === '変更').click();
  await settle();
  assert.deepEqual(writes(), []);
  assert.match(app.textContent, /実際に送られ/);
  [...app.querySelectorAll('button')].find((b) =>
    b.textContent === '本番に切り替える').click();
  await settle(15);
  app = document.getElementById('app');
  assert.deepEqual(writes().map((c) => JSON.parse(c.body)),
    [{ mode: 'live' }]);
  assert.equal(app.querySelector('.badge').textContent, '本番');
  assert.match(app.querySelector('.notice').textContent,
    /送信を「本番」にしました/);
  assert.ok(![...app.querySelectorAll('h2')].some((x) =>
    x.textContent === 'はじめの設定'), 'no checklist once live');
});

test('a change to off does not ask', async () => {
  const app = await go('#/');
  app.querySelector('#delivery-mode').value = 'off';
  [...app.querySelectorAll('button')].find((b) =>
    b.textContent === '変更').click();
  await settle(15);
  assert.deepEqual(writes().map((c) => JSON.parse(c.body)), [{ mode: 'off' }]);
  assert.equal(document.querySelector('.badge').textContent, '停止');
});

test('a role change says so; an invited member shows as invited', async () => {
  const app = await go('#/settings');
  const row = [...app.querySelectorAll('tr')].find((tr) =>
    tr.textContent.includes('new@shop.example'));
  assert.equal(row.querySelector('.badge').textContent, '招待中');
  const sel = row.querySelector('select');
  sel.value = 'admin';
  sel.dispatchEvent(new Event('change'));
  await settle();
  assert.match(app.textContent,
    /new@shop\.example の権限を「管理者」にしました/);
});
