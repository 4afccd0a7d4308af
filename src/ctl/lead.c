/*
 * formbackctl lead convert: a conversion reported from outside the tag
 * (contract: Lead conversion_source cart_api, manual): converts the lead,
 * cancels its pending deliveries, writes conversion.detected to the
 * outbox (lead_convert(), ingest.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctl/ctl.h"
#include "ingest.h"
#include "db/store.h"

static void
lead_convert_cmd(struct ctl *c)
{
	struct dbrows	 r;
	const struct lead_owner_row *l;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1], at[32];
	const char	*source;
	json_object	*out;
	bool		 changed;
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	if ((source = ctl_opt(c, "source", false)) == NULL)
		source = "manual";
	if (strcmp(source, "manual") != 0 && strcmp(source, "cart_api") != 0)
		ctl_die(c, 2, "option '--source': expected manual or cart_api");
	ctl_connect(c);
	if ((e = db_lead_owner(&c->db, id, &r)) == FB_ENOTFOUND)
		ctl_die(c, 1, "lead '%s' not found", id);
	ctl_check(c, e, "look the lead up");
	l = r.row;
	snprintf(tenant, sizeof(tenant), "%s", l->tenant_id);
	time_sql((int64_t)time(NULL), at);
	ctl_check(c, lead_convert(&c->db, l, source, at, &changed),
	    "convert the lead");
	if (!changed)
		ctl_die(c, 1, "lead '%s' is already converted or suppressed",
		    id);
	dbrows_free(&r);
	ctl_audit_commit(c, tenant, "lead.convert", "lead", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "status", "converted");
	jadd_str(out, "conversion_source", source);
	ctl_print(out);
}

const struct ctl_cmd ctl_lead_convert_cmd = {
	"lead", "convert", "--id L [--source manual|cart_api]",
	0, lead_convert_cmd
};
