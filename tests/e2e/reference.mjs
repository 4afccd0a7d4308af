// The API reference page (issue 41): `make reference` renders
// openapi.json into one static page, which the web server, through the
// shipped fragment, serves as {base_url}/docs/api.  Checks that it is
// served as HTML under its CSP, that headless Chromium renders it with
// no page error, no CSP violation and no request to another origin, that
// it lists every operation of the document the server serves (so it is
// not stale), and that it holds the prose: the introduction pointing to
// the man pages, an operation's description.
//
// Env: FB_URL.  Prints "openapi: N passed, M failed" (scripts/check
// counts that label).
import { chromium } from 'playwright-core';

const base = process.env.FB_URL;
const url = `${base}/docs/api`;
let passed = 0, failed = 0;

function check(what, ok, detail) {
  if (ok) { passed++; console.log(`ok   reference: ${what}`); }
  else { failed++; console.log(`FAIL reference: ${what}${detail ? ': ' + detail : ''}`); }
}

async function main() {
  const res = await fetch(url);
  const html = await res.text();
  check('/docs/api is served, 200', res.status === 200, `${res.status}`);
  check('as text/html; charset=utf-8', res.headers.get('content-type') === 'text/html; charset=utf-8',
    res.headers.get('content-type'));
  check('under a CSP that loads nothing from elsewhere',
    /default-src 'none'/.test(res.headers.get('content-security-policy') || ''),
    res.headers.get('content-security-policy'));
  check('by the web server, not formback.fcgi (no X-Request-Id)', !res.headers.has('x-request-id'));
  check('the page is Redoc\'s, built from openapi.json', html.includes('Formback API'));

  // the document the server serves: every operation, by tag
  const doc = await (await fetch(`${base}/api/v1/openapi.json`)).json();
  const ops = [];
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item)) ops.push(op);
  check('the served openapi.json has operations', ops.length > 50, `${ops.length}`);

  const browser = await chromium.launch({ executablePath: process.env.FB_CHROMIUM ||
    '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy|Refused to/i.test(m.text()))
      problems.push(`console: ${m.text().slice(0, 200)} (${m.location().url})`);
  });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`); });
  page.on('request', (r) => {
    if (!r.url().startsWith(base) && !r.url().startsWith('data:'))
      problems.push(`another origin: ${r.url()}`);
  });
  await page.goto(url);
  await page.getByRole('heading', { name: 'Authentication' }).waitFor();
  const intro = await page.evaluate(() => document.body.innerText);
  check('the introduction points to the operator\'s man pages',
    intro.includes('formback.fcgi(8)') && intro.includes('formback.conf(5)'));
  // the sidebar lists every operation once its tag is open (one tag
  // open at a time, as the sidebar may fold the others): the links seen
  // under each, gathered
  const hrefs = [];
  for (const tag of doc.tags.map((t) => t.name)) {
    await page.locator(`a[href="#/${tag}"], a[href="/${tag}"]`).first().click();
    await page.waitForTimeout(500);
    hrefs.push(...await page.evaluate(() =>
      [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href').toLowerCase())));
  }
  const missing = ops.filter((op) =>
    !hrefs.some((h) => h.endsWith(`/${op.operationId.toLowerCase()}`))).map((op) => op.operationId);
  check(`the page lists every operationId of the served document (${ops.length})`,
    missing.length === 0, missing.join(', '));
  // an operation's prose (openapi.md), rendered
  await page.goto(`${url}#/public/replacecampaignurlrules`);
  await page.getByText('regex_too_complex').first().waitFor({ timeout: 15000 }).catch(() => {});
  const op = await page.evaluate(() => document.body.innerText);
  check('an operation\'s description is rendered', op.includes('regex_too_complex'));
  check('no page error, CSP violation or request elsewhere', problems.length === 0,
    problems.join('; '));
  await browser.close();
}

main().catch((e) => { failed++; console.log(`FAIL reference: ${e.stack}`); })
  .finally(() => {
    console.log(`openapi: ${passed} passed, ${failed} failed (the reference page, ${url})`);
    process.exit(failed ? 1 : 0);
  });
