// 「個人データの開示・削除」 (issue 43; docs/internals/privacy.md): a
// person's request about what the shop holds on them, for owners and
// admins.  The contact typed goes in a request's body only (as the lead
// search's, leads.js): an input with no name, in no URL, fragment, link
// or history state.  The export is kept in memory for its download (a
// file made in the page) and dropped when the contact changes.
import { api } from '../api.js';
import { h, clear, card, dataTable, errorBox, notice,
  confirmButton } from '../ui.js';
import { shell, canAdmin } from '../shell.js';
import { label } from '../labels.js';

// The counts an export found, as [what, how many] rows.
export function exportSummary(doc) {
  const f = doc.found || {};
  return [
    ['リード', f.leads ?? 0], ['配信', f.deliveries ?? 0],
    ['サイト上の行動', f.events ?? 0],
    ['Webhook で送った記録', f.webhook_deliveries ?? 0],
    ['配信停止リスト', f.suppressions ?? 0],
    ['テスト送信先', f.test_recipients ?? 0],
  ];
}

// Is there anything to erase in this export?
export function hasData(doc) {
  return exportSummary(doc).some(([, n]) => n > 0);
}

// What the erasure will do, said before it is confirmed.
export function eraseQuestion(doc, stop) {
  const f = doc.found || {};
  const parts = [`リード ${f.leads ?? 0} 件の連絡先と訪問者との結び付きを削除`,
    `サイト上の行動 ${f.events ?? 0} 件を匿名化`,
    '送信予定の配信を取り消し、配信の記録から宛先を削除',
    `テスト送信先 ${f.test_recipients ?? 0} 件を削除`,
    stop ? '配信停止リストには連絡先を特定できない形(ブラインドインデックス)だけを残します' :
      `配信停止リスト ${f.suppressions ?? 0} 件を削除`];
  return `${parts.join('、')}。レポートの件数は変わりません。` +
    '元に戻せません。削除しますか?';
}

// What an erasure did (PersonalDataErasureOut), in one sentence.
export function erasedMessage(r) {
  if (!r.found) return '削除するデータはありませんでした(削除済みです)。';
  const e = r.erased;
  const kept = e.suppressions_kept + e.suppressions_added;
  return `削除しました: リード ${e.leads} 件、匿名化した行動 ` +
    `${e.events_anonymised} 件、取り消した配信 ${e.deliveries_cancelled} 件、` +
    `宛先を消した配信 ${e.deliveries_masked} 件、テスト送信先 ` +
    `${e.test_recipients_removed} 件、配信停止リストから削除 ` +
    `${e.suppressions_removed} 件` +
    (r.stop ? `、配信停止として保持 ${kept} 件。` : '。');
}

// The export's file name: the day in Japan, never the contact.
export function exportFileName(now = new Date()) {
  const d = new Date(now.getTime() + 9 * 3600e3).toISOString().slice(0, 10);
  return `personal-data-${d}.json`;
}

// The download of the export kept in memory (a file made in the page).
function download(doc) {
  const blob = new Blob([JSON.stringify(doc, null, 2)],
    { type: 'application/json' });
  const a = h('a', { href: URL.createObjectURL(blob),
    download: exportFileName(), class: 'button' }, 'JSON をダウンロード');
  a.addEventListener('click', () =>
    setTimeout(() => URL.revokeObjectURL(a.href), 1000));
  return a;
}

// The result of a look-up: the counts, the download, the erasure.
function result(out, doc, contact, stop) {
  const rows = exportSummary(doc).map(([w, n]) => [w, String(n)]);
  const leads = (doc.leads || []).map((l) => [l.campaign?.name ?? '—',
    label('lead_status', l.status), l.tel_masked ?? '—',
    l.email_masked ?? '—']);
  const erase = confirmButton('削除する', eraseQuestion(doc, stop.checked),
    async () => erasedMessage(await api('POST', '/admin/personal_data/erase',
      { contact, stop: stop.checked })));
  clear(out, h('h3', null, '見つかったデータ'),
    dataTable(['種類', '件数'], rows),
    leads.length ? dataTable(['キャンペーン', '状態', '電話番号',
      'メールアドレス'], leads) : null,
    doc.truncated ? notice('件数が多いため一部だけを書き出しました。') : null,
    h('p', { class: 'row' }, download(doc)),
    hasData(doc) ? h('p', { class: 'row' }, erase) :
      notice('この連絡先のデータはありません。'));
}

// The form: the contact, whether the person asked to stop, 「調べる」.
function lookup(out) {
  const q = h('input', { type: 'search', id: 'dsr-contact',
    autocomplete: 'off', spellcheck: 'false', required: true });
  const stop = h('input', { type: 'checkbox', id: 'dsr-stop' });
  const btn = h('button', { type: 'submit' }, '調べる');
  const f = h('form', { class: 'stack', role: 'search',
    'aria-label': '連絡先で個人データを調べる' },
  h('label', null, '電話番号またはメールアドレス', q),
  h('label', { class: 'check' }, stop,
    '本人が配信停止も求めている(削除後も配信停止リストに残す)'), btn);
  q.addEventListener('input', () => clear(out));
  stop.addEventListener('change', () => clear(out));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clear(out);
    btn.disabled = true;
    const contact = q.value.trim();
    try {
      const doc = await api('POST', '/admin/personal_data/export',
        { contact });
      result(out, doc, contact, stop);
    } catch (e) {
      clear(out, errorBox(e));
    } finally { btn.disabled = false; }
  });
  return f;
}

export function privacy() {
  if (!canAdmin())
    return shell('個人データの開示・削除',
      notice('オーナーと管理者だけが行えます。'));
  const out = h('div', { 'aria-live': 'polite' });
  return shell('個人データの開示・削除', card(null,
    h('p', null, '本人からの開示・削除の請求(個人情報保護法 33 条・35 条、' +
      'GDPR 15 条・17 条)に応じます。連絡先で見つかるデータを書き出し、' +
      '確認のうえ削除します。操作は監査ログに残ります(連絡先そのものは' +
      '残しません)。'), lookup(out), out));
}
