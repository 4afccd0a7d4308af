/* Formback page tag.  Protocol and configuration: docs/internals/tag.md.
 * Plain ES2017, no dependencies.  Talks only to its own base URL. */
(function () {
'use strict';

/* ---- pure parts (also exported to node for the tests) ---- */

function parseLocation(u) {
	var x = typeof u === 'string' ? new URL(u) : u;
	return { hostname: x.hostname, pathname: x.pathname || '/', search: x.search || '' };
}

/* The whole string; * any run (also '/'), ? one character. */
function globMatch(p, s) {
	var i = 0, j = 0, star = -1, back = 0;
	while (j < s.length) {
		if (p[i] === '*') { star = ++i; back = j; }
		else if (i < p.length && (p[i] === '?' || p[i] === s[j])) { i++; j++; }
		else if (star >= 0) { i = star; j = ++back; }
		else return false;
	}
	while (p[i] === '*') i++;
	return i === p.length;
}

var reCache = new Map();
function regexOf(p) {
	if (!reCache.has(p)) {
		try { reCache.set(p, new RegExp(p)); } catch (e) { reCache.set(p, null); }
	}
	return reCache.get(p);
}

function ruleMatches(r, loc) {
	var p = String(r && r.pattern), i, q, h, rest;
	switch (r && r.match_type) {
	case 'prefix':
		return loc.pathname.slice(0, p.length) === p;
	case 'glob':
		return globMatch(p, loc.pathname);
	case 'regex':
		q = regexOf(p);
		return !!q && q.test(loc.pathname + loc.search);
	case 'query':
		/* the pattern is compared as written, the query as URLSearchParams decodes it */
		i = p.indexOf('=');
		q = new URLSearchParams(loc.search);
		return i < 0 ? q.has(p) : q.getAll(p.slice(0, i)).indexOf(p.slice(i + 1)) >= 0;
	case 'host':
		h = loc.hostname.toLowerCase();
		p = p.toLowerCase();
		if (p[0] === '*') {
			rest = p.slice(1);
			return h.length > rest.length && h.slice(-rest.length) === rest;
		}
		return h === p;
	}
	return false;
}

/* rules are in evaluation order (as published); the first match decides */
function decide(rules, loc) {
	for (var i = 0; i < rules.length; i++)
		if (ruleMatches(rules[i], loc))
			return { campaign: rules[i].campaign, role: rules[i].role, matched: i, evaluated: i + 1 };
	return { campaign: null, role: null, matched: null, evaluated: rules.length };
}

/* full-width ASCII to ASCII, dash look-alikes to '-', spaces collapsed */
function toHalf(s) {
	return String(s == null ? '' : s)
	    .replace(/[\uFF01-\uFF5E]/g, function (c) { return String.fromCharCode(c.charCodeAt(0) - 0xFEE0); })
	    .replace(/[\u2010-\u2015\u2212\u30FC\uFF70]/g, '-')
	    .replace(/\s+/g, ' ').trim();
}

/* A plausible phone number as typed (full-width made half-width), or null:
 * 10-11 digits after removing separators, or +81 and 11-12 digits. */
function normalizeTel(s) {
	var t = toHalf(s), d = t.replace(/[\s\-().]/g, '');
	return t.length <= 40 && (/^\d{10,11}$/.test(d) || /^\+81\d{9,10}$/.test(d)) ? t : null;
}

function normalizeEmail(s) {
	var t = toHalf(s);
	return t.length <= 254 && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(t) ? t : null;
}

function looksLikeEmail(s) { return normalizeEmail(s) !== null; }

/* ---- page parts ---- */

var TEXTISH = /^(text|tel|email|number|search)$/;

/* never password, hidden, checkbox..., nor payment (autocomplete cc-*) */
function readable(el) {
	return !!el && el.tagName === 'INPUT' && TEXTISH.test(el.type) &&
	    !/(^|\s)cc-/i.test(el.getAttribute('autocomplete') || '');
}

function text(el) { return el ? (el.textContent || '').slice(0, 100) : ''; }

function labelText(el) {
	var s = [], i, c, ids;
	for (i = 0; el.labels && i < el.labels.length; i++) s.push(text(el.labels[i]));
	if (!s.length) s.push(text(el.closest('label')));
	ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/);
	for (i = 0; i < ids.length; i++) if (ids[i]) s.push(text(document.getElementById(ids[i])));
	s.push(el.getAttribute('aria-label') || '', el.getAttribute('placeholder') || '', el.title || '');
	/* <th>電話番号</th><td><input></td>, <dt>…</dt><dd><input></dd> */
	c = el.closest('td,dd');
	if (c) s.push(text(c.previousElementSibling));
	return s.join(' ');
}

function kindOf(el) {
	if (!readable(el)) return null;
	var ac = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/),
	    nm = (el.name + ' ' + el.id).toLowerCase(), lb, i;
	if (el.type === 'email') return 'email';
	if (el.type === 'tel') return 'tel';
	for (i = 0; i < ac.length; i++) {
		if (ac[i] === 'email') return 'email';
		if (/^tel(-|$)/.test(ac[i]) && !/^tel-(extension|country-code)$/.test(ac[i])) return 'tel';
	}
	if (/mail/.test(nm)) return 'email';
	if (/tel|phone|denwa|keitai/.test(nm)) return 'tel';
	lb = labelText(el);
	if (/メール|mail/i.test(lb)) return 'email';
	if (/電話|携帯|\btel\b|phone/i.test(lb)) return 'tel';
	return null;
}

