'use strict';
// The shared URL rule vectors (tests/data/url-match.json) against tag.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const tag = require('../tag.js');

const data = JSON.parse(fs.readFileSync(
  path.join(__dirname, '../../tests/data/url-match.json'), 'utf8'));

// The published order: priority ascending with null last, then the
// campaign's index in `campaigns`, then the rule's original position.
function publishedOrder(c) {
  return c.rules.map((r, i) => ({ r, i })).sort((x, y) => {
    const px = x.r.priority, py = y.r.priority;
    if ((px === null) !== (py === null)) return px === null ? 1 : -1;
    if (px !== py) return px - py;
    const cx = c.campaigns.indexOf(x.r.campaign), cy = c.campaigns.indexOf(y.r.campaign);
    if (cx !== cy) return cx - cy;
    return x.i - y.i;
  });
}

function browserLocation(url) {
  const u = new URL(url);
  return { hostname: u.hostname, pathname: u.pathname, search: u.search };
}

test('url-match.json has cases', () => {
  assert.ok(Array.isArray(data.cases) && data.cases.length > 0);
});

for (const c of data.cases) {
  test(`url-match: ${c.name}`, () => {
    const order = publishedOrder(c);
    const rules = order.map((o) => o.r);
    const loc = browserLocation(c.url);
    const got = tag.decide(rules, loc);
    assert.equal(got.campaign, c.expect.campaign, 'campaign');
    assert.equal(got.role, c.expect.role, 'role');
    assert.equal(got.evaluated, c.expect.evaluated, 'evaluated');
    // `matched` is the index in the case's own (unsorted) rules
    assert.equal(got.matched === null ? null : order[got.matched].i, c.expect.matched, 'matched');
    // parseLocation agrees with the browser's view
    assert.deepEqual(tag.parseLocation(c.url), loc);
  });
}

// The locations are the browser's (the URL Standard): the C parser is
// held to the same vectors (tests/unit/test_match.c).
for (const l of data.locations) {
  test(`location: ${JSON.stringify(l.url)}`, () => {
    assert.deepEqual(tag.parseLocation(l.url),
      { hostname: l.hostname, pathname: l.pathname, search: l.search });
    // href is what the server keeps (url_href): the browser's location,
    // user info left out
    const u = new URL(l.url);
    assert.equal(u.protocol + '//' + u.host + u.pathname + u.search + u.hash, l.href);
  });
}

test('unparsable: no http(s) location', () => {
  for (const u of data.unparsable) {
    let ok = true;
    try { ok = /^https?:$/.test(new URL(u).protocol); } catch (e) { ok = false; }
    assert.equal(ok, false, u);
  }
});

test('invalid_regex: refused by the server; the tag never throws on them', () => {
  for (const p of data.invalid_regex) {
    // JS may accept some of them (e.g. lookbehind); the server refuses them all,
    // so the tag never receives one.  Whatever happens, matching must not throw.
    const rule = { campaign: 'x', role: 'form', match_type: 'regex', pattern: p, priority: null };
    assert.doesNotThrow(() => tag.decide([rule], browserLocation('https://a.example/x?y=1')), p);
  }
});

test('regex that does not compile never matches and never throws', () => {
  const r = { campaign: 'x', role: 'form', match_type: 'regex', pattern: '(', priority: null };
  assert.equal(tag.ruleMatches(r, browserLocation('https://a.example/(')), false);
});

test('unknown match type and malformed rules never match', () => {
  const loc = browserLocation('https://a.example/x');
  assert.equal(tag.ruleMatches({ match_type: 'exact', pattern: '/x' }, loc), false);
  assert.equal(tag.ruleMatches(null, loc), false);
  assert.deepEqual(tag.decide([], loc), { campaign: null, role: null, matched: null, evaluated: 0 });
});

test('query: pattern as written, query decoded; + is a space', () => {
  const m = (p, url) => tag.ruleMatches({ match_type: 'query', pattern: p }, browserLocation(url));
  assert.equal(m('q=a b', 'https://a.example/?q=a+b'), true);
  assert.equal(m('q=a', 'https://a.example/?x=1&q=b&q=a'), true);
  assert.equal(m('q=', 'https://a.example/?q'), true);
  assert.equal(m('q', 'https://a.example/?Q=1'), false);
  assert.equal(m('__proto__', 'https://a.example/?x'), false);
});

test('glob: star backtracking and empty runs', () => {
  assert.equal(tag.globMatch('/a*b*c', '/aXbYbZc'), true);
  assert.equal(tag.globMatch('/a*', '/a'), true);
  assert.equal(tag.globMatch('/a?', '/a'), false);
  assert.equal(tag.globMatch('/*/', '/x/y/'), true);
  assert.equal(tag.globMatch('/*.html', '/a/b.htm'), false);
});

test('host: wildcard needs a label, case-insensitive', () => {
  const m = (p, url) => tag.ruleMatches({ match_type: 'host', pattern: p }, browserLocation(url));
  assert.equal(m('*.Example.JP', 'https://x.example.jp/'), true);
  assert.equal(m('*.example.jp', 'https://badexample.jp/'), false);
  assert.equal(m('example.jp', 'https://www.example.jp/'), false);
});

// What keeps a match bounded: the server's rule (src/match.c), the same
// vectors; a refused pattern never matches, so it never stalls a page.
test('unbounded_regex: refused by the server, skipped by the tag', () => {
  for (const p of data.unbounded_regex) {
    assert.equal(tag.regexBounded(p), false, p);
    assert.equal(tag.ruleMatches({ match_type: 'regex', pattern: p },
      { hostname: 'a.jp', pathname: '/form' + 'a'.repeat(40) + 'b', search: '' }), false, p);
  }
});

test('bounded_regex: accepted by both', () => {
  for (const p of data.bounded_regex) assert.equal(tag.regexBounded(p), true, p);
});
