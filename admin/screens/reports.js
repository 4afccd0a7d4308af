// Reports: the funnel and the daily counts of any range of days (Japan
// time), of every campaign or one, with the rates between stages, a
// chart of the days, and the funnel split by campaign.  The figures are
// report.js's, the dashboard's too.
import { h, clear, card, errorBox, dataTable } from '../ui.js';
import { shell } from '../shell.js';
import { addDays, daysBetween, lastDays, campaignSelect } from '../filters.js';
import { loadReport, drawReport, funnelDaysMax } from '../report.js';

const presets = [7, 30, 90];

// The funnel's groups (group_by=campaign): each campaign's events and
// leads, and a button that shows that campaign alone (its exact stages
// and rates).  The groups count events, not visits: said in the head.
function groupsView(groups, show) {
  if (!groups) return [];
  return [dataTable(['キャンペーン', 'ページ表示(回)', '入力開始(回)',
    '連絡先の取得(回)', '離脱(リード)', 'コンバージョン(リード)', ''],
  groups.map((g) => [g.campaign_name, String(g.page_view),
    String(g.form_start), String(g.capture), String(g.abandoned),
    String(g.converted), g.campaign_id ? h('button', { type: 'button',
      class: 'secondary small', 'aria-label': `${g.campaign_name} だけを見る`,
      onclick: () => show(g.campaign_id) }, 'このキャンペーンだけ') : ''])),
  h('p', { class: 'muted' }, '回はイベントの数です(訪問の数はキャン' +
    'ペーンを選ぶとファネルに出ます)。')];
}

// The range form: the first and last day (both included), presets, the
// campaign; submit(range, campaign) on each change asked for.
function controls(st, submit) {
  const from = h('input', { type: 'date', id: 'report-from',
    value: st.range.from, required: true });
  const to = h('input', { type: 'date', id: 'report-to',
    value: addDays(st.range.to, -1), required: true });
  const camp = campaignSelect({ id: 'report-campaign' });
  const out = h('div');
  const go = () => {
    clear(out);
    const range = { from: from.value, to: addDays(to.value, 1) };
    if (!from.value || !to.value || daysBetween(range.from, range.to) < 1)
      return clear(out, errorBox({ message: '期間の終わりは、始めと同じか' +
        'それより後の日にしてください。' }));
    if (daysBetween(range.from, range.to) > funnelDaysMax)
      clear(out, h('p', { class: 'warn' }, `ファネルは ${funnelDaysMax} ` +
        '日までです(日別は 366 日まで表示します)。'));
    submit(range, camp.value);
  };
  const preset = (n) => h('button', { type: 'button', class: 'secondary',
    onclick: () => {
      const r = lastDays(n);
      from.value = r.from;
      to.value = addDays(r.to, -1);
      go();
    } }, `直近 ${n} 日`);
  const f = h('form', { class: 'inline', onsubmit: (ev) => {
    ev.preventDefault();
    go();
  } }, h('label', null, '始めの日', from), h('label', null, '終わりの日', to),
  h('label', null, 'キャンペーン', camp),
  h('button', { type: 'submit' }, '表示'));
  f.setCampaign = (id) => {
    camp.value = id;
    go();
  };
  return [f, h('div', { class: 'row presets', role: 'group',
    'aria-label': '期間の選択' }, presets.map(preset)), out];
}

export function reports() {
  const st = { range: lastDays(30), campaign: '' };
  const fun = h('div'), days = h('div'), groups = h('div');
  const draw = async (range, campaign) => {
    for (const b of [fun, days, groups]) b.setAttribute('aria-busy', 'true');
    const r = await loadReport(range, campaign, { groups: true });
    drawReport(r, fun, days);
    clear(groups, r.funnel ? groupsView(r.funnel.groups, (id) =>
      ctl[0].setCampaign(id)) : [], campaign ? h('p', { class: 'muted' },
      'キャンペーンを選んでいます。「すべてのキャンペーン」に戻すと、' +
      'キャンペーン別の表が出ます。') : null);
    for (const b of [fun, days, groups]) b.setAttribute('aria-busy', 'false');
  };
  const ctl = controls(st, draw);
  shell('レポート', card(null, ctl), card('ファネル', fun),
    card('日別の推移(日本時間)', days), card('キャンペーン別', groups));
  return draw(st.range, st.campaign);
}