function short(el) { return el.maxLength > 0 && el.maxLength <= 5; }
function stem(el) { return /\d\]?$/.test(el.name) ? el.name.replace(/[-_]?\[?\d+\]?$/, '') : null; }

/* A phone number split over several inputs: tel1/tel2/tel3 (same stem, same
 * form), or short inputs following el in its cell. */
function splitGroup(el, all) {
	var g = [el], st = stem(el), box, i, x, seen = false;
	if (st) {
		for (i = 0; i < all.length; i++) {
			x = all[i];
			if (x !== el && readable(x) && x.form === el.form && stem(x) === st) g.push(x);
		}
		if (g.length > 1) return g.sort(function (a, b) {
			return a.compareDocumentPosition(b) & 4 ? -1 : 1;
		});
	}
	if (short(el)) {
		box = el.closest('td,dd,fieldset') || el.parentElement;
		x = box ? box.querySelectorAll('input') : [];
		for (i = 0; i < x.length && g.length < 4; i++) {
			if (x[i] === el) seen = true;
			else if (seen) {
				if (readable(x[i]) && short(x[i])) g.push(x[i]);
				else break;
			}
		}
	}
	return g;
}

function list(sel) { return Array.isArray(sel) ? sel.filter(function (s) { return typeof s === 'string' && s; }) : []; }
function one(sel) { try { return sel ? document.querySelector(sel) : null; } catch (e) { return null; } }
function every(sel) {
	var r = [];
	list(sel).forEach(function (s) {
		try { r.push.apply(r, document.querySelectorAll(s)); } catch (e) { /* bad selector */ }
	});
	return r.filter(readable);
}

/* {tel: [[input, ...], ...], email: [input, ...]} */
function scanFields(profile) {
	var p = profile || {}, tel = [], email = [], all, used = [], i, k, g;
	if (list(p.tel_selectors).length || list(p.email_selectors).length || list(p.tel_split_selectors).length) {
		g = list(p.tel_split_selectors).map(one).filter(readable);
		if (g.length) tel.push(g);
		every(p.tel_selectors).forEach(function (e) { tel.push([e]); });
		return { tel: tel, email: every(p.email_selectors) };
	}
	all = document.querySelectorAll('input');
	for (i = 0; i < all.length; i++) {
		k = kindOf(all[i]);
		if (k === 'email') email.push(all[i]);
		else if (k === 'tel' && used.indexOf(all[i]) < 0) {
			g = splitGroup(all[i], all);
			used.push.apply(used, g);
			tel.push(g);
		}
	}
	return { tel: tel, email: email };
}

/* joined parts first (a split number), else the first plausible part */
function telOf(g) {
	var parts = g.map(function (e) { return e.value.trim(); }).filter(Boolean), v, i;
	if (parts.length > 1 && (v = normalizeTel(parts.join('-')))) return v;
	for (i = 0; i < parts.length; i++) if ((v = normalizeTel(parts[i]))) return v;
	return null;
}

function readContact(f) {
	var c = {}, v, i;
	for (i = 0; i < f.tel.length && !c.tel; i++) if ((v = telOf(f.tel[i]))) c.tel = v;
	for (i = 0; i < f.email.length && !c.email; i++) if ((v = normalizeEmail(f.email[i].value))) c.email = v;
	return c;
}

function uuid() {
	var c = window.crypto, b, h;
	if (c && c.randomUUID) return c.randomUUID();
	b = c.getRandomValues(new Uint8Array(16));
	b[6] = b[6] & 15 | 64;
	b[8] = b[8] & 63 | 128;
	h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join('');
	return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
}

var UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function visitorId() {
	var m = /(?:^|;\s*)fb_vid=([^;]*)/.exec(document.cookie), v = m && m[1];
	if (!UUID.test(v)) v = uuid();
	document.cookie = 'fb_vid=' + v + '; max-age=31536000; path=/; SameSite=Lax' +
	    (location.protocol === 'https:' ? '; Secure' : '');
	return v;
}

