/*
 * The writer of a flood's batch, shared by the admin API
 * (api/quarantines.c) and formbackctl quarantine (quarantine.h).
 */
#include "ops/quarantine.h"
#include "db/store.h"

void
quarantine_gen(struct jgen *j, const void *row)
{
	const struct flood_batch_row *q = row;

	jg_str(j, "id", q->id);
	jg_str(j, "object", "quarantine");
	jg_str(j, "site_id", q->site_id);
	jg_str(j, "domain", q->domain);
	jg_str(j, "kind", q->kind);
	jg_str(j, "source", q->source);
	jg_time(j, "hour", q->hour);
	jg_int(j, "threshold", q->threshold);
	jg_int(j, "leads", q->leads);
	jg_str(j, "status", q->status);
	jg_time(j, "decided_at", q->decided_at);
	jg_time(j, "created_at", q->created_at);
}
