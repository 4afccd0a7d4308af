/*
 * ops/usage.c: a tenant's sends in a JST month against its monthly quota
 * (contract: Limits), as formbackctl usage and GET /api/v1/admin/usage
 * both read them.
 *
 * In the caller's transaction; reads only.
 */
#ifndef OPS_USAGE_H
#define OPS_USAGE_H

#include "formback.h"

struct db;

/* A tenant's month of sending. */
struct usage {
	enum plan	 plan;		/* its plan (free when unknown) */
	long long	 sends;		/* counted sends of the month */
	long long	 quota;		/* its own quota, else its plan's */
	long long	 notified_pct;	/* the last alert sent: 0, 80 or 100 */
};

/*
 * The usage of `tenant` in JST month `month` ("YYYY-MM",
 * time_jst_month()) into *u.  FB_ENOTFOUND when there is no such tenant,
 * else the database's errors (then *u is unset).
 */
enum fb_err	usage_month(struct db *, const char *tenant, const char *month,
		    struct usage *u) FB_WUR;

#endif
