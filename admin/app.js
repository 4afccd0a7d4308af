// The Formback admin UI (issue 17): a single page over the same /api/v1
// operations as the public API, called with the member's session.  The
// route is the URL's fragment (#/campaigns/...), so the web server serves
// one static page and a link's token never reaches a server log.
import { api, setCsrf } from './api.js';
import { h, clear, errorBox, badge, jst, form, pagedTable, copyButton } from './ui.js';

const app = document.getElementById('app');
let me = null;	// the session: {member, tenant_id, csrf_token}

const menu = [
  ['#/', 'ダッシュボード'], ['#/sites', 'サイト'], ['#/campaigns', 'キャンペーン'],
  ['#/messages', 'メッセージ'], ['#/leads', 'リード'], ['#/deliveries', '配信'],
  ['#/suppressions', '配信停止'], ['#/webhooks', 'Webhook'], ['#/settings', '設定'],
];

function shell(title, ...content) {
  const here = location.hash.split('/').slice(0, 2).join('/') || '#/';
  const nav = h('nav', { class: 'menu', 'aria-label': 'メニュー' }, menu.map(([href, t]) =>
    h('a', { href, 'aria-current': (href === '#/' ? here === '#/' || here === '#' :
      here.startsWith(href)) ? 'page' : null }, t)));
  const out = h('button', { type: 'button', class: 'secondary', onclick: signOut }, 'ログアウト');
  clear(app,
    h('header', { class: 'top' }, h('span', { class: 'brand' }, 'Formback'), nav,
      h('span', { class: 'who' }, `${me.member.email}(${me.member.role})`, ' ', out)),
    h('main', null, h('h1', null, title), content));
  document.title = `${title} | Formback 管理画面`;
}

async function signOut() {
  try { await api('DELETE', '/admin/session'); } catch { /* gone already */ }
  me = null;
  setCsrf(null);
  location.hash = '#/signin';
}

// ---- signing in, invitations, resets ----

// Sign-in; when the address opens several tenants, the server lists them
// (409 tenant_required) and the form asks which one.
function signIn(tenants, email) {
  const fields = [
    { name: 'email', label: 'メールアドレス', type: 'email', required: true, autocomplete: 'username',
      value: email },
    { name: 'password', label: 'パスワード', type: 'password', required: true,
      autocomplete: 'current-password' },
  ];
  if (tenants)
    fields.push({ name: 'tenant_id', label: 'アカウント', type: 'select',
      options: tenants.map((t) => [t.id, t.name]) });
  clear(app, h('main', { class: 'center' }, h('h1', null, 'Formback にログイン'),
    tenants ? h('p', { class: 'notice', role: 'status' }, 'このアドレスは複数のアカウントにあります。' +
      'アカウントを選び、パスワードをもう一度入力してください。') : null,
    h('section', { class: 'card' }, form(fields, 'ログイン', async (v) => {
      try {
        me = await api('POST', '/admin/session', { email: v.email, password: v.password,
          tenant_id: v.tenant_id || null });
      } catch (e) {
        if (e.code === 'tenant_required' && e.tenants && !tenants) {
          signIn(e.tenants, v.email);
          return null;
        }
        throw e;
      }
      setCsrf(me.csrf_token);
      location.hash = '#/';
    })), h('p', null, h('a', { href: '#/reset' }, 'パスワードを忘れた場合'))));
  document.title = 'ログイン | Formback 管理画面';
}

function reset() {
  clear(app, h('main', { class: 'center' }, h('h1', null, 'パスワードの再設定'),
    h('section', { class: 'card' }, form([
      { name: 'email', label: 'メールアドレス', type: 'email', required: true },
    ], '再設定のリンクを送る', async (v) => {
      await api('POST', '/admin/password_resets', { email: v.email });
      return '登録されているアドレスであれば、1 時間有効なリンクをお送りしました。';
    })), h('p', null, h('a', { href: '#/signin' }, 'ログインに戻る'))));
}

function accept(token) {
  clear(app, h('main', { class: 'center' }, h('h1', null, 'パスワードの設定'),
    h('section', { class: 'card' }, h('p', { class: 'muted' },
      '12 文字以上で、メールアドレスと異なるものにしてください。'), form([
      { name: 'password', label: '新しいパスワード', type: 'password', required: true,
        autocomplete: 'new-password' },
    ], '設定する', async (v) => {
      await api('POST', '/admin/invitations/accept', { token, password: v.password });
      location.hash = '#/signin';
    }))));
}

// ---- dashboard ----

