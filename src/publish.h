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
enum fb_err	live_rules_load(struct db *, const char *tenant,
    const char *site, struct live_rules *) FB_WUR;
void		live_rules_free(struct live_rules *);
/*
 * MatchRuleOut (contract: Match test) of rule r: an object under `key`
 * (NULL in an array) of the object or array open in j.
 */
void		match_rule_gen(struct jgen *, const char *key,
		    const struct url_rule *r);
struct form_profile_row;
/*
 * A form profile's selectors and detected_by as the tag configuration
 * and FormProfileOut (contract) both write them, as members of the
 * object open in j; NULL (or a row of NULL fields) is automatic
 * detection.
 */
void		form_profile_gen(struct jgen *,
    const struct form_profile_row *);

/* The largest configuration file written, in bytes. */
#define TAGCONF_MAX	(8u << 20)
/*
 * The configuration object of docs/internals/tag.md for the site, as the
 * database holds it now (uncommitted writes of this connection included),
 * written as the members of the object open in j.  Nothing is written
 * when it returns an error: FB_ENOTFOUND (no such site of the tenant),
 * else a database error.  The writer's own error is jgen_end()'s.
 */
enum fb_err	tagconf_gen(struct db *, const struct conf *,
    const char *tenant, const char *site, struct jgen *) FB_WUR;

/*
 * Publish the site's configuration for this request: write it to a
 * temporary file in publish_dir now (inside the request's transaction),
 * and let the dispatcher rename it into place after the commit
 * (publish_commit) or remove it on rollback (publish_abort).  Nothing is
 * written for a dry run.  Returns false when the file could not be
 * written: the caller reports the site in publish_failed and the write
 * still succeeds (design 2).
 */
bool		publish_site(struct req *, const char *tenant,
    const char *site);
void		publish_commit(struct req *);
void		publish_abort(struct req *);
/* Rebuild and write one site's file at once (formbackctl publish). */
enum fb_err	publish_now(struct db *, const struct conf *,
    const char *tenant, const char *site, char *err, size_t errsz) FB_WUR;

#endif
