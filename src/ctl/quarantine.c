/*
 * formbackctl quarantine list | release | discard: the batches of a
 * flood's leads (formback.fcgi(8) "Abuse limits"), written as the admin
 * API writes them (quarantine_json(), rowjson.h).
 */
#include <stdio.h>
#include <string.h>

#include "ctl/ctl.h"
#include "rowjson.h"
#include "db/store.h"

/* Print batches rows[0 .. n) (struct flood_batch_row), one or a list. */
static void
print_batches(struct ctl *c, const struct dbrows *rows, bool list)
{
	const struct flood_batch_row *q = rows->row;
	struct buf	 b;
	struct jgen	 j;
	size_t		 i;

	buf_init(&b, 1u << 20);
	jgen_begin(&j, &b);
	jg_obj(&j, NULL);
	if (list)
		jg_arr(&j, "data");
	for (i = 0; i < rows->n; i++) {
		if (list)
			jg_obj(&j, NULL);
		quarantine_json(&j, &q[i]);
		if (list)
			jg_obj_end(&j);
	}
	if (list)
		jg_arr_end(&j);
	jg_obj_end(&j);
	ctl_check(c, jgen_end(&j), "write the answer");
	puts(b.data);
	buf_release(&b);
}

/* quarantine list --tenant T [--status S]: the 200 newest batches. */
static void
quarantine_list(struct ctl *c)
{
	static const char *const states[] = { "quarantined", "released",
	    "discarded", NULL };
	char		 tenant[UUID_STRLEN + 1];
	const char	*status;
	struct dbrows	 rows;

	ctl_opt_uuid(c, "tenant", tenant);
	if ((status = ctl_opt(c, "status", false)) != NULL &&
	    !one_of(status, states))
		ctl_die(c, 2, "option '--status': expected quarantined, "
		    "released or discarded");
	ctl_connect(c);
	ctl_need_tenant(c, tenant);
	ctl_check(c, db_flood_batch_list(&c->db, tenant, status, NULL, 200,
	    &rows), "list the batches");
	print_batches(c, &rows, true);
	dbrows_free(&rows);
}

/* quarantine release | discard --id Q: as the admin API's, audited. */
static void
quarantine_decide(struct ctl *c)
{
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	unsigned long long n;
	struct dbrows	 rows;
	bool		 release = strcmp(c->verb, "release") == 0, decided;
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	ctl_connect(c);
	if ((e = db_flood_batch_tenant(&c->db, id, tenant)) == FB_ENOTFOUND)
		ctl_die(c, 1, "quarantine '%s' not found", id);
	ctl_check(c, e, "find the batch");
	ctl_check(c, db_flood_batch_decide(&c->db, tenant, id, release,
	    &decided, &n), release ? "release the batch" : "discard the batch");
	if (!decided)
		ctl_die(c, 1, "quarantine '%s' is released or discarded "
		    "already", id);
	ctl_check(c, db_flood_batch_get(&c->db, tenant, id, &rows),
	    "read the batch");
	ctl_audit_commit(c, tenant, release ? "quarantine.release" :
	    "quarantine.discard", "quarantine", id);
	print_batches(c, &rows, false);
	dbrows_free(&rows);
}

const struct ctl_cmd ctl_quarantine_list_cmd = {
	"quarantine", "list",
	"--tenant T [--status quarantined|released|discarded]",
	0, quarantine_list
};
const struct ctl_cmd ctl_quarantine_decide_cmd = {
	"quarantine", "release|discard", "--id Q", 0, quarantine_decide
};
