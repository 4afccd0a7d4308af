// Keyboard-only journeys of the admin UI (issue 42, item 3): a shop's
// owner who uses no mouse signs in and sets up a shop (a site, a
// campaign, its URL rules, a scenario from a preset, a test send) with
// Tab, Shift+Tab, Enter, Space and typing only; every place the focus
// stops shows it (:focus-visible with an outline); the tenant switch's
// dialog keeps Tab inside, closes on Escape and gives the focus back.
// Called by admin.mjs with its page and checks.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// What the focused element is called, as a user hears it: aria-label,
// its label's own text (not the options of a select inside it), else
// its text.  Evaluated in the page.
function focusedName() {
  const el = document.activeElement;
  if (!el || el === document.body) return { name: '', tag: 'body', visible: false };
  let name = el.getAttribute('aria-label') || '';
  if (!name && el.labels && el.labels[0])
    name = [...el.labels[0].childNodes].filter((n) => n.nodeType === 3)
      .map((n) => n.textContent).join('').trim();
  if (!name) name = (el.textContent || el.value || '').trim();
  const cs = getComputedStyle(el);
  const visible = el.matches(':focus-visible') && cs.outlineStyle !== 'none' &&
    parseFloat(cs.outlineWidth) > 0;
  return { name, tag: el.tagName.toLowerCase(), visible,
    inDialog: !!el.closest('dialog') };
}

export function keyboard(page, check) {
  const seen = { stops: 0, hidden: [] };
  const here = () => page.evaluate(focusedName);
  // Tab (Shift+Tab with back) until the focus is on what `want` names
  // (a string it starts with, or a RegExp); every stop's focus is checked
  // for a visible outline.  Fails the check after `max` presses.
  async function tabTo(want, { back = false, max = 120 } = {}) {
    for (let i = 0; i < max; i++) {
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      const f = await here();
      if (f.tag !== 'body') {
        seen.stops++;
        if (!f.visible && seen.hidden.length < 10) seen.hidden.push(`${f.tag} ${f.name}`);
      }
      if (typeof want === 'string' ? f.name.startsWith(want) : want.test(f.name))
        return true;
    }
    check(`keyboard: Tab reaches 「${want}」`, false, `${max} presses`);
    throw new Error(`Tab did not reach ${want}`);
  }
  // Tab to a field and type into it.
  async function fill(want, text) {
    await tabTo(want);
    await page.keyboard.type(text);
  }
  // Tab to a button or link and press it with Enter (or Space).
  async function press(want, key = 'Enter', opts) {
    await tabTo(want, opts);
    await page.keyboard.press(key);
  }
  return { tabTo, fill, press, here, seen };
}

