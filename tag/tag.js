/* Formback page tag: docs/internals/tag.md.  Plain ES2017, no dependencies;
 * requests only its own base URL; never throws into the page. */
(function () {
'use strict';

/* ---- pure parts, exported to node for tag/test/ ---- */

function parseLocation(u) {
	const x = typeof u === 'string' ? new URL(u) : u;
	return { hostname: x.hostname, pathname: x.pathname || '/', search: x.search || '' };
}

/* the whole string; * any run (also '/'), ? one character */
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

/* What keeps a match bounded: the server's rule (src/match.c regex_check,
 * match.h), so that no pattern can stall a visitor's page either: a
 * repeating quantifier (* + {n,m} with m > 1) on a group that holds a
 * quantifier or a |, more than 6 unbounded quantifiers, a count above
 * 256 or groups 16 deep are refused.  Syntax is the server's to check. */
function regexBounded(p) {
	const g = [{ rep: false, alt: false }];
	let last = null, group = false, unbounded = 0;
	for (let i = 0; i < p.length; i++) {
		const c = p[i];
		let m = null;
		if (c === '\\') { i++; group = false; continue; }
		if (c === '[') {
			for (i++; i < p.length && p[i] !== ']'; i++) if (p[i] === '\\') i++;
			group = false;
			continue;
		}
		if (c === '(') {
			if (p[i + 1] === '?') i += 2;
			if (g.length > 16) return false;
			g.push({ rep: false, alt: false });
			group = false;
			continue;
		}
		if (c === ')') {
			if (g.length < 2) return false;
			last = g.pop();
			g[g.length - 1].rep = g[g.length - 1].rep || last.rep;
			g[g.length - 1].alt = g[g.length - 1].alt || last.alt;
			group = true;
			continue;
		}
		if (c === '|') { g[g.length - 1].alt = true; group = false; continue; }
		if (c === '*' || c === '+') m = -1;
		else if (c === '?') m = 1;
		else if (c === '{') {
			const q = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
			if (!q) { group = false; continue; }
			const n = +q[1];
			m = q[2] === undefined ? n : q[3] === '' ? -1 : +q[3];
			if (n > 256 || m > 256) return false;
			i += q[0].length - 1;
		} else { group = false; continue; }
		if (p[i + 1] === '?') i++;
		const repeats = m < 0 || m > 1;
		if (repeats && group && (last.rep || last.alt)) return false;
		if (m < 0 && ++unbounded > 6) return false;
		g[g.length - 1].rep = true;
		group = false;
	}
	return true;
}

const reCache = new Map();
function regexOf(p) {
	if (!reCache.has(p)) {
		let r = null;
		/* the server refuses the others; rules of older releases too */
		if (regexBounded(p))
			try { r = new RegExp(p); } catch (e) { r = null; }
		reCache.set(p, r);
	}
	return reCache.get(p);
}

function ruleMatches(r, loc) {
	let p = String(r && r.pattern), i, q;
	switch (r && r.match_type) {
	case 'prefix': return loc.pathname.slice(0, p.length) === p;
	case 'glob': return globMatch(p, loc.pathname);
	case 'regex': return !!(q = regexOf(p)) &&
		q.test((loc.pathname + loc.search).slice(0, 4096));
	case 'query':	/* the pattern as written, the query decoded */
		i = p.indexOf('=');
		q = new URLSearchParams(loc.search);
		return i < 0 ? q.has(p) : q.getAll(p.slice(0, i)).includes(p.slice(i + 1));
	case 'host':
		q = loc.hostname.toLowerCase();
		p = p.toLowerCase();
		if (p[0] !== '*') return q === p;
		p = p.slice(1);
		return q.length > p.length && q.endsWith(p);
	}
	return false;
}

/* rules come in evaluation order (as published): the first match decides */
function decide(rules, loc) {
	for (let i = 0; i < rules.length; i++)
		if (ruleMatches(rules[i], loc))
			return { campaign: rules[i].campaign, role: rules[i].role, matched: i, evaluated: i + 1 };
	return { campaign: null, role: null, matched: null, evaluated: rules.length };
}

/* full-width ASCII made half-width, dash look-alikes '-', spaces collapsed */
const toHalf = (s) => String(s == null ? '' : s)
    .replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xFEE0))
    .replace(/[\u2010-\u2015\u2212\u30FC\uFF70]/g, '-').replace(/\s+/g, ' ').trim();

/* as typed (half-width) when plausible: 10-11 digits once separators are
 * removed, or +81 and 11-12 digits; else null */
function normalizeTel(s) {
	const t = toHalf(s), d = t.replace(/[\s\-().]/g, '');
	return t.length <= 40 && /^(\d{10,11}|\+81\d{9,10})$/.test(d) ? t : null;
}

function normalizeEmail(s) {
	const t = toHalf(s);
	return t.length <= 254 && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(t) ? t : null;
}