function isoDaysAgo(n) {
  const d = new Date(Date.now() - n * 86400e3);
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

async function dashboard() {
  const sw = h('div'), fun = h('div'), daily = h('div');
  shell('ダッシュボード', h('section', { class: 'card' }, h('h2', null, '配信の状態'), sw),
    h('section', { class: 'card' }, h('h2', null, 'ファネル'), fun),
    h('section', { class: 'card' }, h('h2', null, '日別(直近 30 日、日本時間)'), daily));
  try {
    const [s, u] = await Promise.all([api('GET', '/delivery_status'), api('GET', '/admin/usage')]);
    const meter = h('meter', { min: 0, max: u.quota, value: u.sends, 'aria-label': '今月の送信数' });
    clear(sw, h('p', null, '現在: ', badge(s.mode)),
      h('p', null, `今月(${u.month})の送信 ${u.sends} / ${u.quota} 通(${u.plan} プラン) `, meter), me.member.role === 'owner' ||
      me.member.role === 'admin' ? form([{ name: 'mode', label: '送信', type: 'select',
        value: s.mode, options: [['off', '停止'], ['test_only', 'テスト送信先のみ'],
          ['live', '本番']] }], '変更', async (v) => {
        const n = await api('PUT', '/admin/delivery_status', { mode: v.mode });
        return `送信は「${n.mode}」になりました。`;
      }, 'inline') : null);
  } catch (e) { clear(sw, errorBox(e)); }
  try {
    const jstDay = (n) => new Date(Date.now() + 9 * 3600e3 - n * 86400e3).toISOString().slice(0, 10);
    const r = await api('GET', '/reports/daily', undefined, { from: jstDay(30), to: jstDay(-1) });
    const max = Math.max(1, ...r.days.map((d) => d.counts.capture.captured || 0));
    clear(daily, h('div', { class: 'bars' }, r.days.map((d) => {
      const fill = h('div', { class: 'fill' });
      fill.style.width = `${Math.round(((d.counts.capture.captured || 0) / max) * 100)}%`;
      return h('div', { class: 'bar' }, h('span', null, d.date.slice(5)), fill,
        h('span', null, d.computed ? String(d.counts.capture.captured ?? 0) : '集計前'));
    })), h('p', { class: 'muted' }, '取得したリードの数。集計は formback-aggregate が行います。'));
  } catch (e) { clear(daily, errorBox(e)); }
  for (const days of [7, 30]) {
    try {
      const r = await api('GET', '/reports/funnel', undefined,
        { from: isoDaysAgo(days), to: isoDaysAgo(0) });
      const max = Math.max(1, ...r.faces.map((f) => f.value));
      fun.append(h('h3', null, `直近 ${days} 日`), h('div', { class: 'bars' },
        r.faces.map((f) => {
          const fill = h('div', { class: 'fill' });
          fill.style.width = `${Math.round((f.value / max) * 100)}%`;
          return h('div', { class: 'bar' }, h('span', null, f.label), fill,
            h('span', null, String(f.value)));
        })));
    } catch (e) { fun.append(errorBox(e)); }
  }
}

// ---- sites ----

async function sites() {
  const list = h('div');
  const admin = ['owner', 'admin'].includes(me.member.role);
  shell('サイト', h('section', { class: 'card' }, list),
    admin ? h('section', { class: 'card' }, h('h2', null, 'サイトを追加'), form([
      { name: 'name', label: 'サイト名', required: true },
      { name: 'domain', label: 'ドメイン', required: true, placeholder: 'shop.example.jp' },
    ], '追加', async (v) => {
      await api('POST', '/admin/sites', { name: v.name, domain: v.domain });
      sites();
    })) : null,
    admin ? await consentCard() : null);
  list.append(pagedTable((c) => api('GET', '/sites', undefined, { cursor: c }), [
    ['サイト', (s) => h('a', { href: `#/sites/${s.id}` }, s.name)],
    ['ドメイン', (s) => s.domain], ['公開キー', (s) => s.public_key],
    ['作成', (s) => jst(s.created_at)],
  ]));
}

async function consentCard() {
  const box = h('section', { class: 'card' }, h('h2', null, '同意の設定'));
  try {
    const c = await api('GET', '/consent_settings');
    box.append(form([
      { name: 'consent_mode', label: '同意の方式', type: 'select', value: c.consent_mode,
        options: [['none', 'なし'], ['notice_optout', '通知と配信停止'], ['explicit', '明示の同意']] },
      { name: 'consent_checkbox_enabled', label: '同意のチェックボックス', type: 'select',
        value: String(c.consent_checkbox_enabled), options: [['true', '表示する'], ['false', '表示しない']] },
      { name: 'title', label: '配信停止ページの見出し', value: c.optout_text.title },
    ], '保存', async (v) => {
      const n = await api('PATCH', '/admin/consent_settings', {
        consent_mode: v.consent_mode, consent_checkbox_enabled: v.consent_checkbox_enabled === 'true',
        optout_text: { title: v.title } });
      return n.publish_failed.length ? 'タグ設定の公開に失敗したサイトがあります。' : '保存しました。';
    }));
  } catch (e) { box.append(errorBox(e)); }
  return box;
}

async function site(id) {
  const box = h('div');
  shell('サイト', box);
  try {
    const s = await api('GET', `/sites/${id}`);
    const n = await api('GET', `/sites/${id}`, undefined, { nonce: 'true' });
    clear(box, h('section', { class: 'card' }, h('h2', null, s.name),
      h('p', { class: 'muted' }, s.domain),
      s.snippets.length ? null : h('p', null, 'キャンペーンを作るとタグが表示されます。'),
      s.snippets.map((sn, i) => h('div', null, h('h3', null, sn.campaign_name),
        h('pre', { class: 'code' }, sn.html), copyButton(sn.html, 'タグをコピー'), ' ',
        copyButton(n.snippets[i].html, 'nonce 付きでコピー')))),
      h('section', { class: 'card' }, h('h2', null, 'プライバシーポリシーの確認'),
        pagedTable((c) => api('GET', `/sites/${id}/pp-checks`, undefined, { cursor: c }), [
          ['日時', (p) => jst(p.checked_at || p.created_at)], ['結果', (p) => badge(p.status)],
          ['URL', (p) => p.url],
        ])));
  } catch (e) { clear(box, errorBox(e)); }
}

// ---- campaigns ----

function campaigns() {
  const list = h('div');
  const filter = h('select', { onchange: () => load() },
    [['', 'すべて'], ['active', '有効'], ['paused', '一時停止'], ['archived', 'アーカイブ']]
      .map(([v, t]) => h('option', { value: v }, t)));
  const siteFilter = h('select', { onchange: () => load() }, h('option', { value: '' }, 'すべて'));
  function load() {
    clear(list, pagedTable((c) => api('GET', '/campaigns', undefined,
      { cursor: c, status: filter.value, site_id: siteFilter.value }), [
      ['名前', (x) => h('a', { href: `#/campaigns/${x.id}` }, x.name)],
      ['キー', (x) => x.key], ['状態', (x) => badge(x.status)],
      ['シナリオ', (x) => `${x.active_scenario_count}/${x.scenario_count}`],
      ['更新', (x) => jst(x.updated_at)],
    ]));
  }
  const create = h('div');
  shell('キャンペーン', h('section', { class: 'card' }, h('div', { class: 'row' },
    h('label', null, '状態', filter), h('label', null, 'サイト', siteFilter)), list),
    h('section', { class: 'card' }, h('h2', null, 'キャンペーンを作成'), create));
  load();
  api('GET', '/sites', undefined, { limit: 200 }).then((s) => {
    siteFilter.append(...s.data.map((x) => h('option', { value: x.id }, x.name)));
    return s;
  }).then((s) => create.append(form([
    { name: 'site_id', label: 'サイト', type: 'select', options: s.data.map((x) => [x.id, x.name]) },
    { name: 'key', label: 'キー(英数字)', required: true },
    { name: 'name', label: '名前', required: true },
  ], '作成', async (v) => {
    const c = await api('POST', '/campaigns', { site_id: v.site_id, key: v.key,
      name: v.name, status: 'paused' });
    location.hash = `#/campaigns/${c.id}`;
  }))).catch((e) => create.append(errorBox(e)));
}

function rulesText(rules) {
  return rules.map((r) => `${r.role} ${r.match_type} ${r.pattern}`).join('\n');
}

async function campaign(id) {
  const box = h('div');
  shell('キャンペーン', box);
  let c;
  try { c = await api('GET', `/campaigns/${id}`); } catch (e) { return clear(box, errorBox(e)); }
  const status = h('div');
  const setStatus = (s) => async () => {
    clear(status);
    try {
      c = await api('PATCH', `/campaigns/${id}`, { status: s });
      clear(status, h('p', { class: 'notice', role: 'status' }, `状態: ${c.status}`));
      head.replaceWith(head = header());
    } catch (e) { clear(status, errorBox(e)); }
  };
  const header = () => h('section', { class: 'card' }, h('h2', null, c.name, ' ', badge(c.status)),
    h('p', { class: 'muted' }, `キー ${c.key}`),
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: setStatus('active') }, '有効にする'),
      h('button', { type: 'button', class: 'secondary', onclick: setStatus('paused') }, '一時停止'),
      h('button', { type: 'button', class: 'secondary', onclick: setStatus('archived') }, 'アーカイブ'),
      h('button', { type: 'button', class: 'secondary', onclick: async () => {
        try {
          const d = await api('POST', `/campaigns/${id}/duplicate`, {});
          location.hash = `#/campaigns/${d.id}`;
        } catch (e) { clear(status, errorBox(e)); }
      } }, '複製')), status);
  let head = header();
  const warn = h('div');
  const rules = form([{ name: 'rules', label: 'URL ルール(1 行に「役割 種類 パターン」: 役割は landing/form/thanks、種類は prefix/glob/regex/query/host)',
    type: 'textarea', value: rulesText(c.url_rules || []) }], 'ルールを保存', async (v) => {
    const list = v.rules.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
      const [role, match_type, ...p] = l.split(/\s+/);
      return { role, match_type, pattern: p.join(' ') };
    });
    const r = await api('PUT', `/campaigns/${id}/url-rules`, { rules: list });
    clear(warn, (r.warnings || []).map((w) => h('p', { class: 'error' },
      `「${w.lost_campaign.name}」のページ ${w.page_count} 件がこのキャンペーンに移ります。`)));
    return 'ルールを保存しました。';
  });
  const test = form([{ name: 'url', label: 'URL をテスト', type: 'url', required: true,
    placeholder: 'https://shop.example.jp/form' }], 'テスト', async (v, out) => {
    const r = await api('POST', `/sites/${c.site_id}/url-rules/test`, { url: v.url });
    clear(out, h('p', { class: 'notice' }, r.assigned ?
      `キャンペーン ${r.campaign} の ${r.role} ページです。` : 'どのキャンペーンにも当たりません。'));
  }, 'inline');
  const scen = h('div');
  const edit = form([
    { name: 'name', label: '名前', value: c.name, required: true },
    { name: 'product_name', label: '商品名({{product_name}})', value: c.product_name || '' },
    { name: 'abandon_wait_minutes', label: '離脱と判定するまでの分数', type: 'number',
      value: c.abandon_wait_minutes },
  ], '保存', async (v) => {
    c = await api('PATCH', `/campaigns/${id}`, { name: v.name, product_name: v.product_name || null,
      abandon_wait_minutes: Number(v.abandon_wait_minutes) });
    head.replaceWith(head = header());
    return '保存しました。';
  });
  const fp = c.form_profile || {};
  const lines = (a) => (a || []).join('\n');
  const profile = form([
    { name: 'tel', label: '電話番号の欄(CSS セレクタ、1 行に 1 つ)', type: 'textarea', value: lines(fp.tel_selectors) },
    { name: 'split', label: '分割された電話番号の欄(順に)', type: 'textarea', value: lines(fp.tel_split_selectors) },
    { name: 'email', label: 'メールアドレスの欄', type: 'textarea', value: lines(fp.email_selectors) },
    { name: 'consent', label: '同意のチェックボックス', value: fp.consent_selector || '' },
  ], 'フォームの設定を保存', async (v) => {
    const arr = (t) => t.split('\n').map((x) => x.trim()).filter(Boolean);
    await api('PUT', `/campaigns/${id}/form-profile`, { tel_selectors: arr(v.tel),
      tel_split_selectors: arr(v.split).length ? arr(v.split) : null,
      email_selectors: arr(v.email), consent_selector: v.consent.trim() || null });
    return '保存しました(空欄は自動検出に戻ります)。';
  });
  clear(box, head, h('section', { class: 'card' }, h('h2', null, '設定'), edit),
    h('section', { class: 'card' }, h('h2', null, 'フォーム'), profile),
    h('section', { class: 'card' }, h('h2', null, 'URL ルール'), rules, warn,
    h('h3', null, '一致テスト(公開中の設定で判定)'), test),
    h('section', { class: 'card' }, h('h2', null, 'シナリオ'), scen));
  scenarios(c, scen);
}

