/*
 * formbackctl scenario set-status: the session-only transition of a
 * scenario (design 4).  Activation runs the same checks a session would
 * (ops/scenario.h) and is refused with the reason and the first
 * offending field.
 */
#include <stdio.h>
#include <string.h>

#include "ctl/ctl.h"
#include "ops/scenario.h"
#include "db/store.h"

static void
scenario_set_status(struct ctl *c)
{
	static const char *const st[] = { "draft", "active", "paused", NULL };
	struct dbrows	 r;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 campaign[UUID_STRLEN + 1], why[256], param[64];
	const char	*status;
	json_object	*out;
	bool		 ok;
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	status = ctl_opt(c, "status", true);
	if (!one_of(status, st))
		ctl_die(c, 2, "option '--status': expected draft, active or "
		    "paused");
	ctl_connect(c);
	if ((e = db_scenario_tenant(&c->db, id, tenant)) == FB_ENOTFOUND)
		ctl_die(c, 1, "scenario '%s' not found", id);
	ctl_check(c, e, "look the scenario up");
	ctl_check(c, db_scenario_get(&c->db, tenant, id, &r),
	    "read the scenario");
	snprintf(campaign, sizeof(campaign), "%s",
	    ((const struct scenario_row *)r.row)->campaign_id);
	dbrows_free(&r);
	if (strcmp(status, "active") == 0) {
		ctl_check(c, scenario_ready(&c->db, &c->conf, tenant, id,
		    campaign, &ok, why, sizeof(why), param, sizeof(param)),
		    "check the scenario");
		if (!ok)
			ctl_die(c, 1, "cannot activate scenario '%s': %s "
			    "(field '%s')", id, why, param);
	}
	ctl_check(c, db_scenario_set_status(&c->db, tenant, id, status),
	    "update the scenario");
	ctl_audit_commit(c, tenant, "scenario.set_status", "scenario", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "status", status);
	ctl_print(out);
}

const struct ctl_cmd ctl_scenario_status_cmd = {
	"scenario", "set-status", "--id S --status draft|active|paused",
	0, scenario_set_status
};
