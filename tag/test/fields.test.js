'use strict';
// Phone and email plausibility (the server normalises; the tag only filters).
const test = require('node:test');
const assert = require('node:assert/strict');
const { normalizeTel, normalizeEmail, looksLikeEmail } = require('../tag.js');

test('plausible phone numbers are kept as typed (full-width made half-width)', () => {
  const ok = {
    '09012345678': '09012345678',
    '090-1234-5678': '090-1234-5678',
    ' 090 1234 5678 ': '090 1234 5678',
    '０９０１２３４５６７８': '09012345678',
    '０９０－１２３４－５６７８': '090-1234-5678',
    '０９０ー１２３４ー５６７８': '090-1234-5678',   // katakana long vowel used as a dash
    '090\u30001234\u30005678': '090 1234 5678',       // ideographic space
    '03-1234-5678': '03-1234-5678',
    '(03) 1234-5678': '(03) 1234-5678',
    '0312345678': '0312345678',
    '+819012345678': '+819012345678',
    '+81 90-1234-5678': '+81 90-1234-5678',
    '＋８１ ３ １２３４ ５６７８': '+81 3 1234 5678',
    '090\u22121234\u22125678': '090-1234-5678',        // minus sign
  };
  for (const [input, want] of Object.entries(ok))
    assert.equal(normalizeTel(input), want, JSON.stringify(input));
});

test('implausible phone numbers are refused', () => {
  for (const s of ['', '   ', '090', '090-1234-56', '090123456789', '0901234567890',
    '+8190123456', '+8109012345678', '090-1234-5678 (携帯)', 'abc', '090-1234-5678x',
    '090.1234.5678.1234', null, undefined, '1'.repeat(50)])
    assert.equal(normalizeTel(s), null, JSON.stringify(s));
});

test('emails', () => {
  for (const s of ['taro.yamada@example.jp', 'a@b.jp', 'a+tag@sub.example.co.jp', ' hanako@example.jp '])
    assert.equal(looksLikeEmail(s), true, s);
  assert.equal(normalizeEmail('ｔａｒｏ＠ｅｘａｍｐｌｅ．ｊｐ'), 'taro@example.jp');
  assert.equal(normalizeEmail(' a@b.jp '), 'a@b.jp');
  for (const s of ['', 'a', 'a@', 'a@b', '@b.jp', 'a@b.', 'a@.jp', 'a@b..jp', 'a b@c.jp',
    'a@b@c.jp', 'taro@example', null, 'a@' + 'b'.repeat(260) + '.jp'])
    assert.equal(looksLikeEmail(s), false, JSON.stringify(s));
});
