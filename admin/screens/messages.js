// Messages: the editor (the SMS count as you type, examples, the
// variables with a campaign's values), the preview and test sends, and
// the list of saved messages.
import { api } from '../api.js';
import { h, clear, card, errorBox, jst, form, pagedTable } from '../ui.js';
import { shell } from '../shell.js';

// st: the screen's state: editing (the id of the message in the editor,
// or null for a new one), editor (the form), preview, list.

function editorForm(st) {
  return form([
    { name: 'channel', label: 'チャネル', type: 'select',
      options: [['sms', 'SMS'], ['email', 'メール']] },
    { name: 'subject', label: '件名(メール)' },
    { name: 'body', type: 'textarea',
      label: '本文({{product_name}} {{link_url}} {{optout_url}} が使えます)' },
  ], '保存', async (v) => {
    const body = v.channel === 'sms' ? { channel: 'sms', body: v.body } :
      { channel: 'email', subject: v.subject, blocks: [
        { type: 'text', text: v.body },
        { type: 'button', text: '続きはこちら', url: '{{link_url}}' }] };
    const m = st.editing ? await api('PATCH', `/messages/${st.editing}`, body)
      : await api('POST', '/messages', body);
    st.editing = m.id;
    showPreview(st.preview, m);
    loadList(st);
    return '保存しました。';
  });
}

function loadList(st) {
  const open = (m) => (ev) => { ev.preventDefault(); edit(st, m); };
  clear(st.list, pagedTable((c) => api('GET', '/messages', undefined,
    { cursor: c }), [
    ['チャネル', (m) => m.channel],
    ['件名・本文', (m) => h('a', { href: '#/messages', onclick: open(m) },
      m.subject || m.body || '(無題)')],
    ['更新', (m) => jst(m.updated_at)],
  ]));
}

// Fill the editor (and count the body again).
function fill(editor, channel, subject, body) {
  editor.elements.channel.value = channel;
  editor.elements.subject.value = subject;
  editor.elements.body.value = body;
  editor.elements.body.dispatchEvent(new Event('input'));
}

// open a saved message in the editor
function edit(st, m) {
  st.editing = m.id;
  fill(st.editor, m.channel, m.subject || '', m.body || (m.blocks || [])
    .filter((b) => b.type === 'text').map((b) => b.text).join('\n'));
  showPreview(st.preview, m);
}

// The SMS length of the body, asked a quarter second after typing stops.
function countAsTyped(editor, est) {
  let timer;
  editor.querySelector('textarea').addEventListener('input', (ev) => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      try {
        const r = await api('POST', '/messages/estimate',
          { body: ev.target.value });
        est.textContent = `${r.characters} 文字 / ${r.segments} 通分` +
          `(最大 ${r.max_characters} 文字)`;
      } catch (e) { est.textContent = e.message; }
    }, 250);
  });
}

async function testSend(m, out) {
  clear(out);
  try {
    const r = await api('POST', '/test_sends', { message_id: m.id });
    clear(out, h('p', { class: 'notice' },
      `${r.data.length} 件のテスト送信を受け付けました。`));
  } catch (e) { clear(out, errorBox(e)); }
}

// An email in a sandboxed frame of the server's rendering; an SMS as text.
function showPreview(preview, m) {
  const out = h('div');
  clear(preview, h('h3', null, 'プレビューとテスト送信'),
    m.channel === 'email' ? h('iframe', { class: 'preview', sandbox: '',
      title: 'メールのプレビュー',
      src: `/api/v1/admin/messages/${m.id}/preview` }) :
      h('pre', { class: 'code' }, m.body),
    h('button', { type: 'button', onclick: () => testSend(m, out) },
      'テスト送信'), out);
}

// the variables a message may use, with a campaign's values
function variables() {
  const vars = h('div');
  const show = async () => {
    if (!camp.value) return clear(vars);
    try {
      const r = await api('GET', '/message_variables', undefined,
        { campaign_id: camp.value });
      clear(vars, h('table', null, h('tbody', null, r.data.map((x) =>
        h('tr', null, h('td', null, `{{${x.key}}}`), h('td', null, x.label),
          h('td', null, x.example ?? '—'))))));
    } catch (e) { clear(vars, errorBox(e)); }
  };
  const camp = h('select', { 'aria-label': '変数の値を見るキャンペーン',
    onchange: show }, h('option', { value: '' }, 'キャンペーンを選ぶ'));
  api('GET', '/campaigns', undefined, { limit: 200 }).then((r) =>
    camp.append(...r.data.map((c) => h('option', { value: c.id }, c.name))))
    .catch(() => {});
  return [camp, vars];
}

function examples(editor) {
  const box = h('div');
  const use = (x) => () => fill(editor, x.channel, x.subject || '',
    x.body || (x.blocks || []).map((b) => b.text || '').filter(Boolean)
      .join('\n'));
  api('GET', '/message_examples').then((r) => clear(box,
    h('h3', null, '文例'), r.data.map((x) => h('div', { class: 'row' },
      h('span', null, `${x.label}(${x.channel})`),
      h('button', { type: 'button', class: 'secondary', onclick: use(x) },
        '使う'))))).catch((e) => clear(box, errorBox(e)));
  return box;
}

export function messages() {
  const est = h('p', { class: 'muted' });
  const st = { editing: null, preview: h('div'), list: h('div') };
  st.editor = editorForm(st);
  countAsTyped(st.editor, est);
  const vars = variables();
  const ex = examples(st.editor);
  const fresh = h('button', { type: 'button', class: 'secondary',
    onclick: () => {
      st.editing = null;
      st.editor.reset();
      clear(st.preview);
    } }, '新しく作る');
  shell('メッセージ', card('メッセージの編集', fresh, st.editor, est,
    h('h3', null, '変数'), vars, ex, st.preview), card(null, st.list));
  loadList(st);
}
