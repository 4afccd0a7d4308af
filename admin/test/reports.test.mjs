// The reports (issue 42, item 4): the rates between the funnel's
// stages, the daily series (a day not counted is a gap, not a zero),
// the range of days in Japan, the reports screen with its chart, and
// the dashboard's cards asking and showing exactly what the reports
// screen does for the same 30 days.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, settle } from './dom.mjs';
import { funnelReport, dailyReport } from './fixtures.mjs';
import { route } from '../router.js';
import { session } from '../shell.js';
import { stageRates, percent, dailySeries, count } from '../report.js';
import { lastDays, addDays, jstStart, dayBounds } from '../filters.js';
import { lib, monthDay } from '../chart.js';
import { jst } from '../ui.js';

const me = { member: { id: 'm1', email: 'owner@shop.example',
  role: 'owner' }, tenant_id: 't1', csrf_token: 'tok' };
const page = (data) => ({ data, has_more: false, next_cursor: null });
const cid = funnelReport.groups[0].campaign_id;

// the charts drawn: [opts, data, element] (uPlot's constructor's)
let charts, calls;
class FakePlot {
  constructor(opts, data, el) {
    charts.push([opts, data, el]);
    this.width = opts.width;
    el.append(document.createElement('canvas'));
  }
  static tzDate(d) { return d; }
}

beforeEach(() => {
  installDom();
  session.me = me;
  charts = [];
  lib.load = async () => FakePlot;
  calls = fakeFetch(({ url }) => {
    const path = url.pathname.replace('/api/v1', '');
    if (path === '/reports/funnel') return { body: funnelReport };
    if (path === '/reports/daily') return { body: dailyReport };
    if (path === '/campaigns') return { body: page([{ id: cid,
      name: '<b>春</b>' }]) };
    if (path === '/delivery_status') return { body: { mode: 'live' } };
    if (path === '/admin/usage') return { body: { month: '2026-11',
      sends: 0, quota: 10, plan: 'pro' } };
    return { body: page([]) };
  });
});

async function go(hash) {
  location.hash = hash;
  await route();
  await settle(15);
  return document.getElementById('app');
}
const asked = (path) => calls.filter((c) =>
  c.url.pathname === `/api/v1${path}`).map((c) =>
  Object.fromEntries(c.url.searchParams));
const cardOf = (app, title) => [...app.querySelectorAll('section.card')]
  .find((s) => s.querySelector('h2')?.textContent.startsWith(title));

test('stageRates: each stage from the one before, in the API\'s order',
  () => {
    const r = stageRates(funnelReport.faces);
    assert.deepEqual(r.map((s) => s.key), ['visited', 'form_started',
      'captured', 'abandoned', 'messaged', 'recovered']);
    assert.deepEqual(r.map((s) => s.from), [null, 'visited',
      'form_started', 'captured', 'abandoned', 'messaged']);
    assert.deepEqual(r.map((s) => percent(s.rate)),
      ['—', '50.0%', '45.0%', '66.7%', '0.0%', '—']);
    // visits, then leads: the abandoned stage says its unit changed
    assert.deepEqual(r.map((s) => s.units),
      [false, false, false, true, false, false]);
  });

test('stageRates: no stage, one stage, a zero before', () => {
  assert.deepEqual(stageRates([]), []);
  const one = stageRates([{ key: 'a', value: 3, unit: 'lead' }]);
  assert.equal(one[0].rate, null);
  const zero = stageRates([{ key: 'a', value: 0, unit: 'lead' },
    { key: 'b', value: 2, unit: 'lead' }]);
  assert.equal(zero[1].rate, null);
  // the edges of a range can hold more in a stage than before it
  const over = stageRates([{ key: 'a', value: 2, unit: 'visit' },
    { key: 'b', value: 3, unit: 'visit' }]);
  assert.equal(percent(over[1].rate), '150.0%');
});

