/*
 * Data-subject requests (ops/personal.h; issue 43): one contact's
 * export and erasure, shared by formbackctl personal-data and the admin
 * API.  The rules, and why the rows the reports count stay as anonymous
 * rows: docs/internals/privacy.md.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "ops/personal.h"
#include "rowjson.h"
#include "db/store.h"

/* The contacts one request follows: the subject and its leads' others. */
#define PD_CONTACTS_MAX	16

struct pd_contact {
	const char	*kind;		/* "email" or "tel" (static) */
	struct bidx	 bidx;	/* both slots; either matches */
};

struct pd_set {
	struct pd_contact c[PD_CONTACTS_MAX];
	size_t		  n;
};

static ROWJSON(pd_delivery_json, struct pd_delivery_row, PD_DELIVERY_COLS,
    "delivery")
static ROWJSON(pd_event_json, struct pd_event_row, PD_EVENT_COLS,
    "tag_event")
static ROWJSON(pd_hook_json, struct pd_hook_row, PD_HOOK_COLS,
    "webhook_delivery")

/* A test recipient as TestRecipientOut writes it (api/testsends.c). */
static void
pd_rcpt_json(struct jgen *j, const void *row)
{
	const struct test_recipient_row *t = row;

	test_recipient_json(j, row);
	jg_str(j, "status", t->confirmed_at != NULL ? "confirmed" : "pending");
}

bool
pd_subject(const struct conf *c, const char *tenant, const char *contact,
    struct pd_subject *s)
{
	memset(s, 0, sizeof(*s));
	const struct bidx_keys *k = bidx_cur(c);
	int		 in = k->in_force;

	if (contact == NULL || !contact_bidx(k, tenant, contact, &s->kind,
	    &s->bidx, s->masked)) {
		memset(s, 0, sizeof(*s));
		return false;
	}
	sodium_bin2hex(s->bidx_hex, sizeof(s->bidx_hex),
	    s->bidx.v[s->bidx.has[in] ? in : 1 - in], PII_BIDXBYTES);
	return true;
}

/* Whether a and b are the same contact: equal in either slot. */
static bool
same_contact(const struct bidx *a, const struct bidx *b)
{
	int	 s;

	for (s = 0; s < 2; s++)
		if (a->has[s] && b->has[s] &&
		    memcmp(a->v[s], b->v[s], PII_BIDXBYTES) == 0)
			return true;
	return false;
}

/* Add a contact to the set unless it is there or the set is full. */
static void
set_add(struct pd_set *set, const char *kind, const struct bidx *b)
{
	size_t	 i;

	if ((!b->has[0] && !b->has[1]) || set->n == PD_CONTACTS_MAX)
		return;
	for (i = 0; i < set->n; i++)
		if (strcmp(set->c[i].kind, kind) == 0 &&
		    same_contact(&set->c[i].bidx, b))
			return;
	set->c[set->n].kind = kind;
	set->c[set->n].bidx = *b;
	set->n++;
}

/* A lead's contacts of kind (both slots as read) added to the set. */
static void
set_add_lead(struct pd_set *set, const struct pd_lead_row *l)
{
	struct bidx	 b;

	db_bidx_copy(&l->email_bidx, &l->email_bidx2, l->bidx_key,
	    l->bidx2_key, &b);
	set_add(set, "email", &b);
	db_bidx_copy(&l->tel_bidx, &l->tel_bidx2, l->bidx_key,
	    l->bidx2_key, &b);
	set_add(set, "tel", &b);
}

static void
set_init(struct pd_set *set, const struct pd_subject *s)
{
	set->n = 0;
	set_add(set, s->kind, &s->bidx);
}

/*
 * One sealed contact of a lead, opened, as a member of the "contacts"
 * array: kind, value, masked.  A value that cannot be opened (another
 * key, tampered with) is written null with "pii_state": "error".
 */
static void
contact_gen(struct jgen *j, const struct conf *c, const char *tenant,
    const struct pd_lead_row *l, const char *kind, const struct dbbin *sealed)
{
	const unsigned char *key = conf_master_key(c, (unsigned)l->pii_key_id);
	char		 v[256], masked[300];
	bool		 ok;

	if (sealed->p == NULL)
		return;
	ok = key != NULL && pii_open(key, tenant, l->id, kind, sealed->p,
	    sealed->n, v, sizeof(v));
	jg_obj(j, NULL);
	jg_str(j, "kind", kind);
	jg_str(j, "lead_id", l->id);
	jg_str(j, "value", ok ? v : NULL);
	if (ok) {
		if (strcmp(kind, "tel") == 0)
			contact_tel_mask(v, masked);
		else
			contact_email_mask(v, masked);
		jg_str(j, "masked", masked);
	}
	jg_str(j, "pii_state", ok ? "present" : "error");
	jg_obj_end(j);
	sodium_memzero(v, sizeof(v));
}

