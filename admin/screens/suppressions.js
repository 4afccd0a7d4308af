// Suppressions: the list with its search and filters and its CSV export,
// adding one, and the CSV import with its per-row results (the first
// 500).
import { api, apiUrl } from '../api.js';
import { h, clear, card, badge, jst, form, pagedTable, dataTable,
  confirmButton, exportLink } from '../ui.js';
import { shell } from '../shell.js';
import { label, paramLabel, options } from '../labels.js';

// Deleting lets messages go to the address again: asked first.
function removeButton(s, load) {
  return confirmButton('削除', `${s.value_masked} の配信停止を削除し、` +
    '送信できる状態に戻します。よろしいですか?', async () => {
    await api('DELETE', `/suppressions/${s.id}`);
    load();
  }, { aria: `${s.value_masked} の配信停止を削除` });
}

// The search form, the filters and the list, in box, with the CSV of
// the filters; load() draws the list again.  The export leaves the
// search out: its contact would go in a link's URL (and the download
// history), so a search's CSV is the filters' (said beside the link).
function lister(box) {
  const q = h('input', { type: 'search',
    placeholder: '電話番号またはメールアドレスで検索' });
  const kind = h('select', { onchange: () => load() },
    h('option', { value: '' }, 'すべて'), options('suppression_kind')
      .map(([v, t]) => h('option', { value: v }, t)));
  const reason = h('select', { onchange: () => load() },
    h('option', { value: '' }, 'すべて'), options('suppression_reason')
      .map(([v, t]) => h('option', { value: v }, t)));
  const link = exportLink(apiUrl('/admin/suppressions/export'));
  const note = h('span', { class: 'muted' });
  const list = h('div');
  const search = (ev) => { ev.preventDefault(); load(); };
  const load = () => {
    const f = { kind: kind.value, reason: reason.value };
    const u = apiUrl('/admin/suppressions/export', f);
    link.setAttribute('href', u.pathname + u.search);
    note.textContent = q.value.trim() ? '(書き出しは検索語を使わず、' +
      '種類と理由で絞ります)' : '';
    clear(list, pagedTable((c) => api('GET', '/suppressions', undefined,
      { cursor: c, q: q.value.trim(), ...f }), [
      ['宛先', (s) => s.value_masked],
      ['理由', (s) => label('suppression_reason', s.reason)],
      ['範囲', (s) => label('suppression_scope', s.scope)],
      ['作成', (s) => jst(s.created_at)],
      ['', (s) => s.deletable ? removeButton(s, load) : ''],
    ]));
  };
  clear(box, h('form', { class: 'inline', onsubmit: search },
    h('label', null, '検索', q),
    h('button', { type: 'submit', class: 'secondary' }, '検索')),
  h('div', { class: 'row filters' }, h('label', null, '種類', kind),
    h('label', null, '理由', reason)),
  h('div', { class: 'row' }, link, note), list);
  return load;
}

function addForm(load) {
  return form([
    { name: 'value', label: '電話番号またはメールアドレス', required: true },
    { name: 'memo', label: 'メモ' },
    { name: 'expires_at', label: '期限(日本時間のその日の終わりまで、空欄は無期限)',
      type: 'date' },
  ], '追加', async (v) => {
    await api('POST', '/suppressions', { value: v.value,
      memo: v.memo || null,
      expires_at: v.expires_at ? `${v.expires_at}T23:59:59+09:00` : null });
    load();
    return '追加しました。';
  });
}

function importResults(r) {
  return [h('p', { class: 'notice' }, `登録 ${r.created} 件、` +
    `登録済み ${r.exists} 件、不正 ${r.invalid} 件` +
    `(${label('encoding', r.encoding)})`),
  dataTable(['行', '結果', '宛先・項目'], r.results.slice(0, 500).map((x) =>
    [String(x.record), badge('import_result', x.result),
      x.masked || paramLabel(x.param) || '']))];
}

function importCard(load) {
  const results = h('div');
  return card('CSV から取り込む', h('p', { class: 'muted' },
    '1 列目に電話番号かメールアドレス、2 列目にメモ、3 列目に期限' +
    '(2027-03-31T23:59:59+09:00 のように日時と時差で、未来の日時)。' +
    'UTF-8 または Shift_JIS、1 回 10,000 行まで。'),
  form([{ name: 'file', label: 'CSV ファイル', type: 'file',
    accept: '.csv,text/csv', required: true }], '取り込む', async (v) => {
    const r = await api('POST', '/admin/suppressions/import',
      await v.file.arrayBuffer());
    clear(results, importResults(r));
    load();
  }), results);
}

export function suppressions() {
  const list = h('div');
  const load = lister(list);
  shell('配信停止', card(null, list), card('追加', addForm(load)),
    importCard(load));
  load();
}
