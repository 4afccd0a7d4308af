// admin/vendor/: the chart library (uPlot) as admin/test/package-lock.json
// pins it, copied byte for byte from the package npm ci installs, and
// fit for the admin CSP (style-src 'self', script-src 'self'): it styles
// elements through their style properties only, never a style attribute,
// a <style> element or markup from a string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const vendor = join(here, '..', 'vendor');
const pkg = join(here, 'node_modules', 'uplot');
const lock = JSON.parse(readFileSync(join(here, 'package-lock.json'),
  'utf8'));
// [the vendored file, the package's file it copies]
const copies = [['uPlot.esm.js', 'dist/uPlot.esm.js'],
  ['uPlot.min.css', 'dist/uPlot.min.css'], ['uPlot.LICENSE', 'LICENSE']];

test('uplot is pinned in the lockfile, with its integrity', () => {
  const u = lock.packages['node_modules/uplot'];
  assert.equal(u.version, lock.packages[''].dependencies.uplot);
  assert.match(u.integrity, /^sha512-/);
});

test('admin/vendor holds the pinned package\'s files unchanged',
  { skip: !existsSync(pkg) && 'uplot not installed (npm ci in admin/test)' },
  () => {
    const installed = JSON.parse(readFileSync(join(pkg, 'package.json'),
      'utf8'));
    assert.equal(installed.version,
      lock.packages['node_modules/uplot'].version,
      'node_modules is older than the lockfile: npm ci in admin/test');
    for (const [mine, theirs] of copies)
      assert.ok(readFileSync(join(vendor, mine)).equals(
        readFileSync(join(pkg, theirs))), `vendor/${mine}`);
  });

test('uPlot styles by properties only (the CSP refuses the rest)', () => {
  const js = readFileSync(join(vendor, 'uPlot.esm.js'), 'utf8');
  const banned = ['innerHTML', 'outerHTML', 'insertAdjacentHTML',
    'document.write', 'cssText', 'insertRule', 'adoptedStyleSheets',
    'new Function', 'eval('];
  for (const b of banned) assert.ok(!js.includes(b), b);
  assert.doesNotMatch(js, /setAttribute\(\s*["'](style|on)/);
  assert.doesNotMatch(js, /createElement\(\s*["']style/);
  // nothing loaded: no request, no import, no element with a source
  assert.doesNotMatch(js, /\bfetch\(|XMLHttpRequest|\bimport\(|\.src\s*=/);
});
