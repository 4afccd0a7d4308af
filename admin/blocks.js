// An email's blocks (contract: MessageIn.blocks; src/message.c
// blocks_ok() and blocks_html()): the editor, one row a block, and the
// preview drawn from the same blocks.  The types are the server's:
// heading, text, image, button, divider.  A block is edited in place: a
// row writes only the field its input names, so a block's other keys
// (and every block not touched) go back to the server as they came.
import { h, clear } from './ui.js';
import { label } from './labels.js';

// [type, its fields [key, kind]]: what blocks_ok() checks for each type
export const blockTypes = [
  ['heading', [['text', 'line']]],
  ['text', [['text', 'area']]],
  ['button', [['text', 'line'], ['url', 'url']]],
  ['image', [['url', 'url'], ['alt', 'line']]],
  ['divider', []],
];

// the variables a block's URL may take (contract: MessageVariablesOut)
export const urlVariables = ['{{link_url}}', '{{optout_url}}'];

const fieldNames = { text: '文言', url: 'URL', alt: '代替テキスト' };

// The field's label as the editor shows it (also for an error's param).
export function blockFieldLabel(type, key) {
  if (type === 'button' && key === 'text') return 'ボタンの文言';
  if (type === 'heading' && key === 'text') return '見出しの文言';
  return fieldNames[key] || key;
}

// A deep copy: the editor's blocks are never the caller's.
export function copyBlocks(blocks) {
  return JSON.parse(JSON.stringify(blocks || []));
}

// A new block of a type, with what the server's renderer needs.
export function newBlock(type) {
  if (type === 'button') return { type, text: 'お手続きを続ける',
    url: '{{link_url}}' };
  if (type === 'image') return { type, url: '', alt: '' };
  if (type === 'divider') return { type };
  return { type, text: '' };
}

// {{product_name}} {{link_url}} {{optout_url}} replaced from vars (a
// map of the variable to its value); one without a value stays as is.
export function expand(s, vars) {
  return String(s ?? '').replace(/\{\{[a-z_]+\}\}/g, (v) =>
    vars && vars[v] != null ? vars[v] : v);
}

function fieldInput(b, key, kind, id, changed) {
  const set = (ev) => { b[key] = ev.target.value; changed(); };
  const attrs = { id, value: b[key] ?? '', oninput: set };
  if (kind === 'area') return h('textarea', { id, oninput: set },
    b[key] ?? '');
  if (kind === 'url')
    return h('input', { ...attrs, type: 'text', list: 'block-url-vars',
      inputmode: 'url', placeholder: 'https://… または {{link_url}}' });
  return h('input', { ...attrs, type: 'text' });
}

// One block's row: its type, its fields, and move/remove buttons.
function blockRow(ed, b, i) {
  const n = ed.blocks.length;
  const spec = blockTypes.find(([t]) => t === b.type);
  const fields = spec ? spec[1] : [];
  const id = (k) => `block-${i}-${k}`;
  const btn = (text, aria, fn, disabled) => h('button', { type: 'button',
    class: 'secondary small', 'aria-label': aria, disabled, onclick: fn },
  text);
  const name = `ブロック ${i + 1}(${label('block_type', b.type)})`;
  return h('li', { class: 'block', 'data-type': b.type },
    h('div', { class: 'block-head' }, h('strong', null, name),
      h('span', { class: 'row' },
        btn('↑', `${name}を上へ`, () => ed.move(i, -1), i === 0),
        btn('↓', `${name}を下へ`, () => ed.move(i, 1), i === n - 1),
        btn('削除', `${name}を削除`, () => ed.remove(i)))),
    fields.map(([k, kind]) => h('label', { for: id(k) },
      blockFieldLabel(b.type, k), fieldInput(b, k, kind, id(k), ed.changed))),
    spec ? null : h('p', { class: 'muted' },
      'この種類のブロックはここでは編集できません(そのまま保存されます)。'));
}

// The editor of `blocks` (copied): {el, value(), changed} where
// onChange(blocks) runs after every edit.
export function blockEditor(blocks, onChange) {
  const ed = { blocks: copyBlocks(blocks) };
  const list = h('ol', { class: 'blocks', 'aria-label': 'ブロック' });
  const kind = h('select', { 'aria-label': '追加するブロックの種類' },
    blockTypes.map(([t]) => h('option', { value: t },
      label('block_type', t))));
  ed.changed = () => onChange(ed.blocks);
  ed.draw = () => {
    clear(list, ed.blocks.map((b, i) => blockRow(ed, b, i)));
    ed.changed();
  };
  ed.move = (i, d) => {
    const [b] = ed.blocks.splice(i, 1);
    ed.blocks.splice(i + d, 0, b);
    ed.draw();
    const btns = list.children[i + d]?.querySelectorAll('button');
    if (btns && btns.length) btns[d < 0 ? 0 : 1].focus();
  };
  ed.remove = (i) => { ed.blocks.splice(i, 1); ed.draw(); };
  const add = h('button', { type: 'button', class: 'secondary',
    onclick: () => { ed.blocks.push(newBlock(kind.value)); ed.draw(); } },
  'ブロックを追加');
  ed.el = h('div', { class: 'block-editor' }, list,
    h('div', { class: 'row' }, kind, add),
    h('datalist', { id: 'block-url-vars' },
      urlVariables.map((v) => h('option', { value: v }))));
  ed.value = () => ed.blocks;
  clear(list, ed.blocks.map((b, i) => blockRow(ed, b, i)));
  return ed;
}

// The preview of blocks as DOM, text only, in the shape blocks_html()
// gives them (h1, p, image, button, hr); vars fill the variables.  An
// image is not loaded (the admin page loads nothing from elsewhere):
// its box shows the alt text and the address.
export function previewNodes(blocks, vars) {
  return (blocks || []).map((b) => {
    const t = (k) => expand(b[k], vars);
    switch (b.type) {
    // not a heading of the page: the preview is no part of its outline
    case 'heading': return h('p', { class: 'mail-h1' }, t('text'));
    case 'text': return h('p', null, t('text'));
    case 'button': return h('p', null, h('span', { class: 'mail-button',
      title: t('url') }, t('text') || '(文言なし)'));
    case 'image': return h('figure', { class: 'mail-image' },
      h('span', null, b.alt ? t('alt') : '(画像)'),
      h('figcaption', null, t('url')));
    case 'divider': return h('hr');
    default: return null;
    }
  });
}
