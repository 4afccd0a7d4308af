// The header's tenant and its switch (issue 42, item 1): the session's
// tenant name, the other tenants by name and role in Japanese, and the
// switch that signs in again with tenant_id and the password asked in a
// dialog that keeps Tab inside and gives the focus back when it closes.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, fakeFetch, settle } from './dom.mjs';
import { session, shell, tenantChoices } from '../shell.js';
import { modal, h } from '../ui.js';

const a = '0b7e2f7c-1d2a-4f3b-9c8d-7e6f5a4b3c2d';
const b = '1c8f3a8d-2e3b-4a4c-8d9e-8f7a6b5c4d3e';
const hostile = '<img src=x onerror=alert(1)>';
const me = { member: { id: 'm1', email: 'owner@shop.example',
  role: 'owner' }, tenant_id: a, tenant: { id: a, name: '本店' },
tenants: [{ id: b, name: hostile, role: 'viewer' }], csrf_token: 'tok' };

let calls;
beforeEach(() => {
  installDom('#/');
  calls = fakeFetch(({ method }) => method === 'POST'
    ? { status: 200, body: { ...me, tenant_id: b,
      tenant: { id: b, name: '二号店' },
      tenants: [{ id: a, name: '本店', role: 'owner' }],
      member: { ...me.member, role: 'viewer' }, csrf_token: 'tok2' } }
    : { status: 200, body: {} });
});

test('the choices name each tenant and the role there', () => {
  assert.deepEqual(tenantChoices(me), [[b, `${hostile}(閲覧のみ)`]]);
  assert.deepEqual(tenantChoices({ member: me.member }), []);
});

test('the header names the tenant; no switch when alone', () => {
  session.me = { ...me, tenants: [] };
  shell('t');
  const t = document.querySelector('header .tenant');
  assert.equal(t.textContent, '本店');
  assert.equal(t.querySelector('button'), null);
});

test('the switch asks the password and signs in to the other', async () => {
  session.me = me;
  shell('t');
  const open = document.querySelector('header .tenant button');
  assert.equal(open.getAttribute('aria-haspopup'), 'dialog');
  open.focus();
  open.click();
  const dlg = document.querySelector('dialog');
  assert.ok(dlg);
  assert.match(dlg.textContent, /パスワードをもう一度/);
  assert.equal(dlg.querySelector('img'), null, 'markup from the server');
  assert.equal(document.activeElement, dlg.querySelector('select'));
  dlg.querySelector('input[type=password]').value = 'secret pass 2';
  dlg.querySelector('form').dispatchEvent(new Event('submit',
    { cancelable: true }));
  await settle(10);
  const post = calls.find((c) => c.method === 'POST');
  assert.equal(post.url.pathname, '/api/v1/admin/session');
  assert.deepEqual(JSON.parse(post.body), { email: 'owner@shop.example',
    password: 'secret pass 2', tenant_id: b });
  assert.equal(session.me.tenant_id, b);
  assert.equal(document.querySelector('dialog'), null);
});

test('a dialog keeps Tab inside and gives the focus back', () => {
  const opener = h('button', { type: 'button' }, 'open');
  document.body.append(opener);
  opener.focus();
  const { dialog, close } = modal('見出し', () => [
    h('input', { name: 'x' }), h('button', { type: 'button' }, 'ok')]);
  const all = [...dialog.querySelectorAll('input, button')];
  assert.equal(document.activeElement, all[0]);
  all[all.length - 1].focus();
  const tab = (shiftKey) => dialog.dispatchEvent(new window.KeyboardEvent(
    'keydown', { key: 'Tab', shiftKey, bubbles: true, cancelable: true }));
  tab(false);
  assert.equal(document.activeElement, all[0]);
  tab(true);
  assert.equal(document.activeElement, all[all.length - 1]);
  dialog.dispatchEvent(new window.KeyboardEvent('keydown',
    { key: 'Escape', bubbles: true, cancelable: true }));
  assert.equal(dialog.isConnected, false);
  assert.equal(document.activeElement, opener);
  close();
});