// The journey: `email`/`pw` an owner of a tenant; `other` {name, pw} another tenant where the same address is
// a member (the switch).  shot(name) saves the screens.
export async function keyboardJourney(page, check, { base, bin, email, pw, other, shot }) {
  const k = keyboard(page, check);
  const text = () => page.locator('main').innerText();
  await page.goto(`${base}/admin/#/signin`);
  await page.getByRole('button', { name: 'ログイン' }).waitFor();
  await k.fill('メールアドレス', email);
  await k.fill('パスワード', pw);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'ダッシュボード' }).waitFor();
  check('keyboard: signed in with Tab, typing and Enter', true);

  // a site
  await k.press('サイト');
  await page.getByRole('heading', { name: 'サイト', exact: true }).waitFor();
  await k.fill('サイト名', 'キーボードの店');
  await k.fill('ドメイン', '127.0.0.1');
  await k.press('追加', ' ');
  await page.getByRole('link', { name: 'キーボードの店' }).waitFor();
  check('keyboard: a site added (Space on 追加)', true);
  await k.press('キーボードの店');
  await page.waitForURL(/#\/sites\/[0-9a-f-]{36}$/);
  await page.locator('main section.card').nth(1).waitFor();
  await shot('site');

  // a campaign and its URL rules
  await k.press('キャンペーン');
  await page.getByRole('heading', { name: 'キャンペーン', exact: true }).waitFor();
  await k.fill('キー(英数字)', 'keyboard');
  await k.fill('名前', 'キーボードのキャンペーン');
  await k.press('作成');
  await page.getByRole('button', { name: 'ルールを保存' }).waitFor();
  await k.press('規則を追加', ' ');
  await k.fill('1 行目のパターン', '/kb/form');
  await k.press('ルールを保存');
  await page.getByText('ルールを保存しました。').waitFor();
  check('keyboard: a campaign and its URL rule saved', true);

  // a scenario from the preset offered first, opened: its timeline
  await k.press('作成');
  await page.getByRole('cell', { name: '下書き' }).first().waitFor();
  const scen = await page.locator('main tbody a[href^="#/scenarios/"]').first().innerText();
  await k.press(scen, 'Enter', { back: true });
  await page.getByRole('button', { name: 'ステップを追加' }).waitFor();
  await page.locator('ol.timeline').waitFor();
  check('keyboard: a scenario made from a preset and opened, its timeline drawn',
    (await page.locator('ol.timeline').innerText()).includes('離脱と判定'));
  await shot('scenario-timeline');

  // a test recipient: added, its code (sent by formback-deliver to the
  // SMS stand-in) typed in
  await k.press('設定');
  await page.getByRole('heading', { name: 'テスト送信先' }).waitFor();
  await k.fill('電話番号またはメールアドレス', '090-5555-0142');
  await k.press('追加');
  await page.getByText('確認コードを送ります').waitFor();
  execFileSync(join(bin, 'formback-deliver'), [], { encoding: 'utf8' });
  const line = readFileSync(process.env.FB_SMS_FILE, 'utf8').split('\n')
    .reverse().find((l) => l.includes('819055550142') && l.includes('確認コード'));
  const code = line && /確認コード: ?(\d{6})/.exec(line);
  check('keyboard: the test recipient\'s code is sent by SMS', !!code, line);
  await k.fill('確認コード', code ? code[1] : '000000');
  await k.press('確認');
  await page.getByText('確認済み').waitFor();

  // a test send: a new SMS saved, then sent to the test recipient
  await k.press('メッセージ');
  await page.getByRole('heading', { name: 'メッセージ', exact: true }).waitFor();
  await k.fill('本文', 'キーボードの店です。ご入力の続きはこちら {{link_url}}');
  await k.press('保存');
  await page.getByText('保存しました。').waitFor();
  await k.press('テスト送信', ' ');
  await page.getByText(/件のテスト送信を受け付けました/).waitFor();
  check('keyboard: a message saved and test-sent', (await text()).includes('1 件のテスト送信'));
  check(`keyboard: the focus is seen at every stop (${k.seen.stops} stops)`,
    k.seen.hidden.length === 0, k.seen.hidden.join('; '));

  // the tenant switch: a dialog that traps Tab and gives the focus back
  if (other) {
    await k.press('アカウントを切り替え', 'Enter', { back: true });
    const dlg = page.locator('dialog[open]');
    await dlg.waitFor();
    let inside = true;
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
      inside = inside && (await k.here()).inDialog;
    }
    check('keyboard: Tab stays in the switch dialog', inside);
    await shot('tenant-switch');
    await page.keyboard.press('Escape');
    await dlg.waitFor({ state: 'detached' });
    check('keyboard: Escape closes it and the focus goes back to its button',
      (await k.here()).name === 'アカウントを切り替え');
    await page.keyboard.press('Enter');
    await dlg.waitFor();
    check('keyboard: the dialog says the password is asked again',
      (await dlg.innerText()).includes('パスワードをもう一度'));
    await k.fill('パスワード', other.pw);
    await page.keyboard.press('Enter');
    await dlg.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'ダッシュボード' }).waitFor();
    await page.locator('header .tenant .name', { hasText: other.name }).waitFor();
    check('keyboard: switched to the other tenant, named in the header',
      (await page.locator('header .tenant .name').innerText()) === other.name);
  }
  await page.getByRole('button', { name: 'ログアウト' }).click();
  await page.getByRole('button', { name: 'ログイン' }).waitFor();
}
