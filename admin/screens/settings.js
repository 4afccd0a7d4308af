// Settings (owners and admins): held leads, API keys (a new key shown
// once), members and their roles (the owner invites and changes them),
// test recipients and their confirmation, the audit log.
import { api } from '../api.js';
import { h, clear, card, errorBox, notice, badge, jst, form, pagedTable,
  copyButton, confirmButton } from '../ui.js';
import { shell, canAdmin, session } from '../shell.js';
import { quarantines } from './quarantines.js';
import { label, options } from '../labels.js';

const roles = options('member_role');

function loadKeys(box) {
  const revoke = (k) => confirmButton('無効にする', `キー ${k.prefix}… を` +
    '無効にします。このキーを使う連携はすぐに動かなくなります。' +
    'よろしいですか?', async () => {
    await api('DELETE', `/admin/api_keys/${k.id}`);
    loadKeys(box);
  }, { aria: `キー ${k.prefix} を無効にする` });
  clear(box, pagedTable((c) => api('GET', '/admin/api_keys', undefined,
    { cursor: c }), [
    ['名前', (k) => k.name || '—'], ['プレフィックス', (k) => k.prefix],
    ['種類', (k) => label('key_kind', k.kind)],
    ['状態', (k) => badge('key_status', k.status)],
    ['最終利用', (k) => jst(k.last_used_at)],
    ['', (k) => k.status === 'active' ? revoke(k) : ''],
  ]));
}

function keysCard(keys) {
  const shown = h('div');
  return card('API キー', keys, form([{ name: 'name', label: '名前' },
    { name: 'kind', label: '種類', type: 'select',
      options: options('key_kind') }],
  '発行(すべてのスコープ)', async (v) => {
    const k = await api('POST', '/admin/api_keys',
      { name: v.name || null, kind: v.kind, scopes: 'all' });
    clear(shown, h('p', null, 'API キー(この画面でしか表示されません):'),
      h('p', { class: 'secret' }, k.key), copyButton(k.key));
    loadKeys(keys);
  }), shown);
}

// Another member, as the owner sees them: a role to change, suspension.
const isOther = (m) => session.me.member.role === 'owner' &&
  m.id !== session.me.member.id;

// A role change says what it did (or why not) in the card's note.
function roleSelect(m, box, note) {
  return h('select', { 'aria-label': `${m.email} の権限`,
    onchange: async (ev) => {
      clear(note);
      try {
        const n = await api('PATCH', `/admin/members/${m.id}`,
          { role: ev.target.value });
        clear(note, notice(`${m.email} の権限を` +
          `「${label('member_role', n.role ?? ev.target.value)}」にしました。`));
      } catch (e) {
        clear(note, errorBox(e));
        ev.target.value = m.role;
      }
    } }, roles.map(([r, t]) =>
    h('option', { value: r, selected: r === m.role }, t)));
}

function suspendButton(m, box, note) {
  return confirmButton('停止', `${m.email} を停止します。ログインできなく` +
    'なり、このメンバーが発行した API キーも使えなくなります。' +
    'よろしいですか?', async () => {
    await api('PATCH', `/admin/members/${m.id}`, { status: 'suspended' });
    loadMembers(box, note);
    clear(note, notice(`${m.email} を停止しました。`));
  }, { aria: `${m.email} を停止` });
}

// An invited member has no password until the invitation is accepted.
const memberStatus = (m) => m.status === 'active' && m.has_password === false
  ? 'invited' : m.status;

function loadMembers(box, note) {
  clear(box, pagedTable((c) => api('GET', '/admin/members', undefined,
    { cursor: c }), [
    ['メール', (m) => m.email],
    ['権限', (m) => isOther(m) ? roleSelect(m, box, note) :
      label('member_role', m.role)],
    ['状態', (m) => badge('member_status', memberStatus(m))],
    ['最終アクセス', (m) => jst(m.last_seen_at)],
    ['', (m) => isOther(m) && m.status === 'active' ?
      suspendButton(m, box, note) : ''],
  ]));
}

function membersCard(members, note) {
  return card('メンバー', note, members, session.me.member.role === 'owner' ?
    form([{ name: 'email', label: 'メールアドレス', type: 'email',
      required: true }, { name: 'role', label: '権限', type: 'select',
      value: 'member', options: roles }], '招待', async (v) => {
      await api('POST', '/admin/members', v);
      loadMembers(members, note);
      return `${v.email} に招待メールを送ります。承諾されるまで「招待中」です。`;
    }) : null);
}

function confirmForm(t, box) {
  return form([{ name: 'code', label: '確認コード', required: true }], '確認',
    async (v) => {
      await api('POST', `/admin/test_recipients/${t.id}/confirm`,
        { code: v.code });
      loadRcpts(box);
    }, 'inline');
}

function removeRcpt(t, box) {
  return confirmButton('削除', `${t.masked} をテスト送信先から外します。` +
    'よろしいですか?', async () => {
    await api('DELETE', `/admin/test_recipients/${t.id}`);
    loadRcpts(box);
  }, { aria: `${t.masked} を削除` });
}

function loadRcpts(box) {
  api('GET', '/admin/test_recipients').then((r) => clear(box,
    r.data.length ? null : h('p', { class: 'muted' }, 'まだありません。'),
    h('table', { class: 'cards' }, h('tbody', null, r.data.map((t) =>
      h('tr', null, h('td', { 'data-label': '宛先' }, t.masked),
        h('td', { 'data-label': '状態' },
          badge('recipient_status', t.status)),
        h('td', { 'data-label': '' }, t.status === 'pending' ?
          confirmForm(t, box) : null, ' ', removeRcpt(t, box))))))))
    .catch((e) => clear(box, errorBox(e)));
}

function rcptsCard(rcpts) {
  return card('テスト送信先', rcpts, form([{ name: 'contact',
    label: '電話番号またはメールアドレス', required: true }], '追加',
  async (v) => {
    await api('POST', '/admin/test_recipients', v);
    loadRcpts(rcpts);
    return '確認コードを送ります。届いたコードを入力してください。';
  }));
}

function audit() {
  return pagedTable((c) => api('GET', '/admin/audit_log', undefined,
    { cursor: c, limit: 20 }), [
    ['日時', (a) => jst(a.created_at)],
    ['操作', (a) => label('audit_action', a.action)],
    ['実行者', (a) => label('actor_type', a.actor_type)],
    ['対象', (a) => a.target_type ? label('target_type', a.target_type) : ''],
  ]);
}

export function settings() {
  const keys = h('div'), members = h('div'), rcpts = h('div');
  const log = h('div'), held = h('div'), note = h('div');
  if (!canAdmin()) return shell('設定');
  shell('設定', card('保留中のリード', held), keysCard(keys),
    membersCard(members, note), rcptsCard(rcpts), card('監査ログ', log));
  quarantines(held);
  loadKeys(keys);
  loadMembers(members, note);
  loadRcpts(rcpts);
  log.append(audit());
}
