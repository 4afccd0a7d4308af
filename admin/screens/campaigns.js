// Campaigns: the list with its filters and the creation form, and a
// campaign's page: status, settings, form profile, URL rules with the
// live match test, and its scenarios.
import { api } from '../api.js';
import { h, clear, card, errorBox, notice, badge, jst, form,
  pagedTable } from '../ui.js';
import { shell } from '../shell.js';
import { scenarios } from './scenarios.js';
import { rulesCard } from './urlrules.js';
import { label, options } from '../labels.js';

const statuses = [['', 'すべて'], ...options('campaign_status')];

// The creation form, with the tenant's sites to choose from.
function createForm(sites) {
  return form([
    { name: 'site_id', label: 'サイト', type: 'select',
      options: sites.map((x) => [x.id, x.name]) },
    { name: 'key', label: 'キー(英数字)', required: true },
    { name: 'name', label: '名前', required: true },
  ], '作成', async (v) => {
    const c = await api('POST', '/campaigns', { site_id: v.site_id,
      key: v.key, name: v.name, status: 'paused' });
    location.hash = `#/campaigns/${c.id}`;
  });
}

export function campaigns() {
  const list = h('div');
  const filter = h('select', { onchange: () => load() },
    statuses.map(([v, t]) => h('option', { value: v }, t)));
  const siteFilter = h('select', { onchange: () => load() },
    h('option', { value: '' }, 'すべて'));
  function load() {
    clear(list, pagedTable((c) => api('GET', '/campaigns', undefined,
      { cursor: c, status: filter.value, site_id: siteFilter.value }), [
      ['名前', (x) => h('a', { href: `#/campaigns/${x.id}` }, x.name)],
      ['キー', (x) => x.key], ['状態', (x) => badge('campaign_status', x.status)],
      ['シナリオ', (x) => `${x.active_scenario_count}/${x.scenario_count}`],
      ['更新', (x) => jst(x.updated_at)],
    ]));
  }
  const create = h('div');
  shell('キャンペーン', card(null, h('div', { class: 'row' },
    h('label', null, '状態', filter), h('label', null, 'サイト', siteFilter)),
  list), card('キャンペーンを作成', create));
  load();
  api('GET', '/sites', undefined, { limit: 200 }).then((s) => {
    siteFilter.append(...s.data.map((x) =>
      h('option', { value: x.id }, x.name)));
    return s;
  }).then((s) => create.append(createForm(s.data)))
    .catch((e) => create.append(errorBox(e)));
}

// ---- one campaign ----
// k: {id, c (the campaign as last read), head (its card), status (where
// the status buttons report)}; redraw() puts a new head in the old's place.

function setStatus(k, s) {
  return async () => {
    clear(k.status);
    try {
      k.c = await api('PATCH', `/campaigns/${k.id}`, { status: s });
      clear(k.status, notice('状態を「' +
        `${label('campaign_status', k.c.status)}」にしました。`));
      k.redraw();
    } catch (e) { clear(k.status, errorBox(e)); }
  };
}

async function duplicate(k) {
  try {
    const d = await api('POST', `/campaigns/${k.id}/duplicate`, {});
    location.hash = `#/campaigns/${d.id}`;
  } catch (e) { clear(k.status, errorBox(e)); }
}

function header(k) {
  const button = (cls, s, t) => h('button', { type: 'button', class: cls,
    onclick: setStatus(k, s) }, t);
  return card([k.c.name, ' ', badge('campaign_status', k.c.status)],
    h('p', { class: 'muted' }, `キー ${k.c.key}`),
    h('div', { class: 'row' }, button(null, 'active', '有効にする'),
      button('secondary', 'paused', '一時停止'),
      button('secondary', 'archived', 'アーカイブ'),
      h('button', { type: 'button', class: 'secondary',
        onclick: () => duplicate(k) }, '複製')), k.status);
}

function editForm(k) {
  return form([
    { name: 'name', label: '名前', value: k.c.name, required: true },
    { name: 'product_name', label: '商品名({{product_name}})',
      value: k.c.product_name || '' },
    { name: 'abandon_wait_minutes', label: '離脱と判定するまでの分数',
      type: 'number', value: k.c.abandon_wait_minutes },
  ], '保存', async (v) => {
    k.c = await api('PATCH', `/campaigns/${k.id}`, { name: v.name,
      product_name: v.product_name || null,
      abandon_wait_minutes: Number(v.abandon_wait_minutes) });
    k.redraw();
    return '保存しました。';
  });
}

// Which fields of the shop's form hold the contact (empty: detected).
function profileForm(k) {
  const fp = k.c.form_profile || {};
  const lines = (a) => (a || []).join('\n');
  const arr = (t) => t.split('\n').map((x) => x.trim()).filter(Boolean);
  return form([
    { name: 'tel', label: '電話番号の欄(CSS セレクタ、1 行に 1 つ)',
      type: 'textarea', value: lines(fp.tel_selectors) },
    { name: 'split', label: '分割された電話番号の欄(順に)',
      type: 'textarea', value: lines(fp.tel_split_selectors) },
    { name: 'email', label: 'メールアドレスの欄', type: 'textarea',
      value: lines(fp.email_selectors) },
    { name: 'consent', label: '同意のチェックボックス',
      value: fp.consent_selector || '' },
  ], 'フォームの設定を保存', async (v) => {
    await api('PUT', `/campaigns/${k.id}/form-profile`, {
      tel_selectors: arr(v.tel),
      tel_split_selectors: arr(v.split).length ? arr(v.split) : null,
      email_selectors: arr(v.email),
      consent_selector: v.consent.trim() || null });
    return '保存しました(空欄は自動検出に戻ります)。';
  });
}

export async function campaign(id) {
  const box = h('div');
  shell('キャンペーン', box);
  const k = { id, c: null, head: null, status: h('div') };
  try { k.c = await api('GET', `/campaigns/${id}`); }
  catch (e) { return clear(box, errorBox(e)); }
  k.redraw = () => {
    const old = k.head;
    k.head = header(k);
    if (old) old.replaceWith(k.head);
  };
  k.redraw();
  const scen = h('div');
  clear(box, k.head, card('設定', editForm(k)),
    card('フォーム', profileForm(k)), rulesCard(k), card('シナリオ', scen));
  scenarios(k.c, scen);
}
