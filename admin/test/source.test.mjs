// The rules of docs/internals/admin.md that a reader of the modules
// should not have to check by eye: nothing parsed as markup or code, no
// inline handler or style, every module installed by a relative import,
// lines within 80 columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = [...readdirSync(dir).filter((f) => f.endsWith('.js')),
  ...readdirSync(join(dir, 'screens')).map((f) => `screens/${f}`)];
const source = (f) => readFileSync(join(dir, f), 'utf8');

test('the modules are found', () => {
  assert.ok(files.includes('ui.js') && files.includes('screens/leads.js'));
});

test('no markup or code from strings', () => {
  const banned = new RegExp(['\\.innerHTML', '\\.outerHTML',
    'insertAdjacentHTML', 'document\\.write', '\\beval\\(', 'new Function',
    'setAttribute\\(\\s*[\'"](on|style)', '\\.srcdoc'].join('|'));
  for (const f of files)
    source(f).split('\n').forEach((l, i) =>
      assert.doesNotMatch(l, banned, `${f}:${i + 1}`));
});

test('imports are relative and name files that exist', () => {
  for (const f of files)
    for (const [, spec] of source(f).matchAll(/from '([^']+)'/g)) {
      assert.match(spec, /^\.\.?\/.+\.js$/, `${f}: ${spec}`);
      assert.ok(existsSync(join(dir, dirname(f), spec)), `${f}: ${spec}`);
    }
});

test('lines within 80 columns', () => {
  for (const f of [...files, 'admin.css', 'index.html'])
    source(f).split('\n').forEach((l, i) =>
      assert.ok([...l].length <= 80, `${f}:${i + 1}`));
});

test('index.html loads only app.js and admin.css, nothing inline', () => {
  const html = source('index.html');
  assert.deepEqual([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0]),
    ['<script type="module" src="app.js">']);
  assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/);
  assert.doesNotMatch(html, /<script[^>]*>[^<]/);
});