function sessionId() {
	var v;
	try { v = sessionStorage.getItem('fb_sid'); } catch (e) { /* storage blocked */ }
	if (!UUID.test(v)) {
		v = uuid();
		try { sessionStorage.setItem('fb_sid', v); } catch (e) { /* storage blocked */ }
	}
	return v;
}

function guard(fn) {
	return function (a) { try { fn(a); } catch (e) { /* never into the page */ } };
}

function run(cfg, base, site) {
	if (!cfg || cfg.v !== 1 || !Array.isArray(cfg.rules)) return;
	var collect = typeof cfg.collect === 'string' && cfg.collect.indexOf(base + '/') === 0 ?
	    cfg.collect : base + '/tag/v1/events',
	    camps = Array.isArray(cfg.campaigns) ? cfg.campaigns : [],
	    d = decide(cfg.rules, parseLocation(location)),
	    camp = camps.filter(function (c) { return c && c.key === d.campaign; })[0],
	    profile = camp && camp.form_profile || {},
	    mode = cfg.consent && cfg.consent.mode || 'none',
	    visitor = visitorId(), session = sessionId(),
	    sent = {}, started = false, fields = null;

	if (!camp) d = { campaign: null, role: null };

	/* explicit (or an unknown mode): the consent checkbox */
	var explicit = mode !== 'none' && mode !== 'notice_optout';
	function consentBox() { return explicit ? one(profile.consent_selector) : null; }
	/* none: false; notice_optout: true; explicit: the box is checked */
	function consent() {
		var b = consentBox();
		return explicit ? !!(b && b.checked) : mode === 'notice_optout';
	}

	function send(type, contact) {
		navigator.sendBeacon(collect, new Blob([JSON.stringify({
			v: 1, site: site, visitor: visitor, session: session, type: type,
			url: location.href.split('#')[0], referrer: document.referrer,
			campaign: d.campaign, role: d.role, contact: contact || {},
			consent: consent(), ts: Date.now()
		})], { type: 'text/plain' }));
	}

	function watched(el, rescan) {
		if (rescan || !fields) fields = scanFields(profile);
		return fields.email.indexOf(el) >= 0 ||
		    fields.tel.some(function (g) { return g.indexOf(el) >= 0; });
	}

	function capture() {
		var c = readContact(fields = scanFields(profile)), k = JSON.stringify(c);
		if (k === '{}' || sent[k] || explicit && !consent()) return;
		sent[k] = 1;
		send('capture', c);
	}

	send('page_view');
	if (d.role === 'thanks') send('conversion');
	if (d.role !== 'form' && d.role !== 'landing') return;

	document.addEventListener('focusin', guard(function (e) { watched(e.target, true); }), true);
	document.addEventListener('input', guard(function (e) {
		if (!started && watched(e.target)) {
			started = true;
			send('form_start');
		}
	}), true);
	var onLeaveField = guard(function (e) {
		var b = consentBox();
		if (b && e.target === b) {
			if (e.type === 'change') {
				send('consent');
				capture();
			}
		} else if (watched(e.target, true)) capture();
	});
	document.addEventListener('change', onLeaveField, true);
	document.addEventListener('focusout', onLeaveField, true);
	window.addEventListener('pagehide', guard(capture));
	document.addEventListener('visibilitychange', guard(function () {
		if (document.visibilityState === 'hidden') capture();
	}));
}

function boot() {
	var me = document.currentScript, s, i, src, site, base;
	if (!me || !me.getAttribute('data-site')) {
		s = document.getElementsByTagName('script');
		for (me = null, i = s.length - 1; i >= 0 && !me; i--)
			if (/\/tag\.js([?#]|$)/.test(s[i].src) && s[i].getAttribute('data-site')) me = s[i];
	}
	if (!me || window.__formback || !navigator.sendBeacon || !window.fetch) return;
	window.__formback = 1;
	site = me.getAttribute('data-site');
	src = new URL(me.src, location.href);
	base = src.origin + src.pathname.replace(/\/tag\.js$/, '');
	fetch(base + '/tag/' + encodeURIComponent(site) + '.json', { credentials: 'omit' })
	    .then(function (r) { return r.ok ? r.json() : null; })
	    .then(guard(function (cfg) { run(cfg, base, site); }), function () { /* no config: nothing */ });
}

if (typeof module !== 'undefined' && module.exports)
	module.exports = {
		parseLocation: parseLocation, decide: decide, ruleMatches: ruleMatches,
		globMatch: globMatch, normalizeTel: normalizeTel, normalizeEmail: normalizeEmail,
		looksLikeEmail: looksLikeEmail
	};
if (typeof window !== 'undefined' && typeof document !== 'undefined')
	try { boot(); } catch (e) { /* never into the page */ }
})();