const looksLikeEmail = (s) => normalizeEmail(s) !== null;

/* ---- the page ---- */

/* text-like inputs; never password, hidden..., nor payment (cc-*) fields */
const readable = (el) => !!el && el.tagName === 'INPUT' &&
    /^(text|tel|email|number|search)$/.test(el.type) &&
    !/(^|\s)cc-/i.test(el.getAttribute('autocomplete') || '');
const text = (el) => el ? (el.textContent || '').slice(0, 100) : '';
const attr = (el, a) => el.getAttribute(a) || '';

function labelText(el) {
	const s = Array.from(el.labels || [], text), c = el.closest('td,dd');
	if (!s.length) s.push(text(el.closest('label')));
	s.push(attr(el, 'aria-label'), attr(el, 'placeholder'));
	if (c) s.push(text(c.previousElementSibling));	/* <th>電話番号</th><td><input> */
	return s.join(' ');
}

function kindOf(el) {
	if (!readable(el)) return null;
	if (el.type === 'email' || el.type === 'tel') return el.type;
	for (const a of attr(el, 'autocomplete').toLowerCase().split(/\s+/)) {
		if (a === 'email') return a;
		if (/^tel(-|$)/.test(a) && !/^tel-(extension|country-code)$/.test(a)) return 'tel';
	}
	const nm = (el.name + ' ' + el.id).toLowerCase();
	if (/mail/.test(nm)) return 'email';
	if (/tel|phone|denwa|keitai/.test(nm)) return 'tel';
	const lb = labelText(el);	/* 携帯メール is an email */
	if (/メール|mail/i.test(lb)) return 'email';
	if (/電話|携帯|\btel\b|phone/i.test(lb)) return 'tel';
	return null;
}

const short = (el) => el.maxLength > 0 && el.maxLength <= 5;
const stem = (el) => /\d\]?$/.test(el.name) ? el.name.replace(/[-_]?\[?\d+\]?$/, '') : null;

/* a number split over inputs: tel1/tel2/tel3 (one stem, one form), or the
 * short inputs following el in its cell */
function splitGroup(el, all) {
	const st = stem(el);
	let g = st ? all.filter((x) => x === el || readable(x) && x.form === el.form && stem(x) === st) : [el];
	if (g.length < 2 && short(el)) {
		const box = el.closest('td,dd,fieldset') || el.parentElement, x = Array.from(box.querySelectorAll('input'));
		g = [el];
		for (const y of x.slice(x.indexOf(el) + 1)) {
			if (g.length > 3 || !readable(y) || !short(y)) break;
			g.push(y);
		}
	}
	return g;
}

const list = (sel) => Array.isArray(sel) ? sel.filter((s) => typeof s === 'string' && s) : [];
function one(sel) { try { return sel ? document.querySelector(sel) : null; } catch (e) { return null; } }
const every = (sel) => [].concat(...list(sel).map((s) => {
	try { return Array.from(document.querySelectorAll(s)); } catch (e) { return []; }
})).filter(readable);

/* the profile's fields when it names any, else found: {tel: [[input...]...], email: [input...]} */
function scanFields(p) {
	const tel = [], email = [], used = new Set();
	if (list(p.tel_selectors).length || list(p.email_selectors).length || list(p.tel_split_selectors).length) {
		const g = list(p.tel_split_selectors).map(one).filter(readable);
		if (g.length) tel.push(g);
		every(p.tel_selectors).forEach((e) => tel.push([e]));
		return { tel: tel, email: every(p.email_selectors) };
	}
	const all = Array.from(document.querySelectorAll('input'));
	for (const el of all) {
		const k = kindOf(el);
		if (k === 'email') email.push(el);
		else if (k === 'tel' && !used.has(el)) {
			const g = splitGroup(el, all);
			g.forEach((x) => used.add(x));
			tel.push(g);
		}
	}
	return { tel: tel, email: email };
}

/* the parts joined (a split number), else the first plausible part */
function telOf(g) {
	const parts = g.map((e) => e.value.trim()).filter(Boolean);
	return parts.length > 1 && normalizeTel(parts.join('-')) ||
	    parts.map(normalizeTel).filter(Boolean)[0] || null;
}

