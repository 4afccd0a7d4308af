// Leads: the list by status, campaign and dates, kept fresh, and its
// CSV; a contact's leads found through the blind index (POST
// /admin/leads/search: the contact goes in the request's body only,
// never in the URL, the fragment, a link or the history); a lead's page
// with its history (events, the judgement, each delivery, the
// conversion) and its action, converting it by hand.
import { api, apiUrl } from '../api.js';
import { h, clear, card, errorBox, notice, badge, jst, pagedTable,
  dataTable, confirmButton, freshness, exportLink } from '../ui.js';
import { shell, canWrite } from '../shell.js';
import { label, options, failure } from '../labels.js';
import { dayBounds, campaignSelect } from '../filters.js';

const columns = [
  ['状態', (l) => h('a', { href: `#/leads/${l.id}` },
    badge('lead_status', l.status))],
  ['キャンペーン', (l) => l.campaign ? l.campaign.name : '—'],
  ['メール', (l) => l.email_masked || '—'],
  ['電話', (l) => l.tel_masked || '—'],
  ['作成', (l) => jst(l.created_at)],
  ['離脱の判定', (l) => jst(l.abandoned_at)],
];

// The filters' controls and the query they make (listLeads' and
// exportLeads' filters).
function filters(changed) {
  const f = {
    status: h('select', { id: 'lead-status' }, h('option', { value: '' },
      'すべて'), options('lead_status').map(([v, t]) =>
      h('option', { value: v }, t))),
    campaign: campaignSelect({ id: 'lead-campaign' }),
    field: h('select', { id: 'lead-date-field' }, options('lead_date_field')
      .map(([v, t]) => h('option', { value: v }, t))),
    first: h('input', { type: 'date', id: 'lead-from' }),
    last: h('input', { type: 'date', id: 'lead-to' }),
  };
  for (const el of Object.values(f)) el.addEventListener('change', changed);
  f.query = () => {
    const b = dayBounds(f.first.value, f.last.value);
    return { status: f.status.value, campaign_id: f.campaign.value,
      date_field: b.from || b.to ? f.field.value : undefined, ...b };
  };
  f.controls = h('div', { class: 'row filters' },
    h('label', null, '状態', f.status),
    h('label', null, 'キャンペーン', f.campaign),
    h('label', null, '日付の種類', f.field),
    h('label', null, 'この日から', f.first),
    h('label', null, 'この日まで', f.last));
  return f;
}

// The search by contact: an input with no name (a form sent without
// this script could not carry it either), its value posted and nothing
// else done with it.  found(result) draws the leads; done() goes back.
function searchForm(found, done) {
  const q = h('input', { type: 'search', id: 'lead-contact',
    autocomplete: 'off', spellcheck: 'false', required: true });
  const back = h('button', { type: 'button', class: 'secondary',
    hidden: true, onclick: () => {
      q.value = '';
      back.hidden = true;
      done();
    } }, '検索をやめる');
  const out = h('div');
  const btn = h('button', { type: 'submit' }, '探す');
  const f = h('form', { class: 'inline', role: 'search',
    'aria-label': '連絡先でリードを探す' },
  h('label', null, '連絡先で探す(電話番号またはメールアドレス)', q), btn,
  back, out);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clear(out);
    btn.disabled = true;
    try {
      const r = await api('POST', '/admin/leads/search',
        { contact: q.value.trim() });
      back.hidden = false;
      found(r);
    } catch (e) {
      clear(out, errorBox(e));
    } finally { btn.disabled = false; }
  });
  f.again = () => f.requestSubmit();
  return f;
}

export function leads() {
  const list = h('div');
  const link = exportLink(apiUrl('/admin/leads/export'));
  let table = null, searching = false;
  const load = () => {
    searching = false;
    link.hidden = false;
    const q = f.query();
    const u = apiUrl('/admin/leads/export', q);
    link.setAttribute('href', u.pathname + u.search);
    table = pagedTable((c) => api('GET', '/leads', undefined,
      { cursor: c, ...q }), columns);
    clear(list, table);
  };
  const f = filters(load);
  const search = searchForm((r) => {
    searching = true;
    link.hidden = true;
    clear(list, h('p', null, `入力した連絡先のリード: ${r.data.length} 件` +
      '(新しい順、最大 100 件)'), dataTable(columns.map(([t]) => t),
      r.data.map((l) => columns.map(([, c]) => c(l)))));
  }, load);
  // the timer leaves a list being paged or used as it is; 「更新」 not
  const refresh = async (quiet) => {
    if (searching) return quiet ? null : search.again();
    if (quiet && (table.pages > 1 || list.contains(document.activeElement)))
      return null;
    return table.refresh();
  };
  shell('リード', card(null, search, f.controls,
    h('p', { class: 'muted' }, 'フォローの送信を待つリードは「送信待ち」、' +
      '送った後は「送信済み」です(「離脱」は送信の対象にならなかった' +
      'リード)。'),
    h('div', { class: 'row' }, freshness(list, refresh), link), list));
  load();
}

// ---- one lead ----

