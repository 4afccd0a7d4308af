// Sites: the list, adding one and the consent settings (owners and
// admins), and a site's page with its snippets and privacy-policy checks.
import { api } from '../api.js';
import { h, clear, card, errorBox, badge, jst, form, pagedTable,
  copyButton } from '../ui.js';
import { shell, canAdmin } from '../shell.js';
import { label, options } from '../labels.js';

function addForm() {
  return form([
    { name: 'name', label: 'サイト名', required: true },
    { name: 'domain', label: 'ドメイン', required: true,
      placeholder: 'shop.example.jp' },
  ], '追加', async (v) => {
    await api('POST', '/admin/sites', { name: v.name, domain: v.domain });
    sites();
  });
}

export async function sites() {
  const list = h('div');
  const admin = canAdmin();
  shell('サイト', card(null, list),
    admin ? card('サイトを追加', addForm()) : null,
    admin ? await consentCard() : null);
  list.append(pagedTable((c) => api('GET', '/sites', undefined,
    { cursor: c }), [
    ['サイト', (s) => h('a', { href: `#/sites/${s.id}` }, s.name)],
    ['ドメイン', (s) => s.domain], ['公開キー', (s) => s.public_key],
    ['作成', (s) => jst(s.created_at)],
  ]));
}

function consentForm(c) {
  return form([
    { name: 'consent_mode', label: '同意の方式', type: 'select',
      value: c.consent_mode, options: options('consent_mode') },
    { name: 'consent_checkbox_enabled', label: '同意のチェックボックス',
      type: 'select', value: String(c.consent_checkbox_enabled),
      options: [['true', '表示する'], ['false', '表示しない']] },
    { name: 'title', label: '配信停止ページの見出し',
      value: c.optout_text.title },
  ], '保存', async (v) => {
    const n = await api('PATCH', '/admin/consent_settings', {
      consent_mode: v.consent_mode,
      consent_checkbox_enabled: v.consent_checkbox_enabled === 'true',
      optout_text: { title: v.title } });
    return n.publish_failed.length ?
      'タグ設定の公開に失敗したサイトがあります。' : '保存しました。';
  });
}

async function consentCard() {
  const box = card('同意の設定');
  try {
    box.append(consentForm(await api('GET', '/consent_settings')));
  } catch (e) { box.append(errorBox(e)); }
  return box;
}

// The tag of each of the site's campaigns, plain and with a nonce.
function snippets(s, n) {
  return card(s.name, h('p', { class: 'muted' }, s.domain),
    s.snippets.length ? null :
      h('p', null, 'キャンペーンを作るとタグが表示されます。'),
    s.snippets.map((sn, i) => h('div', null, h('h3', null, sn.campaign_name),
      h('pre', { class: 'code' }, sn.html), copyButton(sn.html, 'タグをコピー'),
      ' ', copyButton(n.snippets[i].html, 'nonce 付きでコピー'))));
}

export async function site(id) {
  const box = h('div');
  shell('サイト', box);
  try {
    const s = await api('GET', `/sites/${id}`);
    const n = await api('GET', `/sites/${id}`, undefined, { nonce: 'true' });
    clear(box, snippets(s, n), card('プライバシーポリシーの確認',
      pagedTable((c) => api('GET', `/sites/${id}/pp-checks`, undefined,
        { cursor: c }), [
        ['日時', (p) => jst(p.checked_at || p.created_at)],
        ['結果', (p) => badge('pp_status', p.status)], ['URL', (p) => p.url],
        ['指摘', (p) => (p.findings || []).map((f) =>
          label('pp_finding', f.code)).join('、')],
      ])));
  } catch (e) { clear(box, errorBox(e)); }
}
