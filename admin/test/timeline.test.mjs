// A scenario's timeline (issue 42, item 2): delays read as days, hours
// and minutes; steps in the order they are sent, with the wait between
// them; the SMS quiet hours noted; the stop conditions in Japanese; the
// scenario screen draws it beside the table and follows its edits.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, settle } from './dom.mjs';
import { duration, timelineSteps, timelineView, stops } from '../timeline.js';
import { route } from '../router.js';
import { session } from '../shell.js';
import { label } from '../labels.js';

const id = '0b7e2f7c-1d2a-4f3b-9c8d-7e6f5a4b3c2d';
const hostile = '<img src=x onerror=alert(1)>';
const msgs = [{ id: 'm-sms', channel: 'sms', body: 'カートに商品が残っています' },
  { id: 'm-mail', channel: 'email', subject: hostile }];

beforeEach(() => installDom());

test('delays read as days, hours and minutes', () => {
  assert.equal(duration(0), 'すぐ');
  assert.equal(duration(45), '45 分');
  assert.equal(duration(60), '1 時間');
  assert.equal(duration(90), '1 時間 30 分');
  assert.equal(duration(1440), '1 日');
  assert.equal(duration(1440 * 3 + 61), '3 日 1 時間 1 分');
  assert.equal(duration(-5), 'すぐ');
  assert.equal(duration('x'), 'すぐ');
});

test('steps go in the order of their delays, with the gaps', () => {
  const t = timelineSteps([
    { message_id: 'm-mail', delay_minutes: 1440 },
    { message_id: 'm-sms', delay_minutes: 30 },
    { message_id: 'gone', delay_minutes: 1440 }], msgs);
  assert.deepEqual(t.map((s) => [s.no, s.delay, s.channel, s.gap]),
    [[2, 30, 'sms', null], [1, 1440, 'email', 1410], [3, 1440, null, 0]]);
  assert.equal(t[1].text, hostile);
});

test('the view: start, steps, quiet hours, stop conditions', () => {
  const ol = timelineView(20, [{ message_id: 'm-sms', delay_minutes: 0 },
    { message_id: 'm-mail', delay_minutes: 180 }], msgs);
  const items = [...ol.children];
  assert.equal(items.length, 4);
  assert.match(items[0].textContent, /離脱と判定.*20 分後/);
  assert.match(items[1].textContent, /離脱後すぐ.*ステップ 1: SMS/);
  assert.match(items[1].textContent, /21:00〜9:00/);
  assert.match(items[2].textContent, /離脱の 3 時間後.*メール/);
  assert.match(items[2].textContent, /前のステップから 3 時間/);
  assert.doesNotMatch(items[2].textContent, /21:00/);
  assert.equal(ol.querySelector('img'), null, 'markup from the server');
  const stopTexts = [...items[3].querySelectorAll('li')]
    .map((li) => li.textContent);
  assert.deepEqual(stopTexts, stops.map((r) => label('cancel_reason', r)));
  assert.ok(stopTexts.every((t) => !/^[a-z_]+$/.test(t)));
  // no wait of its own: the campaign's
  assert.match(timelineView(null, [], msgs).textContent,
    /キャンペーンの待ち時間.*ステップがありません/);
});

test('the scenario screen draws it and follows the table', async () => {
  session.me = { member: { id: 'm1', email: 'o@shop.example',
    role: 'owner' }, tenant_id: 't1', csrf_token: 'tok' };
  fakeFetch(({ url }) => {
    const p = url.pathname.replace('/api/v1', '');
    if (p === '/messages') return { status: 200, body: { data: msgs } };
    return { status: 200, body: { id, name: 's', status: 'draft',
      campaign_id: id, abandon_wait_minutes: 30, steps: [
        { id: 's1', position: 1, message_id: 'm-sms', channel: 'sms',
          delay_minutes: 30 }] } };
  });
  location.hash = `#/scenarios/${id}`;
  await route();
  await settle(10);
  const app = document.getElementById('app');
  const flow = () => app.querySelector('ol.timeline');
  assert.match(flow().textContent, /離脱の 30 分後.*SMS/);
  const delay = app.querySelector('tbody input[type=number]');
  delay.value = '120';
  delay.dispatchEvent(new Event('input', { bubbles: true }));
  assert.match(flow().textContent, /離脱の 2 時間後/);
  [...app.querySelectorAll('button')].find((b) =>
    b.textContent === 'ステップを追加').click();
  assert.equal(flow().querySelectorAll('li.step').length, 2);
});
