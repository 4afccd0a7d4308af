// A campaign's URL rules (a card of its page): an ordered table of
// role, match type, pattern and priority, its evaluation order shown
// and kept up to date as it is edited, a warning on every rule that an
// earlier one keeps from ever deciding (rules.js shadows()), and the
// match test of the rules as edited beside the server's answer for the
// live configuration, which says why when the campaign is not live.
import { api } from '../api.js';
import { h, clear, card, errorBox, notice } from '../ui.js';
import { label } from '../labels.js';
import { roles, matchTypes, shadows, evaluationOrder, decide,
  parseLocation } from '../rules.js';

const blank = () => ({ role: 'form', match_type: 'prefix', pattern: '',
  priority: null });

// The rules as PUT /campaigns/{id}/url-rules takes them.
function toIn(rows) {
  return rows.map((r) => ({ role: r.role, match_type: r.match_type,
    pattern: r.pattern, priority: r.priority === null || r.priority === '' ?
      null : Number(r.priority) }));
}

// "2 行目(フォーム・前方一致 /order)"
export function ruleName(rows, i) {
  const r = rows[i];
  return `${i + 1} 行目(${label('role', r.role)}・` +
    `${label('match_type', r.match_type)} ${r.pattern})`;
}

function select(values, kind, value, aria, set) {
  return h('select', { 'aria-label': aria, onchange: (ev) => set(ev) },
    values.map((v) => h('option', { value: v, selected: v === value },
      label(kind, v))));
}

// One row's cells; its inputs write into rows[i] and call st.check().
function ruleRow(st, i) {
  const r = st.rows[i];
  const n = `${i + 1} 行目`;
  const set = (k) => (ev) => { r[k] = ev.target.value; st.check(); };
  const btn = (t, aria, fn, off) => h('button', { type: 'button',
    class: 'secondary small', 'aria-label': aria, disabled: off,
    onclick: fn }, t);
  const move = (d) => () => {
    st.rows.splice(i + d, 0, ...st.rows.splice(i, 1));
    st.draw();
  };
  return h('tr', { 'data-row': i },
    h('td', { 'data-label': '評価順', class: 'order' }),
    h('td', { 'data-label': '役割' }, select(roles, 'role', r.role,
      `${n}の役割`, set('role'))),
    h('td', { 'data-label': '種類' }, select(matchTypes, 'match_type',
      r.match_type, `${n}の種類`, set('match_type'))),
    h('td', { 'data-label': 'パターン' }, h('input', { value: r.pattern,
      'aria-label': `${n}のパターン`, placeholder: '/order/thanks',
      oninput: set('pattern') })),
    h('td', { 'data-label': '優先度' }, h('input', { type: 'number', min: 0,
      max: 1000000, value: r.priority ?? '', class: 'narrow',
      'aria-label': `${n}の優先度(空欄は最後)`,
      oninput: set('priority') })),
    h('td', { 'data-label': '' }, h('span', { class: 'row' },
      btn('↑', `${n}を上へ`, move(-1), i === 0),
      btn('↓', `${n}を下へ`, move(1), i === st.rows.length - 1),
      btn('削除', `${n}を削除`, () => {
        st.rows.splice(i, 1);
        st.draw();
      }))));
}

// The warnings of the rules as they are: one per shadowed rule, with a
// way to put it first when the priorities allow.
function warnings(st) {
  return shadows(st.rows).map(({ rule, by }) => {
    const a = st.rows[by], b = st.rows[rule];
    const what = a.role === b.role ? 'この規則は使われません。' :
      `この規則に当たるページはすべて「${label('role', a.role)}」` +
      `と判定され、「${label('role', b.role)}」になりません。`;
    const same = String(a.priority ?? '') === String(b.priority ?? '');
    const fix = same && rule > by ? h('button', { type: 'button',
      class: 'secondary small', onclick: () => {
        st.rows.splice(by, 0, ...st.rows.splice(rule, 1));
        st.draw();
      } }, `${rule + 1} 行目を ${by + 1} 行目の前へ`) : null;
    return h('li', null, `${ruleName(st.rows, rule)}は、先に評価される ` +
      `${ruleName(st.rows, by)}が必ず先に当たります。${what}`,
    fix ? ' ' : null, fix ?? (same ? null : '優先度を見直してください。'));
  });
}

