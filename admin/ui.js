// Building the page: every value from the server goes in as text
// (textContent), never as markup; links and attributes are set one by one.
import { label, paramLabel } from './labels.js';

// h('p', {class: 'x', onclick: f}, 'text', child, ...): an element.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// A card of a screen: a section with its heading (none when title is
// null) and what follows it.
export function card(title, ...content) {
  return h('section', { class: 'card' },
    title === null ? null : h('h2', null, title), content);
}

// A table of rows (arrays of cells) under titles; at a phone's width
// each row is a card, each cell labelled with its column's title.
export function dataTable(titles, rows) {
  if (!rows.length) return h('p', { class: 'muted' }, 'まだありません。');
  return h('table', { class: 'cards' }, thead(titles), h('tbody', null,
    rows.map((r) => h('tr', null, r.map((c, i) =>
      h('td', { 'data-label': titles[i] }, c))))));
}

// A table's head row of column titles.
// (an empty title, a column of buttons, is named for screen readers)
export function thead(titles) {
  return h('thead', null, h('tr', null, titles.map((t) => h('th', null,
    t === '' ? h('span', { class: 'vh' }, '操作') : t))));
}

// The contract's Japanese message of an error, with the field it names
// as the form labels it (labels.js paramLabel()), never the API's name.
export function errorBox(err) {
  const f = paramLabel(err.param);
  return h('p', { class: 'error', role: 'alert' },
    f ? `${err.message}(${f})` : err.message);
}

// A notice of what an action did (role=status: read out when it shows).
export function notice(text) {
  return h('p', { class: 'notice', role: 'status' }, text);
}

// A value of an enumeration (labels.js kind) as a badge in Japanese;
// its class is the value, for its colour.
export function badge(kind, s) {
  return h('span', { class: `badge ${s || ''}` }, label(kind, s));
}

// An ISO time as JST, as the shops read it.
export function jst(t) {
  if (!t) return '—';
  return new Date(t).toLocaleString('ja-JP', { timeZone: 'Asia/Tokyo' });
}

// The input of one form field (see form()).
function field(d) {
  if (d.type === 'select')
    return h('select', { name: d.name }, d.options.map(([v, t]) =>
      h('option', { value: v, selected: v === d.value }, t)));
  if (d.type === 'textarea')
    return h('textarea', { name: d.name, required: d.required },
      d.value || '');
  return h('input', { name: d.name, type: d.type || 'text', value: d.value,
    required: d.required, autocomplete: d.autocomplete, accept: d.accept,
    placeholder: d.placeholder });
}

// A form: fields [{name, label, type, options, value, required}],
// onSubmit(values, out): its message (or nothing) is shown in out, below
// the button, as is its error.  While it runs, its button is disabled
// ("long actions show progress").
export function form(fields, submitLabel, onSubmit, cls = 'stack') {
  const out = h('div');
  const inputs = {};
  const btn = h('button', { type: 'submit' }, submitLabel);
  const f = h('form', { class: cls }, fields.map((d) => {
    const input = field(d);
    inputs[d.name] = input;
    return h('label', null, d.label, input);
  }), btn, out);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const values = {};
    for (const [k, el] of Object.entries(inputs))
      values[k] = el.type === 'file' ? el.files[0] : el.value;
    btn.disabled = true;
    clear(out);
    for (const el of Object.values(inputs)) el.removeAttribute('aria-invalid');
    try {
      const msg = await onSubmit(values, out);
      if (msg) clear(out, notice(msg));
    } catch (e) {
      clear(out, errorBox(e));
      const bad = e.param && inputs[e.param];
      if (bad) {
        bad.setAttribute('aria-invalid', 'true');
        bad.focus();
      }
    } finally {
      btn.disabled = false;
    }
  });
  return f;
}

// A list with the API's cursor paging: load(cursor) gives the page JSON,
// columns [[title, row => value]].  The box it returns has refresh(),
// which asks for the first page again and puts it in place of the rows
// shown (none are lost on a failure), and pages, how many are shown.
export function pagedTable(load, columns) {
  const box = h('div');
  const body = h('tbody');
  const more = h('button', { class: 'secondary', type: 'button' },
    'さらに表示');
  const status = h('div');
  let cursor = null;
  const row = (r) => h('tr', null, columns.map(([t, f]) =>
    h('td', { 'data-label': t }, f(r))));
  async function fetchPage(first) {
    more.disabled = true;
    box.setAttribute('aria-busy', 'true');
    try {
      const page = await load(first ? null : cursor);
      const rows = page.data.map(row);
      if (first) body.replaceChildren(...rows);
      else body.append(...rows);
      box.pages = first ? 1 : box.pages + 1;
      clear(status);
      cursor = page.next_cursor;
      more.hidden = !page.has_more;
      // an empty table is left out (a head over no cells says nothing)
      table.hidden = !body.children.length;
      if (!body.children.length)
        clear(status, h('p', { class: 'muted' }, 'まだありません。'));
    } catch (e) {
      clear(status, errorBox(e));
    } finally {
      more.disabled = false;
      box.setAttribute('aria-busy', 'false');
    }
  }
  more.addEventListener('click', () => fetchPage(false));
  more.hidden = true;
  const table = h('table', { class: 'cards' }, h('thead', null, h('tr', null,
    columns.map(([t]) => h('th', { scope: 'col' },
      t === '' ? h('span', { class: 'vh' }, '操作') : t)))), body);
  box.append(table, status, more);
  box.pages = 0;
  box.refresh = () => fetchPage(true);
  fetchPage(true);
  return box;
}

