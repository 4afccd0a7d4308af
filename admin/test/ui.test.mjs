// ui.js: elements built one by one, server values as text only, the
// form's progress and messages, cursor paging, the copy button.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, settle } from './dom.mjs';
import { h, clear, card, thead, errorBox, notice, badge, jst, form,
  pagedTable, copyButton } from '../ui.js';

const hostile = '<img src=x onerror="alert(1)">&amp;<script>x()</script>';

beforeEach(() => { installDom(); });

test('h sets attributes, skips empty ones, listens on on*', () => {
  let clicks = 0;
  const el = h('button', { class: 'danger', type: 'button', hidden: true,
    title: null, 'aria-label': undefined, disabled: false,
    'data-n': 3, onclick: () => { clicks++; } }, 'OK');
  assert.equal(el.tagName, 'BUTTON');
  assert.equal(el.getAttribute('class'), 'danger');
  assert.equal(el.getAttribute('hidden'), '');
  assert.equal(el.getAttribute('data-n'), '3');
  for (const a of ['title', 'aria-label', 'disabled', 'onclick'])
    assert.equal(el.hasAttribute(a), false, a);
  el.click();
  el.click();
  assert.equal(clicks, 2);
  assert.equal(el.textContent, 'OK');
});

test('h sets value as the property, selected as the attribute', () => {
  const el = h('input', { value: 'abc' });
  assert.equal(el.value, 'abc');
  assert.equal(el.hasAttribute('value'), false);
  const opt = h('select', null, h('option', { value: 'a' }, 'A'),
    h('option', { value: 'b', selected: true }, 'B'));
  assert.equal(opt.value, 'b');
});

test('a server value with markup stays text', () => {
  const p = h('p', null, hostile);
  assert.equal(p.children.length, 0);
  assert.equal(p.childNodes.length, 1);
  assert.equal(p.childNodes[0].nodeType, 3);
  assert.equal(p.textContent, hostile);
  assert.ok(p.innerHTML.includes('&lt;img'), p.innerHTML);
  assert.ok(!p.innerHTML.includes('<script'), p.innerHTML);
});

test('a server value in an attribute stays one attribute', () => {
  const a = h('a', { href: '#/x', title: `"><b>${hostile}` }, 'x');
  assert.equal(a.getAttribute('title'), `"><b>${hostile}`);
  assert.equal(a.children.length, 0);
  assert.equal(a.attributes.length, 2);
});

test('children: nested arrays flattened, empty ones left out', () => {
  const b = h('b', null, 'bold');
  const el = h('div', null, ['a', [1, [null, false, undefined, b]]], 0, '');
  assert.equal(el.textContent, 'a1bold0');
  assert.equal(el.childNodes[2], b);
  // 0 and '' are values: kept, as text
  assert.equal(el.childNodes.length, 5);
  assert.equal(el.childNodes[4].nodeType, 3);
});

test('clear replaces the children, as text', () => {
  const el = h('div', null, h('span', null, 'old'));
  assert.equal(clear(el, hostile, h('i', null, 'n')), el);
  assert.equal(el.querySelector('span'), null);
  assert.equal(el.childNodes[0].nodeType, 3);
  assert.equal(el.textContent, `${hostile}n`);
  clear(el);
  assert.equal(el.childNodes.length, 0);
});

test('card: a section with its heading, or none', () => {
  const c = card(['name ', hostile], h('p', null, 'body'));
  assert.equal(c.outerHTML.startsWith('<section class="card"><h2>'), true);
  assert.equal(c.querySelector('h2').textContent, `name ${hostile}`);
  assert.equal(c.querySelector('p').textContent, 'body');
  const bare = card(null, 'x');
  assert.equal(bare.querySelector('h2'), null);
  assert.equal(bare.textContent, 'x');
});

test('thead: one row of column titles', () => {
  const t = thead(['a', 'b', '']);
  assert.equal(t.outerHTML,
    '<thead><tr><th>a</th><th>b</th><th><span class="vh">操作</span></th>' +
    '</tr></thead>');
});

