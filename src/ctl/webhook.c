/*
 * formbackctl webhook enable --id E (issue 40): a stopped endpoint sends
 * again, its failures and any pause forgotten, as the admin UI's
 * "enable" does (ops/webhook.h); its records that ended "endpoint
 * stopped" stay so (the admin UI recovers them).
 */
#include "ctl/ctl.h"
#include "ops/webhook.h"
#include "db/store.h"

static void
webhook_enable_cmd(struct ctl *c)
{
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	json_object	*out;
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	ctl_connect(c);
	if ((e = db_webhook_owner(&c->db, id, tenant)) == FB_ENOTFOUND)
		ctl_die(c, 1, "webhook endpoint '%s' not found", id);
	ctl_check(c, e, "look the endpoint up");
	/* deleted since the look-up: as if it were not there */
	if ((e = webhook_enable(&c->db, tenant, id)) == FB_ENOTFOUND)
		ctl_die(c, 1, "webhook endpoint '%s' not found", id);
	ctl_check(c, e, "enable the endpoint");
	ctl_audit_commit(c, tenant, "webhook_endpoint.enable",
	    "webhook_endpoint", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "status", "enabled");
	ctl_print(out);
}

const struct ctl_cmd ctl_webhook_enable_cmd = {
	"webhook", "enable", "--id E", 0, webhook_enable_cmd
};
