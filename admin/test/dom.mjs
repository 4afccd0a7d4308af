// A browser's globals for the admin UI's modules under node's test
// runner: a happy-dom window at the admin UI's address, and fetch() and
// the clipboard replaced by recorders the tests read.
import { Window } from 'happy-dom';

export const origin = 'https://admin.example.test';

// A screen's timers (a list's refresh every 30 s) must not keep the test
// process up after its last test: each is unref'd (the polling test
// runs node's mock timers instead).
const nodeSetInterval = globalThis.setInterval;
globalThis.setInterval = (...args) => {
  const t = nodeSetInterval(...args);
  if (t && t.unref) t.unref();
  return t;
};

// Install a fresh window as the globals ui.js, api.js and the screens
// use (document, Node, Event, location, navigator); returns it.
export function installDom(hash = '') {
  const window = new Window({ url: `${origin}/admin/${hash}` });
  for (const k of ['window', 'document', 'Node', 'Event', 'location',
    'sessionStorage'])
    Object.defineProperty(globalThis, k, { value: k === 'window' ? window :
      window[k], configurable: true, writable: true });
  Object.defineProperty(globalThis, 'navigator',
    { value: window.navigator, configurable: true, writable: true });
  window.document.body.innerHTML = '<div id="app"></div>';
  return window;
}

// fetch() answering from answer(url, init) ({status, body} or a
// Response); every call is kept in calls as {url, method, headers, body,
// credentials}.
export function fakeFetch(answer) {
  const calls = [];
  globalThis.fetch = async (url, init = {}) => {
    const call = { url: new URL(String(url)), ...init };
    calls.push(call);
    const a = await answer(call);
    if (a instanceof Response) return a;
    const body = a.body === undefined ? '' :
      typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
    return new Response(a.status === 204 ? null : body,
      { status: a.status || 200 });
  };
  return calls;
}

// Let pending promises and their continuations run.
export async function settle(rounds = 5) {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
