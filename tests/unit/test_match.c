/*
 * match.c against tests/data/url-match.json, the vectors tag.js runs too
 * (tag/test/match.test.js), so the server's match test and the browser
 * decide alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <json-c/json.h>

#include "../../src/match.h"

static json_object *
vectors(void)
{
	const char	*dir = getenv("top_srcdir");
	char		 path[4096];
	json_object	*v;

	snprintf(path, sizeof(path), "%s/tests/data/url-match.json",
	    dir ? dir : ".");
	v = json_object_from_file(path);
	cr_assert_not_null(v, "cannot read %s", path);
	return v;
}

static const char *
str(json_object *o, const char *k)
{
	json_object	*v;

	return json_object_object_get_ex(o, k, &v) && v != NULL ?
	    json_object_get_string(v) : NULL;
}

Test(match, shared_vectors)
{
	json_object	*v = vectors(), *cases, *c, *rules, *camps, *ro;
	json_object	*ex, *pr;
	struct url_rule	 r[16];
	struct url_loc	 loc;
	size_t		 i, j, k, n, evaluated;
	long		 hit;
	char		 why[256];
	const char	*want;

	cr_assert(json_object_object_get_ex(v, "cases", &cases));
	for (i = 0; i < json_object_array_length(cases); i++) {
		c = json_object_array_get_idx(cases, i);
		json_object_object_get_ex(c, "rules", &rules);
		json_object_object_get_ex(c, "campaigns", &camps);
		json_object_object_get_ex(c, "expect", &ex);
		cr_assert(url_parse(str(c, "url"), &loc), "%s: url",
		    str(c, "name"));
		n = json_object_array_length(rules);
		for (j = 0; j < n; j++) {
			ro = json_object_array_get_idx(rules, j);
			memset(&r[j], 0, sizeof(r[j]));
			r[j].campaign = str(ro, "campaign");
			r[j].type = (enum match_type)match_type_parse(str(ro,
			    "match_type"));
			r[j].role = (enum rule_role)rule_role_parse(str(ro,
			    "role"));
			r[j].pattern = str(ro, "pattern");
			json_object_object_get_ex(ro, "priority", &pr);
			r[j].priority = pr != NULL ?
			    json_object_get_int(pr) : -1;
			r[j].position = (int)j;
			for (k = 0; k < json_object_array_length(camps); k++)
				if (strcmp(json_object_get_string(
				    json_object_array_get_idx(camps, k)),
				    r[j].campaign) == 0)
					r[j].campaign_order = (int)k;
			cr_assert_eq(rule_pattern_ok(r[j].type, r[j].pattern,
			    why, sizeof(why)), RULE_OK,
			    "%s: rule %zu: %s", str(c, "name"), j, why);
		}
		cr_assert(rules_prepare(r, n, why, sizeof(why)), "%s", why);
		rules_sort(r, n);
		hit = rules_decide(r, n, &loc, &evaluated);
		want = str(ex, "campaign");
		if (want == NULL)
			cr_assert_eq(hit, -1, "%s: matched %s", str(c, "name"),
			    hit >= 0 ? r[hit].pattern : "");
		else {
			cr_assert_geq(hit, 0, "%s: no match", str(c, "name"));
			cr_assert_str_eq(r[hit].campaign, want, "%s",
			    str(c, "name"));
			cr_assert_str_eq(rule_role_names[r[hit].role],
			    str(ex, "role"),
			    "%s", str(c, "name"));
		}
		cr_assert_eq((long)evaluated,
		    json_object_get_int(json_object_object_get(ex,
		    "evaluated")), "%s: evaluated %zu", str(c, "name"),
		    evaluated);
		rules_free(r, n);
	}
	json_object_put(v);
}

Test(match, divergent_regexes_are_refused)
{
	json_object	*v = vectors(), *bad;
	size_t		 i;
	char		 why[256];
	const char	*p;

	cr_assert(json_object_object_get_ex(v, "invalid_regex", &bad));
	for (i = 0; i < json_object_array_length(bad); i++) {
		p = json_object_get_string(json_object_array_get_idx(bad, i));
		cr_assert_eq(rule_pattern_ok(MT_REGEX, p, why, sizeof(why)),
		    RULE_INVALID,
		    "accepted %s", p);
	}
	json_object_put(v);
}

/* The browser's locations of the shared vectors (the URL Standard). */
Test(match, url_parse)
{
	json_object	*v = vectors(), *locs, *c;
	struct url_loc	 l;
	char		 href[URL_MAX + 1];
	size_t		 i;

	cr_assert(json_object_object_get_ex(v, "locations", &locs));
	cr_assert_gt(json_object_array_length(locs), 20);
	for (i = 0; i < json_object_array_length(locs); i++) {
		c = json_object_array_get_idx(locs, i);
		cr_assert(url_parse(str(c, "url"), &l), "%s: not parsed",
		    str(c, "url"));
		cr_assert_str_eq(l.hostname, str(c, "hostname"), "%s",
		    str(c, "url"));
		cr_assert_str_eq(l.pathname, str(c, "pathname"), "%s",
		    str(c, "url"));
		cr_assert_str_eq(l.search, str(c, "search"), "%s",
		    str(c, "url"));
		cr_assert(url_href(&l, href, sizeof(href)));
		cr_assert_str_eq(href, str(c, "href"), "%s", str(c, "url"));
		cr_assert(url_normalize(str(c, "url"), href));
		cr_assert_str_eq(href, str(c, "href"), "%s", str(c, "url"));
	}
	cr_assert(json_object_object_get_ex(v, "unparsable", &locs));
	for (i = 0; i < json_object_array_length(locs); i++)
		cr_assert(!url_parse(json_object_get_string(
		    json_object_array_get_idx(locs, i)), &l), "%s parsed",
		    json_object_get_string(json_object_array_get_idx(locs, i)));
	json_object_put(v);
}