// How often a list asks again by itself, while its screen is shown.
export const pollMs = 30e3;

// A list kept fresh without a reload: a 「更新」 button, the time of the
// last refresh, and refresh() again every pollMs while the page is
// visible and `el` is on it.  refresh(quiet): quiet is true when the
// timer asks (the list may then leave what the reader is paging
// through as it is).  The timer ends when `el` leaves the page.
export function freshness(el, refresh) {
  const when = h('span', { class: 'muted' });
  const stamp = () => {
    when.textContent = `最終更新 ${new Date().toLocaleTimeString('ja-JP',
      { timeZone: 'Asia/Tokyo' })}`;
  };
  const run = async (quiet) => {
    await refresh(quiet);
    stamp();
  };
  const button = h('button', { type: 'button', class: 'secondary',
    onclick: () => run(false) }, '更新');
  const timer = setInterval(() => {
    if (!el.isConnected) return clearInterval(timer);
    if (document.visibilityState === 'hidden') return;
    run(true);
  }, pollMs);
  stamp();
  return h('span', { class: 'row fresh' }, button, when);
}

// A link that downloads what an export operation gives (a CSV), with the
// session's cookie; url is api.js apiUrl()'s, set again by the caller
// when its filters change (link.href).
export function exportLink(url, text = 'CSV で書き出す') {
  return h('a', { class: 'button secondary', download: '',
    href: url.pathname + url.search }, text);
}

// A button that copies text to the clipboard.
export function copyButton(text, label = 'コピー') {
  const b = h('button', { type: 'button', class: 'secondary' }, label);
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'コピーしました';
    } catch {
      b.textContent = 'コピーできません: 選択してコピーしてください';
    }
  });
  return b;
}

// A button whose action asks first (destructive or costly actions): a
// click puts the question in its place with 「ok」 and 「やめる」
// (focused, the safe choice); 「ok」 runs run(), whose message (if any)
// shows in its place, as does its error (the button comes back).
export function confirmButton(text, question, run,
  { cls = 'danger', ok = text, aria = null } = {}) {
  const box = h('span', { class: 'confirm' });
  const first = (...after) => clear(box, h('button', { type: 'button',
    class: cls, 'aria-label': aria, onclick: ask }, text), after);
  const go = async (ev) => {
    ev.target.disabled = true;
    try {
      const msg = await run();
      if (msg) clear(box, notice(msg));
      else if (box.isConnected) first();
    } catch (e) { first(' ', errorBox(e)); }
  };
  function ask() {
    const no = h('button', { type: 'button', class: 'secondary',
      onclick: () => { first(); box.querySelector('button').focus(); } },
    'やめる');
    clear(box, h('span', { class: 'question' }, question), ' ',
      h('button', { type: 'button', class: cls, onclick: go }, ok), ' ', no);
    no.focus();
  }
  return first();
}

// What a dialog's Tab moves between: its enabled controls and links.
const focusable = 'a[href], button:not([disabled]), input:not([disabled]),' +
  ' select:not([disabled]), textarea:not([disabled]), [tabindex="0"]';

// A modal dialog (<dialog>, role dialog, named by its title) over the
// page: Tab and Shift+Tab stay inside it, Escape and 「閉じる」 close it,
// and closing gives the focus back to what had it (the button that opened
// it).  content(close) draws the inside; returns {dialog, close}.
export function modal(title, content) {
  const back = document.activeElement;
  const id = `dlg-${Math.random().toString(36).slice(2, 10)}`;
  const dialog = h('dialog', { class: 'modal', 'aria-labelledby': id,
    'aria-modal': 'true' });
  const close = () => {
    if (dialog.open && dialog.close) dialog.close();
    dialog.remove();
    if (back && back.isConnected && back.focus) back.focus();
  };
  clear(dialog, h('h2', { id }, title), content(close),
    h('div', { class: 'row' }, h('button', { type: 'button',
      class: 'secondary', onclick: close }, '閉じる')));
  dialog.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') { ev.preventDefault(); close(); return; }
    if (ev.key !== 'Tab') return;
    const all = [...dialog.querySelectorAll(focusable)];
    if (!all.length) return;
    const first = all[0], last = all[all.length - 1];
    if (ev.shiftKey && document.activeElement === first) {
      ev.preventDefault(); last.focus();
    } else if (!ev.shiftKey && document.activeElement === last) {
      ev.preventDefault(); first.focus();
    }
  });
  dialog.addEventListener('cancel', (ev) => { ev.preventDefault(); close(); });
  document.body.append(dialog);
  if (dialog.showModal) dialog.showModal();
  else dialog.setAttribute('open', '');
  const start = dialog.querySelector(
    'input:not([type=hidden]), select, textarea') ||
    dialog.querySelector(focusable);
  if (start) start.focus();
  return { dialog, close };
}