async function scenarios(c, box) {
  try {
    const [list, presets] = await Promise.all([
      api('GET', `/campaigns/${c.id}/scenarios`), api('GET', '/scenario_presets')]);
    const out = h('div');
    const act = (s, st) => async () => {
      clear(out);
      try { await api('PATCH', `/scenarios/${s.id}`, { status: st }); scenarios(c, box); }
      catch (e) { clear(out, errorBox(e)); }
    };
    clear(box, h('table', null, h('thead', null, h('tr', null, ['名前', '状態', 'ステップ', ''].map(
      (t) => h('th', null, t)))), h('tbody', null, list.data.map((s) => h('tr', null,
      h('td', null, h('a', { href: `#/scenarios/${s.id}` }, s.name)), h('td', null, badge(s.status)), h('td', null,
        s.steps.map((st) => h('div', null, `${st.delay_minutes ?? ''} 分後 ${st.channel ?? ''}`))),
      h('td', null, h('button', { type: 'button', onclick: act(s, 'active') }, '有効にする'), ' ',
        h('button', { type: 'button', class: 'secondary', onclick: act(s, 'paused') }, '一時停止')))))),
      out, h('h3', null, 'プリセットから作成'), form([{ name: 'preset_key', label: 'プリセット',
        type: 'select', options: presets.data.filter((p) => p.available).map((p) => [p.key, p.name]) }],
      '作成', async (v) => {
        await api('POST', `/campaigns/${c.id}/scenarios/from_preset`, { preset_key: v.preset_key });
        scenarios(c, box);
      }, 'inline'));
  } catch (e) { clear(box, errorBox(e)); }
}

