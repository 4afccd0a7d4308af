/*
 * formbackctl site create | release | set: a tenant's sites
 * (formbackctl(8)).
 */
#include <stdio.h>
#include <string.h>

#include "ctl/ctl.h"
#include "netguard.h"
#include "ops/site.h"
#include "db/store.h"

/* site create --tenant T --name N --domain D (ops/site.h) */
static void
site_create_cmd(struct ctl *c)
{
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 pk[SITE_KEY_SIZE], host[SITE_DOMAIN_MAX + 1];
	const char	*name, *domain;
	json_object	*out;

	ctl_opt_uuid(c, "tenant", tenant);
	name = ctl_opt(c, "name", true);
	domain = ctl_opt(c, "domain", true);
	if (!site_name_ok(name))
		ctl_die(c, 2, "option '--name': 1 to 200 characters of UTF-8 "
		    "on one line, not all spaces");
	if (!site_domain(domain, host))
		ctl_die(c, 2, "option '--domain': '%s' is not a host name",
		    domain);
	ctl_connect(c);
	ctl_need_tenant(c, tenant);
	ctl_check(c, site_create(&c->db, tenant, name, host, id, pk),
	    "create the site");
	ctl_audit_commit(c, tenant, "site.create", "site", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "public_key", pk);
	ctl_print(out);
}

/*
 * site release --id S [--leads keep|discard]: sending resumes for a site a
 * flood of new leads held before migration 0034 (since, a flood's leads
 * are quarantined per batch instead: quarantine release|discard); with
 * discard, the unfinished leads captured from the hour before the hold
 * on are suppressed (lead_ineligible) with what was to be sent to them.
 */
static void
site_release(struct ctl *c)
{
	static const char *const how[] = { "keep", "discard", NULL };
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	const char	*leads;
	unsigned long long n;
	bool		 released;
	json_object	*out;
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	if ((leads = ctl_opt(c, "leads", false)) == NULL)
		leads = "keep";
	if (!one_of(leads, how))
		ctl_die(c, 2, "option '--leads': expected keep or discard");
	ctl_connect(c);
	if ((e = db_site_tenant(&c->db, id, tenant)) == FB_ENOTFOUND)
		ctl_die(c, 1, "site '%s' not found", id);
	ctl_check(c, e, "find the site");
	ctl_check(c, db_site_release(&c->db, tenant, id,
	    strcmp(leads, "discard") == 0, &released, &n), "release the site");
	if (!released)
		ctl_die(c, 1, "site '%s': its sending is not held", id);
	ctl_audit_commit(c, tenant, "site.sending_released", "site", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_int(out, "discarded_leads", (long long)n);
	ctl_print(out);
}

/*
 * site set --id S --privacy-policy-url U: the page formback-webhooks
 * checks (formback.fcgi(8) "Privacy-policy checks"); an empty U clears it.
 * http or https, kept as the URL parser serializes it, on a public
 * address (the rule of webhook URLs).
 */
static void
site_set(struct ctl *c)
{
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 url[URL_MAX + 1];
	const char	*in, *why;
	json_object	*out;
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	in = ctl_opt(c, "privacy-policy-url", true);
	ctl_connect(c);
	if (*in != '\0' && !net_url_ok(&c->conf, in, false, url, &why))
		ctl_die(c, 2, "option '--privacy-policy-url': %s", why);
	if ((e = db_site_tenant(&c->db, id, tenant)) == FB_ENOTFOUND)
		ctl_die(c, 1, "site '%s' not found", id);
	ctl_check(c, e, "find the site");
	ctl_check(c, db_site_set_pp_url(&c->db, tenant, id,
	    *in != '\0' ? url : NULL), "set the privacy-policy URL");
	ctl_audit_commit(c, tenant, "site.privacy_policy_url", "site", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "privacy_policy_url", *in != '\0' ? url : NULL);
	ctl_print(out);
}

const struct ctl_cmd ctl_site_create_cmd = {
	"site", "create", "--tenant T --name N --domain D", 0, site_create_cmd
};
const struct ctl_cmd ctl_site_release_cmd = {
	"site", "release", "--id S [--leads keep|discard]", 0, site_release
};
const struct ctl_cmd ctl_site_set_cmd = {
	"site", "set", "--id S --privacy-policy-url U", 0, site_set
};