/* Each row of rs as an object by `gen`, into the array open in j. */
static void
each_gen(struct jgen *j, const struct dbrows *rs, size_t size,
    void (*gen)(struct jgen *, const void *))
{
	size_t	 i;

	for (i = 0; i < rs->n; i++) {
		jg_obj(j, NULL);
		gen(j, (const char *)rs->row + i * size);
		jg_obj_end(j);
	}
}

/* A list of rows under `key`, each an object by `gen`. */
static void
rows_gen(struct jgen *j, const char *key, const struct dbrows *rs,
    size_t size, void (*gen)(struct jgen *, const void *))
{
	jg_arr(j, key);
	each_gen(j, rs, size, gen);
	jg_arr_end(j);
}

/* The lead's own fields, as LeadDetailOut names them; contacts masked. */
static void
lead_fields(struct jgen *j, const struct lead_detail_row *d)
{
	lead_out_json(j, &d->lead);
	jg_str(j, "landing_url", d->landing_url);
	jg_str(j, "referrer", d->referrer);
	jg_raw(j, "utm", d->utm != NULL ? d->utm : "{}");
	jg_str(j, "lp_key", d->lp_key);
	jg_str(j, "visitor_id", d->visitor_id);
}

/* What is counted per kind, for "found". */
struct pd_found {
	size_t	 leads, deliveries, events, webhook_deliveries;
	size_t	 suppressions, test_recipients;
	bool	 truncated;
};

/* One lead: its fields, deliveries, the visitor's events, webhooks. */
static enum fb_err
lead_gen(struct db *db, const char *tenant, const struct pd_lead_row *l,
    struct jgen *j, struct pd_found *f)
{
	struct dbrows	 d, dl, ev, wh;
	enum fb_err	 e;

	if ((e = db_lead_get(db, tenant, l->id, &d)) != FB_OK)
		return e == FB_ENOTFOUND ? FB_OK : e;
	if ((e = db_pd_deliveries(db, tenant, l->id, &dl)) != FB_OK) {
		dbrows_free(&d);
		return e;
	}
	if ((e = db_pd_events(db, tenant, l->site_id, l->visitor_id,
	    &ev)) != FB_OK) {
		dbrows_free(&dl);
		dbrows_free(&d);
		return e;
	}
	if ((e = db_pd_hooks(db, tenant, l->id, &wh)) == FB_OK) {
		jg_obj(j, NULL);
		lead_fields(j, d.row);
		rows_gen(j, "deliveries", &dl, sizeof(struct pd_delivery_row),
		    pd_delivery_json);
		rows_gen(j, "events", &ev, sizeof(struct pd_event_row),
		    pd_event_json);
		rows_gen(j, "webhook_deliveries", &wh,
		    sizeof(struct pd_hook_row), pd_hook_json);
		jg_obj_end(j);
		f->leads++;
		f->deliveries += dl.n;
		f->events += ev.n;
		f->webhook_deliveries += wh.n;
		if (dl.n == PD_ROWS_MAX || ev.n == PD_ROWS_MAX ||
		    wh.n == PD_ROWS_MAX)
			f->truncated = true;
		dbrows_free(&wh);
	}
	dbrows_free(&ev);
	dbrows_free(&dl);
	dbrows_free(&d);
	return e;
}

/* A list a contact is on: its name in the answer, query, rows, writer. */
static const struct pd_list {
	const char	*name;
	enum fb_err	(*query)(struct db *, const char *, const char *,
			    const struct bidx *, struct dbrows *);
	size_t		 size;
	void		(*json)(struct jgen *, const void *);
} pd_lists[] = {
	{ "suppressions", db_pd_suppressions, sizeof(struct suppression_row),
	  suppression_out_json },
	{ "test_recipients", db_pd_test_recipients,
	  sizeof(struct test_recipient_row), pd_rcpt_json },
};

/* The suppressions and test recipients of every contact of the set. */
static enum fb_err
lists_gen(struct db *db, const char *tenant, const struct pd_set *set,
    struct jgen *j, struct pd_found *f)
{
	/* each list's count, in the order of pd_lists[] */
	size_t			*count[NELEM(pd_lists)] = {
	    &f->suppressions, &f->test_recipients };
	const struct pd_list	*l;
	struct dbrows		 rs;
	size_t			 i, k;
	enum fb_err		 e;