// A scenario's steps: order, delays, message; saved all at once (422 names
// the first wrong one).
async function scenario(id) {
  const box = h('div');
  shell('シナリオ', box);
  try {
    const [s, msgs] = await Promise.all([api('GET', `/scenarios/${id}`),
      api('GET', '/messages', undefined, { limit: 200 })]);
    const rows = h('tbody');
    const label = (m) => `${m.channel === 'sms' ? 'SMS' : 'メール'}: ${(m.subject || m.body || '').slice(0, 40)}`;
    const addRow = (st) => {
      const delay = h('input', { type: 'number', min: 0, value: st ? st.delay_minutes : 30 });
      const msg = h('select', null, msgs.data.map((m) => h('option', { value: m.id,
        selected: st && st.message_id === m.id }, label(m))));
      const tr = h('tr', null, h('td', null, msg), h('td', null, delay),
        h('td', null, h('button', { type: 'button', class: 'secondary', onclick: () => {
          if (tr.previousElementSibling) tr.previousElementSibling.before(tr); } }, '上へ'), ' ',
        h('button', { type: 'button', class: 'danger', onclick: () => tr.remove() }, '削除')));
      tr.read = () => ({ message_id: msg.value, delay_minutes: Number(delay.value) });
      rows.append(tr);
    };
    s.steps.forEach(addRow);
    const out = h('div');
    clear(box, h('section', { class: 'card' }, h('h2', null, s.name, ' ', badge(s.status)),
      h('table', null, h('thead', null, h('tr', null, ['メッセージ', '遅延(分)', ''].map((t) => h('th', null, t)))), rows),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'secondary', onclick: () => addRow(null) }, 'ステップを追加'),
        h('button', { type: 'button', onclick: async (ev) => {
          ev.target.disabled = true;
          clear(out);
          try {
            await api('PUT', `/scenarios/${id}/steps`, { steps: [...rows.children].map((tr) => tr.read()) });
            clear(out, h('p', { class: 'notice' }, 'ステップを保存しました。'));
          } catch (e) { clear(out, errorBox(e)); } finally { ev.target.disabled = false; }
        } }, '保存'),
        h('button', { type: 'button', class: 'secondary', onclick: async () => {
          clear(out);
          try {
            const d = await api('POST', `/scenarios/${id}/duplicate`, {});
            location.hash = `#/scenarios/${d.id}`;
          } catch (e) { clear(out, errorBox(e)); }
        } }, '複製'),
        h('a', { href: `#/campaigns/${s.campaign_id}` }, 'キャンペーンに戻る')), out));
  } catch (e) { clear(box, errorBox(e)); }
}

// ---- messages ----

