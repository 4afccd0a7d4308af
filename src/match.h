/*
 * URL rules (contract: UrlRulesIn, Match test; design 3): which campaign
 * and role a page falls under.  tag.js implements the same decision; both
 * run the vectors of tests/data/url-match.json.
 */
#ifndef FORMBACK_MATCH_H
#define FORMBACK_MATCH_H

#include "url.h"

#define RULE_PATTERN_MAX 512

enum match_type { MT_PREFIX = 0, MT_GLOB, MT_REGEX, MT_QUERY, MT_HOST,
    MT__MAX };
enum rule_role { ROLE_LANDING = 0, ROLE_FORM, ROLE_THANKS, ROLE__MAX };

extern const char *const match_type_names[MT__MAX];
extern const char *const rule_role_names[ROLE__MAX];

struct url_rule {
	const char	*campaign;	/* campaign key (borrowed) */
	int		 campaign_order;/* position of the campaign, 0 first */
	/* position within the campaign's rules */
	int		 position;
	enum rule_role	 role;
	enum match_type	 type;
	const char	*pattern;	/* borrowed */
	long		 priority;	/* lower first; < 0 means null (last) */
	/* compiled regex, for MT_REGEX; rules_free() */
	void		*re;
};

/* Look a name up in a table; -1 when unknown. */
int	match_type_parse(const char *);
int	rule_role_parse(const char *);
/*
 * Check a pattern for its type.  Regular expressions are limited to the
 * syntax that means the same in ECMAScript (no flags) and in PCRE2 with
 * PCRE2_DOLLAR_ENDONLY: literals, ., ^, $, |, groups ( ) and (?: ),
 * classes without POSIX names, \d \D \w \W \s \S \b \B \n \r \t \f,
 * escaped punctuation, and the quantifiers * + ? {n} {n,} {n,m} with an
 * optional lazy ?.  And to what keeps a match bounded (issue 11; the
 * rule of "catastrophic backtracking"): a quantifier that repeats (*, +,
 * {n,m} with m above 1) may not apply to a group that holds a quantifier
 * of any kind or an alternation ("(a+)+", "(a|aa)+", "(a?)+", "(.*a){20}"
 * are refused; "(x|y)", "(\?.*)?" and "[0-9]+" are fine), at most 6
 * quantifiers repeat without bound, counts stop at 256 and groups nest
 * at most 16 deep.  tag.js refuses exactly the same (shared vectors in
 * tests/data/url-match.json).  Returns RULE_OK, or RULE_INVALID or
 * RULE_UNBOUNDED with a reason in English in why.
 */
enum rule_check { RULE_OK = 0, RULE_INVALID, RULE_UNBOUNDED };
enum rule_check	rule_pattern_ok(enum match_type, const char *pattern, char *why,
		    size_t whysz);
/* Compile the rules' regexes; false (with why) when one cannot be. */
bool	rules_prepare(struct url_rule *, size_t n, char *why, size_t whysz);
void	rules_free(struct url_rule *, size_t n);
/* Sort into evaluation order: priority (null last), campaign, position. */
void	rules_sort(struct url_rule *, size_t n);
/*
 * Does one rule match the location?  A regex runs under match limits
 * (100000 steps, depth 1000, 1 MiB of heap); one that runs into them is
 * no match.
 */
bool	rule_match(const struct url_rule *, const struct url_loc *);
/*
 * The decision over rules in evaluation order: the index of the first
 * match, or -1; *evaluated is how many rules were tried (up to and with
 * the match).
 */
long	rules_decide(const struct url_rule *, size_t n, const struct url_loc *,
	    size_t *evaluated);

#endif
