/*
 * Deliveries and suppressions (contract: Delivery, Suppression; Endpoints,
 * Leads deliveries and delivery switch, Suppressions).  Destinations and
 * suppressed contacts are only ever answered masked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <time.h>

#include "../api.h"
#include "../csv.h"
#include "../pii.h"
#include "../rowcsv.h"
#include "../rowjson.h"
#include "../db/store.h"

/* The deliveries a lead's list answers at most. */
#define LEAD_DELIVERIES_MAX	100

static const char *const dlv_date_fields[] = { "created_at", "scheduled_at",
    "sent_at" };

/*
 * {"id", k1, k2} of a campaign or scenario (contract: DeliveryOut, object?),
 * or null when there is none or its row is gone (a deleted campaign).
 */
static void
summary(struct jgen *j, const char *key, const char *id, const char *k1,
    const char *v1, const char *k2, const char *v2)
{
	/* none, or its row is gone (its NOT NULL first field read NULL) */
	if (id == NULL || v1 == NULL) {
		jg_str(j, key, NULL);
		return;
	}
	jg_obj(j, key);
	jg_str(j, "id", id);
	jg_str(j, k1, v1);
	if (k2 != NULL)
		jg_str(j, k2, v2);
	jg_obj_end(j);
}

#define deletable(s) suppression_deletable(s)

/* The one writer of a delivery (DeliveryOut). */
static void
delivery_gen(struct jgen *j, const void *row)
{
	const struct delivery_row *d = row;

	jg_str(j, "id", d->id);
	jg_str(j, "object", "delivery");
	jg_str(j, "lead_id", d->lead_id);
	jg_str(j, "status", d->status);
	jg_str(j, "channel", d->channel);
	jg_str(j, "to_masked", d->to_masked);
	jg_str(j, "pii_state", d->pii_state);
	summary(j, "campaign", d->campaign_id, "key", d->campaign_key, "name",
	    d->campaign_name);
	summary(j, "scenario", d->scenario_id, "name", d->scenario_name, NULL,
	    NULL);
	if (d->step_id != NULL) {
		jg_obj(j, "step");
		jg_str(j, "id", d->step_id);
		jg_int(j, "position", d->step_no);
		jg_obj_end(j);
	} else
		jg_str(j, "step", NULL);
	jg_time(j, "scheduled_at", d->scheduled_at);
	jg_time(j, "sent_at", d->sent_at);
	jg_time(j, "created_at", d->created_at);
	jg_str(j, "cancel_reason", d->cancel_reason);
	jg_str(j, "error_code", d->error_code);
	/* the SMS parts as sent (contract: Messages, the estimate's note) */
	if (d->segments != NULL)
		jg_int(j, "segments", strtoll(d->segments, NULL, 10));
	else
		jg_str(j, "segments", NULL);
}

/* The list's filters (contract: listDeliveries); -1 after a 400. */
static int
delivery_filter_from_req(struct req *r, struct delivery_filter *f)
{
	memset(f, 0, sizeof(*f));
	if (page_range_from_req(r, dlv_date_fields, NELEM(dlv_date_fields),
	    &f->range) != 0)
		return -1;
	f->status = req_query(r, "status");
	f->campaign = req_query(r, "campaign_id");
	f->scenario = req_query(r, "scenario_id");
	return 0;
}

