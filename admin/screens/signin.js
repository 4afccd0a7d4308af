// The screens before sign-in: signing in, and the two links mailed to a
// member, an invitation's (set a password) and a reset's.
import { api, setCsrf } from '../api.js';
import { h, clear, form } from '../ui.js';
import { root, session, secondStep } from '../shell.js';

// Sign-in; when the address opens several tenants, the server lists them
// (409 tenant_required) and the form asks which one.
export function signIn(tenants, email) {
  const fields = [
    { name: 'email', label: 'メールアドレス', type: 'email', required: true,
      autocomplete: 'username', value: email },
    { name: 'password', label: 'パスワード', type: 'password',
      required: true, autocomplete: 'current-password' },
  ];
  if (tenants)
    fields.push({ name: 'tenant_id', label: 'アカウント', type: 'select',
      options: tenants.map((t) => [t.id, t.name]) });
  const submit = async (v) => {
    try {
      const me = await api('POST', '/admin/session', { email: v.email,
        password: v.password, tenant_id: v.tenant_id || null });
      if (me.object === 'two_factor_challenge') {
        secondStep(me.challenge_token);
        return null;
      }
      session.me = me;
    } catch (e) {
      if (e.code === 'tenant_required' && e.tenants && !tenants) {
        // their names, for the header once signed in (shell tenantName())
        try {
          sessionStorage.setItem('fb-tenants', JSON.stringify(e.tenants
            .map((t) => ({ id: t.id, name: t.name }))));
        } catch { /* no storage: no name in the header */ }
        signIn(e.tenants, v.email);
        return null;
      }
      throw e;
    }
    setCsrf(session.me.csrf_token);
    location.hash = '#/';
  };
  clear(root(), h('main', { class: 'center' },
    h('h1', null, 'Formback にログイン'),
    tenants ? h('p', { class: 'notice', role: 'status' },
      'このアドレスは複数のアカウントにあります。' +
      'アカウントを選び、パスワードをもう一度入力してください。') : null,
    h('section', { class: 'card' }, form(fields, 'ログイン', submit)),
    h('p', null, h('a', { href: '#/reset' }, 'パスワードを忘れた場合'))));
  document.title = 'ログイン | Formback 管理画面';
}

export function reset() {
  const fields = [
    { name: 'email', label: 'メールアドレス', type: 'email', required: true },
  ];
  clear(root(), h('main', { class: 'center' },
    h('h1', null, 'パスワードの再設定'),
    h('section', { class: 'card' }, form(fields, '再設定のリンクを送る',
      async (v) => {
        await api('POST', '/admin/password_resets', { email: v.email });
        return '登録されているアドレスであれば、' +
          '1 時間有効なリンクをお送りしました。';
      })),
    h('p', null, h('a', { href: '#/signin' }, 'ログインに戻る'))));
}

// An invitation's link (#/accept/fbi_...): the member's first password.
export function accept(token) {
  const fields = [
    { name: 'password', label: '新しいパスワード', type: 'password',
      required: true, autocomplete: 'new-password' },
  ];
  clear(root(), h('main', { class: 'center' },
    h('h1', null, 'パスワードの設定'),
    h('section', { class: 'card' }, h('p', { class: 'muted' },
      '12 文字以上で、メールアドレスと異なるものにしてください。'),
    form(fields, '設定する', async (v) => {
      await api('POST', '/admin/invitations/accept',
        { token, password: v.password });
      location.hash = '#/signin';
    }))));
}
