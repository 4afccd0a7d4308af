// Messages: the list of saved messages and the editor.  An SMS is its
// text (the count as you type); an email is its subject and its blocks
// (blocks.js: every type the server renders), with a live preview
// beside it drawn from the same blocks and checked by the server
// (POST /message_previews), and the saved message as the server renders
// it.  A save sends exactly the message's fields the editor holds, each
// as it came unless it was edited: nothing is merged, renamed or lost.
import { api } from '../api.js';
import { h, clear, card, errorBox, notice, jst, pagedTable,
  confirmButton } from '../ui.js';
import { shell } from '../shell.js';
import { blockEditor, copyBlocks, previewNodes, expand } from '../blocks.js';
import { label } from '../labels.js';

// st: the screen: list, editor (the editor card's body), vars (the
// variables' values of the chosen campaign), campaign (its select).

function loadList(st) {
  const open = (m) => (ev) => { ev.preventDefault(); edit(st, m); };
  clear(st.list, pagedTable((c) => api('GET', '/messages', undefined,
    { cursor: c }), [
    ['チャネル', (m) => label('channel', m.channel)],
    ['件名・本文', (m) => h('a', { href: '#/messages', onclick: open(m) },
      m.subject || m.body || '(無題)')],
    ['更新', (m) => jst(m.updated_at)],
  ]));
}

// The SMS length of the body, asked a quarter second after typing stops.
function smsCount(ta, est) {
  let timer;
  const ask = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      if (!ta.value) return clear(est);
      try {
        const r = await api('POST', '/messages/estimate', { body: ta.value });
        est.textContent = `${r.characters} 文字 / ${r.segments} 通分` +
          `(最大 ${r.max_characters} 文字)`;
      } catch (e) { clear(est, errorBox(e)); }
    }, 250);
  };
  ta.addEventListener('input', ask);
  if (ta.value) ask();
}

// The variables' values of the campaign chosen for previews.
async function loadVars(st) {
  st.vars = {};
  if (!st.campaign.value) return;
  const r = await api('GET', '/message_variables', undefined,
    { campaign_id: st.campaign.value });
  for (const x of r.data) st.vars[x.key] = x.example ?? null;
}

function campaignSelect(st) {
  st.campaign = h('select', { 'aria-label': 'プレビューに使うキャンペーン',
    onchange: async () => {
      try { await loadVars(st); } catch { st.vars = {}; }
      if (st.redraw) st.redraw();
    } }, h('option', { value: '' }, '(キャンペーンなし: 変数はそのまま)'));
  return api('GET', '/campaigns', undefined, { limit: 200 }).then((r) => {
    st.campaign.append(...r.data.map((c) =>
      h('option', { value: c.id }, c.name)));
    if (r.data.length) st.campaign.value = r.data[0].id;
    return loadVars(st);
  }).catch(() => {});
}

// The email preview: the blocks drawn here at once, then checked by the
// server (its error names the block and field), with the subject as the
// server fills it.
function emailPreview(st, m) {
  const subj = h('p', { class: 'mail-subject' });
  const body = h('div', { class: 'mail' });
  const check = h('div', { 'aria-live': 'polite' });
  let timer;
  const draw = () => {
    subj.textContent = `件名: ${expand(m.subject, st.vars) || '(なし)'}`;
    clear(body, previewNodes(m.blocks, st.vars));
    clearTimeout(timer);
    if (!st.campaign.value) return clear(check);
    timer = setTimeout(async () => {
      try {
        const r = await api('POST', '/message_previews', { campaign_id:
          st.campaign.value, subject: m.subject || null, blocks: m.blocks });
        if (r.subject != null) subj.textContent = `件名: ${r.subject}`;
        clear(check);
      } catch (e) { clear(check, errorBox(e)); }
    }, 300);
  };
  st.redraw = draw;
  draw();
  return h('div', { class: 'preview-pane' }, h('h3', null, 'プレビュー'),
    h('label', null, '変数の値', st.campaign), subj, body, check);
}

// The saved email as the server renders it (as a test send shows it).
function savedFrame(m) {
  return h('details', null, h('summary', null, '保存した内容(送信時の描画)'),
    h('iframe', { class: 'preview', sandbox: '', title: 'メールのプレビュー',
      src: `/api/v1/admin/messages/${m.id}/preview` }));
}

async function testSend(m, out) {
  clear(out);
  try {
    const r = await api('POST', '/test_sends', { message_id: m.id });
    clear(out, notice(`${r.data.length} 件のテスト送信を受け付けました。`));
  } catch (e) { clear(out, errorBox(e)); }
}

// What a save sends: the fields the editor holds (draft), as they are.
export function saveBody(draft, isNew) {
  if (draft.channel === 'sms')
    return isNew ? { channel: 'sms', body: draft.body } : { body: draft.body };
  const b = { subject: draft.subject, blocks: draft.blocks };
  if (draft.htmlEdited) b.body_html = draft.body_html;
  return isNew ? { channel: 'email', ...b } : b;
}