function readContact(f) {
	const c = {}, tel = f.tel.map(telOf).filter(Boolean)[0],
	    email = f.email.map((e) => normalizeEmail(e.value)).filter(Boolean)[0];
	if (tel) c.tel = tel;
	if (email) c.email = email;
	return c;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
function uuid() {
	const c = window.crypto;
	if (c.randomUUID) return c.randomUUID();	/* secure contexts only */
	const b = c.getRandomValues(new Uint8Array(16));
	b[6] = b[6] & 15 | 64;
	b[8] = b[8] & 63 | 128;
	const h = Array.from(b, (x) => (x + 256).toString(16).slice(1)).join('');
	return [h.slice(0, 8), h.slice(8, 12), h.slice(12, 16), h.slice(16, 20), h.slice(20)].join('-');
}

function visitorId() {
	let v = (/(?:^|;\s*)fb_vid=([^;]*)/.exec(document.cookie) || [])[1];
	if (!UUID.test(v)) v = uuid();
	document.cookie = 'fb_vid=' + v + '; max-age=31536000; path=/; SameSite=Lax' +
	    (location.protocol === 'https:' ? '; Secure' : '');
	return v;
}

function sessionId() {
	let v;
	try { v = sessionStorage.getItem('fb_sid'); } catch (e) { /* storage blocked */ }
	if (!UUID.test(v)) {
		v = uuid();
		try { sessionStorage.setItem('fb_sid', v); } catch (e) { /* storage blocked */ }
	}
	return v;
}

const guard = (fn) => (a) => { try { fn(a); } catch (e) { /* never into the page */ } };
const on = (t, ev, fn) => t.addEventListener(ev, guard(fn), true);

function run(cfg, base, site) {
	if (!cfg || cfg.v !== 1 || !Array.isArray(cfg.rules)) return;
	/* the collector must be under base; anything else is replaced */
	const collect = String(cfg.collect).indexOf(base + '/') === 0 ? cfg.collect : base + '/tag/v1/events',
	    mode = cfg.consent && cfg.consent.mode || 'none',
	    explicit = mode !== 'none' && mode !== 'notice_optout',	/* unknown modes too */
	    visitor = visitorId(), session = sessionId(), sent = new Set();
	let d = decide(cfg.rules, parseLocation(location)), fields = null, started = false;
	const camp = (cfg.campaigns || []).filter((c) => c && c.key === d.campaign)[0],
	    profile = camp && camp.form_profile || {};
	if (!camp) d = { campaign: null, role: null };

	const box = () => explicit ? one(profile.consent_selector) : null;
	/* none: false; notice_optout: true; explicit: the box is checked */
	const consent = () => explicit ? !!(box() || {}).checked : mode === 'notice_optout';

	const send = (type, contact) => navigator.sendBeacon(collect, new Blob([JSON.stringify({
		v: 1, site: site, visitor: visitor, session: session, type: type,
		url: location.href.split('#')[0], referrer: document.referrer,
		campaign: d.campaign, role: d.role, contact: contact || {},
		consent: consent(), ts: Date.now()
	})], { type: 'text/plain' }));

	function watched(el, rescan) {
		if (rescan || !fields) fields = scanFields(profile);
		return fields.email.includes(el) || fields.tel.some((g) => g.includes(el));
	}

	/* once per distinct contact; explicit mode only with the box checked */
	function capture() {
		const c = readContact(fields = scanFields(profile)), k = JSON.stringify(c);
		if (k === '{}' || sent.has(k) || explicit && !consent()) return;
		sent.add(k);
		send('capture', c);
	}

	send('page_view');
	if (d.role === 'thanks') send('conversion');
	if (d.role !== 'form' && d.role !== 'landing') return;

	on(document, 'focusin', (e) => watched(e.target, true));
	on(document, 'input', (e) => {
		if (!started && watched(e.target)) {
			started = true;
			send('form_start');
		}
	});
	const left = (e) => {
		const b = box();
		if (!b || e.target !== b) {
			if (watched(e.target, true)) capture();
		} else if (e.type === 'change') {
			send('consent');
			capture();
		}
	};
	on(document, 'change', left);
	on(document, 'focusout', left);
	on(window, 'pagehide', capture);
	on(document, 'visibilitychange', () => document.visibilityState === 'hidden' && capture());
}

function boot() {
	let me = document.currentScript;
	if (!me || !me.getAttribute('data-site'))
		me = Array.from(document.getElementsByTagName('script')).filter((s) =>
		    /\/tag\.js([?#]|$)/.test(s.src) && s.getAttribute('data-site')).pop();
	if (!me || window.__formback || !navigator.sendBeacon || !window.fetch) return;
	window.__formback = 1;	/* one tag per page, however many snippets */
	/* data-campaign names the snippet; the page's campaign is the rules' */
	const site = me.getAttribute('data-site'), src = new URL(me.src, location.href),
	    base = src.origin + src.pathname.replace(/\/tag\.js$/, '');
	fetch(base + '/tag/' + encodeURIComponent(site) + '.json', { credentials: 'omit' })
	    .then((r) => r.ok ? r.json() : null)
	    .then(guard((cfg) => run(cfg, base, site)), () => { /* no configuration: nothing */ });
}

if (typeof module !== 'undefined' && module.exports)
	module.exports = { parseLocation, decide, ruleMatches, globMatch, regexBounded, normalizeTel, normalizeEmail, looksLikeEmail };
if (typeof window !== 'undefined' && typeof document !== 'undefined')
	try { boot(); } catch (e) { /* never into the page */ }
})();
