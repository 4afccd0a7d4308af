// Every answer the integration suite received, checked against
// openapi.json (issue 18): the operation is found by method and path
// template, the schema by status (or `default`), and the body validated
// with Ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses), and the header
// fields against the response's: every required one there, every
// integer one an integer.
//
// With the webhook receiver's log (tests/standins/webhook_receiver.py)
// too, every event it was sent is checked against its webhook's body in
// the document, found by X-Formback-Event.
//
//   node tests/integ/validate.mjs openapi.json responses.jsonl [hooks.jsonl]
//
// Prints "responses: N passed, M failed" (and "webhooks: N passed, M
// failed") and exits 1 on any failure.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../e2e/package.json', import.meta.url));
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats');

const [docFile, logFile, hookFile] = process.argv.slice(2);
const doc = JSON.parse(readFileSync(docFile, 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
ajv.addSchema({ $id: 'openapi', components: doc.components });

const ops = [];
for (const [tpl, item] of Object.entries(doc.paths))
  for (const [m, op] of Object.entries(item)) {
    const re = new RegExp('^' + tpl.replace(/\{[^}]+\}/g, '[^/]+') + '$');
    ops.push({ m: m.toUpperCase(), re, tpl, op });
  }

// The JSON schema of a response or request body of the document, its
// $refs resolved through the added one; null when it has none.
function schemaOf(part) {
  if (part.$ref) part = doc.components.responses[part.$ref.split('/').pop()];
  const c = part.content && part.content['application/json'];
  if (!c) return null;
  return JSON.parse(JSON.stringify(c.schema).replaceAll('"#/components/', '"openapi#/components/'));
}

// The header fields a response of the document declares, $refs resolved:
// [name in lower case, required, schema type].
function headersOf(part) {
  if (part.$ref) part = doc.components.responses[part.$ref.split('/').pop()];
  return Object.entries(part.headers || {}).map(([name, h]) => {
    if (h.$ref) h = doc.components.headers[h.$ref.split('/').pop()];
    return [name.toLowerCase(), h.required === true, h.schema && h.schema.type];
  });
}

// What is wrong with an answer's header fields against its response in
// the document (issue 44): a required one missing, an integer one that
// is not; null when nothing is.
function headerFault(resp, got) {
  for (const [name, required, type] of headersOf(resp)) {
    if (!(name in got)) {
      if (required) return `required header ${name} missing`;
    } else if (type === 'integer' && !/^-?[0-9]+$/.test(got[name])) {
      return `header ${name}: "${got[name]}" is not an integer`;
    }
  }
  return null;
}

const validators = new Map();
let passed = 0, failed = 0, unknown = 0;
const seen = new Set();
for (const line of readFileSync(logFile, 'utf8').split('\n')) {
  if (!line) continue;
  const r = JSON.parse(line);
  const hit = ops.find((o) => o.m === (r.method === 'HEAD' ? 'GET' : r.method) && o.re.test(r.path));
  if (!hit) { unknown++; continue; }	// outside the document (404 probes, R_INTERNAL)
  const resp = hit.op.responses[String(r.status)] || hit.op.responses.default;
  const key = `${hit.m} ${hit.tpl} ${r.status}`;
  const fault = r.headers ? headerFault(resp, r.headers) : null;
  if (fault) {
    failed++;
    if (!seen.has(key + fault)) {
      seen.add(key + fault);
      console.log(`FAIL ${key}: ${fault}`);
    }
    continue;
  }
  const schema = schemaOf(resp);
  if (!schema) { passed++; continue; }
  if (!validators.has(key)) validators.set(key, ajv.compile(schema));
  const v = validators.get(key);
  if (v(r.body)) { passed++; continue; }
  failed++;
  if (!seen.has(key)) {
    seen.add(key);
    console.log(`FAIL ${key}: ${ajv.errorsText(v.errors)}\n     ${JSON.stringify(r.body).slice(0, 300)}`);
  }
}
console.log(`responses: ${passed} passed, ${failed} failed (${unknown} outside the document)`);

// The events sent to the receiver: every one a webhook of the document,
// its body (the exact bytes sent) valid against that webhook's schema.
let hookFailed = 0;
if (hookFile && existsSync(hookFile)) {
  let hp = 0;
  const hookSeen = new Set();
  for (const line of readFileSync(hookFile, 'utf8').split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line);
    const type = r.headers['x-formback-event'];
    const text = Buffer.from(r.body, 'base64').toString('utf8');
    const hook = doc.webhooks && doc.webhooks[type];
    let why = null;
    if (!hook) why = 'no webhook in the document';
    else {
      const key = `webhook ${type}`;
      if (!validators.has(key)) validators.set(key, ajv.compile(schemaOf(hook.post.requestBody)));
      const v = validators.get(key);
      let body;
      try { body = JSON.parse(text); } catch { body = undefined; }
      if (body === undefined) why = 'body is not JSON';
      else if (!v(body)) why = ajv.errorsText(v.errors);	// type: the webhook's const
    }
    if (!why) { hp++; continue; }
    hookFailed++;
    if (!hookSeen.has(type)) {
      hookSeen.add(type);
      console.log(`FAIL webhook ${type}: ${why}\n     ${text.slice(0, 300)}`);
    }
  }
  console.log(`webhooks: ${hp} passed, ${hookFailed} failed`);
}
process.exit(failed || hookFailed ? 1 : 0);
