// The URL rules card of a campaign: the issue 42 case warned and fixed
// from the table, the save of the table's order and priorities, and the
// match test of rules as edited with the live answer explained.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, settle } from './dom.mjs';
import { rulesCard } from '../screens/urlrules.js';

const id = '0b7e2f7c-1d2a-4f3b-9c8d-7e6f5a4b3c2d';
const campaign = (status) => ({ id, key: 'spring', name: '春', status,
  site_id: id, url_rules: [
    { role: 'form', match_type: 'prefix', pattern: '/order', priority: null },
    { role: 'thanks', match_type: 'prefix', pattern: '/order/thanks',
      priority: null }] });

let calls, live;
beforeEach(() => {
  installDom();
  live = { url: '', location: {}, assigned: false, campaign: null,
    role: null, matched: null, evaluated: [] };
  calls = fakeFetch(({ url, method, body }) => {
    if (method === 'PUT') return { body: { ...campaign('active'),
      url_rules: JSON.parse(body).rules, warnings: [] } };
    if (url.pathname.endsWith('/url-rules/test')) return { body: live };
    return { body: {} };
  });
});

function draw(status) {
  const k = { id, c: campaign(status) };
  const el = rulesCard(k);
  document.body.append(el);
  return el;
}
const button = (el, text) => [...el.querySelectorAll('button')]
  .find((b) => b.textContent === text);

test('form /order, thanks /order/thanks: warned, fixed, saved', async () => {
  const el = draw('active');
  const warn = el.querySelector('.warn');
  assert.ok(warn, 'a warning');
  assert.match(warn.textContent, /2 行目\(完了\(サンクス\)・前方一致 \/order\/thanks\)/);
  assert.match(warn.textContent, /「完了\(サンクス\)」になりません/);
  assert.ok(el.querySelector('tr[data-row="1"]').classList
    .contains('shadowed'));
  button(el, '2 行目を 1 行目の前へ').click();
  assert.equal(el.querySelector('.warn'), null, 'no warning once fixed');
  button(el, 'ルールを保存').click();
  await settle();
  const put = calls.find((c) => c.method === 'PUT');
  assert.deepEqual(JSON.parse(put.body).rules.map((r) => r.pattern),
    ['/order/thanks', '/order']);
});

test('a priority changes the order shown, and the warning', () => {
  const el = draw('active');
  const prio = el.querySelector('input[aria-label^="2 行目の優先度"]');
  prio.value = '1';
  prio.dispatchEvent(new Event('input'));
  assert.equal(el.querySelector('.warn'), null);
  assert.deepEqual([...el.querySelectorAll('td.order')]
    .map((td) => td.textContent), ['2', '1']);
});

test('the match test: rules as edited, and a paused campaign explained',
  async () => {
    const el = draw('paused');
    el.querySelector('#rule-test-url').value =
      'https://shop.example.jp/order/thanks';
    el.querySelector('form').dispatchEvent(new Event('submit',
      { cancelable: true }));
    await settle();
    const text = el.textContent;
    assert.match(text, /編集中のルール: 1 行目\(フォーム・前方一致 \/order\)に当たり/);
    assert.match(text, /どのキャンペーンにも当たりません/);
    assert.match(text, /「一時停止中」で、タグに公開されていません/);
    const answer = [...el.querySelectorAll('[role=status]')].pop();
    assert.ok(answer.classList.contains('warn'), 'not a green box');
    assert.equal(el.querySelector('.notice'), null);
  });

test('the match test: this active campaign answered live is green',
  async () => {
    live = { ...live, assigned: true, campaign: 'spring', role: 'form',
      matched: { campaign: 'spring', role: 'form', match_type: 'prefix',
        pattern: '/order', priority: null },
      evaluated: [{ campaign: 'spring' }] };
    const el = draw('active');
    el.querySelector('#rule-test-url').value = 'https://s.example/order';
    el.querySelector('form').dispatchEvent(new Event('submit',
      { cancelable: true }));
    await settle();
    assert.ok(el.querySelector('.notice'));
    assert.match(el.querySelector('.notice').textContent,
      /このキャンペーンの「フォーム」ページ/);
  });
