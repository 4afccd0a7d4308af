// Charts, drawn by uPlot (admin/vendor/, pinned in
// admin/test/package-lock.json; docs/internals/admin.md says why).  The
// library is loaded on a chart's first drawing, so a screen without one
// never fetches it; the node tests put a recorder in lib.load.
import { h, clear } from './ui.js';

export const lib = {
  load: async () => (await import('./vendor/uPlot.esm.js')).default,
};

// a series' colour, in the order of the series (the legend's swatches
// take the same); each is dark enough for text on white
export const palette = ['#1559c9', '#c62828', '#2e7d32', '#6a1b9a',
  '#a14800', '#00695c'];

const height = 240;

// A day's start (UTC seconds) as its month and day in Japan: 「11/28」.
export function monthDay(ts) {
  const d = new Date(ts * 1e3 + 9 * 3600e3);
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}`;
}
const widthOf = (el) => Math.max(260, el.clientWidth || 640);

// The legend: a swatch and the series' label each (uPlot's own is off:
// a table of live values that a screen reader reads poorly).
export function legend(series) {
  return h('ul', { class: 'legend' }, series.map((s, i) => {
    const sw = h('span', { class: 'swatch', 'aria-hidden': 'true' });
    sw.style.background = palette[i % palette.length];
    return h('li', null, sw, s.label);
  }));
}

// A line chart of days into el: x the days' starts (UTC seconds), series
// [{label, values}] (null: a gap, a day not counted).  The chart is a
// picture named by `name`; the figures themselves are in the table the
// caller puts beside it.  Resolves to the uPlot instance.
export async function dayChart(el, { x, series }, name) {
  const UPlot = await lib.load();
  clear(el);
  el.setAttribute('role', 'img');
  el.setAttribute('aria-label', name);
  const plot = new UPlot({
    width: widthOf(el), height,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    tzDate: (ts) => UPlot.tzDate(new Date(ts * 1e3), 'Asia/Tokyo'),
    scales: { x: { time: true },
      y: { range: (u, min, max) => [0, Math.max(4, max)] } },
    // days on x (M/D in Japan, never hours), whole numbers on y
    axes: [{ incrs: [1, 2, 7, 14, 28].map((n) => n * 86400), space: 48,
      values: (u, ticks) => ticks.map(monthDay) },
    { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
      10000, 20000, 50000, 100000] }],
    series: [{ label: '日付' }, ...series.map((s, i) => ({
      label: s.label, stroke: palette[i % palette.length], width: 2,
      points: { show: true, size: 5 } }))],
  }, [x, ...series.map((s) => s.values)], el);
  // the width follows the page's (a phone turned, a window resized)
  if (typeof ResizeObserver === 'function') {
    const ro = new ResizeObserver(() => {
      if (!el.isConnected) return ro.disconnect();
      if (widthOf(el) !== plot.width)
        plot.setSize({ width: widthOf(el), height });
    });
    ro.observe(el);
  }
  return plot;
}