function messages() {
  const est = h('p', { class: 'muted' });
  const preview = h('div');
  let timer;
  const editor = form([
    { name: 'channel', label: 'チャネル', type: 'select', options: [['sms', 'SMS'], ['email', 'メール']] },
    { name: 'subject', label: '件名(メール)' },
    { name: 'body', label: '本文({{product_name}} {{link_url}} {{optout_url}} が使えます)', type: 'textarea' },
  ], '保存', async (v) => {
    const body = v.channel === 'sms' ? { channel: 'sms', body: v.body } :
      { channel: 'email', subject: v.subject, blocks: [{ type: 'text', text: v.body },
        { type: 'button', text: '続きはこちら', url: '{{link_url}}' }] };
    const m = editing ? await api('PATCH', `/messages/${editing}`, body) :
      await api('POST', '/messages', body);
    editing = m.id;
    showPreview(m);
    loadList();
    return '保存しました。';
  });
  let editing = null;
  const list = h('div');
  function loadList() {
    clear(list, pagedTable((c) => api('GET', '/messages', undefined, { cursor: c }), [
      ['チャネル', (m) => m.channel], ['件名・本文', (m) => h('a', { href: '#/messages',
        onclick: (ev) => { ev.preventDefault(); edit(m); } }, m.subject || m.body || '(無題)')],
      ['更新', (m) => jst(m.updated_at)],
    ]));
  }
  // open a saved message in the editor
  function edit(m) {
    editing = m.id;
    editor.elements.channel.value = m.channel;
    editor.elements.subject.value = m.subject || '';
    editor.elements.body.value = m.body || (m.blocks || []).filter((b) => b.type === 'text')
      .map((b) => b.text).join('\n');
    editor.elements.body.dispatchEvent(new Event('input'));
    showPreview(m);
  }
  editor.querySelector('textarea').addEventListener('input', (ev) => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      try {
        const r = await api('POST', '/messages/estimate', { body: ev.target.value });
        est.textContent = `${r.characters} 文字 / ${r.segments} 通分(最大 ${r.max_characters} 文字)`;
      } catch (e) { est.textContent = e.message; }
    }, 250);
  });
  function showPreview(m) {
    const out = h('div');
    clear(preview, h('h3', null, 'プレビューとテスト送信'),
      m.channel === 'email' ? h('iframe', { class: 'preview', sandbox: '', title: 'メールのプレビュー',
        src: `/api/v1/admin/messages/${m.id}/preview` }) : h('pre', { class: 'code' }, m.body),
      h('button', { type: 'button', onclick: async () => {
        clear(out);
        try {
          const r = await api('POST', '/test_sends', { message_id: m.id });
          clear(out, h('p', { class: 'notice' }, `${r.data.length} 件のテスト送信を受け付けました。`));
        } catch (e) { clear(out, errorBox(e)); }
      } }, 'テスト送信'), out);
  }
  // the variables a message may use, with a campaign's values
  const vars = h('div');
  const camp = h('select', { 'aria-label': '変数の値を見るキャンペーン', onchange: async () => {
    if (!camp.value) return clear(vars);
    try {
      const r = await api('GET', '/message_variables', undefined, { campaign_id: camp.value });
      clear(vars, h('table', null, h('tbody', null, r.data.map((x) => h('tr', null,
        h('td', null, `{{${x.key}}}`), h('td', null, x.label), h('td', null, x.example ?? '—'))))));
    } catch (e) { clear(vars, errorBox(e)); }
  } }, h('option', { value: '' }, 'キャンペーンを選ぶ'));
  api('GET', '/campaigns', undefined, { limit: 200 }).then((r) =>
    camp.append(...r.data.map((c) => h('option', { value: c.id }, c.name)))).catch(() => {});
  const examples = h('div');
  api('GET', '/message_examples').then((r) => clear(examples, h('h3', null, '文例'),
    r.data.map((x) => h('div', { class: 'row' }, h('span', null, `${x.label}(${x.channel})`),
      h('button', { type: 'button', class: 'secondary', onclick: () => {
        editor.elements.channel.value = x.channel;
        editor.elements.subject.value = x.subject || '';
        editor.elements.body.value = x.body || (x.blocks || []).map((b) => b.text || '').filter(Boolean).join('\n');
        editor.elements.body.dispatchEvent(new Event('input'));
      } }, '使う'))))).catch((e) => clear(examples, errorBox(e)));
  const fresh = h('button', { type: 'button', class: 'secondary', onclick: () => {
    editing = null;
    editor.reset();
    clear(preview);
  } }, '新しく作る');
  shell('メッセージ', h('section', { class: 'card' }, h('h2', null, 'メッセージの編集'), fresh, editor,
    est, h('h3', null, '変数'), camp, vars, examples, preview), h('section', { class: 'card' }, list));
  loadList();
}

// ---- leads, deliveries, suppressions ----

function leads() {
  const filter = h('select', null, [['', 'すべて'], ['captured', '取得'], ['abandoned', '離脱'],
    ['sent', '送信済み'], ['converted', '転換']].map(([v, t]) => h('option', { value: v }, t)));
  const list = h('div');
  const load = () => clear(list, pagedTable((c) => api('GET', '/leads', undefined,
    { cursor: c, status: filter.value }), [
    ['状態', (l) => h('a', { href: `#/leads/${l.id}` }, badge(l.status))],
    ['キャンペーン', (l) => l.campaign ? l.campaign.name : '—'],
    ['メール', (l) => l.email_masked || '—'], ['電話', (l) => l.tel_masked || '—'],
    ['作成', (l) => jst(l.created_at)],
  ]));
  filter.addEventListener('change', load);
  shell('リード', h('section', { class: 'card' }, h('label', null, '状態', filter), list));
  load();
}

async function lead(id) {
  const box = h('div');
  shell('リード', box);
  try {
    const l = await api('GET', `/leads/${id}`);
    clear(box, h('section', { class: 'card' }, h('h2', null, badge(l.status), ' ',
      l.campaign ? l.campaign.name : ''),
      h('table', null, h('tbody', null, [['メール', l.email_masked], ['電話', l.tel_masked],
        ['ランディングページ', l.landing_url], ['参照元', l.referrer], ['作成', jst(l.created_at)],
        ['取得', jst(l.captured_at)], ['離脱', jst(l.abandoned_at)], ['転換', jst(l.converted_at)]]
        .map(([k, v]) => h('tr', null, h('th', { scope: 'row' }, k), h('td', null, v || '—')))))),
    h('section', { class: 'card' }, h('h2', null, '経過'), h('table', null, h('tbody', null,
      (l.timeline || []).map((t) => h('tr', null, h('td', null, jst(t.at)),
        h('td', null, t.type || ''), h('td', null, t.role || ''), h('td', null, t.path || '')))))));
  } catch (e) { clear(box, errorBox(e)); }
}