test('percent and count', () => {
  assert.equal(percent(null), '—');
  assert.equal(percent(undefined), '—');
  assert.equal(percent(NaN), '—');
  assert.equal(percent(0.16667), '16.7%');
  assert.equal(percent(1), '100.0%');
  assert.equal(count(12345, 'visit'), '12,345 訪問');
  assert.equal(count(2, 'message'), '2 通');
});

test('dailySeries: the API\'s stages, a day not counted as a gap', () => {
  const s = dailySeries(dailyReport);
  assert.deepEqual(s.x, [Date.parse('2026-11-27T00:00:00+09:00') / 1000,
    Date.parse('2026-11-28T00:00:00+09:00') / 1000]);
  assert.deepEqual(s.series.map((x) => [x.key, x.values]), [
    ['captured', [2, null]], ['abandoned', [1, null]], ['sent', [3, null]],
    ['recovered', [0, null]]]);
  assert.deepEqual(s.series.map((x) => x.label), dailyReport.faces.map(
    (f) => f.label));
});

test('days in Japan: the last n days, bounds of a list', () => {
  // 2026-11-27 16:00 UTC is 2026-11-28 01:00 in Japan
  const now = Date.parse('2026-11-27T16:00:00Z');
  assert.deepEqual(lastDays(7, now), { from: '2026-11-22',
    to: '2026-11-29' });
  assert.deepEqual(lastDays(1, now), { from: '2026-11-28',
    to: '2026-11-29' });
  assert.equal(addDays('2026-12-31', 1), '2027-01-01');
  assert.equal(addDays('2028-03-01', -1), '2028-02-29');
  assert.equal(jstStart('2026-11-28'), '2026-11-28T00:00:00+09:00');
  assert.deepEqual(dayBounds('2026-11-01', '2026-11-30'), {
    from: '2026-11-01T00:00:00+09:00', to: '2026-12-01T00:00:00+09:00' });
  assert.deepEqual(dayBounds('', ''), { from: undefined, to: undefined });
});

test('the reports screen: stages with rates, a chart, the time counted',
  async () => {
    const app = await go('#/reports');
    const r = lastDays(30);
    assert.deepEqual(asked('/reports/funnel'), [{ from: jstStart(r.from),
      to: jstStart(r.to), group_by: 'campaign' }]);
    assert.deepEqual(asked('/reports/daily'), [{ from: r.from, to: r.to }]);
    const fun = cardOf(app, 'ファネル');
    const rows = [...fun.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent));
    assert.deepEqual(rows[0], ['訪問', '40 訪問', '—']);
    assert.deepEqual(rows[3], ['離脱', '6 リード', '66.7%(単位が変わる)']);
    assert.match(fun.textContent, /回復率: 16\.7%\(1 \/ 6\)/);
    // the chart: drawn once, the days and the API's stages
    assert.equal(charts.length, 1);
    const [opts, data, el] = charts[0];
    assert.deepEqual(data, [dailySeries(dailyReport).x, [2, null],
      [1, null], [3, null], [0, null]]);
    assert.deepEqual(opts.series.slice(1).map((s) => s.label),
      dailyReport.faces.map((f) => f.label));
    assert.equal(opts.legend.show, false);
    assert.equal(el.getAttribute('role'), 'img');
    assert.match(el.getAttribute('aria-label'), /日別の推移/);
    const days = cardOf(app, '日別の推移');
    assert.equal(days.querySelector('.refreshed').textContent,
      `${jst(dailyReport.refreshed_at)} 時点の集計(10 分ごとに集計)` +
      '(集計前の日 1 日: グラフでは空白)');
    assert.equal(days.querySelectorAll('ul.legend li').length, 4);
    assert.equal(days.querySelectorAll('details tbody tr').length, 2);
    assert.equal(app.querySelectorAll('.error').length, 0);
  });

