// The message editor keeps everything (issue 42): every preset's
// messages, as from_preset makes them from the seeded examples, opened
// and saved without a change send back exactly what they hold; an edit
// changes the one field it names; the preview draws every block type.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, settle } from './dom.mjs';
import { examples, presets } from './fixtures.mjs';
import { session } from '../shell.js';
import { messages } from '../screens/messages.js';
import { blockEditor, previewNodes, blockTypes, expand } from '../blocks.js';

const me = { member: { id: 'm1', email: 'o@shop.example', role: 'owner' },
  tenant_id: 't1', csrf_token: 'tok' };
const page = (data) => ({ data, has_more: false, next_cursor: null });
const campaign = { id: '0b7e2f7c-1d2a-4f3b-9c8d-7e6f5a4b3c2d',
  name: '春', key: 'spring', status: 'active' };

// A preset's messages as the server holds them after from_preset.
function presetMessages(p) {
  return p.steps.map((s, i) => {
    const x = examples.find((e) => e.key === s.example);
    return { id: `00000000-0000-4000-8000-00000000000${i}`,
      object: 'message', channel: x.channel, subject: x.subject,
      body: x.body, blocks: x.blocks, has_body_html: false,
      body_html: null, link_url: null, link_params: {},
      updated_at: '2026-11-28T00:00:00Z' };
  });
}

let calls, msgs;
beforeEach(() => {
  installDom();
  session.me = me;
  msgs = [];
  calls = fakeFetch(({ url, method, body }) => {
    const path = url.pathname.replace('/api/v1', '');
    if (method === 'PATCH') {
      const id = path.split('/')[2];
      return { body: { ...msgs.find((m) => m.id === id),
        ...JSON.parse(body) } };
    }
    if (method === 'POST' && path === '/messages')
      return { status: 201, body: { id: '00000000-0000-4000-8000-0000000000ff',
        ...JSON.parse(body), has_body_html: false } };
    if (path === '/message_previews')
      return { body: { subject: JSON.parse(body).subject, html: '' } };
    if (path === '/messages') return { body: page(msgs) };
    if (path === '/campaigns') return { body: page([campaign]) };
    if (path === '/message_examples') return { body: page(examples) };
    if (path === '/message_variables') return { body: { data: [
      { key: '{{product_name}}', example: '青汁' },
      { key: '{{link_url}}', example: 'https://fb.example/r/XXXX' }] } };
    return { body: page([]) };
  });
});

const app = () => document.getElementById('app');
const button = (text) => [...app().querySelectorAll('button')]
  .find((b) => b.textContent === text);

async function open(m) {
  const a = [...app().querySelectorAll('main a')].find((x) =>
    x.textContent === (m.subject || m.body));
  assert.ok(a, `the list links ${m.subject || m.body}`);
  a.click();
  await settle(10);
}

test('the seeded presets and examples are read', () => {
  assert.deepEqual(presets.map((p) => p.key),
    ['sms_single', 'recommended', 'full']);
  assert.ok(examples.some((x) => x.blocks &&
    x.blocks.some((b) => b.type === 'divider')));
});

for (const p of presets)
  test(`preset ${p.name}: every message saved unchanged`, async () => {
    msgs = presetMessages(p);
    messages();
    await settle(10);
    for (const m of msgs) {
      await open(m);
      const n = calls.length;
      button('保存').click();
      await settle(10);
      const patch = calls.slice(n).find((c) => c.method === 'PATCH');
      assert.equal(patch.url.pathname, `/api/v1/messages/${m.id}`);
      const sent = JSON.parse(patch.body);
      if (m.channel === 'sms') assert.deepEqual(sent, { body: m.body });
      else {
        assert.deepEqual(sent, { subject: m.subject, blocks: m.blocks });
        assert.deepEqual(sent.blocks, examples.find((x) =>
          x.subject === m.subject).blocks, 'the blocks as seeded');
      }
      assert.equal(app().querySelector('.error'), null);
    }
  });

