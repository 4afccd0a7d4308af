// The admin UI's one way to the server: /api/v1 with the session cookie,
// the CSRF token on every unsafe request (formback.fcgi(8), "Sessions and
// the admin API"), errors as the contract's envelope.
let csrf = null;

export class ApiError extends Error {
  constructor(status, body) {
    const e = body && body.error ? body.error : {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || 'http_error';
    this.param = e.param || null;
    this.requestId = e.request_id || null;
    // tenant_required: where the sign-in may go
    this.tenants = e.tenants || null;
  }
}

export function setCsrf(token) { csrf = token; }

// The URL of an operation with its query (empty values left out): what
// api() requests, and what a download link (an export) points at.
export function apiUrl(path, query) {
  const url = new URL('/api/v1' + path, location.origin);
  for (const [k, v] of Object.entries(query || {}))
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  return url;
}

// Call an operation; `body` is JSON, or a Blob/ArrayBuffer sent as text/csv.
export async function api(method, path, body, query) {
  const url = apiUrl(path, query);
  const headers = {};
  let payload;
  if (body instanceof Blob || body instanceof ArrayBuffer) {
    headers['Content-Type'] = 'text/csv';
    payload = body;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  } else if (method !== 'GET' && method !== 'DELETE') {
    headers['Content-Type'] = 'application/json';
    payload = '{}';
  }
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  const r = await fetch(url, { method, headers, body: payload,
    credentials: 'same-origin' });
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!r.ok) throw new ApiError(r.status, json);
  return json;
}