test('errorBox: the message and the field it names, as an alert', () => {
  const e = errorBox({ message: hostile, param: 'url' });
  assert.equal(e.getAttribute('class'), 'error');
  assert.equal(e.getAttribute('role'), 'alert');
  assert.equal(e.textContent, `${hostile}(URL)`);
  assert.equal(e.children.length, 0);
  assert.equal(errorBox({ message: 'm', param: null }).textContent, 'm');
  // the field as the form labels it, never the API's name
  assert.equal(errorBox({ message: 'm', param: 'rules[1].match_type' })
    .textContent, 'm(URL ルール 2 行目の「種類」)');
  assert.equal(errorBox({ message: 'm', param: 'blocks[0].url' })
    .textContent, 'm(ブロック 1 つ目の「URL」)');
  assert.equal(errorBox({ message: 'm', param: 'no_such_field' })
    .textContent, 'm');
});

test('notice and badge', () => {
  const n = notice('saved');
  assert.equal(n.outerHTML, '<p class="notice" role="status">saved</p>');
  assert.equal(badge('campaign_status', 'active').outerHTML,
    '<span class="badge active">有効</span>');
  assert.equal(badge('campaign_status', 'new_one').textContent,
    'その他(new_one)');
  assert.equal(badge('x', null).textContent, '—');
  assert.equal(badge('x', undefined).getAttribute('class'), 'badge ');
});

test('jst: Japan time, a dash for nothing', () => {
  assert.equal(jst(null), '—');
  assert.equal(jst(''), '—');
  assert.equal(jst('2026-11-28T15:30:00Z'), '2026/11/29 0:30:00');
});

const fields = [
  { name: 'email', label: 'メール', type: 'email', required: true,
    autocomplete: 'username', value: 'a@example.jp' },
  { name: 'kind', label: '種類', type: 'select', value: 'test',
    options: [['live', '本番'], ['test', 'テスト']] },
  { name: 'memo', label: 'メモ', type: 'textarea', value: 'line' },
  { name: 'n', label: '数' },
];

test('form: a label per field with its input', () => {
  const f = form(fields, '保存', async () => null);
  assert.equal(f.getAttribute('class'), 'stack');
  const labels = f.querySelectorAll('label');
  assert.deepEqual([...labels].map((l) => l.firstChild.textContent),
    ['メール', '種類', 'メモ', '数']);
  const email = f.querySelector('input[name=email]');
  assert.equal(email.getAttribute('type'), 'email');
  assert.equal(email.hasAttribute('required'), true);
  assert.equal(email.getAttribute('autocomplete'), 'username');
  assert.equal(email.value, 'a@example.jp');
  assert.equal(f.querySelector('select[name=kind]').value, 'test');
  assert.equal(f.querySelector('textarea[name=memo]').value, 'line');
  const n = f.querySelector('input[name=n]');
  assert.equal(n.getAttribute('type'), 'text');
  assert.equal(n.hasAttribute('required'), false);
  assert.equal(f.querySelector('button').getAttribute('type'), 'submit');
  assert.equal(form([], 'x', () => null, 'inline').getAttribute('class'),
    'inline');
});

// Submit f as a user would, and wait for its handler.
async function submit(f) {
  f.querySelector('button').click();
  await settle();
}

test('form: submits the values, busy while it runs, then the message',
  async () => {
    let seen = null, release;
    const f = form(fields, '保存', (v) => {
      seen = v;
      return new Promise((r) => { release = r; });
    });
    document.body.append(f);
    f.querySelector('select').value = 'live';
    f.querySelector('input[name=n]').value = '12';
    const btn = f.querySelector('button');
    btn.click();
    await settle();
    assert.deepEqual(seen, { email: 'a@example.jp', kind: 'live',
      memo: 'line', n: '12' });
    assert.equal(btn.disabled, true);
    release(hostile);
    await settle();
    assert.equal(btn.disabled, false);
    const msg = f.querySelector('p.notice');
    assert.equal(msg.getAttribute('role'), 'status');
    assert.equal(msg.textContent, hostile);
    assert.equal(msg.children.length, 0);
  });

