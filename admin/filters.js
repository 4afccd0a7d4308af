// What the lists and the reports filter by: days in Japan (the shops'
// calendar) turned into the API's bounds, and the campaign to show.
import { api } from './api.js';
import { h } from './ui.js';

const DAY = 86400e3;

// The date in Japan n days from now (YYYY-MM-DD).
export function jstDay(n = 0, now = Date.now()) {
  return new Date(now + 9 * 3600e3 + n * DAY).toISOString().slice(0, 10);
}

// day (YYYY-MM-DD) plus n days.
export function addDays(day, n) {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY).toISOString()
    .slice(0, 10);
}

// The days from a to b (YYYY-MM-DD, b excluded).
export function daysBetween(a, b) {
  return Math.round((Date.parse(b) - Date.parse(a)) / DAY);
}

// The start of a day in Japan as a date-time with its offset (the form
// the funnel's and the lists' from and to take).
export function jstStart(day) {
  return `${day}T00:00:00+09:00`;
}

// The last n days, today (in Japan) included: {from, to}, to excluded.
export function lastDays(n, now = Date.now()) {
  const to = jstDay(1, now);
  return { from: addDays(to, -n), to };
}

// A list's from and to for the days a form shows (the first and the
// last, both included; either may be empty): the API's date-times.
export function dayBounds(first, last) {
  return { from: first ? jstStart(first) : undefined,
    to: last ? jstStart(addDays(last, 1)) : undefined };
}

// A select of the tenant's campaigns (GET /campaigns, the first 200),
// 「すべて」 first; its options come when the answer does, and then
// ready() resolves.  A failure leaves 「すべて」 alone.
export function campaignSelect(attrs, all = 'すべてのキャンペーン') {
  const sel = h('select', attrs, h('option', { value: '' }, all));
  sel.ready = api('GET', '/campaigns', undefined, { limit: 200 })
    .then((r) => sel.append(...r.data.map((c) =>
      h('option', { value: c.id }, c.name))))
    .catch(() => {});
  return sel;
}
