// Browser test of the page tag on the demo shop (tests/e2e/shop/).
//
//   FB_SHOP=http://127.0.0.1:PORT/shop node tests/e2e/capture.mjs
//
// FB_SHOP: URL of the shop folder as served, with each page's
// <!--FORMBACK_SNIPPET--> already replaced by the site's snippet.
// FB_CHROMIUM: the browser (default /usr/bin/chromium).
// FB_TIMEOUT_MS: limit for the whole run (default 90000).
//
// Visitor A: index.html -> form.html, types name, split phone 090/1234/5678 and
// email, then leaves for index.html.  Visitor B (a new context, so a new
// visitor): form2.html, types phone and email, submits to thanks.html.
// Prints one JSON line {"a":{"events":[...],...},"b":{...}} and exits 0;
// prints the error on stderr and exits 1 when anything failed: a page raised a
// JavaScript error, a request went to another origin than the shop's, tag.js
// or its configuration did not load, or a beacon was not answered 2xx.
//
// Each visitor's browser context goes through a small recording proxy
// started here: Chromium's DevTools (so Playwright's request events) never
// report a beacon sent from `pagehide`, which is how the tag reports a
// visitor leaving a form.  The test waits on what the proxy saw (so many
// beacons, every one answered), never on time.
import http from 'node:http';
import net from 'node:net';
import { chromium } from 'playwright-core';

