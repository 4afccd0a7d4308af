/*
 * A site's tag configuration (design 2; docs/internals/tag.md): built
 * from the database, served by GET /sites/{id}/tag-config, evaluated by
 * the match test, and published as {publish_dir}/{public key}.json.
 */
#ifndef FORMBACK_PUBLISH_H
#define FORMBACK_PUBLISH_H

#include "req.h"
#include "match.h"

/* The live rules of a site, in evaluation order, ready for rules_decide(). */
struct live_rules {
	struct dbrows	 rows;		/* owns the strings the rules borrow */
	struct url_rule	*rules;
	size_t		 n;
};

/* Load and compile; live_rules_free() releases.  Errors are internal. */
enum fb_err	live_rules_load(struct db *, const char *tenant, const char *site,
		    struct live_rules *) FB_WUR;
void		live_rules_free(struct live_rules *);
/* MatchRuleOut (contract: Match test) of rule i. */
json_object	*match_rule_json(const struct url_rule *);
struct form_profile_row;
/*
 * A form profile's selectors and detected_by as the tag configuration
 * and FormProfileOut (contract) both write them; NULL (or a row of NULL
 * fields) is automatic detection.  The caller puts it.
 */
json_object	*form_profile_json(const struct form_profile_row *);

/*
 * The configuration object of docs/internals/tag.md for the site, as the
 * database holds it now (uncommitted writes of this connection included).
 * The caller puts it.
 */
enum fb_err	tagconf_build(struct db *, const struct conf *, const char *tenant,
		    const char *site, json_object **) FB_WUR;

/*
 * Publish the site's configuration for this request: write it to a
 * temporary file in publish_dir now (inside the request's transaction),
 * and let the dispatcher rename it into place after the commit
 * (publish_commit) or remove it on rollback (publish_abort).  Nothing is
 * written for a dry run.  Returns false when the file could not be
 * written: the caller reports the site in publish_failed and the write
 * still succeeds (design 2).
 */
bool		publish_site(struct req *, const char *tenant, const char *site);
void		publish_commit(struct req *);
void		publish_abort(struct req *);
/* Rebuild and write one site's file at once (formbackctl publish). */
enum fb_err	publish_now(struct db *, const struct conf *, const char *tenant,
		    const char *site, char *err, size_t errsz) FB_WUR;

#endif