test('per campaign: the groups, then one campaign\'s own report',
  async () => {
    const app = await go('#/reports');
    const groups = cardOf(app, 'キャンペーン別');
    assert.equal(groups.querySelector('b'), null, 'a name is text');
    assert.equal(groups.querySelector('tbody td').textContent, '<b>春</b>');
    groups.querySelector('button[aria-label="<b>春</b> だけを見る"]')
      .click();
    await settle(15);
    const f = asked('/reports/funnel');
    assert.equal(f.length, 2);
    assert.equal(f[1].campaign_id, cid);
    assert.equal(f[1].group_by, undefined);
    assert.equal(asked('/reports/daily')[1].campaign_id, cid);
    assert.equal(app.querySelector('#report-campaign').value, cid);
  });

test('the presets and a range of one\'s own', async () => {
  const app = await go('#/reports');
  [...app.querySelectorAll('.presets button')].find((b) =>
    b.textContent === '直近 7 日').click();
  await settle(15);
  const r = lastDays(7);
  assert.deepEqual(asked('/reports/daily').at(-1), { from: r.from,
    to: r.to });
  assert.equal(asked('/reports/funnel').at(-1).from, jstStart(r.from));
  app.querySelector('#report-from').value = '2026-10-01';
  app.querySelector('#report-to').value = '2026-10-31';
  app.querySelector('main form').dispatchEvent(new Event('submit',
    { cancelable: true }));
  await settle(15);
  assert.deepEqual(asked('/reports/daily').at(-1), { from: '2026-10-01',
    to: '2026-11-01' });
  assert.deepEqual(asked('/reports/funnel').at(-1), {
    from: '2026-10-01T00:00:00+09:00', to: '2026-11-01T00:00:00+09:00',
    group_by: 'campaign' });
  // an end before the start is refused here, asked of nobody
  const n = calls.length;
  app.querySelector('#report-to').value = '2026-09-30';
  app.querySelector('main form').dispatchEvent(new Event('submit',
    { cancelable: true }));
  await settle(15);
  assert.equal(calls.length, n);
  assert.match(app.querySelector('.error').textContent, /期間の終わり/);
});

test('the dashboard asks and shows what the reports screen does',
  async () => {
    let app = await go('#/');
    const dashFunnel = asked('/reports/funnel');
    const dashDaily = asked('/reports/daily');
    const text = (title) => {
      const c = cardOf(document.getElementById('app'), title);
      return [c.querySelector('table').textContent,
        c.querySelector('ul').textContent];
    };
    const dash = [text('ファネル'), text('日別')];
    assert.equal(charts.length, 1);
    assert.equal(app.querySelectorAll('main a[href="#/reports"]').length, 2);
    calls.length = 0;
    app = await go('#/reports');
    // the same days (the checklist's funnel too), the same figures
    for (const q of dashFunnel)
      assert.deepEqual({ from: q.from, to: q.to },
        { from: asked('/reports/funnel')[0].from,
          to: asked('/reports/funnel')[0].to });
    assert.deepEqual(dashDaily, asked('/reports/daily'));
    assert.deepEqual([text('ファネル'), text('日別')], dash);
    assert.equal(app.querySelector('main h1').textContent, 'レポート');
  });

test('the chart\'s days: month and day in Japan, never hours', async () => {
  assert.equal(monthDay(Date.parse('2026-11-28T00:00:00+09:00') / 1000),
    '11/28');
  assert.equal(monthDay(Date.parse('2027-01-01T00:00:00+09:00') / 1000),
    '1/1');
  await go('#/reports');
  const [x] = charts[0][0].axes;
  assert.ok(x.incrs.every((i) => i % 86400 === 0));
  assert.deepEqual(x.values(null, charts[0][1][0]), ['11/27', '11/28']);
});

test('a chart that cannot be drawn leaves the table', async () => {
  lib.load = async () => { throw new Error('no canvas'); };
  const app = await go('#/reports');
  const days = cardOf(app, '日別の推移');
  assert.match(days.querySelector('.chart').textContent, /表のとおり/);
  assert.equal(days.querySelectorAll('details tbody tr').length, 2);
});
