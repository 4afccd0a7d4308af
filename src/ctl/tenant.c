/*
 * formbackctl tenant create | set-quiet-hours | set-quota,
 * delivery-switch, usage: a tenant, its settings and its month of
 * sending (formbackctl(8)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl/ctl.h"
#include "ops/site.h"
#include "ops/usage.h"
#include "db/store.h"

static void
tenant_create(struct ctl *c)
{
	const char	*name, *plan, *rl;
	char		 id[UUID_STRLEN + 1], *end;
	long		 rate = -1;
	enum plan	 p;

	name = ctl_opt(c, "name", true);
	if ((plan = ctl_opt(c, "plan", false)) == NULL)
		plan = "free";
	if (!plan_parse(plan, &p))
		ctl_die(c, 2, "option '--plan': unknown plan '%s'", plan);
	if ((rl = ctl_opt(c, "rate-limit", false)) != NULL) {
		rate = strtol(rl, &end, 10);
		if (*rl == '\0' || *end != '\0' || rate < 1 || rate > 1000000)
			ctl_die(c, 2, "option '--rate-limit': expected 1 to "
			    "1000000");
	}
	if (!site_name_ok(name))
		ctl_die(c, 2, "option '--name': 1 to 200 characters of UTF-8 "
		    "on one line, not all spaces");
	ctl_connect(c);
	uuid_v7(id);
	ctl_check(c, db_tenant_create(&c->db, id, name, plan, (int)rate),
	    "create the tenant");
	ctl_audit_commit(c, id, "tenant.create", "tenant", id);
	ctl_print_id(id);
}

/* "HH:MM" as minutes after midnight, or -1. */
static int
hhmm(const char *s)
{
	int	 h, m;
	char	 tail;

	if (sscanf(s, "%2d:%2d%c", &h, &m, &tail) != 2 || h < 0 || h > 23 ||
	    m < 0 || m > 59 || strlen(s) != 5)
		return -1;
	return h * 60 + m;
}

/* SMS quiet hours (JST) of a tenant; equal start and end: none. */
static void
tenant_quiet_hours(struct ctl *c)
{
	char		 tenant[UUID_STRLEN + 1];
	int		 start, end;
	json_object	*out;

	ctl_opt_uuid(c, "tenant", tenant);
	if ((start = hhmm(ctl_opt(c, "start", true))) < 0 ||
	    (end = hhmm(ctl_opt(c, "end", true))) < 0)
		ctl_die(c, 2, "options '--start' and '--end': expected HH:MM "
		    "(JST)");
	ctl_connect(c);
	ctl_need_tenant(c, tenant);
	ctl_check(c, db_tenant_quiet_hours(&c->db, tenant, start, end),
	    "set the quiet hours");
	ctl_audit_commit(c, tenant, "tenant.quiet_hours", "tenant", tenant);
	out = json_object_new_object();
	jadd_str(out, "tenant_id", tenant);
	jadd_str(out, "start", ctl_opt(c, "start", true));
	jadd_str(out, "end", ctl_opt(c, "end", true));
	ctl_print(out);
}

/* The monthly sending quota of a tenant: a number, or "plan" for its plan's. */
static void
tenant_quota(struct ctl *c)
{
	char		 tenant[UUID_STRLEN + 1], *end;
	const char	*v;
	long		 n = -1;
	json_object	*out;

	ctl_opt_uuid(c, "tenant", tenant);
	v = ctl_opt(c, "sends", true);
	if (strcmp(v, "plan") != 0) {
		n = strtol(v, &end, 10);
		if (*v == '\0' || *end != '\0' || n < 1 || n > 100000000)
			ctl_die(c, 2, "option '--sends': expected 1 to "
			    "100000000, or 'plan'");
	}
	ctl_connect(c);
	ctl_need_tenant(c, tenant);
	ctl_check(c, db_tenant_quota(&c->db, tenant, n), "set the quota");
	ctl_audit_commit(c, tenant, "tenant.send_quota", "tenant", tenant);
	out = json_object_new_object();
	jadd_str(out, "tenant_id", tenant);
	if (n < 0)
		jadd_str(out, "send_quota", NULL);
	else
		jadd_int(out, "send_quota", n);
	ctl_print(out);
}

static void
delivery_switch(struct ctl *c)
{
	static const char *const modes[] = { "off", "test_only", "live", NULL };
	char		 tenant[UUID_STRLEN + 1];
	const char	*mode;
	json_object	*out;
	enum fb_err	 e;

	ctl_opt_uuid(c, "tenant", tenant);
	mode = ctl_opt(c, "mode", true);
	if (!one_of(mode, modes))
		ctl_die(c, 2, "option '--mode': expected off, test_only or "
		    "live");
	ctl_connect(c);
	e = db_delivery_switch(&c->db, tenant, mode);
	if (e == FB_ENOTFOUND)
		ctl_die(c, 1, "tenant '%s' not found", tenant);
	ctl_check(c, e, "set the delivery switch");
	ctl_audit_commit(c, tenant, "delivery_switch.set", "tenant", tenant);
	out = json_object_new_object();
	jadd_str(out, "tenant_id", tenant);
	jadd_str(out, "mode", mode);
	ctl_print(out);
}

/* A tenant's sends in a JST month against its quota (ops/usage.h). */
static void
usage(struct ctl *c)
{
	char		 tenant[UUID_STRLEN + 1], month[8], tail;
	const char	*m;
	struct usage	 u;
	json_object	*out;
	int		 y, mo;
	enum fb_err	 e;

	ctl_opt_uuid(c, "tenant", tenant);
	if ((m = ctl_opt(c, "month", false)) != NULL) {
		if (strlen(m) != 7 ||
		    sscanf(m, "%4d-%2d%c", &y, &mo, &tail) != 2 ||
		    mo < 1 || mo > 12 || m[4] != '-')
			ctl_die(c, 2, "option '--month': expected YYYY-MM "
			    "(JST)");
		snprintf(month, sizeof(month), "%s", m);
	} else
		time_jst_month((int64_t)time(NULL), month);
	ctl_connect(c);
	if ((e = usage_month(&c->db, tenant, month, &u)) == FB_ENOTFOUND)
		ctl_die(c, 1, "tenant '%s' not found", tenant);
	ctl_check(c, e, "read the usage");
	out = json_object_new_object();
	jadd_str(out, "tenant_id", tenant);
	jadd_str(out, "month", month);
	jadd_str(out, "plan", plans[u.plan].name);
	jadd_int(out, "sends", u.sends);
	jadd_int(out, "quota", u.quota);
	jadd_int(out, "notified_percent", u.notified_pct);
	db_rollback(&c->db);
	ctl_print(out);
}

const struct ctl_cmd ctl_tenant_create_cmd = {
	"tenant", "create",
	"--name N [--plan free|starter|growth|pro] [--rate-limit N]",
	0, tenant_create
};
const struct ctl_cmd ctl_tenant_quiet_hours_cmd = {
	"tenant", "set-quiet-hours", "--tenant T --start HH:MM --end HH:MM",
	0, tenant_quiet_hours
};
const struct ctl_cmd ctl_tenant_quota_cmd = {
	"tenant", "set-quota", "--tenant T --sends N|plan", 0, tenant_quota
};
const struct ctl_cmd ctl_delivery_switch_cmd = {
	"delivery-switch", NULL, "--tenant T --mode off|test_only|live",
	0, delivery_switch
};
const struct ctl_cmd ctl_usage_cmd = {
	"usage", NULL, "--tenant T [--month YYYY-MM]", 0, usage
};
