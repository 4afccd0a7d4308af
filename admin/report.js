// The reports' figures, one module for the reports screen and the
// dashboard, so the two cannot disagree: the same requests for a range
// (GET /reports/funnel over the range's JST days, GET /reports/daily over
// the same days), the same rates, the same drawing.  The funnel is
// counted from the raw rows at each request; the daily report is
// recounted every ten minutes (refreshed_at), and its stages count
// leads where the funnel's first three count visits: each figure shows
// its unit, and the daily one the time it was computed.
import { api } from './api.js';
import { h, clear, errorBox, jst, dataTable } from './ui.js';
import { label } from './labels.js';
import { jstStart } from './filters.js';
import { dayChart, legend } from './chart.js';

// the longest ranges the API takes, in days (getFunnelReport,
// getDailyReport)
export const funnelDaysMax = 93;
export const dailyDaysMax = 366;

// Both reports of a range ({from, to}: JST days, to excluded), of one
// campaign or all (then the funnel with a group a campaign, when
// groups).  {range, campaign, funnel, daily} with an error in place of
// a report that failed (funnelError, dailyError).
export async function loadReport(range, campaign = null,
  { groups = false } = {}) {
  const c = campaign || undefined;
  const [f, d] = await Promise.allSettled([
    api('GET', '/reports/funnel', undefined, { from: jstStart(range.from),
      to: jstStart(range.to), campaign_id: c,
      group_by: groups && !c ? 'campaign' : undefined }),
    api('GET', '/reports/daily', undefined,
      { from: range.from, to: range.to, campaign_id: c })]);
  return { range, campaign: c || null,
    funnel: f.status === 'fulfilled' ? f.value : null,
    funnelError: f.status === 'rejected' ? f.reason : null,
    daily: d.status === 'fulfilled' ? d.value : null,
    dailyError: d.status === 'rejected' ? d.reason : null };
}

// Each stage with its rate from the stage before it, in the order the
// API gives the stages (faces): {...face, from, rate, units}; rate is
// null for the first stage and when the one before counts 0; units is
// true when the two count different things (visits, then leads).  At
// the edges of a range a rate can pass 100% (the API's note, unit).
export function stageRates(faces) {
  return faces.map((f, i) => {
    const p = i > 0 ? faces[i - 1] : null;
    return { ...f, from: p ? p.key : null,
      rate: p && p.value > 0 ? f.value / p.value : null,
      units: !!p && p.unit !== f.unit };
  });
}

// A rate as a percentage with one decimal, 「—」 when there is none.
export function percent(r) {
  if (r === null || r === undefined || !Number.isFinite(r)) return '—';
  return `${(Math.round(r * 1000) / 10).toFixed(1)}%`;
}

// A count with its unit (report_unit), as 「12 訪問」.
export function count(value, unit) {
  return `${Number(value).toLocaleString('ja-JP')} ${label('report_unit',
    unit)}`;
}

// the daily report's stages (faces) and where a day's counts hold each
const dayFigure = {
  captured: (c) => c.capture.captured,
  abandoned: (c) => c.capture.abandoned,
  sent: (c) => c.delivery.sent,
  clicked: (c) => c.delivery.clicked,
  converted_after_message: (c) => c.delivery.converted,
  recovered: (c) => c.conversion.converted,
};

// The daily report as series: x the days' starts (UTC seconds), a
// series a stage the report has, each day's figure or null (a day not
// counted yet: a gap, never a zero).
export function dailySeries(daily) {
  const x = daily.days.map((d) => Date.parse(jstStart(d.date)) / 1000);
  const series = daily.faces.filter((f) => dayFigure[f.key]).map((f) => ({
    key: f.key, label: f.label, unit: f.unit,
    values: daily.days.map((d) => d.computed ?
      dayFigure[f.key](d.counts) ?? null : null) }));
  return { x, dates: daily.days.map((d) => d.date), series };
}

// One stage's bar (decoration: the figures are the row's text).
function bar(value, max) {
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${Math.round((value / Math.max(1, max)) * 100)}%`;
  return h('span', { class: 'meter', 'aria-hidden': 'true' }, fill);
}

// The funnel: its stages with their counts and their rates from the
// stage before, then the API's own ratios, and what a visit is.
export function funnelView(f) {
  const max = Math.max(1, ...f.faces.map((x) => x.value));
  const rows = stageRates(f.faces).map((s) => [s.label,
    count(s.value, s.unit), s.from === null ? '—' :
      `${percent(s.rate)}${s.units ? '(単位が変わる)' : ''}`,
    bar(s.value, max)]);
  return [dataTable(['段階', '数', '前の段階から', '棒グラフ'], rows),
    h('ul', { class: 'plain metrics' }, f.metrics.map((m) => h('li', null,
      `${m.label}: ${percent(m.value)}(${m.numerator} / ${m.denominator})`))),
    h('p', { class: 'muted' }, `完了ページのタグによるコンバージョン: ` +
      `${count(f.converted, 'lead')}。${f.unit}`)];
}

// The daily report: when it was computed, the range's totals, the chart
// of its stages by day with the same figures as a table, its notes.
export function dailyView(d) {
  const s = dailySeries(d);
  const chart = h('div', { class: 'chart' });
  const when = d.refreshed_at ? `${jst(d.refreshed_at)} 時点の集計` :
    'まだ集計されていません';
  const pending = d.not_computed_dates.length ?
    `(集計前の日 ${d.not_computed_dates.length} 日: グラフでは空白)` : '';
  const rows = s.dates.map((day, i) => [day,
    ...s.series.map((x) => x.values[i] === null ? '集計前' :
      String(x.values[i]))]);
  dayChart(chart, s, `日別の推移のグラフ(${s.series.map((x) => x.label)
    .join('、')})。同じ数を下の表に示します。`)
    .catch(() => clear(chart, h('p', { class: 'muted' },
      'グラフを表示できません。数は表のとおりです。')));
  return [h('p', { class: 'refreshed' }, `${when}(10 分ごとに集計)${pending}`),
    h('ul', { class: 'plain totals' }, d.faces.map((f) =>
      h('li', null, `${f.label}: ${count(f.value, f.unit)}`))),
    chart, legend(s.series),
    h('details', null, h('summary', null, '表で見る'),
      dataTable(['日付', ...s.series.map((x) => x.label)], rows)),
    h('div', { class: 'muted notes' }, Object.values(d.notes || {}).map((t) =>
      h('p', null, t)))];
}

// Draw a loaded report's funnel and daily parts into their boxes (or the
// error each met).
export function drawReport(r, funnelBox, dailyBox) {
  clear(funnelBox, r.funnel ? funnelView(r.funnel) : errorBox(r.funnelError));
  clear(dailyBox, r.daily ? dailyView(r.daily) : errorBox(r.dailyError));
}