function deliveries() {
  const filter = h('select', null, [['', 'すべて'], ['scheduled', '予定'], ['sent', '送信済み'],
    ['delivered', '到達'], ['failed', '失敗'], ['cancelled', '取り消し'], ['suppressed', '配信停止']]
    .map(([v, t]) => h('option', { value: v }, t)));
  const list = h('div');
  const load = () => clear(list, pagedTable((c) =>
    api('GET', '/deliveries', undefined, { cursor: c, status: filter.value }), [
    ['状態', (d) => badge(d.status)], ['チャネル', (d) => d.channel], ['宛先', (d) => d.to_masked],
    ['キャンペーン', (d) => d.campaign ? d.campaign.name : '—'],
    ['リード', (d) => h('a', { href: `#/leads/${d.lead_id}` }, '表示')],
    ['予定', (d) => jst(d.scheduled_at)], ['送信', (d) => jst(d.sent_at)],
    ['理由', (d) => d.cancel_reason || d.error_code || ''],
  ]));
  filter.addEventListener('change', load);
  shell('配信', h('section', { class: 'card' }, h('label', null, '状態', filter), list));
  load();
}

function suppressions() {
  const list = h('div');
  const q = h('input', { type: 'search', placeholder: '電話番号またはメールアドレスで検索' });
  const load = () => clear(list, h('form', { class: 'inline', onsubmit: (ev) => { ev.preventDefault(); load(); } },
    h('label', null, '検索', q), h('button', { type: 'submit', class: 'secondary' }, '検索')),
  pagedTable((c) => api('GET', '/suppressions', undefined, { cursor: c, q: q.value.trim() }), [
    ['宛先', (s) => s.value_masked], ['理由', (s) => s.reason], ['範囲', (s) => s.scope],
    ['作成', (s) => jst(s.created_at)],
    ['', (s) => s.deletable ? h('button', { type: 'button', class: 'danger', onclick: async (ev) => {
      try { await api('DELETE', `/suppressions/${s.id}`); load(); }
      catch (e) { ev.target.replaceWith(errorBox(e)); } } }, '削除') : ''],
  ]));
  const results = h('div');
  shell('配信停止', h('section', { class: 'card' }, list),
    h('section', { class: 'card' }, h('h2', null, '追加'), form([
      { name: 'value', label: '電話番号またはメールアドレス', required: true },
      { name: 'memo', label: 'メモ' },
    ], '追加', async (v) => {
      await api('POST', '/suppressions', { value: v.value, memo: v.memo || null });
      load();
      return '追加しました。';
    })),
    h('section', { class: 'card' }, h('h2', null, 'CSV から取り込む'),
      h('p', { class: 'muted' }, '1 列目に電話番号かメールアドレス、2 列目にメモ、3 列目に期限。UTF-8 または Shift_JIS、1 回 10,000 行まで。'),
      form([{ name: 'file', label: 'CSV ファイル', type: 'file', accept: '.csv,text/csv', required: true }],
        '取り込む', async (v) => {
          const r = await api('POST', '/admin/suppressions/import', await v.file.arrayBuffer());
          clear(results, h('p', { class: 'notice' },
            `登録 ${r.created} 件、登録済み ${r.exists} 件、不正 ${r.invalid} 件(${r.encoding})`),
          h('table', null, h('thead', null, h('tr', null, ['行', '結果', '宛先・項目'].map((t) => h('th', null, t)))),
            h('tbody', null, r.results.slice(0, 500).map((x) => h('tr', null, h('td', null, String(x.record)),
              h('td', null, badge(x.result)), h('td', null, x.masked || x.param || ''))))));
          load();
        }), results));
  load();
}

// ---- webhooks ----

// Why an endpoint does not send now, in words (formback-webhooks(8)).
function hookState(w) {
  if (w.status === 'disabled')
    return `停止中: ${w.disabled_reason === 'gone' ? '受信側が 410 Gone を返しました'
      : '72 時間以上失敗が続きました'}(${jst(w.disabled_at)})`;
  if (w.paused_until) return `応答がないため ${jst(w.paused_until)} まで一時停止中`;
  if (w.failing_since) return `${jst(w.failing_since)} から失敗 ${w.consecutive_failures} 回`;
  return '';
}

