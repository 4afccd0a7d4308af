// api.js: the URL and query of an operation, its body and headers (the
// CSRF token on unsafe requests only), and the error envelope.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, origin } from './dom.mjs';
import { api, setCsrf, ApiError } from '../api.js';

let calls, answer;

beforeEach(() => {
  installDom();
  setCsrf(null);
  answer = { status: 200, body: { ok: true } };
  calls = fakeFetch(() => answer);
});

test('GET: /api/v1 on this origin, query without empty values', async () => {
  const r = await api('GET', '/campaigns', undefined, { cursor: null,
    status: '', site_id: undefined, limit: 200, q: '090 & <x>' });
  assert.deepEqual(r, { ok: true });
  assert.equal(calls.length, 1);
  const c = calls[0];
  assert.equal(c.method, 'GET');
  assert.equal(c.url.origin, origin);
  assert.equal(c.url.pathname, '/api/v1/campaigns');
  assert.deepEqual([...c.url.searchParams], [['limit', '200'],
    ['q', '090 & <x>']]);
  assert.equal(c.body, undefined);
  assert.deepEqual(c.headers, {});
  assert.equal(c.credentials, 'same-origin');
});

test('the CSRF token goes on unsafe requests, never on GET', async () => {
  setCsrf('tok-123');
  await api('GET', '/admin/session');
  await api('POST', '/sites', { name: 'a' });
  await api('PATCH', '/campaigns/x', { status: 'active' });
  await api('PUT', '/admin/delivery_status', { mode: 'live' });
  await api('DELETE', '/suppressions/x');
  assert.equal(calls[0].headers['X-CSRF-Token'], undefined);
  for (const c of calls.slice(1))
    assert.equal(c.headers['X-CSRF-Token'], 'tok-123', c.method);
  setCsrf(null);
  await api('POST', '/admin/session', { email: 'a@example.jp' });
  assert.equal('X-CSRF-Token' in calls[5].headers, false);
});

test('a JSON body is sent as JSON', async () => {
  const body = { name: '<b>店</b>', n: 1, tenant_id: null };
  await api('POST', '/admin/sites', body);
  const c = calls[0];
  assert.equal(c.method, 'POST');
  assert.equal(c.headers['Content-Type'], 'application/json');
  assert.deepEqual(JSON.parse(c.body), body);
});

test('an unsafe request without a body sends {}; DELETE nothing',
  async () => {
    await api('POST', '/webhook_endpoints/x/enable');
    assert.equal(calls[0].body, '{}');
    assert.equal(calls[0].headers['Content-Type'], 'application/json');
    await api('DELETE', '/admin/session');
    assert.equal(calls[1].body, undefined);
    assert.equal(calls[1].headers['Content-Type'], undefined);
  });

test('a file goes as text/csv, as it is', async () => {
  const csv = new TextEncoder().encode('09012345678,memo\n').buffer;
  await api('POST', '/admin/suppressions/import', csv);
  assert.equal(calls[0].headers['Content-Type'], 'text/csv');
  assert.equal(calls[0].body, csv);
  const blob = new Blob(['a@example.jp\n']);
  await api('POST', '/admin/suppressions/import', blob);
  assert.equal(calls[1].headers['Content-Type'], 'text/csv');
  assert.equal(calls[1].body, blob);
});

test('an empty answer is null', async () => {
  answer = { status: 204 };
  assert.equal(await api('DELETE', '/suppressions/x'), null);
});

test('an error envelope becomes an ApiError with its fields', async () => {
  answer = { status: 409, body: { error: {
    type: 'conflict', code: 'tenant_required',
    message: 'アカウントを選んでください', param: 'tenant_id',
    request_id: 'req_1', tenants: [{ id: 't1', name: '店' }] } } };
  await assert.rejects(api('POST', '/admin/session', {}), (e) => {
    assert.ok(e instanceof ApiError);
    assert.ok(e instanceof Error);
    assert.equal(e.status, 409);
    assert.equal(e.code, 'tenant_required');
    assert.equal(e.message, 'アカウントを選んでください');
    assert.equal(e.param, 'tenant_id');
    assert.equal(e.requestId, 'req_1');
    assert.deepEqual(e.tenants, [{ id: 't1', name: '店' }]);
    return true;
  });
});

test('an error without the envelope still rejects, with the status',
  async () => {
    answer = { status: 502, body: '<html>Bad Gateway</html>' };
    await assert.rejects(api('GET', '/leads'), (e) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.status, 502);
      assert.equal(e.code, 'http_error');
      assert.equal(e.message, 'HTTP 502');
      assert.equal(e.param, null);
      assert.equal(e.requestId, null);
      assert.equal(e.tenants, null);
      return true;
    });
    answer = { status: 401, body: { error: { code: 'session_required' } } };
    await assert.rejects(api('GET', '/leads'), (e) => e.status === 401 &&
      e.code === 'session_required' && e.message === 'HTTP 401');
  });

test('a 200 that is not JSON is null, not an exception', async () => {
  answer = { status: 200, body: 'not json' };
  assert.equal(await api('GET', '/x'), null);
});

test('a failed connection rejects as fetch does', async () => {
  fakeFetch(() => { throw new TypeError('fetch failed'); });
  await assert.rejects(api('GET', '/x'), TypeError);
});
