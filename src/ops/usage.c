/*
 * A tenant's month of sending against its quota, shared by formbackctl
 * usage and the admin API (api/settings.c; usage.h).
 */
#include <stdlib.h>

#include "ops/usage.h"
#include "db/store.h"

enum fb_err
usage_month(struct db *db, const char *tenant, const char *month,
    struct usage *u)
{
	struct dbrows		 r;
	const struct usage_row	*row;
	enum fb_err		 e;

	if ((e = db_usage_get(db, tenant, month, &r)) != FB_OK)
		return e;
	row = r.row;
	if (!plan_parse(row->plan, &u->plan))
		u->plan = PLAN_FREE;
	u->quota = row->send_quota != NULL ?
	    strtoll(row->send_quota, NULL, 10) : plans[u->plan].monthly_sends;
	u->sends = row->sends;
	u->notified_pct = row->notified_pct;
	dbrows_free(&r);
	return FB_OK;
}