function webhooks() {
  const list = h('div'), secret = h('div'), note = h('div');
  // an action of a row: its outcome (or error) in the note above the list
  const act = (label, cls, run) => h('button', { type: 'button', class: cls, onclick: async (ev) => {
    ev.target.disabled = true;
    try { clear(note, h('p', { class: 'notice' }, await run())); load(); }
    catch (e) { clear(note, errorBox(e)); ev.target.disabled = false; }
  } }, label);
  // enable, then queue again what ended "endpoint stopped" (10,000 a call)
  const resume = async (w) => {
    await api('POST', `/webhook_endpoints/${w.id}/enable`);
    let n = 0, r;
    do { r = await api('POST', `/webhook_endpoints/${w.id}/recover`); n += r.queued; }
    while (r.has_more);
    return `再開しました。停止中のイベント ${n} 件を再送します。`;
  };
  const load = () => clear(list, pagedTable((c) => api('GET', '/webhook_endpoints', undefined,
    { cursor: c }), [
    ['URL', (w) => w.url], ['状態', (w) => h('span', null, badge(w.status), ' ', hookState(w))],
    ['イベント', (w) => w.events.join(', ')],
    ['', (w) => h('span', { class: 'row' },
      h('button', { type: 'button', class: 'secondary', onclick: () => log(w) }, '配信履歴'),
      w.status === 'disabled' ? act('再開', '', () => resume(w))
        : act('テスト送信', 'secondary', async () => {
          const d = await api('POST', `/webhook_endpoints/${w.id}/test`);
          return `テストイベント(${d.event_type})を送信待ちにしました。1 分以内に送信されます。`;
        }),
      h('button', { type: 'button', class: 'danger', onclick: async () => {
        await api('DELETE', `/webhook_endpoints/${w.id}`); load(); } }, '削除'))],
  ]));
  const history = h('div');
  const log = (w) => clear(history, h('h2', null, `配信履歴: ${w.url}`), pagedTable((c) =>
    api('GET', `/webhook_endpoints/${w.id}/deliveries`, undefined, { cursor: c }), [
    ['イベント', (d) => d.event_type], ['状態', (d) => badge(d.status)], ['試行', (d) => String(d.attempts)],
    ['応答', (d) => d.response_status ?? d.error ?? '—'], ['作成', (d) => jst(d.created_at)],
    ['', (d) => h('button', { type: 'button', class: 'secondary', onclick: async (ev) => {
      try { await api('POST', `/webhook_deliveries/${d.id}/redeliver`); log(w); }
      catch (e) { ev.target.replaceWith(errorBox(e)); } } }, '再送')],
  ]));
  shell('Webhook', h('section', { class: 'card' }, note, list), h('section', { class: 'card' }, history),
    h('section', { class: 'card' }, h('h2', null, 'エンドポイントを追加'), form([
      { name: 'url', label: 'URL(https)', type: 'url', required: true },
    ], '追加', async (v) => {
      const w = await api('POST', '/webhook_endpoints', { url: v.url, events: ['lead.captured',
        'lead.abandoned', 'delivery.sent', 'delivery.failed', 'conversion.detected',
        'usage.threshold_reached'] });
      clear(secret, h('p', null, '署名の秘密鍵(この画面でしか表示されません):'),
        h('p', { class: 'secret' }, w.secret), copyButton(w.secret));
      load();
    }), secret));
  load();
}

// ---- settings ----

// A flood's leads held per source and hour (issue 40): nothing is sent to
// them until released; discarding asks once more before it acts.
const floodKinds = { address: '送信元アドレス', network: '送信元ネットワーク',
  visitor: '訪問者', site: 'サイト全体(通常の件数を超えた分)' };

function quarantines(box) {
  const list = h('div');
  const status = h('select', { 'aria-label': '表示する保留', onchange: () => load() },
    [['quarantined', '保留中'], ['', 'すべて']].map(([v, t]) => h('option', { value: v }, t)));
  const decide = (q, how) => async (ev) => {
    const cell = ev.target.closest('td');
    try {
      await api('POST', `/admin/quarantines/${q.id}/${how}`);
      load();
    } catch (e) { clear(cell, errorBox(e)); }
  };
  const actions = (q) => {
    if (q.status !== 'quarantined') return jst(q.decided_at);
    const cell = h('span', null);
    const ask = () => clear(cell, `${q.leads} 件のリードを破棄し、送信しません。よろしいですか?`, ' ',
      h('button', { type: 'button', class: 'danger', onclick: decide(q, 'discard') }, '破棄する'), ' ',
      h('button', { type: 'button', class: 'secondary', onclick: () => clear(cell, ...buttons()) }, 'やめる'));
    const buttons = () => [h('button', { type: 'button', onclick: decide(q, 'release') }, '送信を再開'), ' ',
      h('button', { type: 'button', class: 'danger', onclick: ask }, '破棄')];
    return clear(cell, ...buttons());
  };
  const load = () => clear(list, pagedTable((c) => api('GET', '/admin/quarantines', undefined,
    { cursor: c, status: status.value }), [
    ['時間帯', (q) => jst(q.hour)], ['サイト', (q) => q.domain || q.site_id],
    ['送信元', (q) => q.source ? `${floodKinds[q.kind] || q.kind}: ${q.source}` : floodKinds[q.kind] || q.kind],
    ['上限', (q) => q.threshold], ['リード', (q) => q.leads], ['状態', (q) => badge(q.status)],
    ['', actions],
  ]));
  clear(box, h('p', { class: 'muted' }, '1 つの送信元から上限を超えて届いたリードと、' +
    'サイトの通常の件数を超えた分のリードです。送信を再開するまで SMS・メールは送りません。' +
    'サイトのほかのリードへの送信は続いています。'), h('label', null, '表示 ', status), list);
  load();
}