function smsFields(draft) {
  const ta = h('textarea', { id: 'msg-body', name: 'body',
    oninput: () => { draft.body = ta.value; } }, draft.body || '');
  const est = h('p', { class: 'muted', 'aria-live': 'polite' });
  smsCount(ta, est);
  return [h('label', { for: 'msg-body' },
    '本文({{product_name}} {{link_url}} {{optout_url}} が使えます)', ta),
  est];
}

function emailFields(st, draft) {
  const subject = h('input', { id: 'msg-subject', name: 'subject',
    value: draft.subject || '', oninput: () => {
      draft.subject = subject.value;
      if (st.redraw) st.redraw();
    } });
  const ed = blockEditor(draft.blocks, (blocks) => {
    draft.blocks = blocks;
    if (st.redraw) st.redraw();
  });
  draft.blocks = ed.value();
  let html = null;
  if (draft.body_html != null) {
    const ta = h('textarea', { id: 'msg-html', oninput: () => {
      draft.body_html = ta.value;
      draft.htmlEdited = true;
    } }, draft.body_html);
    html = [h('p', { class: 'muted' }, 'このメールは HTML で作られて' +
      'います。送信されるのは HTML で、ブロックは使われません。'),
    h('label', { for: 'msg-html' }, 'HTML', ta)];
  }
  return [h('label', { for: 'msg-subject' }, '件名', subject), html,
    h('h3', null, 'ブロック'), ed.el];
}

// The editor of message m (null: a new one of `channel`, or filled from
// an example x).
function edit(st, m, channel = 'sms', x = null) {
  const src = m || x || {};
  const draft = { channel: m ? m.channel : channel, subject: src.subject ??
    null, body: src.body ?? null, blocks: copyBlocks(src.blocks),
  body_html: m && m.has_body_html ? m.body_html ?? '' : null };
  st.redraw = null;
  const out = h('div');
  const fields = draft.channel === 'sms' ? smsFields(draft) :
    emailFields(st, draft);
  const save = h('button', { type: 'button', onclick: async () => {
    save.disabled = true;
    clear(out);
    try {
      const body = saveBody(draft, !m);
      const n = m ? await api('PATCH', `/messages/${m.id}`, body)
        : await api('POST', '/messages', body);
      loadList(st);
      edit(st, n);
      st.out.replaceChildren(notice('保存しました。'));
      // the keyboard stays where it was: on the new editor's 「保存」
      st.editor.querySelector('.editor-form .row button').focus();
    } catch (e) { clear(out, errorBox(e)); save.disabled = false; }
  } }, '保存');
  const actions = m ? [h('button', { type: 'button', class: 'secondary',
    onclick: () => testSend(m, out) }, 'テスト送信'),
  confirmButton('削除', 'このメッセージを削除します。よろしいですか?',
    async () => {
      await api('DELETE', `/messages/${m.id}`);
      loadList(st);
      edit(st, null);
      st.out.replaceChildren(notice('削除しました。'));
    })] : [];
  const title = m ? `編集: ${m.subject || m.body || '(無題)'}` :
    `新しい${label('channel', draft.channel)}`;
  st.out = out;
  const form = h('div', { class: 'editor-form' }, h('h3', null, title),
    fields, h('div', { class: 'row' }, save, actions), out);
  clear(st.editor, h('div', { class: draft.channel === 'email' ?
    'editor-grid' : '' }, form, draft.channel === 'email' ?
    emailPreview(st, draft) : null), m && m.channel === 'email' ?
    savedFrame(m) : null);
}

function examples(st) {
  const box = h('div');
  api('GET', '/message_examples').then((r) => clear(box,
    h('h3', null, '文例から作る'), h('ul', { class: 'plain' },
      r.data.map((x) => h('li', { class: 'row' },
        h('span', null, `${x.label}(${label('channel', x.channel)})`),
        h('button', { type: 'button', class: 'secondary',
          'aria-label': `文例「${x.label}」を使う`,
          onclick: () => edit(st, null, x.channel, x) }, '使う'))))))
    .catch((e) => clear(box, errorBox(e)));
  return box;
}

export function messages() {
  const st = { editor: h('div'), list: h('div'), vars: {} };
  const fresh = (ch) => h('button', { type: 'button', class: 'secondary',
    onclick: () => edit(st, null, ch) }, `新しい${label('channel', ch)}`);
  const ready = campaignSelect(st);
  shell('メッセージ', card('メッセージの編集',
    h('div', { class: 'row' }, fresh('sms'), fresh('email')), st.editor,
    examples(st)), card('メッセージ一覧', st.list));
  edit(st, null);
  loadList(st);
  ready.then(() => { if (st.redraw) st.redraw(); });
}
