// 「個人データの開示・削除」 (issue 43): the counts an export found, the
// question asked before erasing (with and without "stop"), the erasure's
// message, the download kept in the page, and the contact posted in a
// body only -- never in a URL, the fragment, the history or a link.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, settle } from './dom.mjs';
import { route } from '../router.js';
import { session } from '../shell.js';
import { setCsrf } from '../api.js';
import { exportSummary, hasData, eraseQuestion, erasedMessage,
  exportFileName } from '../screens/privacy.js';

const me = { member: { id: 'm1', email: 'owner@shop.example',
  role: 'owner' }, tenant_id: 't1', csrf_token: 'tok' };
const contact = '090-1234-5678';
const hostile = '<img src=x onerror=alert(1)>';
const found = { leads: 2, deliveries: 3, events: 9, webhook_deliveries: 1,
  suppressions: 1, test_recipients: 0 };
const doc = { object: 'personal_data_export',
  subject: { kind: 'tel', masked: '090-****-5678' }, found,
  leads: [{ id: 'l1', status: 'sent', campaign: { name: hostile },
    tel_masked: '090-****-5678', email_masked: null }],
  contacts: [{ kind: 'tel', value: '09012345678' }] };
const erased = { object: 'personal_data_erasure', stop: true, found: true,
  erased: { leads: 2, events_anonymised: 9, deliveries_cancelled: 1,
    deliveries_masked: 3, webhook_payloads_scrubbed: 0,
    test_recipients_removed: 0, suppressions_removed: 0,
    suppressions_kept: 1, suppressions_added: 1 } };

test('the summary counts every kind, nothing found is no data', () => {
  assert.deepEqual(exportSummary(doc).map(([, n]) => n), [2, 3, 9, 1, 1, 0]);
  assert.equal(hasData(doc), true);
  assert.equal(hasData({ found: { leads: 0, deliveries: 0, events: 0,
    webhook_deliveries: 0, suppressions: 0, test_recipients: 0 } }), false);
  assert.equal(hasData({}), false);
});

test('the question says what will happen, stop or not', () => {
  const q = eraseQuestion(doc, false);
  assert.match(q, /リード 2 件/);
  assert.match(q, /行動 9 件を匿名化/);
  assert.match(q, /配信停止リスト 1 件を削除/);
  assert.match(q, /レポートの件数は変わりません/);
  assert.match(q, /元に戻せません/);
  assert.match(eraseQuestion(doc, true), /ブラインドインデックス/);
  assert.doesNotMatch(eraseQuestion(doc, true), /配信停止リスト 1 件を削除/);
});

test('the message of an erasure, and of one with nothing left', () => {
  assert.match(erasedMessage(erased), /リード 2 件/);
  assert.match(erasedMessage(erased), /配信停止として保持 2 件/);
  assert.match(erasedMessage({ ...erased, stop: false }), /件。$/);
  assert.match(erasedMessage({ found: false }), /ありませんでした/);
});

test('the file is named by the day in Japan, never the contact', () => {
  assert.equal(exportFileName(new Date('2026-11-27T16:00:00Z')),
    'personal-data-2026-11-28.json');
});

let calls;
beforeEach(() => {
  installDom();
  setCsrf('tok');
  session.me = me;
  calls = fakeFetch(({ url, method }) => {
    const path = url.pathname.replace('/api/v1', '');
    if (method === 'POST' && path === '/admin/personal_data/export')
      return { body: doc };
    if (method === 'POST' && path === '/admin/personal_data/erase')
      return { body: erased };
    return { body: { data: [], has_more: false, next_cursor: null } };
  });
});

const button = (app, text) => [...app.querySelectorAll('button')]
  .find((b) => b.textContent === text);

test('look up, download, erase after the question; the contact posted only',
  async () => {
    location.hash = '#/privacy';
    await route();
    await settle(10);
    const app = document.getElementById('app');
    const before = location.href;
    const input = app.querySelector('#dsr-contact');
    assert.equal(input.getAttribute('name'), null, 'a form could not send it');
    input.value = contact;
    app.querySelector('#dsr-stop').checked = true;
    app.querySelector('form[role=search]').dispatchEvent(new Event('submit',
      { cancelable: true }));
    await settle(15);
    assert.match(app.textContent, /見つかったデータ/);
    assert.equal(app.querySelector('img'), null, 'markup from the server');
    const dl = app.querySelector('a[download]');
    assert.equal(dl.getAttribute('download'), exportFileName());
    assert.match(dl.getAttribute('href'), /^blob:/);
    button(app, '削除する').click();
    assert.match(app.textContent, /ブラインドインデックス/);
    const ok = [...app.querySelectorAll('.confirm button')]
      .find((b) => b.textContent === '削除する');
    ok.click();
    await settle(15);
    assert.match(app.textContent, /削除しました/);
    const posts = calls.filter((c) => c.method === 'POST');
    assert.deepEqual(posts.map((c) => c.url.pathname),
      ['/api/v1/admin/personal_data/export',
        '/api/v1/admin/personal_data/erase']);
    assert.deepEqual(JSON.parse(posts[0].body), { contact });
    assert.deepEqual(JSON.parse(posts[1].body), { contact, stop: true });
    const digits = /1234|5678/;
    for (const c of calls) assert.doesNotMatch(c.url.href, digits);
    assert.equal(location.href, before);
    assert.equal(window.history.state, null);
  });

test('a member is told who may do it, and nothing is asked', async () => {
  session.me = { ...me, member: { ...me.member, role: 'member' } };
  location.hash = '#/privacy';
  await route();
  await settle(10);
  const app = document.getElementById('app');
  assert.match(app.textContent, /オーナーと管理者だけ/);
  assert.equal(app.querySelector('form'), null);
  assert.ok(calls.every((c) => c.method === 'GET'));
});