	for (k = 0; k < NELEM(pd_lists); k++) {
		l = &pd_lists[k];
		jg_arr(j, l->name);
		for (i = 0; i < set->n; i++) {
			if ((e = l->query(db, tenant, set->c[i].kind,
			    &set->c[i].bidx, &rs)) != FB_OK)
				return e;
			each_gen(j, &rs, l->size, l->json);
			*count[k] += rs.n;
			dbrows_free(&rs);
		}
		jg_arr_end(j);
	}
	return FB_OK;
}

/*
 * The consent settings in force and their text.  Formback keeps no copy
 * of the text shown at a capture: a lead keeps its consent_state, an
 * event its consent flag (migration 0002); the export says so.
 */
static enum fb_err
consent_gen(struct db *db, const char *tenant, struct jgen *j)
{
	const struct consent_row *c;
	const struct consent_template_row *t;
	struct dbrows	 cs, ts;
	size_t		 i;
	enum fb_err	 e;

	jg_obj(j, "consent");
	jg_bool(j, "text_at_capture_kept", false);
	if ((e = db_consent_get(db, tenant, &cs)) == FB_ENOTFOUND) {
		jg_obj_end(j);
		return FB_OK;
	}
	if (e != FB_OK)
		return e;
	if ((e = db_consent_templates(db, &ts)) != FB_OK) {
		dbrows_free(&cs);
		return e;
	}
	c = cs.row;
	jg_obj(j, "current");
	jg_str(j, "consent_mode", c->mode);
	jg_bool(j, "consent_checkbox_enabled", c->checkbox_enabled);
	jg_str(j, "consent_template_key", c->template_key);
	for (i = 0, t = ts.row; i < ts.n; i++, t++)
		if (c->template_key != NULL && strcmp(t->key,
		    c->template_key) == 0) {
			jg_str(j, "main", t->main);
			jg_str(j, "note", t->note);
		}
	jg_obj_end(j);
	jg_obj_end(j);
	dbrows_free(&ts);
	dbrows_free(&cs);
	return FB_OK;
}

static void
subject_gen(struct jgen *j, const struct pd_subject *s)
{
	jg_obj(j, "subject");
	jg_str(j, "kind", s->kind);
	jg_str(j, "masked", s->masked);
	jg_obj_end(j);
}

static void
found_gen(struct jgen *j, const struct pd_found *f)
{
	jg_obj(j, "found");
	jg_int(j, "leads", (long long)f->leads);
	jg_int(j, "deliveries", (long long)f->deliveries);
	jg_int(j, "events", (long long)f->events);
	jg_int(j, "webhook_deliveries", (long long)f->webhook_deliveries);
	jg_int(j, "suppressions", (long long)f->suppressions);
	jg_int(j, "test_recipients", (long long)f->test_recipients);
	jg_obj_end(j);
	jg_bool(j, "truncated", f->truncated);
}

enum fb_err
pd_export(struct db *db, const struct conf *c, const char *tenant,
    const struct pd_subject *s, struct jgen *j)
{
	const struct pd_lead_row *l;
	struct pd_found	 f = { 0 };
	struct pd_set	 set;
	struct dbrows	 ls;
	size_t		 i;
	enum fb_err	 e;

	if ((e = db_pd_leads(db, tenant, strcmp(s->kind, "email") == 0,
	    &s->bidx, false, &ls)) != FB_OK)
		return e;
	f.truncated = ls.n == PD_ROWS_MAX;
	set_init(&set, s);
	jg_str(j, "object", "personal_data_export");
	subject_gen(j, s);
	jg_arr(j, "contacts");
	for (i = 0, l = ls.row; i < ls.n; i++, l++) {
		set_add_lead(&set, l);
		contact_gen(j, c, tenant, l, "email", &l->email_sealed);
		contact_gen(j, c, tenant, l, "tel", &l->tel_sealed);
	}
	jg_arr_end(j);
	jg_arr(j, "leads");
	for (i = 0, l = ls.row; i < ls.n && e == FB_OK; i++, l++)
		e = lead_gen(db, tenant, l, j, &f);
	jg_arr_end(j);
	dbrows_free(&ls);
	if (e == FB_OK)
		e = lists_gen(db, tenant, &set, j, &f);
	if (e == FB_OK)
		e = consent_gen(db, tenant, j);
	if (e == FB_OK)
		found_gen(j, &f);
	return e;
}

