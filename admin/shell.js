// What every signed-in screen shares: the session, the page's frame (the
// menu, who is signed in, the title) and signing out.
import { api, setCsrf } from './api.js';
import { h, clear, form, modal } from './ui.js';
import { label } from './labels.js';

// The session: {member, tenant_id, tenant, tenants, csrf_token}, or null
// signed out (GET /admin/session, SessionOut).
export const session = { me: null };

// The element the screens draw in (index.html's #app).
export function root() { return document.getElementById('app'); }

// The tenant's name: the session's (`tenant.name`), else the one the
// sign-in chose from the tenants the server listed (sessionStorage), for
// a server before `tenant`; null when neither is known.
export function tenantName() {
  const me = session.me;
  if (me.tenant && me.tenant.name) return me.tenant.name;
  if (me.tenant_name) return me.tenant_name;
  try {
    const known = JSON.parse(sessionStorage.getItem('fb-tenants') || '[]');
    const t = known.find((x) => x.id === me.tenant_id);
    return t ? t.name : null;
  } catch { return null; }
}

// May the member change the tenant's settings (owner or admin)?
export function canAdmin() {
  return ['owner', 'admin'].includes(session.me.member.role);
}

// May the member change the tenant's data (every role but viewer)?
export function canWrite() {
  return session.me.member.role !== 'viewer';
}

const menu = [
  ['#/', 'ダッシュボード'], ['#/reports', 'レポート'], ['#/sites', 'サイト'],
  ['#/campaigns', 'キャンペーン'], ['#/messages', 'メッセージ'],
  ['#/leads', 'リード'], ['#/deliveries', '配信'],
  ['#/suppressions', '配信停止'], ['#/webhooks', 'Webhook'],
  ['#/settings', '設定'], ['#/privacy', '個人データ'],
  ['#/account', 'アカウント'],
];

// Is the menu's href the current screen's (here: #/ and one part)?
function current(href, here) {
  if (href === '#/') return here === '#/' || here === '#';
  return here.startsWith(href);
}

// The sign-in's second step (the sign-in screen's and the tenant
// switcher's): a code of the authenticator app, or a recovery code.
// The challenge lives only in this closure, never in storage or a URL.
export function secondStep(token) {
  const done = (me) => {
    session.me = me;
    setCsrf(me.csrf_token);
    location.hash = '#/';
  };
  const codeForm = form([{ name: 'code', label: '確認コード(6桁)',
    required: true, autocomplete: 'one-time-code' }],
  '確認', async (v) => done(await api('POST', '/admin/session/two_factor',
    { challenge_token: token, code: v.code })));
  const recForm = form([{ name: 'recovery_code',
    label: 'リカバリーコード', required: true, autocomplete: 'off' }],
  'リカバリーコードでログイン', async (v) => done(await api('POST',
    '/admin/session/two_factor',
    { challenge_token: token, recovery_code: v.recovery_code })));
  clear(root(), h('main', { class: 'center' },
    h('h1', null, '2段階認証'),
    h('p', null, '認証アプリに表示されている6桁の確認コードを入力して' +
      'ください(5分以内)。'),
    h('section', { class: 'card' }, codeForm),
    h('details', null, h('summary', null, '認証アプリを使えない場合'),
      h('section', { class: 'card' }, recForm)),
    h('p', null, h('a', { href: '#/signin' }, 'ログインに戻る'))));
  document.title = '2段階認証 | Formback 管理画面';
}

// The other tenants the member's address may sign in to (the session's
// `tenants`), as the switcher's choices: [id, "name(role)"].
export function tenantChoices(me) {
  return (me.tenants || []).map((t) =>
    [t.id, `${t.name}(${label('member_role', t.role)})`]);
}

// Switching tenant is signing in to it again (POST /admin/session with
// its tenant_id): a dialog asks for that membership's password; on
// success the new session's screens start again at the dashboard; a
// membership with two-factor sign-in asks for its code first.
export function switchTenant() {
  const me = session.me;
  modal('アカウントの切り替え', (close) => [
    h('p', null, '切り替え先のアカウントでのパスワードをもう一度入力して' +
      'ください(アカウントごとにパスワードが異なる場合があります)。'),
    form([{ name: 'tenant_id', label: '切り替え先', type: 'select',
      options: tenantChoices(me) },
    { name: 'password', label: 'パスワード', type: 'password',
      required: true, autocomplete: 'current-password' }], '切り替える',
    async (v) => {
      const next = await api('POST', '/admin/session', {
        email: me.member.email, password: v.password,
        tenant_id: v.tenant_id });
      close();
      if (next.object === 'two_factor_challenge') {
        secondStep(next.challenge_token);
        return;
      }
      session.me = next;
      setCsrf(session.me.csrf_token);
      if (location.hash === '#/') window.dispatchEvent(
        new Event('hashchange'));
      else location.hash = '#/';
    })]);
}

// The header's tenant: its name, and the switch when there are others.
function tenantBox() {
  const name = tenantName();
  const others = (session.me.tenants || []).length > 0;
  if (!name && !others) return null;
  // its name is what it shows, and more for a screen reader (axe's
  // label-content-name-mismatch)
  return h('span', { class: 'tenant' }, name ? h('span', { class: 'name' },
    name) : null, others ? h('button', { type: 'button',
    class: 'secondary switch', 'aria-haspopup': 'dialog',
    onclick: switchTenant }, h('span', { class: 'vh' }, 'アカウントを'),
    '切り替え') : null);
}

// A signed-in screen: the header with the menu, then title and content.
export function shell(title, ...content) {
  const here = location.hash.split('/').slice(0, 2).join('/') || '#/';
  const nav = h('nav', { class: 'menu', id: 'menu', 'aria-label': 'メニュー' },
    menu.map(([href, t]) => h('a', { href,
      'aria-current': current(href, here) ? 'page' : null }, t)));
  // at a phone's width the menu folds behind this button (admin.css)
  const toggle = h('button', { type: 'button', class: 'secondary menu-toggle',
    'aria-expanded': 'false', 'aria-controls': 'menu', onclick: () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      toggle.closest('header').classList.toggle('open', open);
    } }, 'メニュー');
  const out = h('button', { type: 'button', class: 'secondary',
    onclick: signOut }, 'ログアウト');
  const { email, role } = session.me.member;
  const who = `${email}(${label('member_role', role)})`;
  clear(root(),
    h('header', { class: 'top' }, h('span', { class: 'brand' }, 'Formback'),
      tenantBox(),
      toggle, nav, h('span', { class: 'who' }, h('span', { class: 'email' },
        who), ' ', out)),
    h('main', null, h('h1', null, title), content));
  document.title = `${title} | Formback 管理画面`;
}

export async function signOut() {
  try { await api('DELETE', '/admin/session'); } catch { /* gone already */ }
  session.me = null;
  setCsrf(null);
  location.hash = '#/signin';
}
