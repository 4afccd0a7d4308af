// rules.js: the decision on the shared vectors (tests/data/url-match.json,
// which src/match.c and tag.js are held to), and the shadow warnings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { topDir } from './fixtures.mjs';
import { decide, parseLocation, shadows, covers,
  evaluationOrder } from '../rules.js';

const data = JSON.parse(readFileSync(join(topDir,
  'tests/data/url-match.json'), 'utf8'));

for (const c of data.cases)
  test(`url-match: ${c.name}`, () => {
    const rules = c.rules.map((r, i) => ({ ...r,
      campaignOrder: c.campaigns.indexOf(r.campaign), position: i }));
    const got = decide(rules, parseLocation(c.url));
    assert.equal(got.matched, c.expect.matched, 'matched');
    assert.equal(got.tried.length, c.expect.evaluated, 'evaluated');
    const m = got.matched === null ? null : rules[got.matched];
    assert.equal(m ? m.campaign : null, c.expect.campaign);
    assert.equal(m ? m.role : null, c.expect.role);
  });

for (const l of data.locations)
  test(`location: ${JSON.stringify(l.url)}`, () => {
    assert.deepEqual(parseLocation(l.url), { hostname: l.hostname,
      pathname: l.pathname, search: l.search });
  });

const r = (role, match_type, pattern, priority = null) =>
  ({ role, match_type, pattern, priority });

test('issue 42: form prefix /order shadows thanks prefix /order/thanks', () => {
  const rules = [r('form', 'prefix', '/order'),
    r('thanks', 'prefix', '/order/thanks')];
  assert.deepEqual(shadows(rules), [{ rule: 1, by: 0 }]);
  // what the match test of these rules says of the thanks page
  const d = decide(rules, parseLocation('https://s.example/order/thanks'));
  assert.equal(rules[d.matched].role, 'form');
});

test('the specific rule first, or with a lower priority: no warning', () => {
  assert.deepEqual(shadows([r('thanks', 'prefix', '/order/thanks'),
    r('form', 'prefix', '/order')]), []);
  const rules = [r('form', 'prefix', '/order'),
    r('thanks', 'prefix', '/order/thanks', 1)];
  assert.deepEqual(shadows(rules), []);
  assert.deepEqual(evaluationOrder(rules), [1, 0]);
  const d = decide(rules, parseLocation('https://s.example/order/thanks'));
  assert.equal(rules[d.matched].role, 'thanks');
  // a priority puts the broad rule first again
  assert.deepEqual(shadows([r('thanks', 'prefix', '/order/thanks'),
    r('form', 'prefix', '/order', 5)]), [{ rule: 0, by: 1 }]);
});

test('what covers what', () => {
  const yes = [
    [r('form', 'prefix', '/'), r('thanks', 'query', 'done')],
    [r('form', 'glob', '/*'), r('thanks', 'host', 'a.example')],
    [r('form', 'glob', '/order*'), r('thanks', 'prefix', '/order/t')],
    [r('form', 'prefix', '/order'), r('thanks', 'glob', '/order/*/done')],
    [r('form', 'prefix', '/order'), r('thanks', 'regex', '^\\/order\\/t')],
    [r('form', 'regex', 'thanks$'), r('thanks', 'regex', 'thanks$')],
    [r('form', 'host', '*.example.jp'), r('thanks', 'host', 'a.example.jp')],
    [r('form', 'host', 'A.example'), r('thanks', 'host', 'a.example')],
    [r('form', 'query', 'step'), r('thanks', 'query', 'step=3')],
  ];
  for (const [a, b] of yes) assert.ok(covers(a, b), JSON.stringify([a, b]));
  const no = [
    [r('form', 'prefix', '/order/thanks'), r('thanks', 'prefix', '/order')],
    [r('form', 'glob', '/order/*.html'), r('thanks', 'prefix', '/order/t')],
    [r('form', 'prefix', '/order'), r('thanks', 'regex', '/order/t')],
    [r('form', 'prefix', '/order'), r('thanks', 'regex', '^/orde?r')],
    [r('form', 'prefix', '/order'), r('thanks', 'regex', '^/order|/x')],
    [r('form', 'prefix', '/order'), r('thanks', 'query', 'x')],
    [r('form', 'host', 'a.example'), r('thanks', 'prefix', '/x')],
    [r('form', 'query', 'step=3'), r('thanks', 'query', 'step')],
    [r('form', 'host', '*.example.jp'), r('thanks', 'host', 'example.jp')],
  ];
  for (const [a, b] of no) assert.ok(!covers(a, b), JSON.stringify([a, b]));
});

test('a rule after a duplicate of itself is reported too', () => {
  assert.deepEqual(shadows([r('form', 'prefix', '/a'),
    r('form', 'prefix', '/a')]), [{ rule: 1, by: 0 }]);
});