Test(match, other_patterns)
{
	char	 why[128];

	cr_assert_eq(rule_pattern_ok(MT_PREFIX, "form", why, sizeof(why)),
	    RULE_INVALID);
	cr_assert_eq(rule_pattern_ok(MT_PREFIX, "", why, sizeof(why)),
	    RULE_INVALID);
	cr_assert_eq(rule_pattern_ok(MT_HOST, "a b", why, sizeof(why)),
	    RULE_INVALID);
	cr_assert_eq(rule_pattern_ok(MT_HOST, "x.*.jp", why, sizeof(why)),
	    RULE_INVALID);
	cr_assert_eq(rule_pattern_ok(MT_HOST, "*.example.jp", why, sizeof(why)),
	    RULE_OK);
	cr_assert_eq(rule_pattern_ok(MT_QUERY, "=x", why, sizeof(why)),
	    RULE_INVALID);
	cr_assert_eq(rule_pattern_ok(MT_QUERY, "a=1&b=2", why, sizeof(why)),
	    RULE_INVALID);
	cr_assert_eq(rule_pattern_ok(MT_REGEX, "^/(a|b)[^/]*?$", why,
	    sizeof(why)), RULE_OK,
	    "%s", why);
	cr_assert_eq(rule_pattern_ok(MT_REGEX, "^/(a|b)+[^/]*?$", why,
	    sizeof(why)),
	    RULE_UNBOUNDED);
}

/* What a URL may not keep: contacts in any of its parts (issue 11). */
Test(match, url_scrub)
{
	static const struct { const char *in, *out; } v[] = {
		{ "https://a.jp/form?tel=0312345678&x=1",
		    "https://a.jp/form?x=1" },
		{ "https://a.jp/u/taro%40example.jp/p",
		    "https://a.jp/u/redacted/p" },
		{ "https://a.jp/u/%EF%BC%90%EF%BC%99%EF%BC%90-1234-5678",
		  "https://a.jp/u/redacted" },
		{ "https://a.jp/?a=090&b=1234&c=5678&d=7",
		    "https://a.jp/?d=7" },
		{ "https://a.jp/?zip1=150&zip2=0001&p=2",
		    "https://a.jp/?zip1=150&zip2=0001&p=2" },
		{ "https://a.jp/?q=%2B81+90+1234+5678", "https://a.jp/" },
		{ "https://a.jp/?q=call+03-1234-5678+now&k=v",
		    "https://a.jp/?k=v" },
		{ "https://a.jp/x#hanako@example.jp", "https://a.jp/x" },
		{ "https://a.jp/x#s=1&m=a%40b.jp", "https://a.jp/x#s=1" },
		{ "https://a.jp/item/1234567890123/page/2",
		    "https://a.jp/item/1234567890123/page/2" },
		{ "https://a.jp/@shop/news", "https://a.jp/@shop/news" },
		{ "https://a.jp/order/20261124-0001",
		    "https://a.jp/order/20261124-0001" },
	};
	struct url_loc	 l;
	char		 href[URL_MAX + 1];
	size_t		 i;

	for (i = 0; i < NELEM(v); i++) {
		cr_assert(url_parse(v[i].in, &l), "%s", v[i].in);
		cr_assert_eq(url_scrub(&l), strcmp(v[i].in, v[i].out) != 0,
		    "%s", v[i].in);
		cr_assert(url_href(&l, href, sizeof(href)));
		cr_assert_str_eq(href, v[i].out, "%s", v[i].in);
	}
}