/* One lead's erasure (privacy.md), its other contacts added to the set. */
static enum fb_err
lead_erase(struct db *db, const char *tenant, const char *salt,
    const struct pd_lead_row *l, struct pd_set *set, struct pd_erased *o)
{
	unsigned long long n;
	enum fb_err	 e;

	set_add_lead(set, l);
	if ((e = db_pd_deliveries_cancel(db, tenant, l->id, &n)) != FB_OK)
		return e;
	o->deliveries_cancelled += n;
	if ((e = db_pd_deliveries_mask(db, tenant, l->id, &n)) != FB_OK)
		return e;
	o->deliveries_masked += n;
	if ((e = db_pd_hooks_scrub(db, tenant, l->id, &n)) != FB_OK)
		return e;
	o->webhook_payloads += n;
	if ((e = db_pd_events_erase(db, tenant, l->site_id, l->visitor_id,
	    salt, &n)) != FB_OK)
		return e;
	o->events += n;
	if ((e = db_pd_lead_erase(db, tenant, l->id, &n)) != FB_OK)
		return e;
	o->leads += n;
	return FB_OK;
}

/* A contact's test recipients and suppressions (stop: kept, stripped). */
static enum fb_err
contact_erase(struct db *db, const char *tenant, const struct pd_contact *c,
    bool stop, struct pd_erased *o)
{
	struct suppression_new sn = { .tenant = tenant, .kind = c->kind,
	    .bidx = &c->bidx, .masked = "", .scope = "tenant",
	    .reason = "opt_out" };
	char		 id[UUID_STRLEN + 1];
	unsigned long long n;
	bool		 added;
	enum fb_err	 e;

	if ((e = db_pd_test_recipients_delete(db, tenant, c->kind, &c->bidx,
	    &n)) != FB_OK)
		return e;
	o->test_recipients += n;
	if (!stop) {
		if ((e = db_pd_suppressions_delete(db, tenant, c->kind,
		    &c->bidx, &n)) == FB_OK)
			o->suppressions_removed += n;
		return e;
	}
	uuid_v7(id);
	sn.id = id;
	if ((e = db_suppression_add(db, &sn, &added)) != FB_OK)
		return e;
	o->suppressions_added += added;
	if ((e = db_pd_suppressions_strip(db, tenant, c->kind, &c->bidx,
	    &n)) == FB_OK)
		o->suppressions_kept += n;
	return e;
}

enum fb_err
pd_erase(struct db *db, const char *tenant, const struct pd_subject *s,
    bool stop, struct pd_erased *o)
{
	unsigned char	 rnd[16];
	char		 salt[2 * sizeof(rnd) + 1];
	struct pd_set	 set;
	struct dbrows	 ls;
	size_t		 i, got = 0;
	enum fb_err	 e = FB_OK;

	memset(o, 0, sizeof(*o));
	set_init(&set, s);
	/* forgotten once the statement ran: nothing maps the new ids back */
	randombytes_buf(rnd, sizeof(rnd));
	sodium_bin2hex(salt, sizeof(salt), rnd, sizeof(rnd));
	sodium_memzero(rnd, sizeof(rnd));
	/* an erased lead no longer has the index: the next read goes on */
	do {
		if ((e = db_pd_leads(db, tenant, strcmp(s->kind, "email") == 0,
		    &s->bidx, true, &ls)) != FB_OK)
			break;
		got = ls.n;
		for (i = 0; i < ls.n && e == FB_OK; i++)
			e = lead_erase(db, tenant, salt,
			    (const struct pd_lead_row *)ls.row + i, &set, o);
		dbrows_free(&ls);
	} while (e == FB_OK && got == PD_ROWS_MAX);
	for (i = 0; i < set.n && e == FB_OK; i++)
		e = contact_erase(db, tenant, &set.c[i], stop, o);
	sodium_memzero(salt, sizeof(salt));
	return e;
}

void
pd_erased_json(struct jgen *j, const struct pd_subject *s, bool stop,
    const struct pd_erased *o)
{
	bool	 any = o->leads || o->events || o->deliveries_cancelled ||
		    o->deliveries_masked || o->webhook_payloads ||
		    o->test_recipients || o->suppressions_removed ||
		    o->suppressions_kept || o->suppressions_added;

	jg_str(j, "object", "personal_data_erasure");
	subject_gen(j, s);
	jg_bool(j, "stop", stop);
	jg_bool(j, "found", any);
	jg_obj(j, "erased");
	jg_int(j, "leads", (long long)o->leads);
	jg_int(j, "events_anonymised", (long long)o->events);
	jg_int(j, "deliveries_cancelled", (long long)o->deliveries_cancelled);
	jg_int(j, "deliveries_masked", (long long)o->deliveries_masked);
	jg_int(j, "webhook_payloads_scrubbed", (long long)o->webhook_payloads);
	jg_int(j, "test_recipients_removed", (long long)o->test_recipients);
	jg_int(j, "suppressions_removed", (long long)o->suppressions_removed);
	jg_int(j, "suppressions_kept", (long long)o->suppressions_kept);
	jg_int(j, "suppressions_added", (long long)o->suppressions_added);
	jg_obj_end(j);
}
