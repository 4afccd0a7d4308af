// Scenarios: a campaign's list (a card of its page) with activation and
// creation from a preset, and a scenario's steps.
import { api } from '../api.js';
import { h, clear, card, errorBox, notice, badge, form, thead,
  confirmButton, dataTable } from '../ui.js';
import { shell } from '../shell.js';
import { label } from '../labels.js';
import { timelineView } from '../timeline.js';

function stepsText(s) {
  return s.steps.map((st) =>
    h('div', null,
      `${st.delay_minutes ?? ''} 分後 ${label('channel', st.channel)}`));
}

function presetForm(c, box, presets) {
  const options = presets.data.filter((p) => p.available)
    .map((p) => [p.key, p.name]);
  return form([{ name: 'preset_key', label: 'プリセット', type: 'select',
    options }], '作成', async (v) => {
    await api('POST', `/campaigns/${c.id}/scenarios/from_preset`,
      { preset_key: v.preset_key });
    scenarios(c, box);
  }, 'inline');
}

// The scenarios of campaign c, drawn in box (and again after a change);
// a refused activation shows the server's reason below the table.
export async function scenarios(c, box, msg) {
  try {
    const [list, presets] = await Promise.all([
      api('GET', `/campaigns/${c.id}/scenarios`),
      api('GET', '/scenario_presets')]);
    const out = h('div');
    const act = (s, st) => async () => {
      clear(out);
      try {
        await api('PATCH', `/scenarios/${s.id}`, { status: st });
        scenarios(c, box, `シナリオ「${s.name}」を` +
          `「${label('scenario_status', st)}」にしました。`);
      } catch (e) { clear(out, errorBox(e)); }
    };
    const remove = (s) => confirmButton('削除', `シナリオ「${s.name}」を` +
      '削除します。よろしいですか?', async () => {
      await api('DELETE', `/scenarios/${s.id}`);
      scenarios(c, box, `シナリオ「${s.name}」を削除しました。`);
    }, { aria: `シナリオ「${s.name}」を削除` });
    if (msg) out.append(notice(msg));
    clear(box, dataTable(['名前', '状態', 'ステップ', ''],
      list.data.map((s) => [
        h('a', { href: `#/scenarios/${s.id}` }, s.name),
        badge('scenario_status', s.status), stepsText(s),
        h('span', { class: 'row' }, h('button', { type: 'button',
          onclick: act(s, 'active') }, '有効にする'),
        h('button', { type: 'button', class: 'secondary',
          onclick: act(s, 'paused') }, '一時停止'), remove(s))])),
    out, h('h3', null, 'プリセットから作成'), presetForm(c, box, presets));
  } catch (e) { clear(box, errorBox(e)); }
}

// ---- one scenario ----
// Its steps: order, delays, message; saved all at once (422 names the
// first wrong one); beside them, the same steps as a timeline from the
// abandonment, drawn again at every change of the table.

function messageLabel(m) {
  const text = (m.subject || m.body || '').slice(0, 40);
  return `${label('channel', m.channel)}: ${text}`;
}

// A step's row: its message and delay, moved up or removed; tr.read()
// gives the step as PUT /scenarios/{id}/steps takes it.
function stepRow(msgs, st) {
  const delay = h('input', { type: 'number', min: 0, 'aria-label': '遅延(分)',
    value: st ? st.delay_minutes : 30 });
  const msg = h('select', { 'aria-label': 'メッセージ' },
    msgs.data.map((m) => h('option', { value: m.id,
      selected: st && st.message_id === m.id }, messageLabel(m))));
  const up = () => {
    if (tr.previousElementSibling) tr.previousElementSibling.before(tr);
  };
  const tr = h('tr', null, h('td', { 'data-label': 'メッセージ' }, msg),
    h('td', { 'data-label': '遅延(分)' }, delay),
    h('td', { 'data-label': '' }, h('button', { type: 'button',
      class: 'secondary', onclick: up }, '上へ'), ' ',
    h('button', { type: 'button', class: 'danger',
      onclick: () => tr.remove() }, '削除')));
  tr.read = () => ({ message_id: msg.value,
    delay_minutes: Number(delay.value) });
  return tr;
}

function saveSteps(id, rows, out) {
  return async (ev) => {
    ev.target.disabled = true;
    clear(out);
    try {
      await api('PUT', `/scenarios/${id}/steps`,
        { steps: [...rows.children].map((tr) => tr.read()) });
      clear(out, h('p', { class: 'notice' }, 'ステップを保存しました。'));
    } catch (e) { clear(out, errorBox(e)); }
    finally { ev.target.disabled = false; }
  };
}

function duplicate(id, out) {
  return async () => {
    clear(out);
    try {
      const d = await api('POST', `/scenarios/${id}/duplicate`, {});
      location.hash = `#/scenarios/${d.id}`;
    } catch (e) { clear(out, errorBox(e)); }
  };
}

export async function scenario(id) {
  const box = h('div');
  shell('シナリオ', box);
  try {
    const [s, msgs] = await Promise.all([api('GET', `/scenarios/${id}`),
      api('GET', '/messages', undefined, { limit: 200 })]);
    const rows = h('tbody');
    const flow = h('div');
    const redraw = () => clear(flow, timelineView(s.abandon_wait_minutes,
      [...rows.children].map((tr) => tr.read()), msgs.data));
    const addRow = (st) => rows.append(stepRow(msgs, st));
    s.steps.forEach((st) => addRow(st));
    for (const ev of ['input', 'change', 'click'])
      rows.addEventListener(ev, redraw);
    redraw();
    const out = h('div');
    clear(box, h('div', { class: 'scenario-grid' },
      card([s.name, ' ', badge('scenario_status', s.status)],
        h('table', { class: 'cards' }, thead(['メッセージ', '遅延(分)', '']),
          rows),
        h('div', { class: 'row' },
          h('button', { type: 'button', class: 'secondary',
            onclick: () => { addRow(null); redraw(); } }, 'ステップを追加'),
          h('button', { type: 'button', onclick: saveSteps(id, rows, out) },
            '保存'),
          h('button', { type: 'button', class: 'secondary',
            onclick: duplicate(id, out) }, '複製'),
          h('a', { href: `#/campaigns/${s.campaign_id}` },
            'キャンペーンに戻る')), out),
      card('タイムライン', flow)));
  } catch (e) { clear(box, errorBox(e)); }
}
