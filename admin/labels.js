// Every enumerated value the admin UI shows, in Japanese, through one
// table: label(kind, value).  A value the table does not know (the
// contract lets enumerations grow) shows as 「その他(value)」.
const tables = {
  block_type: { heading: '見出し', text: '本文', button: 'ボタン',
    image: '画像', divider: '区切り線' },
  channel: { sms: 'SMS', email: 'メール' },
  campaign_status: { active: '有効', paused: '一時停止中',
    archived: 'アーカイブ' },
  role: { landing: 'ランディング', form: 'フォーム', thanks: '完了(サンクス)' },
  match_type: { prefix: '前方一致', glob: 'ワイルドカード', regex: '正規表現',
    query: 'クエリ', host: 'ホスト' },
};

export function label(kind, value) {
  if (value === null || value === undefined || value === '') return '—';
  const t = tables[kind];
  if (t && Object.hasOwn(t, value)) return t[value];
  return `その他(${value})`;
}

// The values a kind knows, as [value, label] (for a select).
export function options(kind) {
  return Object.entries(tables[kind] || {});
}

export { tables };
