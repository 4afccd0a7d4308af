/*
 * ops/webhook.c: what an operator does to a webhook endpoint, as
 * formbackctl webhook enable and the admin API (POST
 * /webhook_endpoints/{id}/enable) both do it (issue 40; hookrules.h).
 *
 * In the caller's transaction: the caller began it, writes the audit
 * row and commits or rolls back; nothing here begins, commits or prints.
 */
#ifndef OPS_WEBHOOK_H
#define OPS_WEBHOOK_H

#include "formback.h"

struct db;

/*
 * Enable endpoint `id` of `tenant`: it sends again, its failures and any
 * pause forgotten (hook_endpoint_enable()); its records that ended
 * "endpoint stopped" stay so (recovering them is another action).  Its
 * state row stays locked until the caller's transaction ends.
 * FB_ENOTFOUND when the tenant has no such endpoint or it is deleted,
 * else the database's errors.
 */
enum fb_err	webhook_enable(struct db *, const char *tenant,
		    const char *id) FB_WUR;

#endif
