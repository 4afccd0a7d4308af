// URL rules as the tag and the server decide them (contract: Match test;
// src/match.c rule_match() and rules_decide(), tag/tag.js ruleMatches()),
// for the rules being edited before they are saved: the evaluation
// order, the decision, and which rule can never win because an earlier
// one matches every URL it matches.  The node tests hold this to the
// shared vectors of tests/data/url-match.json.
//
// Order: priority ascending, null last; then campaign; then position.
// The first rule that matches decides; a more specific rule does not
// win over an earlier one (the contract has no such rule).

export const roles = ['landing', 'form', 'thanks'];
export const matchTypes = ['prefix', 'glob', 'regex', 'query', 'host'];

// The three parts of a URL the rules look at, as the browser gives them.
export function parseLocation(url) {
  const u = new URL(url);
  return { hostname: u.hostname, pathname: u.pathname || '/',
    search: u.search || '' };
}

// the whole string; * any run (also '/'), ? one character
function globMatch(p, s) {
  let i = 0, j = 0, star = -1, back = 0;
  while (j < s.length) {
    if (p[i] === '*') { star = ++i; back = j; }
    else if (i < p.length && (p[i] === '?' || p[i] === s[j])) { i++; j++; }
    else if (star >= 0) { i = star; j = ++back; }
    else return false;
  }
  while (p[i] === '*') i++;
  return i === p.length;
}

function regexOf(p) {
  try { return new RegExp(p); } catch { return null; }
}

// Does rule r ({match_type, pattern}) match the location?
export function ruleMatches(r, loc) {
  let p = String(r.pattern ?? ''), q;
  switch (r.match_type) {
  case 'prefix': return loc.pathname.slice(0, p.length) === p;
  case 'glob': return globMatch(p, loc.pathname);
  case 'regex': return !!(q = regexOf(p)) &&
    q.test((loc.pathname + loc.search).slice(0, 4096));
  case 'query': {
    const i = p.indexOf('=');
    q = new URLSearchParams(loc.search);
    return i < 0 ? q.has(p) : q.getAll(p.slice(0, i)).includes(p.slice(i + 1));
  }
  case 'host':
    q = loc.hostname.toLowerCase();
    p = p.toLowerCase();
    if (p[0] !== '*') return q === p;
    p = p.slice(1);
    return q.length > p.length && q.endsWith(p);
  default: return false;
  }
}

// The key a rule sorts by: [has no priority, priority, campaign, position].
function key(r, i) {
  const p = r.priority;
  const none = p === null || p === undefined || p === '';
  return [none ? 1 : 0, none ? 0 : Number(p), r.campaignOrder ?? 0,
    r.position ?? i];
}

function cmp(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

// The indexes of rules in evaluation order (position: the index unless
// the rule says).
export function evaluationOrder(rules) {
  return rules.map((r, i) => [key(r, i), i]).sort((x, y) => cmp(x[0], y[0]))
    .map(([, i]) => i);
}

// The decision over rules (any order): {matched: the index of the rule
// that decides, or null; tried: the indexes evaluated, in order}.
export function decide(rules, loc) {
  const tried = [];
  for (const i of evaluationOrder(rules)) {
    tried.push(i);
    if (ruleMatches(rules[i], loc)) return { matched: i, tried };
  }
  return { matched: null, tried };
}

// What every pathname a rule matches starts with, as far as its pattern
// says: a prefix's pattern, a glob's text before its first wildcard, an
// anchored regex's literal start; null when nothing is known.
function pathStart(r) {
  const p = String(r.pattern ?? '');
  if (r.match_type === 'prefix') return p;
  if (r.match_type === 'glob') return p.split(/[*?]/)[0];
  // an alternation may match anywhere: nothing known
  if (r.match_type === 'regex' && p[0] === '^' && !p.includes('|')) {
    let s = '';
    for (let i = 1; i < p.length; i++) {
      const c = p[i];
      if (c === '\\' && /[/.\-]/.test(p[i + 1] || '')) {
        s += p[++i];
        continue;
      }
      if (/[\\^$.|?*+()[\]{}]/.test(c)) {
        // a quantifier makes the character before it optional
        if (/[?*{]/.test(c)) s = s.slice(0, -1);
        break;
      }
      s += c;
    }
    return s;
  }
  return null;
}

// Every pathname starting with what this gives is matched (null: none).
function matchesFrom(r) {
  const p = String(r.pattern ?? '');
  if (r.match_type === 'prefix') return p;
  if (r.match_type === 'glob' && /^[^*?]*\*+$/.test(p))
    return p.replace(/\*+$/, '');
  return null;
}

// Does rule a match every URL that rule b matches (so b, after a, never
// decides)?  Only what can be known from the patterns: false when unsure.
export function covers(a, b) {
  const pa = String(a.pattern ?? ''), pb = String(b.pattern ?? '');
  if (!pa || !pb) return false;
  if (a.match_type === b.match_type && (a.match_type === 'host' ?
    pa.toLowerCase() === pb.toLowerCase() : pa === pb)) return true;
  const from = matchesFrom(a);
  if (from === '/' || from === '') return true;
  const start = pathStart(b);
  if (from !== null && start !== null && start.startsWith(from)) return true;
  if (a.match_type === 'host' && b.match_type === 'host' && pa[0] === '*') {
    const rest = pa.slice(1).toLowerCase();
    const hb = pb.replace(/^\*/, '').toLowerCase();
    return hb.endsWith(rest) && hb.length > rest.length;
  }
  if (a.match_type === 'query' && b.match_type === 'query' &&
    !pa.includes('=')) return pb.split('=')[0] === pa && pb.includes('=');
  return false;
}

// The rules (one campaign's, in its table order) that never decide:
// [{rule, by}] as indexes, `by` the earliest rule evaluated before it
// that covers it.
export function shadows(rules) {
  const order = evaluationOrder(rules);
  const out = [];
  order.forEach((i, n) => {
    const by = order.slice(0, n).find((j) => covers(rules[j], rules[i]));
    if (by !== undefined) out.push({ rule: i, by });
  });
  return out;
}