/*
 * Patterns that could stall the matcher are refused, the same ones as
 * tag.js skips (issue 11; the shared vectors).
 */
Test(match, regex_bounds)
{
	json_object	*v = vectors(), *a;
	char		 why[128];
	const char	*p;
	size_t		 i;

	cr_assert(json_object_object_get_ex(v, "unbounded_regex", &a));
	for (i = 0; i < json_object_array_length(a); i++) {
		p = json_object_get_string(json_object_array_get_idx(a, i));
		cr_assert_eq(rule_pattern_ok(MT_REGEX, p, why, sizeof(why)),
		    RULE_UNBOUNDED, "accepted %s", p);
	}
	cr_assert(json_object_object_get_ex(v, "bounded_regex", &a));
	for (i = 0; i < json_object_array_length(a); i++) {
		p = json_object_get_string(json_object_array_get_idx(a, i));
		cr_assert_eq(rule_pattern_ok(MT_REGEX, p, why, sizeof(why)),
		    RULE_OK,
		    "%s: %s", p, why);
	}
	json_object_put(v);
}

/*
 * A pattern stored before the check (compiled here without it) cannot
 * stall the matcher: its match limits end it, as no match, and say so.
 * 24 letters take about a million steps of PCRE2 (its own default limit
 * is ten million): past this matcher's limit, so only the limit ends it.
 */
Test(match, regex_match_limits, .init = cr_redirect_stderr)
{
	struct url_rule	 r = { .campaign = "c", .type = MT_REGEX,
			    .pattern = "^/form(a|aa)+$", .role = ROLE_FORM };
	struct url_loc	 l;
	char		 why[128], err[4096];
	size_t		 n;

	log_init("test", LOG_WARN);
	cr_assert(url_parse("https://a.jp/formaaaaaaaaaaaaaaaaaaaaaaaab", &l));
	cr_assert(rules_prepare(&r, 1, why, sizeof(why)), "%s", why);
	cr_assert_not(rule_match(&r, &l));
	rules_free(&r, 1);
	fflush(stderr);
	n = fread(err, 1, sizeof(err) - 1, cr_get_redirected_stderr());
	err[n] = '\0';
	cr_assert_not_null(strstr(err, "ran into its match limits"), "%s", err);
}

/* url.c: the one query reader and percent-decoder. */
Test(url, query_next_and_pct_decode)
{
	struct query_pair q;
	const char	*p = "&a=1&&b&c=x%20y+z&=v&";
	char		 o[64];

	cr_assert(query_next(&p, &q));
	cr_assert(q.name_len == 1 && strncmp(q.name, "a", 1) == 0 &&
	    q.has_value);
	cr_assert(q.value_len == 1 && q.value[0] == '1');
	cr_assert(query_next(&p, &q));
	cr_assert(q.name_len == 1 && !q.has_value && q.value_len == 0);
	cr_assert(query_next(&p, &q));
	cr_assert(pct_decode(q.value, q.value_len, PCT_PLUS, o, sizeof(o)));
	cr_assert_str_eq(o, "x y z");
	cr_assert(pct_decode(q.value, q.value_len, 0, o, sizeof(o)));
	cr_assert_str_eq(o, "x y+z");
	cr_assert(query_next(&p, &q));
	cr_assert(q.name_len == 0 && q.value_len == 1);
	cr_assert_not(query_next(&p, &q));
	/* strict: a broken escape or %00 is an error; lenient keeps it */
	cr_assert_not(pct_decode("a%2", 3, PCT_STRICT, o, sizeof(o)));
	cr_assert_not(pct_decode("a%zz", 4, PCT_STRICT, o, sizeof(o)));
	cr_assert_not(pct_decode("a%00b", 5, PCT_STRICT, o, sizeof(o)));
	cr_assert(pct_decode("a%zz", 4, 0, o, sizeof(o)));
	cr_assert_str_eq(o, "a%zz");
	cr_assert_not(pct_decode("abcdef", 6, 0, o, 4), "too small");
	cr_assert_str_eq(o, "abc");
}
