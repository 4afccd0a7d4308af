/*
 * formbackctl test-recipient add | remove | list: the contacts delivery
 * mode test_only sends to, kept as blind indexes and masks like
 * suppressions (design 6).
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "ctl/ctl.h"
#include "pii.h"
#include "db/store.h"

/* test-recipient list --tenant T */
static void
test_recipient_list(struct ctl *c)
{
	char		 tenant[UUID_STRLEN + 1];
	struct dbrows	 r;
	const struct test_recipient_row *t;
	json_object	*out, *list, *x;
	size_t		 i;

	ctl_opt_uuid(c, "tenant", tenant);
	ctl_connect(c);
	ctl_need_tenant(c, tenant);
	ctl_check(c, db_test_recipient_list(&c->db, tenant, &r),
	    "list the test recipients");
	list = json_object_new_array();
	for (i = 0, t = r.row; i < r.n; i++) {
		x = json_object_new_object();
		jadd_str(x, "id", t[i].id);
		jadd_str(x, "kind", t[i].kind);
		jadd_str(x, "masked", t[i].masked);
		jadd_time(x, "created_at", t[i].created_at);
		json_object_array_add(list, x);
	}
	dbrows_free(&r);
	db_rollback(&c->db);
	out = json_object_new_object();
	jadd_str(out, "tenant_id", tenant);
	json_object_object_add(out, "data", list);
	ctl_print(out);
}

/* Remove the tenant's test recipient of blind index b; its id into id. */
static void
remove_one(struct ctl *c, const char *tenant, const char *kind,
    const struct bidx *b, const char *masked, char id[UUID_STRLEN + 1])
{
	struct dbrows	 r;

	ctl_check(c, db_test_recipient_delete(&c->db, tenant, kind, b, &r),
	    "remove the test recipient");
	if (r.n == 0)
		ctl_die(c, 1, "%s is not a test recipient", masked);
	snprintf(id, UUID_STRLEN + 1, "%s",
	    ((const struct test_recipient_row *)r.row)->id);
	dbrows_free(&r);
}

/* test-recipient add | remove --tenant T --contact PHONE|EMAIL */
static void
test_recipient(struct ctl *c)
{
	char		 tenant[UUID_STRLEN + 1], id[UUID_STRLEN + 1];
	char		 masked[300], norm[256];
	const char	*kind, *contact;
	unsigned char	 sealed[PII_SEALED_MAX(256)];
	struct bidx	 b;
	struct dbbin	 sb;
	enum tel_kind	 tk;
	json_object	*out;
	bool		 add = strcmp(c->verb, "add") == 0;
	enum fb_err	 e;

	ctl_opt_uuid(c, "tenant", tenant);
	contact = ctl_opt(c, "contact", true);
	if (!contact_tel_normalize(contact, norm, &tk) &&
	    !contact_email_normalize(contact, norm))
		ctl_die(c, 2, "option '--contact': not a Japanese phone number "
		    "or an email address");
	ctl_connect(c);
	/* the blind index keys in force (pii.h) */
	ctl_check(c, bidx_refresh(&c->db, &c->conf), "read the index keys");
	if (!contact_bidx(bidx_cur(&c->conf), tenant, contact, &kind, &b,
	    masked))
		ctl_die(c, 2, "option '--contact': not a Japanese phone number "
		    "or an email address");
	ctl_need_tenant(c, tenant);
	if (add) {
		uuid_v7(id);
		/*
		 * the operator's own: counts at once; sealed, as a lead's
		 * contact is, so that a key rotation can index it again
		 */
		sb.p = sealed;
		sb.n = pii_seal(c->conf.master_key, tenant, id,
		    "test_recipient", norm, sealed);
		e = db_test_recipient_add(&c->db, id, tenant, kind, &b, masked,
		    &sb, (int)c->conf.master_key_id, true);
		if (e == FB_EDUP)
			ctl_die(c, 1, "%s is already a test recipient", masked);
		ctl_check(c, e, "add the test recipient");
	} else
		remove_one(c, tenant, kind, &b, masked, id);
	sodium_memzero(norm, sizeof(norm));
	ctl_audit_commit(c, tenant, add ? "test_recipient.add" :
	    "test_recipient.remove", "test_recipient", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "kind", kind);
	jadd_str(out, "masked", masked);
	ctl_print(out);
}

const struct ctl_cmd ctl_test_recipient_cmd = {
	"test-recipient", "add|remove", "--tenant T --contact PHONE|EMAIL",
	0, test_recipient
};
const struct ctl_cmd ctl_test_recipient_list_cmd = {
	"test-recipient", "list", "--tenant T", 0, test_recipient_list
};
