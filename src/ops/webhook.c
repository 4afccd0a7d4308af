/*
 * Enabling a webhook endpoint, shared by formbackctl webhook enable and
 * the admin API (api/webhooks.c; webhook.h).
 */
#include "ops/webhook.h"
#include "hookrules.h"
#include "db/store.h"

enum fb_err
webhook_enable(struct db *db, const char *tenant, const char *id)
{
	const struct webhook_state_row *w;
	struct hook_endpoint st;
	struct dbrows	 row;
	bool		 deleted;
	enum fb_err	 e;

	if ((e = db_webhook_state_lock(db, tenant, id, &row, &st)) != FB_OK)
		return e;
	w = row.row;
	deleted = w->deleted;
	dbrows_free(&row);
	if (deleted)
		return FB_ENOTFOUND;
	hook_endpoint_enable(&st);
	return db_webhook_state_set(db, tenant, id, &st);
}