function settings() {
  const keys = h('div'), members = h('div'), rcpts = h('div'), audit = h('div'), shown = h('div');
  const held = h('div');
  const admin = ['owner', 'admin'].includes(me.member.role);
  shell('設定',
    admin ? h('section', { class: 'card' }, h('h2', null, '保留中のリード'), held) : null,
    admin ? h('section', { class: 'card' }, h('h2', null, 'API キー'), keys,
      form([{ name: 'name', label: '名前' }, { name: 'kind', label: '種類', type: 'select',
        options: [['live', '本番'], ['test', 'テスト']] }], '発行(すべてのスコープ)', async (v) => {
        const k = await api('POST', '/admin/api_keys', { name: v.name || null, kind: v.kind, scopes: 'all' });
        clear(shown, h('p', null, 'API キー(この画面でしか表示されません):'),
          h('p', { class: 'secret' }, k.key), copyButton(k.key));
        loadKeys();
      }), shown) : null,
    admin ? h('section', { class: 'card' }, h('h2', null, 'メンバー'), members,
      me.member.role === 'owner' ? form([{ name: 'email', label: 'メールアドレス', type: 'email', required: true },
        { name: 'role', label: '権限', type: 'select', value: 'member', options: [['owner', 'オーナー'],
          ['admin', '管理者'], ['member', 'メンバー'], ['viewer', '閲覧のみ']] }], '招待', async (v) => {
        await api('POST', '/admin/members', v);
        loadMembers();
        return '招待メールを送ります。';
      }) : null) : null,
    admin ? h('section', { class: 'card' }, h('h2', null, 'テスト送信先'), rcpts,
      form([{ name: 'contact', label: '電話番号またはメールアドレス', required: true }], '追加', async (v) => {
        await api('POST', '/admin/test_recipients', v);
        loadRcpts();
        return '確認コードを送ります。届いたコードを入力してください。';
      })) : null,
    admin ? h('section', { class: 'card' }, h('h2', null, '監査ログ'), audit) : null);
  const loadKeys = () => clear(keys, pagedTable((c) => api('GET', '/admin/api_keys', undefined, { cursor: c }), [
    ['名前', (k) => k.name || '—'], ['プレフィックス', (k) => k.prefix], ['状態', (k) => badge(k.status)],
    ['最終利用', (k) => jst(k.last_used_at)],
    ['', (k) => k.status === 'active' ? h('button', { type: 'button', class: 'danger', onclick: async () => {
      await api('DELETE', `/admin/api_keys/${k.id}`); loadKeys(); } }, '無効にする') : ''],
  ]));
  const loadMembers = () => clear(members, pagedTable((c) => api('GET', '/admin/members', undefined, { cursor: c }), [
    ['メール', (m) => m.email],
    ['権限', (m) => me.member.role === 'owner' && m.id !== me.member.id ? h('select', {
      'aria-label': `${m.email} の権限`, onchange: async (ev) => {
        try { await api('PATCH', `/admin/members/${m.id}`, { role: ev.target.value }); }
        catch (e) { ev.target.after(errorBox(e)); } } },
      ['owner', 'admin', 'member', 'viewer'].map((r) => h('option', { value: r, selected: r === m.role }, r)))
      : m.role],
    ['状態', (m) => badge(m.status)],
    ['最終アクセス', (m) => jst(m.last_seen_at)],
    ['', (m) => me.member.role === 'owner' && m.id !== me.member.id && m.status === 'active' ?
      h('button', { type: 'button', class: 'danger', onclick: async (ev) => {
        try { await api('PATCH', `/admin/members/${m.id}`, { status: 'suspended' }); loadMembers(); }
        catch (e) { ev.target.replaceWith(errorBox(e)); } } }, '停止') : ''],
  ]));
  const loadRcpts = () => api('GET', '/admin/test_recipients').then((r) => clear(rcpts,
    h('table', null, h('tbody', null, r.data.map((t) => h('tr', null, h('td', null, t.masked),
      h('td', null, badge(t.status)), h('td', null, t.status === 'pending' ? form([{ name: 'code',
        label: '確認コード', required: true }], '確認', async (v) => {
        await api('POST', `/admin/test_recipients/${t.id}/confirm`, { code: v.code });
        loadRcpts();
      }, 'inline') : ''))))))).catch((e) => clear(rcpts, errorBox(e)));
  if (admin) {
    quarantines(held); loadKeys(); loadMembers(); loadRcpts();
    audit.append(pagedTable((c) => api('GET', '/admin/audit_log', undefined, { cursor: c, limit: 20 }), [
      ['日時', (a) => jst(a.created_at)], ['操作', (a) => a.action], ['実行者', (a) => a.actor_type],
      ['対象', (a) => a.target_type || ''],
    ]));
  } else
    clear(keys);
}

// ---- the router ----

const routes = [
  [/^#\/campaigns\/([0-9a-f-]{36})$/, campaign], [/^#\/campaigns$/, campaigns],
  [/^#\/sites\/([0-9a-f-]{36})$/, site], [/^#\/sites$/, sites],
  [/^#\/scenarios\/([0-9a-f-]{36})$/, scenario], [/^#\/leads\/([0-9a-f-]{36})$/, lead],
  [/^#\/messages$/, messages], [/^#\/leads$/, leads], [/^#\/deliveries$/, deliveries],
  [/^#\/suppressions$/, suppressions], [/^#\/webhooks$/, webhooks],
  [/^#\/settings$/, settings], [/^#?\/?$/, dashboard],
];

async function route() {
  const hash = location.hash;
  let m;
  if ((m = hash.match(/^#\/accept\/(fbi_[A-Za-z0-9_-]{43})$/))) return accept(m[1]);
  if (hash === '#/reset') return reset();
  if (hash === '#/signin') return signIn(null);
  if (!me) {
    try {
      me = await api('GET', '/admin/session');
      setCsrf(me.csrf_token);
    } catch {
      me = null;
      location.hash = '#/signin';
      return;
    }
  }
  for (const [re, view] of routes)
    if ((m = hash.match(re))) return view(...m.slice(1));
  clear(app, h('main', null, h('p', null, 'ページが見つかりません。'), h('a', { href: '#/' }, 'ダッシュボードへ')));
}

// A request refused as signed out sends the page back to sign-in.
window.addEventListener('unhandledrejection', (ev) => {
  if (ev.reason && ev.reason.status === 401) { me = null; location.hash = '#/signin'; }
});
window.addEventListener('hashchange', route);
route();