test('an edit of one field changes that field only', async () => {
  msgs = presetMessages(presets.find((p) => p.key === 'recommended'));
  const m = msgs[1];
  messages();
  await settle(10);
  await open(m);
  // the button block's text: 「お手続きを続ける」 stays until edited
  const label = [...app().querySelectorAll('li.block')]
    .find((li) => li.dataset.type === 'button').querySelector('input');
  assert.equal(label.value, 'お手続きを続ける');
  label.value = 'お手続きを再開する';
  label.dispatchEvent(new Event('input'));
  const n = calls.length;
  button('保存').click();
  await settle(10);
  const sent = JSON.parse(calls.slice(n).find((c) =>
    c.method === 'PATCH').body);
  const want = structuredClone(m.blocks);
  want[2].text = 'お手続きを再開する';
  assert.deepEqual(sent, { subject: m.subject, blocks: want });
});

test('the editor keeps a block\'s unknown keys and unknown types', () => {
  const blocks = [{ type: 'text', text: 'a', align: 'center' },
    { type: 'spacer', height: 24 }];
  let seen = null;
  const ed = blockEditor(blocks, (b) => { seen = b; });
  document.body.append(ed.el);
  const ta = ed.el.querySelector('textarea');
  ta.value = 'b';
  ta.dispatchEvent(new Event('input'));
  assert.deepEqual(seen, [{ type: 'text', text: 'b', align: 'center' },
    { type: 'spacer', height: 24 }]);
  assert.deepEqual(blocks[0].text, 'a', 'the caller\'s blocks untouched');
});

test('blocks are added, moved and removed', () => {
  let seen = null;
  const ed = blockEditor([{ type: 'heading', text: 'h' }], (b) => {
    seen = b;
  });
  document.body.append(ed.el);
  const kind = ed.el.querySelector('select');
  for (const [t] of blockTypes) {
    kind.value = t;
    [...ed.el.querySelectorAll('button')].find((b) =>
      b.textContent === 'ブロックを追加').click();
  }
  assert.deepEqual(seen.map((b) => b.type), ['heading', 'heading', 'text',
    'button', 'image', 'divider']);
  assert.deepEqual(seen[3], { type: 'button', text: 'お手続きを続ける',
    url: '{{link_url}}' });
  ed.el.querySelector('li:nth-child(6) button[aria-label$="を上へ"]').click();
  assert.equal(seen[4].type, 'divider');
  ed.el.querySelector('li:nth-child(1) button[aria-label$="を削除"]').click();
  assert.deepEqual(seen.map((b) => b.type), ['heading', 'text', 'button',
    'divider', 'image']);
});

test('the preview draws every block type as text', () => {
  const hostile = '<img src=x onerror=alert(1)>';
  const nodes = previewNodes([{ type: 'heading', text: '{{product_name}}' },
    { type: 'text', text: hostile }, { type: 'button', text: '続ける',
      url: '{{link_url}}' }, { type: 'image', url: 'https://x/i.png',
      alt: '商品' }, { type: 'divider' }],
  { '{{product_name}}': '青汁', '{{link_url}}': 'https://l/r/1' });
  const box = document.createElement('div');
  box.append(...nodes);
  assert.deepEqual([...box.children].map((e) => e.tagName),
    ['P', 'P', 'P', 'FIGURE', 'HR']);
  assert.equal(box.querySelector('.mail-h1').textContent, '青汁');
  assert.equal(box.children[1].textContent, hostile);
  assert.equal(box.querySelector('img'), null, 'nothing loaded or parsed');
  assert.equal(box.querySelector('.mail-button').title, 'https://l/r/1');
  assert.equal(expand('{{optout_url}}', {}), '{{optout_url}}');
});

test('a new email is created with its blocks', async () => {
  messages();
  await settle(10);
  button('新しいメール').click();
  await settle(5);
  app().querySelector('#msg-subject').value = '件名';
  app().querySelector('#msg-subject').dispatchEvent(new Event('input'));
  button('ブロックを追加').click();
  app().querySelector('li.block textarea, li.block input').value = '見出し';
  app().querySelector('li.block textarea, li.block input')
    .dispatchEvent(new Event('input'));
  const n = calls.length;
  button('保存').click();
  await settle(10);
  const post = calls.slice(n).find((c) => c.method === 'POST' &&
    c.url.pathname === '/api/v1/messages');
  assert.deepEqual(JSON.parse(post.body), { channel: 'email',
    subject: '件名', blocks: [{ type: 'heading', text: '見出し' }] });
});
