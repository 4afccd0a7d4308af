/*
 * formbackctl campaign set-status: the session-only transition of a
 * campaign (design 4), republishing its site's tag configuration.
 */
#include <stdio.h>

#include "ctl/ctl.h"
#include "publish.h"
#include "db/store.h"

/* A status change changes what the site publishes (design 2). */
static void
republish_campaign_site(struct ctl *c, const char *tenant, const char *campaign)
{
	struct dbrows	 r;
	char		 err[512];

	if (db_campaign_get(&c->db, tenant, campaign, &r) != FB_OK)
		return;
	if (publish_now(&c->db, &c->conf, tenant,
	    ((const struct campaign_row *)r.row)->site_id, err,
	    sizeof(err)) != FB_OK)
		fprintf(stderr, "formbackctl: warning: publishing failed: %s "
		    "(run formbackctl publish)\n", err);
	dbrows_free(&r);
}

static void
campaign_set_status(struct ctl *c)
{
	static const char *const st[] = { "active", "paused", "archived",
	    NULL };
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	const char	*status;
	json_object	*out;
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	status = ctl_opt(c, "status", true);
	if (!one_of(status, st))
		ctl_die(c, 2, "option '--status': expected active, paused or "
		    "archived");
	ctl_connect(c);
	e = db_campaign_set_status(&c->db, id, status, tenant);
	if (e == FB_ENOTFOUND)
		ctl_die(c, 1, "campaign '%s' not found", id);
	ctl_check(c, e, "update the campaign");
	ctl_audit_commit(c, tenant, "campaign.set_status", "campaign", id);
	republish_campaign_site(c, tenant, id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "status", status);
	ctl_print(out);
}

const struct ctl_cmd ctl_campaign_status_cmd = {
	"campaign", "set-status", "--id C --status active|paused|archived",
	0, campaign_set_status
};