enum fb_err
api_deliveries_list(struct req *r)
{
	struct page		 pg;
	struct delivery_filter	 f;
	struct dbrows		 rows;
	struct page_member	 extra[] = {
		{ "date_field", NULL }, { NULL, NULL }
	};
	enum fb_err		 e;

	if (page_from_req(r, &pg) != 0 ||
	    delivery_filter_from_req(r, &f) != 0)
		return FB_OK;
	if ((e = db_delivery_list(r->db, r->auth.tenant_id, &f,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	extra[0].value = dlv_date_fields[f.range.field];
	return page_answer(r, &pg, &rows, sizeof(struct delivery_row),
	    offsetof(struct delivery_row, id), delivery_gen, extra);
}

static enum fb_err
deliveries_fetch(struct req *r, const void *f, const char *after, int n,
    struct dbrows *out)
{
	return db_delivery_list(r->db, r->auth.tenant_id, f, after, n, out);
}

/* GET /api/v1/admin/deliveries/export: the list's deliveries as CSV. */
enum fb_err
api_deliveries_export(struct req *r)
{
	struct delivery_filter	 f;

	if (delivery_filter_from_req(r, &f) != 0)
		return FB_OK;
	return export_answer(r, "deliveries", deliveries_fetch, &f,
	    sizeof(struct delivery_row), offsetof(struct delivery_row, id),
	    delivery_csv_head, delivery_csv);
}

/*
 * GET /api/v1/admin/leads/{lead_id}/deliveries (issue 42): a lead's
 * deliveries, newest first, LEAD_DELIVERIES_MAX at most (a lead has a
 * step or a few per scenario): a DeliveryListOut without a cursor.
 */
enum fb_err
api_lead_deliveries(struct req *r)
{
	struct page		 pg = { .limit = LEAD_DELIVERIES_MAX };
	struct page_member	 extra[] = {
		{ "date_field", "created_at" }, { NULL, NULL }
	};
	const char		*lead = req_pathvar(r, "lead_id");
	struct dbrows		 l, rows;
	enum fb_err		 e;

	e = db_lead_get(r->db, r->auth.tenant_id, lead, &l);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "lead_id");
	if (e != FB_OK)
		return e;
	dbrows_free(&l);
	if ((e = db_deliveries_of_lead(r->db, r->auth.tenant_id, lead,
	    LEAD_DELIVERIES_MAX, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct delivery_row),
	    offsetof(struct delivery_row, id), delivery_gen, extra);
}

enum fb_err
api_deliveries_get(struct req *r)
{
	struct dbrows	 d;
	enum fb_err	 e;

	e = db_delivery_get(r->db, r->auth.tenant_id,
	    req_pathvar(r, "delivery_id"), &d);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "delivery_id");
	if (e != FB_OK)
		return e;
	e = req_row(r, 200, delivery_gen, d.row);
	dbrows_free(&d);
	return e;
}

#define suppression_gen suppression_out_json

/*
 * GET /suppressions: `q` is an exact contact, looked up through the blind
 * index (a phone number in any typed form, or an email address).
 */
/*
 * The list's filters (contract: listSuppressions), q through its blind
 * index into bidx (one that matches nothing when q is no contact).
 */
static void
suppression_filter_from_req(struct req *r, struct suppression_filter *f,
    struct bidx *bidx)
{
	const char	*q = req_query(r, "q"), *kind;
	char		 masked[300];

	memset(f, 0, sizeof(*f));
	f->kind = req_query(r, "kind");
	f->reason = req_query(r, "reason");
	f->scope = req_query(r, "scope");
	f->campaign = req_query(r, "campaign_id");
	if (q != NULL && *q != '\0') {
		if (!contact_bidx(bidx_cur(r->conf), r->auth.tenant_id, q,
		    &kind, bidx, masked))
			/* matches nothing */
			memset(bidx, 0, sizeof(*bidx));
		f->bidx = bidx;
	}
}

enum fb_err
api_suppressions_list(struct req *r)
{
	struct page		 pg;
	struct suppression_filter f;
	struct dbrows		 rows;
	struct bidx		 bidx;
	enum fb_err		 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	suppression_filter_from_req(r, &f, &bidx);
	if ((e = db_suppression_list(r->db, r->auth.tenant_id, &f,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct suppression_row),
	    offsetof(struct suppression_row, id), suppression_gen, NULL);
}

static enum fb_err
suppressions_fetch(struct req *r, const void *f, const char *after, int n,
    struct dbrows *out)
{
	return db_suppression_list(r->db, r->auth.tenant_id, f, after, n, out);
}

/* GET /api/v1/admin/suppressions/export: the list's as CSV, masked. */
enum fb_err
api_suppressions_export(struct req *r)
{
	struct suppression_filter f;
	struct bidx		 bidx;

	suppression_filter_from_req(r, &f, &bidx);
	return export_answer(r, "suppressions", suppressions_fetch, &f,
	    sizeof(struct suppression_row),
	    offsetof(struct suppression_row, id), suppression_csv_head,
	    suppression_csv);
}

/* POST /suppressions: one entry (contract: SuppressionIn). */
enum fb_err
api_suppressions_create(struct req *r)
{
	const char	*scope, *cid, *expires, *memo, *value, *kind;
	struct bidx	 bidx;
	char		 masked[300], id[UUID_STRLEN + 1];
	char		 camp[UUID_STRLEN + 1] = "";
	char		 exp[32];
	int64_t		 t;
	struct suppression_new sn;
	struct dbrows	 c;
	bool		 added;
	enum fb_err	 e;

	if (body_str(r, "scope", false, 16, &scope) < 0 ||
	    body_str(r, "campaign_id", false, UUID_STRLEN, &cid) < 0 ||
	    body_str(r, "expires_at", false, 40, &expires) < 0 ||
	    body_str(r, "memo", false, 500, &memo) < 0 ||
	    body_str(r, "value", true, 254, &value) < 0)
		return FB_OK;
	if (scope == NULL)
		scope = "tenant";
	if (strcmp(scope, "tenant") != 0 && strcmp(scope, "campaign") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "scope");
	if (strcmp(scope, "campaign") == 0 && cid == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "campaign_id");
	if (cid != NULL && !uuid_valid(cid))
		return api_error(r, AC_PARAMETER_INVALID, "campaign_id");
	if (expires != NULL) {
		/* an entry that would never be in force is a mistake */
		if (!time_parse_iso8601(expires, &t) || t <= time(NULL))
			return api_error(r, AC_PARAMETER_INVALID, "expires_at");
		time_sql(t, exp);
	}
	if (!contact_bidx(bidx_cur(r->conf), r->auth.tenant_id, value, &kind,
	    &bidx, masked))
		return api_error(r, AC_PARAMETER_INVALID, "value");
	if (cid != NULL) {
		snprintf(camp, sizeof(camp), "%s", cid);
		uuid_lower(camp);
		e = db_campaign_get(r->db, r->auth.tenant_id, camp, &c);
		if (e == FB_ENOTFOUND)
			return api_error(r, AC_NOT_FOUND, "campaign_id");
		if (e != FB_OK)
			return e;
		dbrows_free(&c);
	}
	/* a tenant-wide entry names no campaign */
	if (strcmp(scope, "tenant") == 0)
		camp[0] = '\0';
	uuid_v7(id);
	sn = (struct suppression_new){ id, r->auth.tenant_id, kind, &bidx,
	    masked, scope, camp[0] != '\0' ? camp : NULL, "manual", memo,
	    expires != NULL ? exp : NULL };
	if ((e = db_suppression_add(r->db, &sn, &added)) != FB_OK)
		return e;
	if (!added)
		return api_error(r, AC_SUPPRESSION_EXISTS, "value");
	r->audit_type = "suppression";
	memcpy(r->audit_id, id, sizeof(id));
	if ((e = db_suppression_get(r->db, r->auth.tenant_id, id, &c)) != FB_OK)
		return e;
	e = req_row(r, 201, suppression_gen, c.row);
	dbrows_free(&c);
	return e;
}

/* DELETE /suppressions/{id}: opt-outs and complaints stay (contract). */
enum fb_err
api_suppressions_delete(struct req *r)
{
	const char	*id = req_pathvar(r, "suppression_id");
	struct dbrows	 s;
	bool		 ok;
	enum fb_err	 e;

	e = db_suppression_get(r->db, r->auth.tenant_id, id, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "suppression_id");
	if (e != FB_OK)
		return e;
	ok = deletable(s.row);
	dbrows_free(&s);
	if (!ok)
		return api_error(r, AC_SUPPRESSION_NOT_DELETABLE, NULL);
	if ((e = db_suppression_delete(r->db, r->auth.tenant_id, id)) != FB_OK)
		return e;
	r->audit_type = "suppression";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	req_empty(r, 204);
	return FB_OK;
}

#define IMPORT_MAX_ROWS	10000

/* A first record that names its columns rather than holding a contact. */
static bool
csv_header(const struct csv *c)
{
	static const char *const names[] = { "value", "contact", "email",
	    "phone",
	    "tel", "メールアドレス", "電話番号", "連絡先", NULL };
	char		 v[64];
	size_t		 i;

	for (i = 0; c->field[0][i] != '\0' && i < sizeof(v) - 1; i++)
		v[i] = (char)((unsigned char)c->field[0][i] < 0x80 ?
		    tolower((unsigned char)c->field[0][i]) : c->field[0][i]);
	v[i] = '\0';
	for (i = 0; names[i] != NULL; i++)
		if (strcmp(v, names[i]) == 0)
			return true;
	return false;
}

/* An import's counts (POST /admin/suppressions/import). */
struct import_counts {
	long	 rows, created, exists, invalid;
};

/*
 * The first field of a CSV row that a suppression cannot take, or NULL:
 * the contact (value), the memo (500 characters), expires_at (in the
 * future; *t its time), too many columns.
 */
static const char *
import_bad(struct req *r, const struct csv *c, const char *memo,
    const char *expires, const char **kind, struct bidx *bidx,
    char masked[300], int64_t *t)
{
	if (!contact_bidx(bidx_cur(r->conf), r->auth.tenant_id, c->field[0],
	    kind, bidx, masked))
		return "value";
	if (memo != NULL && (utf8_len(memo) < 0 || utf8_len(memo) > 500))
		return "memo";
	if (expires != NULL && (!time_parse_iso8601(expires, t) ||
	    *t <= time(NULL)))
		return "expires_at";
	if (c->nfields > 3)
		return "columns";
	return NULL;
}

/* One CSV row: its suppression added, or invalid; its result written. */
static enum fb_err
import_row(struct req *r, const struct csv *c, const char *scope,
    const char *cid, struct jgen *j, struct import_counts *n)
{
	const char	*kind, *bad, *memo, *expires;
	struct bidx	 bidx;
	char		 masked[300], id[UUID_STRLEN + 1], exp[32];
	struct suppression_new sn;
	int64_t		 t = 0;
	bool		 added;
	enum fb_err	 e;

	memo = c->nfields > 1 && *c->field[1] != '\0' ? c->field[1] : NULL;
	expires = c->nfields > 2 && *c->field[2] != '\0' ? c->field[2] : NULL;
	bad = import_bad(r, c, memo, expires, &kind, &bidx, masked, &t);
	jg_obj(j, NULL);
	jg_int(j, "record", c->record);
	if (bad != NULL) {
		n->invalid++;
		jg_str(j, "result", "invalid");
		jg_str(j, "param", bad);
		jg_obj_end(j);
		return FB_OK;
	}
	if (expires != NULL)
		time_sql(t, exp);
	uuid_v7(id);
	sn = (struct suppression_new){ id, r->auth.tenant_id, kind, &bidx,
	    masked, scope, cid, "manual", memo, expires != NULL ? exp : NULL };
	if ((e = db_suppression_add(r->db, &sn, &added)) != FB_OK)
		return e;
	jg_str(j, "result", added ? "created" : "exists");
	jg_str(j, "id", added ? id : NULL);
	jg_str(j, "kind", kind);
	jg_str(j, "masked", masked);
	jg_obj_end(j);
	if (added)
		n->created++;
	else
		n->exists++;
	return FB_OK;
}

/*
 * The rows of CSV c into suppressions and their results into j, up to
 * IMPORT_MAX_ROWS (n->rows past it: too many).  *k: csv_next()'s last
 * answer (< 0: the CSV is broken).
 */
static enum fb_err
import_rows(struct req *r, struct csv *c, const char *scope,
    const char *cid, struct jgen *j, struct import_counts *n, int *k)
{
	enum fb_err	 e = FB_OK;

	while (e == FB_OK && (*k = csv_next(c)) == 1) {
		if (c->record == 1 && csv_header(c))
			continue;
		/* a blank line is no row */
		if (c->nfields == 1 &&
		    c->field[0][strspn(c->field[0], " \t")] == '\0')
			continue;
		if (++n->rows > IMPORT_MAX_ROWS)
			break;
		e = import_row(r, c, scope, cid, j, n);
	}
	return e;
}

/*
 * POST /api/v1/admin/suppressions/import (a session with
 * suppressions:write; issue 16): a CSV of value[,memo[,expires_at]] per
 * record, an optional header row, at most IMPORT_MAX_ROWS records, in
 * UTF-8 (with or without BOM) or Shift_JIS; scope and campaign_id from
 * the query for every row.  One transaction: a broken file (422
 * csv_invalid, the record in the message's param) or too many rows
 * imports nothing.  Each row answers created (with the new id), exists
 * (an entry of the same contact and scope in force, also one made by an
 * earlier row of the file) or invalid (the column that is wrong).
 * Contacts are answered masked.  Idempotent by Idempotency-Key, as any
 * POST.
 */
enum fb_err
api_suppressions_import(struct req *r)
{
	const char	*scope = req_query(r, "scope");
	const char	*cid = req_query(r, "campaign_id"), *enc;
	char		 param[32];
	struct buf	 text;
	struct csv	*c;
	struct dbrows	 camp;
	struct jgen	 j;
	struct import_counts n = { 0 };
	int		 k = 0;
	enum fb_err	 e, ge;

	if (scope == NULL)
		scope = "tenant";
	if (strcmp(scope, "campaign") == 0 && cid == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "campaign_id");
	if (cid != NULL) {
		e = db_campaign_get(r->db, r->auth.tenant_id, cid, &camp);
		if (e == FB_ENOTFOUND)
			return api_error(r, AC_NOT_FOUND, "campaign_id");
		if (e != FB_OK)
			return e;
		dbrows_free(&camp);
	}
	if (strcmp(scope, "tenant") == 0)
		cid = NULL;
	buf_init(&text, (size_t)r->conf->max_body_bytes * 2 + 1);
	if ((e = csv_text(r->body.data, r->body.len, &text, &enc)) != FB_OK) {
		buf_release(&text);
		return e == FB_EINVAL ? api_error(r, AC_CSV_INVALID,
		    "body") : e;
	}
	if ((c = malloc(sizeof(*c))) == NULL) {
		buf_release(&text);
		return FB_ENOMEM;
	}
	csv_init(c, text.data, text.len);
	req_gen_begin(r, &j);
	jg_str(&j, "object", "suppression_import");
	jg_str(&j, "encoding", enc);
	jg_arr(&j, "results");
	e = import_rows(r, c, scope, cid, &j, &n, &k);
	jg_arr_end(&j);
	jg_int(&j, "rows", n.rows);
	jg_int(&j, "created", n.created);
	jg_int(&j, "exists", n.exists);
	jg_int(&j, "invalid", n.invalid);
	snprintf(param, sizeof(param), "body:%ld", c->record);
	free(c);
	buf_release(&text);
	/* the generator is closed whatever happened: it owns a handle */
	ge = req_gen_end(r, &j, 200);
	if (e != FB_OK)
		return e;
	if (k < 0 || n.rows > IMPORT_MAX_ROWS) {
		req_reset_response(r);
		return api_error(r, k < 0 ? AC_CSV_INVALID :
		    AC_CSV_TOO_MANY_ROWS, k < 0 ? param : "body");
	}
	r->audit_type = "suppression";
	return ge;
}