// The lead's facts: contacts (masked), where it came from, its times.
function facts(l) {
  return [['メール', l.email_masked], ['電話', l.tel_masked],
    ['電話の種類', l.tel_kind ? label('tel_kind', l.tel_kind) : null],
    ['連絡先の保存', label('pii_state', l.pii_state)],
    ['ランディングページ', l.landing_url], ['参照元', l.referrer],
    ['作成', jst(l.created_at)], ['取得', jst(l.captured_at)],
    ['離脱の判定', l.abandoned_at ? jst(l.abandoned_at) : 'されていません'],
    ['コンバージョン', jst(l.converted_at)],
    ['コンバージョンの検出', l.conversion_source ?
      label('conversion_source', l.conversion_source) : null],
    ['送信しない理由', l.suppress_reason ?
      label('suppress_reason', l.suppress_reason) : null],
    ['同意', label('consent_mode', l.consent_state)]];
}

// A delivery's step, as 「ステップ 2(シナリオ名)」 (positions count
// from 1, as the scenario's steps do).
function step(d) {
  const n = d.step ? `ステップ ${d.step.position}` : 'ステップ';
  return d.scenario ? `${n}(${d.scenario.name})` : n;
}

// What happened to the lead, oldest first: the tag's events (its
// capture among them), the judgement of abandonment, each delivery sent
// (or failed), the conversion.  [at, what, detail]; entries without a
// time are left out.
export function history(l, deliveries) {
  const rows = (l.timeline || []).map((t) => [t.at,
    label('tag_event', t.type), [t.role ? label('role', t.role) : '',
      t.path || ''].filter(Boolean).join(' ')]);
  if (l.abandoned_at) rows.push([l.abandoned_at, '離脱と判定', '']);
  for (const d of deliveries || []) {
    const what = `${label('channel', d.channel)}: ` +
      label('delivery_status', d.status);
    if (d.sent_at) rows.push([d.sent_at, what, step(d)]);
    else if (d.status === 'failed')
      rows.push([d.scheduled_at, what, d.error_code ?
        failure('send', d.error_code) : step(d)]);
  }
  if (l.converted_at)
    rows.push([l.converted_at, 'コンバージョン', l.conversion_source ?
      label('conversion_source', l.conversion_source) : '']);
  return rows.filter(([at]) => at).sort((a, b) =>
    Date.parse(a[0]) - Date.parse(b[0]));
}

// The lead's deliveries: each with its status, why it was not sent, when.
function deliveryTable(list) {
  return dataTable(['ステップ', 'チャネル', '宛先', '状態', '予定', '送信',
    '理由', 'SMS の通数'], list.map((d) => [step(d),
    label('channel', d.channel), d.to_masked || '—',
    badge('delivery_status', d.status), jst(d.scheduled_at), jst(d.sent_at),
    d.cancel_reason ? label('cancel_reason', d.cancel_reason) :
      d.error_code ? failure('send', d.error_code) : '',
    d.segments === null ? '—' : String(d.segments)]));
}

// The action: converting by hand (member and up; not a finished lead).
function actions(l, redraw) {
  if (l.status === 'converted')
    return h('p', { class: 'muted' }, 'コンバージョン済みです。');
  if (l.status === 'suppressed')
    return h('p', { class: 'muted' }, '送信対象外のリードは変更できません。');
  if (!canWrite())
    return h('p', { class: 'muted' }, '閲覧のみの権限では変更できません。');
  return h('div', null, h('p', { class: 'muted' }, '電話や店頭で成約した' +
    'ときに。送信待ちの配信は取り消され、以後は送られません。'),
  confirmButton('成約にする', 'このリードを成約(コンバージョン)にし、' +
    '送信待ちの配信を取り消します。よろしいですか?', async () => {
    await api('POST', `/admin/leads/${l.id}/convert`);
    await redraw('成約にしました。送信待ちの配信は取り消されました。');
  }, { cls: '' }));
}

async function drawLead(box, id, msg) {
  box.setAttribute('aria-busy', 'true');
  const [l, d] = await Promise.allSettled([api('GET', `/leads/${id}`),
    api('GET', `/admin/leads/${id}/deliveries`)]);
  box.setAttribute('aria-busy', 'false');
  if (l.status === 'rejected') return clear(box, errorBox(l.reason));
  const lead = l.value, dl = d.status === 'fulfilled' ? d.value.data : null;
  const rows = facts(lead).map(([k, v]) => h('tr', null,
    h('th', { scope: 'row' }, k), h('td', null, v || '—')));
  clear(box, card([badge('lead_status', lead.status), ' ',
    lead.campaign ? lead.campaign.name : ''],
  msg ? notice(msg) : null, h('table', null, h('tbody', null, rows))),
  card('操作', actions(lead, (m) => drawLead(box, id, m))),
  card('配信', dl ? deliveryTable(dl) : errorBox(d.reason)),
  card('経過', dataTable(['日時', 'できごと', '詳しく'],
    history(lead, dl).map(([at, what, more]) => [jst(at), what, more]))));
}

export async function lead(id) {
  const box = h('div');
  shell('リード', box);
  await drawLead(box, id);
}
