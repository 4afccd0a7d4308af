/*
 * formbackctl personal-data export | erase (issue 43): an operator's
 * data-subject request for one contact of a tenant, as the admin API
 * makes it (ops/personal.h; docs/internals/privacy.md).  Both write
 * their audit row (actor cli) with the contact's blind index, never the
 * contact, and commit before anything is printed.
 */
#include <stdio.h>
#include <string.h>

#include "ctl/ctl.h"
#include "ops/personal.h"
#include "db/store.h"

/* The export's cap: PD_ROWS_MAX rows of each kind fit many times over. */
#define PD_OUT_CAP	(64u << 20)

/* The audit row, {"contact_bidx"}, and the commit; exits 1. */
static void
audit_commit(struct ctl *c, const char *tenant, const char *action,
    const struct pd_subject *s, bool stop)
{
	json_object	*d = json_object_new_object();

	jadd_str(d, "contact_bidx", s->bidx_hex);
	jadd_str(d, "contact_kind", s->kind);
	if (strcmp(action, "personal_data.erase") == 0)
		jadd_bool(d, "stop", stop);
	ctl_check(c, db_audit_add(&c->db, tenant, "cli", NULL, NULL, action,
	    "contact", NULL, json_text(d)), "write the audit row");
	json_object_put(d);
	ctl_check(c, db_commit(&c->db), "commit");
}

/* personal-data export|erase --tenant T --contact C [--stop] */
static void
personal_data(struct ctl *c)
{
	char		 tenant[UUID_STRLEN + 1];
	struct pd_subject s;
	struct pd_erased o;
	struct jgen	 j;
	struct buf	 out;
	bool		 erase = strcmp(c->verb, "erase") == 0;
	bool		 stop = ctl_opt(c, "stop", false) != NULL;

	ctl_opt_uuid(c, "tenant", tenant);
	if (!erase && stop)
		ctl_die(c, 2, "option '--stop' is for erase only");
	ctl_connect(c);
	ctl_need_tenant(c, tenant);
	/* the blind index keys in force (pii.h) */
	ctl_check(c, bidx_refresh(&c->db, &c->conf), "read the index keys");
	if (!pd_subject(&c->conf, tenant, ctl_opt(c, "contact", true), &s))
		ctl_die(c, 2, "option '--contact': neither a phone number nor "
		    "an email address");
	buf_init(&out, PD_OUT_CAP);
	jgen_begin(&j, &out);
	jg_obj(&j, NULL);
	if (erase) {
		ctl_check(c, pd_erase(&c->db, tenant, &s, stop, &o),
		    "erase the personal data");
		pd_erased_json(&j, &s, stop, &o);
	} else
		ctl_check(c, pd_export(&c->db, &c->conf, tenant, &s, &j),
		    "export the personal data");
	jg_obj_end(&j);
	ctl_check(c, jgen_end(&j), "write the answer");
	audit_commit(c, tenant, erase ? "personal_data.erase" :
	    "personal_data.export", &s, stop);
	puts(out.data);
	buf_release(&out);
}

const struct ctl_cmd ctl_personal_data_cmd = {
	"personal-data", "export|erase", "--tenant T --contact C [--stop]",
	0, personal_data
};