test('form: an error shows as the error box; the next try clears it',
  async () => {
    let fail = true;
    const f = form(fields, '保存', async () => {
      if (fail) throw Object.assign(new Error('入力が正しくありません'),
        { param: 'email' });
      return null;
    });
    document.body.append(f);
    await submit(f);
    const err = f.querySelector('p.error');
    assert.equal(err.textContent, '入力が正しくありません(メールアドレス)');
    assert.equal(f.querySelector('[name=email]')
      .getAttribute('aria-invalid'), 'true');
    assert.equal(f.querySelector('button').disabled, false);
    fail = false;
    await submit(f);
    assert.equal(f.querySelector('p.error'), null);
    assert.equal(f.querySelector('p.notice'), null);
  });

test('form: the handler may write in its own output', async () => {
  const f = form([], 'go', async (v, out) => {
    clear(out, h('p', { class: 'mine' }, 'here'));
  });
  document.body.append(f);
  await submit(f);
  assert.equal(f.querySelector('p.mine').textContent, 'here');
});

// pages: the answers of load(cursor), in order; asked: its cursors
function pager(pages) {
  const asked = [];
  const load = async (cursor) => {
    asked.push(cursor);
    const p = pages.shift();
    if (p instanceof Error) throw p;
    return p;
  };
  return { asked, load };
}

const cols = [['名前', (r) => r.name], ['状態', (r) =>
  badge('campaign_status', r.status)]];

test('pagedTable: head, rows as text, a button while there are more',
  async () => {
    const { asked, load } = pager([
      { data: [{ name: hostile, status: 'active' }], has_more: true,
        next_cursor: 'c2' },
      { data: [{ name: 'two', status: 'paused' }], has_more: false,
        next_cursor: null }]);
    const box = pagedTable(load, cols);
    assert.equal(box.getAttribute('aria-busy'), 'true');
    await settle();
    assert.equal(box.getAttribute('aria-busy'), 'false');
    const ths = box.querySelectorAll('thead th');
    assert.deepEqual([...ths].map((t) => t.textContent), ['名前', '状態']);
    assert.equal(ths[0].getAttribute('scope'), 'col');
    let rows = box.querySelectorAll('tbody tr');
    assert.equal(rows.length, 1);
    assert.equal(rows[0].querySelector('td').textContent, hostile);
    assert.equal(rows[0].querySelector('img'), null);
    const more = box.querySelector('button');
    assert.equal(more.textContent, 'さらに表示');
    assert.equal(more.hidden, false);
    more.click();
    await settle();
    assert.deepEqual(asked, [null, 'c2']);
    rows = box.querySelectorAll('tbody tr');
    assert.equal(rows.length, 2);
    assert.equal(rows[1].querySelector('.badge').textContent, '一時停止中');
    assert.equal(rows[1].querySelector('td').dataset.label, '名前');
    assert.equal(more.hidden, true);
    assert.equal(more.disabled, false);
  });

test('pagedTable: an empty list says so', async () => {
  const { load } = pager([{ data: [], has_more: false }]);
  const box = pagedTable(load, cols);
  await settle();
  assert.equal(box.querySelector('p.muted').textContent, 'まだありません。');
  assert.equal(box.querySelector('button').hidden, true);
});

test('pagedTable: a failed page shows the error, keeps the rows',
  async () => {
    const { load } = pager([
      { data: [{ name: 'one' }], has_more: true, next_cursor: 'c2' },
      Object.assign(new Error('しばらくしてからお試しください'),
        { param: null })]);
    const box = pagedTable(load, cols);
    await settle();
    box.querySelector('button').click();
    await settle();
    assert.equal(box.querySelectorAll('tbody tr').length, 1);
    assert.equal(box.querySelector('p.error').textContent,
      'しばらくしてからお試しください');
    assert.equal(box.querySelector('button').disabled, false);
  });

test('copyButton: copies the text, says whether it could', async () => {
  const copied = [];
  navigator.clipboard.writeText = async (t) => { copied.push(t); };
  const b = copyButton(hostile);
  assert.equal(b.textContent, 'コピー');
  b.click();
  await settle();
  assert.deepEqual(copied, [hostile]);
  assert.equal(b.textContent, 'コピーしました');
  navigator.clipboard.writeText = async () => { throw new Error('denied'); };
  const c = copyButton('k', 'タグをコピー');
  assert.equal(c.textContent, 'タグをコピー');
  c.click();
  await settle();
  assert.equal(c.textContent, 'コピーできません: 選択してコピーしてください');
});
