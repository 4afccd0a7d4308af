// The fixed data the server seeds (db/migrations/0003_scenarios.sql):
// the message examples and the scenario presets, read from the
// migration itself so the tests follow it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const top = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const topDir = top;

// The rows of `INSERT IGNORE INTO <table> VALUES (...), (...);` as
// arrays of values: SQL strings ('' for a quote), NULL, numbers.
export function sqlRows(sql, table) {
  const start = sql.indexOf(`INSERT IGNORE INTO ${table} VALUES`);
  if (start < 0) throw new Error(`no rows of ${table}`);
  let i = sql.indexOf('(', start);
  const rows = [];
  let row = null;
  for (; i < sql.length; i++) {
    const c = sql[i];
    if (c === '(' && row === null) row = [];
    else if (c === ')' && row !== null) { rows.push(row); row = null; }
    else if (c === ';' && row === null) break;
    else if (row === null || /[\s,]/.test(c)) continue;
    else if (c === "'") {
      let s = '';
      for (i++; ; i++) {
        if (sql[i] === "'" && sql[i + 1] === "'") { s += "'"; i++; }
        else if (sql[i] === "'") break;
        else s += sql[i];
      }
      row.push(s);
    } else {
      const m = /^(NULL|-?\d+)/.exec(sql.slice(i));
      row.push(m[1] === 'NULL' ? null : Number(m[1]));
      i += m[1].length - 1;
    }
  }
  return rows;
}

const sql = readFileSync(join(top, 'db/migrations/0003_scenarios.sql'),
  'utf8');

// MessageExampleOut rows, as GET /message_examples gives them
export const examples = sqlRows(sql, 'message_examples').map(
  ([key, channel, position, delay_minutes, label, body, subject, blocks]) =>
    ({ key, channel, position, delay_minutes, label, body, subject,
      blocks: blocks === null ? null : JSON.parse(blocks) }));

// {key, name, steps: [{example, delay_minutes}]}
export const presets = sqlRows(sql, 'scenario_presets').map(
  ([key, , name, , steps]) => ({ key, name, steps: JSON.parse(steps) }));