const shop = (process.env.FB_SHOP || '').replace(/\/+$/, '');
const executablePath = process.env.FB_CHROMIUM || '/usr/bin/chromium';
const limit = Number(process.env.FB_TIMEOUT_MS || 90000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function fail(msg, summary) {
  process.stderr.write(`capture.mjs: ${msg}\n`);
  if (summary) process.stderr.write(`${JSON.stringify(summary)}\n`);
  process.exit(1);
}

if (!/^https?:\/\//.test(shop)) fail('set FB_SHOP to the shop folder URL, e.g. http://127.0.0.1:8080/shop');
const origin = new URL(shop).origin;

// One record per visitor, each visitor's browser context with a proxy of
// its own, so every request is filed under its visitor whenever it comes;
// the browser's own traffic goes through a proxy of its own.
const states = [];
const proxies = [];

function visitorState(name) {
  const st = { name, events: [], bodies: [], errors: [], pending: 0 };
  states.push(st);
  return st;
}

const isBeacon = (method, u) => method === 'POST' && /\/tag\/v1\/events$/.test(u.pathname);
const isTagFile = (u) => /\/tag\.js$/.test(u.pathname) || /\/tag\/[^/]+\.json$/.test(u.pathname);

function fromShop(h) {
  const same = (v) => { try { return new URL(v).origin === origin; } catch { return false; } };
  return same(h.origin) || same(h.referer);
}

function startProxy(st) {
  const server = http.createServer((req, res) => {
    let u;
    try { u = new URL(req.url); } catch { res.writeHead(400); res.end(); return; }
    if (u.origin !== origin) {
      // Chromium's own traffic (updates, sign-in) is refused quietly; a request
      // made by a shop page carries the page's origin or referrer
      if (fromShop(req.headers))
        st.errors.push(`${st.name}: request to another origin: ${req.method} ${req.url}`);
      res.writeHead(403);
      res.end();
      return;
    }
    const beacon = isBeacon(req.method, u);
    if (beacon) st.pending++;
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (beacon) {
        let ev = null;
        try { ev = JSON.parse(body.toString('utf8')); } catch { /* below */ }
        if (ev && typeof ev.type === 'string') {
          st.events.push(ev.type);
          st.bodies.push(ev);
        } else {
          st.errors.push(`${st.name}: beacon body is not an event: ${body.toString('utf8').slice(0, 200)}`);
        }
        if (!/^text\/plain\b/.test(req.headers['content-type'] || ''))
          st.errors.push(`${st.name}: beacon sent as ${req.headers['content-type']}, not text/plain`);
      }
      const headers = { ...req.headers };
      delete headers['proxy-connection'];
      const done = () => { if (beacon) st.pending--; };
      const up = http.request(u, { method: req.method, headers }, (ur) => {
        const s = ur.statusCode;
        if ((beacon || isTagFile(u)) && (s < 200 || s > 299) && !(s === 304 && !beacon))
          st.errors.push(`${st.name}: ${req.method} ${u.pathname} answered ${s}`);
        res.writeHead(s, ur.headers);
        ur.pipe(res);
        ur.on('end', done);
        ur.on('error', done);
      });
      up.on('error', (e) => {
        st.errors.push(`${st.name}: ${req.method} ${req.url} failed: ${e.message}`);
        done();
        res.writeHead(502);
        res.end();
      });
      up.end(body);
    });
  });
  // https: only the host is seen; tunnel to the shop's origin, refuse the rest
  // (pages' requests to other hosts are caught by the Playwright listener)
  server.on('connect', (req, sock, head) => {
    const o = new URL(shop);
    const port = o.port || (o.protocol === 'https:' ? '443' : '80');
    if (req.url !== `${o.hostname}:${port}`) {
      sock.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const up = net.connect(Number(port), o.hostname, () => {
      sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(sock);
      sock.pipe(up);
    });
    up.on('error', () => sock.destroy());
    sock.on('error', () => up.destroy());
  });
  proxies.push(server);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`));
  });
}

// Wait until `n` beacons were seen (or `n` holds, when a function of the
// state) and every beacon seen was answered.
async function beacons(st, n, what) {
  const t0 = Date.now();
  const seen = typeof n === 'function' ? n : () => st.events.length >= n;
  while (!seen(st)) {
    if (st.errors.length) throw new Error(`${st.name}: stopped waiting for ${what}: ${st.errors[0]}`);
    if (Date.now() - t0 > 15000)
      throw new Error(`${st.name}: no ${what} beacon within 15 s (seen: ${st.events.join(', ') || 'none'})`);
    await sleep(50);
  }
  await answered(st);
}

// Wait until every beacon the proxy has received was answered by the collector.
async function answered(st) {
  const t0 = Date.now();
  while (st.pending > 0) {
    if (Date.now() - t0 > 15000) throw new Error(`${st.name}: beacons still pending after 15 s`);
    await sleep(20);
  }
}

const withEmail = (st) => st.bodies.some((b) => b.type === 'capture' && b.contact && b.contact.email);

function summary(st) {
  const ids = (k) => [...new Set(st.bodies.map((b) => b[k]))];
  return {
    events: st.events,
    contacts: st.bodies.filter((b) => b.type === 'capture').map((b) => b.contact),
    pages: st.bodies.map((b) => `${b.type} ${new URL(b.url).pathname} ${b.campaign}/${b.role}`),
    visitor: ids('visitor')[0] || null,
    visitors: ids('visitor').length,
    sessions: ids('session').length,
  };
}

async function newVisitor(browser, name) {
  const st = visitorState(name);
  const context = await browser.newContext({ locale: 'ja-JP', proxy: { server: await startProxy(st) } });
  context.on('request', (req) => {
    const u = new URL(req.url());
    if (/^(https?|wss?):$/.test(u.protocol) && u.origin !== origin)
      st.errors.push(`${name}: request to another origin: ${req.method()} ${req.url()}`);
  });
  context.on('page', (page) => {
    page.on('pageerror', (err) => st.errors.push(`${name}: JavaScript error on ${page.url()}: ${err.message}`));
  });
  return [context, st];
}

async function type(page, selector, value) {
  await page.locator(selector).click();
  await page.locator(selector).pressSequentially(value, { delay: 40 });
}

async function visitorA(browser) {
  const [context, st] = await newVisitor(browser, 'a');
  try {
    const page = await context.newPage();
    await page.goto(`${shop}/index.html`);
    await beacons(st, 1, 'page_view (index.html)');
    await Promise.all([page.waitForURL(/\/form\.html/), page.click('a[href="form.html"]')]);
    await beacons(st, 2, 'page_view (form.html)');
    await type(page, 'input[name=name]', '山田太郎');
    await type(page, 'input[name=tel1]', '090');
    await type(page, 'input[name=tel2]', '1234');
    await type(page, 'input[name=tel3]', '5678');
    await type(page, 'input[name=email]', 'taro.yamada@example.jp');
    await page.goto(`${shop}/index.html`); // leaves the form
    // the capture with the email (sent on pagehide at the latest), then the page view
    await beacons(st, (x) => withEmail(x) && x.events.filter((e) => e === 'page_view').length >= 3,
      'capture with the email and page_view (back on index.html)');
  } finally {
    // closed, the context sends nothing more: what it sent is answered
    await context.close();
    await answered(st).catch(() => {});
  }
}

async function visitorB(browser) {
  const [context, st] = await newVisitor(browser, 'b');
  try {
    const page = await context.newPage();
    await page.goto(`${shop}/form2.html`);
    await beacons(st, 1, 'page_view (form2.html)');
    await type(page, 'input[name=phone]', '08011112222');
    await type(page, 'input[name=email]', 'hanako@example.jp');
    await Promise.all([page.waitForURL(/\/thanks\.html/), page.click('button[type=submit]')]);
    await beacons(st, (x) => withEmail(x) && x.events.includes('conversion'),
      'capture with the email and conversion');
  } finally {
    // closed, the context sends nothing more: what it sent is answered
    await context.close();
    await answered(st).catch(() => {});
  }
}

const timer = setTimeout(() => fail(`timed out after ${limit} ms`), limit);
let browser;
try {
  browser = await chromium.launch({
    executablePath,
    proxy: { server: await startProxy({ name: 'browser', events: [], bodies: [], errors: [], pending: 0 }) },
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  await visitorA(browser);
  await visitorB(browser);
  await browser.close();
  browser = null;
  for (const p of proxies) p.close();
  const [a, b] = states;
  const out = { a: summary(a), b: summary(b) };
  const errors = states.flatMap((s) => s.errors);
  for (const [k, s] of Object.entries(out)) {
    if (s.visitors > 1) errors.push(`${k}: the visitor id changed between pages`);
    if (s.sessions > 1) errors.push(`${k}: the session id changed between pages`);
  }
  if (out.a.visitor && out.a.visitor === out.b.visitor) errors.push('a and b share a visitor id');
  if (errors.length) fail(errors.join('\n'), out);
  clearTimeout(timer);
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
} catch (err) {
  if (browser) await browser.close().catch(() => {});
  fail([err && err.message ? err.message : String(err), ...states.flatMap((s) => s.errors)].join('\n'),
    states.length ? Object.fromEntries(states.map((s) => [s.name, summary(s)])) : null);
}
