/* URLs as the tag sends them, the contact scrub, and rule matching. */
#include "fuzz.h"
#include "match.h"
#include "url.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct url_loc loc, again;
	static struct url_rule rules[5] = {
		{ "a", 0, 0, ROLE_FORM, MT_PREFIX, "/form", -1, NULL },
		{ "a", 0, 1, ROLE_LANDING, MT_GLOB, "/items/*/buy?", -1, NULL },
		{ "b", 1, 0, ROLE_THANKS, MT_REGEX,
		    "^/thanks(/[a-z]+)?$", 2, NULL },
		{ "b", 1, 1, ROLE_FORM, MT_QUERY, "ref=mail", -1, NULL },
		{ "c", 2, 0, ROLE_LANDING, MT_HOST, "*.example.jp", -1, NULL },
	};
	static bool	 ready;
	char		*s = fuzz_str(data,
	    n), href[URL_MAX + 1], href2[URL_MAX + 1];
	char		 why[128];
	size_t		 ev;

	if (s == NULL)
		return 0;
	if (!ready) {
		ready = rules_prepare(rules, NELEM(rules), why, sizeof(why));
		if (!ready)
			abort();
	}
	if (url_parse(s, &loc)) {
		(void)url_scrub(&loc);
		if (url_href(&loc, href, sizeof(href))) {
			/* what is kept parses to itself */
			if (!url_parse(href, &again) || !url_href(&again, href2,
			    sizeof(href2)) || strcmp(href, href2) != 0)
				abort();
		}
		(void)rules_decide(rules, NELEM(rules), &loc, &ev);
	}
	(void)rule_pattern_ok(MT_REGEX, s, why, sizeof(why));
	(void)rule_pattern_ok(MT_GLOB, s, why, sizeof(why));
	free(s);
	return 0;
}
