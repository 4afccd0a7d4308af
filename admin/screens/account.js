// The member's own account: two-factor sign-in (TOTP).  Enrol (the
// secret and its otpauth:// URI shown once, as text), confirm with a
// first code (the recovery codes shown once), new recovery codes,
// disable; an owner's switch requiring it of every member.  A member the
// tenant requires it of, without it, is sent here by the router.
import { api } from '../api.js';
import { h, clear, card, errorBox, notice, form, copyButton,
  confirmButton } from '../ui.js';
import { shell, session } from '../shell.js';
import { label } from '../labels.js';

function codesBox(codes) {
  return h('div', null, h('p', null, 'リカバリーコード(この画面でしか' +
    '表示されません。それぞれ1回だけ使えます。安全な場所に保管して' +
    'ください):'), h('ul', { class: 'secret' },
    codes.map((c) => h('li', null, c))), copyButton(codes.join('\n')));
}

function enrolled(box, t) {
  const shown = h('div');
  clear(box, h('p', null, `状態: ${label('totp_status', t.status)}` +
    `(残りのリカバリーコード ${t.recovery_codes_left} 個)`),
  form([{ name: 'code', label: '確認コード', required: true,
    autocomplete: 'one-time-code' }], 'リカバリーコードを再発行',
  async (v) => {
    const n = await api('POST', '/admin/me/totp/recovery_codes',
      { code: v.code });
    clear(shown, codesBox(n.recovery_codes));
  }), shown,
  form([{ name: 'password', label: 'パスワード', type: 'password',
    required: true, autocomplete: 'current-password' }],
  '2段階認証を無効にする', async (v) => {
    await api('POST', '/admin/me/totp/disable', { password: v.password });
    load(box);
  }));
}

function begin(box) {
  return confirmButton('2段階認証を設定する', '新しい秘密鍵を作ります。' +
    'よろしいですか?', async () => {
    const e = await api('POST', '/admin/me/totp');
    const done = h('div');
    clear(box, h('p', null, '認証アプリ(Google Authenticator など)に、' +
      '次のキーを入力するか、URI を登録してください(この画面でしか' +
      '表示されません):'),
    h('p', { class: 'secret' }, e.secret), copyButton(e.secret),
    h('p', { class: 'secret' }, e.otpauth_uri), copyButton(e.otpauth_uri),
    form([{ name: 'code', label: 'アプリに表示された確認コード',
      required: true, autocomplete: 'one-time-code' }], '有効にする',
    async (v) => {
      const t = await api('POST', '/admin/me/totp/confirm',
        { code: v.code });
      session.me = await api('GET', '/admin/session');
      clear(box, notice('2段階認証を有効にしました。'),
        codesBox(t.recovery_codes), h('p', null,
          h('a', { href: '#/' }, 'ダッシュボードへ')));
    }), done);
  }, { aria: '2段階認証を設定する' });
}

function load(box) {
  api('GET', '/admin/me/totp').then((t) => {
    if (t.status === 'enabled') return enrolled(box, t);
    clear(box, t.required ? h('p', { class: 'notice', role: 'status' },
      'このアカウントでは2段階認証が必須です。設定するまでほかの画面は' +
      '使えません。') : h('p', null, `状態: ${label('totp_status',
      t.status)}`), begin(box));
  }).catch((e) => clear(box, errorBox(e)));
}

function policyCard() {
  const box = h('div');
  const draw = (p) => clear(box, h('p', null, p.required ?
    'メンバー全員に2段階認証を必須にしています。' :
    '2段階認証は任意です。'), h('p', { class: 'muted' },
  `2段階認証のない有効なメンバー: ${p.members_without_two_factor} 人`),
  confirmButton(p.required ? '必須をやめる' : 'メンバー全員に必須にする',
    p.required ? '2段階認証を任意に戻します。よろしいですか?' :
      '2段階認証のないメンバーは、設定するまでほかの画面を使えなく' +
      'なります。よろしいですか?', async () => {
      draw(await api('PUT', '/admin/two_factor_policy',
        { required: !p.required }));
    }));
  api('GET', '/admin/two_factor_policy').then(draw)
    .catch((e) => clear(box, errorBox(e)));
  return card('2段階認証の必須設定', box);
}

export function account() {
  const box = h('div');
  const owner = session.me.member.role === 'owner';
  shell('アカウント', card('2段階認証', box), owner ? policyCard() : null);
  load(box);
}