// The live answer in words, and whether it is what the rules aim at.
function liveAnswer(k, r, dirty) {
  const c = k.c;
  const live = (r.evaluated || []).some((x) => x.campaign === c.key) ||
    r.campaign === c.key;
  const lines = [];
  let ok = false;
  if (r.assigned && r.campaign === c.key) {
    lines.push(`公開中の設定: このキャンペーンの「${label('role', r.role)}」` +
      'ページです。');
    ok = c.status === 'active';
    if (c.status === 'paused')
      lines.push('ただしキャンペーンは一時停止中のため、送信しません。');
  } else if (r.assigned)
    lines.push('公開中の設定: 別のキャンペーン' +
      `「${r.campaign}」の「${label('role', r.role)}」ページです` +
      `(${label('match_type', r.matched.match_type)} ` +
      `${r.matched.pattern} が先に当たります)。`);
  else lines.push('公開中の設定: どのキャンペーンにも当たりません。');
  if (c.status !== 'active' && !live)
    lines.push(`このキャンペーンは「${label('campaign_status', c.status)}」` +
      'で、タグに公開されていません(一度も有効にしていない一時停止中の' +
      'キャンペーンとアーカイブは公開されません)。有効にすると、' +
      '上の「編集中のルール」の判定になります。');
  if (dirty) lines.push('編集中のルールはまだ保存されていません。' +
    '公開中の設定は保存したルールで判定します。');
  return h('div', { class: ok ? 'notice' : 'warn', role: 'status' },
    lines.map((l) => h('p', null, l)));
}

// The rules as edited, on a URL: which row decides, in words.
function draftAnswer(rows, url) {
  let loc;
  try { loc = parseLocation(url); }
  catch { return h('p', { class: 'error', role: 'alert' },
    'URL を https://… の形で入力してください。'); }
  const d = decide(rows, loc);
  const tried = `(評価した規則: ${d.tried.map((i) => `${i + 1}`)
    .join('→') || 'なし'})`;
  return h('p', null, d.matched === null ?
    `編集中のルール: どの規則にも当たりません。${tried}` :
    `編集中のルール: ${ruleName(rows, d.matched)}に当たり、` +
    `「${label('role', rows[d.matched].role)}」ページです。${tried}`);
}

function matchTest(k, st) {
  const url = h('input', { id: 'rule-test-url', type: 'url', required: true,
    placeholder: 'https://shop.example.jp/form' });
  const out = h('div', { 'aria-live': 'polite' });
  const run = async (ev) => {
    ev.preventDefault();
    clear(out, draftAnswer(st.rows, url.value));
    try {
      const r = await api('POST', `/sites/${k.c.site_id}/url-rules/test`,
        { url: url.value });
      out.append(liveAnswer(k, r, st.dirty()));
    } catch (e) { out.append(errorBox(e)); }
  };
  return [h('form', { class: 'inline', onsubmit: run },
    h('label', { for: 'rule-test-url' }, 'URL をテスト', url),
    h('button', { type: 'submit' }, 'テスト')), out];
}

export function rulesCard(k) {
  const st = { rows: toIn(k.c.url_rules || []) };
  let saved = JSON.stringify(st.rows);
  st.dirty = () => JSON.stringify(toIn(st.rows)) !== saved;
  const body = h('tbody'), warn = h('div', { 'aria-live': 'polite' });
  const out = h('div');
  st.check = () => {
    const order = evaluationOrder(st.rows);
    order.forEach((i, n) => {
      const cell = body.children[i]?.querySelector('.order');
      if (cell) cell.textContent = String(n + 1);
    });
    const w = warnings(st);
    const bad = new Set(shadows(st.rows).map((s) => s.rule));
    [...body.children].forEach((tr, i) =>
      tr.classList.toggle('shadowed', bad.has(i)));
    clear(warn, w.length ? h('div', { class: 'warn' },
      h('p', null, '決して使われない規則があります:'),
      h('ul', null, w)) : null);
  };
  st.draw = () => {
    clear(body, st.rows.map((_, i) => ruleRow(st, i)));
    st.check();
  };
  const save = h('button', { type: 'button', onclick: async () => {
    save.disabled = true;
    clear(out);
    try {
      const r = await api('PUT', `/campaigns/${k.id}/url-rules`,
        { rules: toIn(st.rows) });
      k.c = r;
      saved = JSON.stringify(toIn(st.rows));
      clear(out, (r.warnings || []).map((w) => h('p', { class: 'warn' },
        `「${w.lost_campaign.name}」のページ ${w.page_count} 件が` +
        'このキャンペーンに移ります。')), notice('ルールを保存しました。'));
    } catch (e) { clear(out, errorBox(e)); }
    save.disabled = false;
  } }, 'ルールを保存');
  st.draw();
  return card('URL ルール', h('p', { class: 'muted' },
    '上から順ではなく、優先度の小さい順(空欄は最後)に評価し、' +
    '同じ優先度では上の行から評価します。最初に当たった規則でページの' +
    '役割が決まり、より具体的な規則が後にあっても優先されません。'),
  h('table', { class: 'rules cards' }, h('thead', null, h('tr', null,
    ['評価順', '役割', '種類', 'パターン', '優先度', '操作'].map((t) =>
      h('th', { scope: 'col' }, t === '操作' ? h('span', { class: 'vh' }, t) :
        t)))), body),
  h('div', { class: 'row' }, h('button', { type: 'button',
    class: 'secondary', onclick: () => { st.rows.push(blank()); st.draw(); } },
  '規則を追加'), save), warn, out,
  h('h3', null, '一致テスト(編集中のルールと、公開中の設定)'),
  matchTest(k, st));
}
