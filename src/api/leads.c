/*
 * Leads (contract: Lead, LeadListOut; Endpoints, Leads).  The one writer
 * of a lead receives masked contacts only: the queries never read a
 * sealed value (STYLE 11).  The list reads the list's columns only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../api.h"
#include "../ingest.h"
#include "../pii.h"
#include "../rowcsv.h"
#include "../rowjson.h"
#include "../db/store.h"

/* The leads a contact search answers at most. */
#define LEAD_SEARCH_MAX	100

static const char *const date_fields[] = {
	"created_at", "captured_at", "abandoned_at", "converted_at"
};


/*
 * The names the lead list nests (contract: LeadOut site, campaign), kept
 * by a worker per tenant and data epoch (issue 13) as it keeps its site
 * answers (sites.c): every change of a site's name or domain and of a
 * campaign's key or name bumps the tenant's epoch in its own transaction
 * (migrations 0027, 0028), and a kept name is used only by a request
 * admitted at the epoch it was read at, which would read the same row.
 * One slot per (tenant, kind, id) hash; a collision costs a read.
 */
#define KEPT_NAMES	128

struct kept_name {
	char		 tenant_id[UUID_STRLEN + 1];
	char		 id[UUID_STRLEN + 1];	/* "": an empty slot */
	enum name_kind	 kind;
	long long	 epoch;
	char		*a, *b;			/* as struct name_row */
};

static struct kept_name kept_names[KEPT_NAMES];

/* A site or campaign a page names, and where its names are meanwhile. */
struct page_name {
	enum name_kind	 kind;
	const char	*id;
	const char	*a, *b;
	bool		 found;
	bool		 read;		/* from the database: to be kept */
};

struct page_names {
	struct page_name *v;		/* distinct, 2 per row at most */
	size_t		 n;
	struct dbrows	*got;		/* the reads they point into */
	size_t		 ngot;
};

static struct kept_name *
kept_name_slot(const char *tenant, enum name_kind kind, const char *id)
{
	uint32_t	 h = fnv1a(fnv1a(FNV1A_INIT, tenant), id);

	return &kept_names[(h ^ (uint32_t)kind) % KEPT_NAMES];
}

/* The page's entry of (kind, id), looked for from `hint` on; NULL if none. */
static struct page_name *
page_name(struct page_names *pn, enum name_kind kind, const char *id,
    size_t *hint)
{
	size_t	 i, k;

	for (k = 0; k < pn->n; k++) {
		i = (*hint + k) % pn->n;
		if (pn->v[i].kind == kind && strcmp(pn->v[i].id, id) == 0) {
			*hint = i;
			return &pn->v[i];
		}
	}
	return NULL;
}

/* Name (kind, id) once on the page, with its kept names when they hold. */
static void
page_name_add(struct req *r, struct page_names *pn, enum name_kind kind,
    const char *id, size_t *hint)
{
	struct page_name *p;
	struct kept_name *k;

	if (id == NULL || page_name(pn, kind, id, hint) != NULL)
		return;
	p = &pn->v[pn->n++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->id = id;
	k = kept_name_slot(r->auth.tenant_id, kind, id);
	if (r->rate.set && k->id[0] != '\0' && k->kind == kind &&
	    k->epoch == r->rate.data_epoch && strcmp(k->id, id) == 0 &&
	    strcmp(k->tenant_id, r->auth.tenant_id) == 0) {
		p->a = k->a;
		p->b = k->b;
		p->found = true;
	}
}

/* Read the names of kind that are not kept, NAMES_MAX ids a statement. */
static enum fb_err
page_names_read(struct req *r, struct page_names *pn, enum name_kind kind)
{
	const struct name_row *w;
	struct page_name *p;
	const char	*ids[NAMES_MAX];
	size_t		 i, j, m = 0, hint = 0;
	struct dbrows	*got;
	enum fb_err	 e;

	for (i = 0; i <= pn->n; i++) {
		if (i < pn->n && pn->v[i].kind == kind && !pn->v[i].found)
			ids[m++] = pn->v[i].id;
		if (m == 0 || (m < NAMES_MAX && i < pn->n))
			continue;
		got = &pn->got[pn->ngot];
		if ((e = db_names(r->db, kind, r->auth.tenant_id, ids, m,
		    got)) != FB_OK)
			return e;
		pn->ngot++;
		for (j = 0, w = got->row; j < got->n; j++)
			if ((p = page_name(pn, kind, w[j].id, &hint)) != NULL) {
				/* the row's, which outlives the page's rows */
				p->id = w[j].id;
				p->a = w[j].a;
				p->b = w[j].b;
				p->found = p->read = true;
			}
		m = 0;
	}
	return FB_OK;
}

/* Fill the names of the page's rows (LEAD_NAME_COLS) for lead_out_json(). */
static enum fb_err
page_names_fill(struct req *r, struct dbrows *rows, struct page_names *pn)
{
	struct lead_row	*l = rows->row;
	const struct page_name *p;
	size_t		 i, hint = 0;
	enum fb_err	 e;

	memset(pn, 0, sizeof(*pn));
	if (rows->n == 0)
		return FB_OK;
	if ((pn->v = calloc(2 * rows->n, sizeof(*pn->v))) == NULL ||
	    (pn->got = calloc(2 * rows->n / NAMES_MAX + 2,
	    sizeof(*pn->got))) == NULL)
		return FB_ENOMEM;
	for (i = 0; i < rows->n; i++) {
		page_name_add(r, pn, NAME_SITE, l[i].site_id, &hint);
		page_name_add(r, pn, NAME_CAMPAIGN, l[i].campaign_id, &hint);
	}
	if ((e = page_names_read(r, pn, NAME_SITE)) != FB_OK ||
	    (e = page_names_read(r, pn, NAME_CAMPAIGN)) != FB_OK)
		return e;
	for (i = 0; i < rows->n; i++) {
		if (l[i].site_id != NULL &&
		    (p = page_name(pn, NAME_SITE, l[i].site_id,
		    &hint)) != NULL) {
			l[i].site_name = p->a;
			l[i].site_domain = p->b;
		}
		if (l[i].campaign_id != NULL &&
		    (p = page_name(pn, NAME_CAMPAIGN, l[i].campaign_id,
		    &hint)) != NULL) {
			l[i].campaign_key = p->a;
			l[i].campaign_name = p->b;
		}
	}
	return FB_OK;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* After the answer: keep what was read, free the reads. */
static void
page_names_done(struct req *r, struct page_names *pn)
{
	const struct page_name *p;
	struct kept_name *k;
	size_t		 i;

	for (i = 0; i < pn->n && r->rate.set; i++) {
		p = &pn->v[i];
		if (!p->read)
			continue;
		k = kept_name_slot(r->auth.tenant_id, p->kind, p->id);
		free(k->a);
		free(k->b);
		k->a = dup_or_null(p->a);
		k->b = dup_or_null(p->b);
		if ((p->a != NULL && k->a == NULL) ||
		    (p->b != NULL && k->b == NULL)) {
			k->id[0] = '\0';
			continue;
		}
		snprintf(k->tenant_id, sizeof(k->tenant_id), "%s",
		    r->auth.tenant_id);
		snprintf(k->id, sizeof(k->id), "%s", p->id);
		k->kind = p->kind;
		k->epoch = r->rate.data_epoch;
	}
	for (i = 0; i < pn->ngot; i++)
		dbrows_free(&pn->got[i]);
	free(pn->got);
	free(pn->v);
}

/* The list's filters (contract: listLeads); -1 after a 400 written. */
static int
lead_filter_from_req(struct req *r, struct lead_filter *f)
{
	memset(f, 0, sizeof(*f));
	if (page_range_from_req(r, date_fields, NELEM(date_fields),
	    &f->range) != 0)
		return -1;
	f->site = req_query(r, "site_id");
	f->campaign = req_query(r, "campaign_id");
	f->status = req_query(r, "status");
	return 0;
}

enum fb_err
api_leads_list(struct req *r)
{
	struct page		 pg;
	struct lead_filter	 f;
	struct page_names	 names;
	struct dbrows		 rows;
	struct page_member	 extra[] = {
		{ "date_field", NULL }, { NULL, NULL }
	};
	enum fb_err		 e;

	if (page_from_req(r, &pg) != 0 || lead_filter_from_req(r, &f) != 0)
		return FB_OK;
	if ((e = db_lead_list(r->db, r->auth.tenant_id, &f,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	if ((e = page_names_fill(r, &rows, &names)) != FB_OK) {
		page_names_done(r, &names);
		dbrows_free(&rows);
		return e;
	}
	extra[0].value = date_fields[f.range.field];
	e = page_answer(r, &pg, &rows, sizeof(struct lead_row),
	    offsetof(struct lead_row, id), lead_out_json, extra);
	page_names_done(r, &names);
	return e;
}

static enum fb_err
leads_fetch(struct req *r, const void *f, const char *after, int n,
    struct dbrows *out)
{
	return db_lead_list(r->db, r->auth.tenant_id, f, after, n, out);
}

/* GET /api/v1/admin/leads/export: the list's leads as CSV, masked. */
enum fb_err
api_leads_export(struct req *r)
{
	struct lead_filter	 f;

	if (lead_filter_from_req(r, &f) != 0)
		return FB_OK;
	return export_answer(r, "leads", leads_fetch, &f,
	    sizeof(struct lead_row), offsetof(struct lead_row, id),
	    lead_csv_head, lead_csv);
}

/* LeadDetailOut of lead `id` (404 naming lead_id when not the tenant's). */
static enum fb_err
lead_answer(struct req *r, const char *id)
{
	struct dbrows	 l, tl;
	const struct lead_detail_row *d;
	const struct timeline_row *t;
	struct jgen	 j;
	size_t		 i;
	enum fb_err	 e;

	e = db_lead_get(r->db, r->auth.tenant_id, id, &l);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "lead_id");
	if (e != FB_OK)
		return e;
	d = l.row;
	if ((e = db_lead_timeline(r->db, r->auth.tenant_id, d->lead.site_id,
	    d->visitor_id, &tl)) != FB_OK) {
		dbrows_free(&l);
		return e;
	}
	req_gen_begin(r, &j);
	lead_out_json(&j, &d->lead);
	jg_str(&j, "landing_url", d->landing_url);
	jg_str(&j, "referrer", d->referrer);
	/* utm_* parameters of the landing URL, decoded (display only) */
	jg_raw(&j, "utm", d->utm != NULL ? d->utm : "{}");
	jg_str(&j, "lp_key", d->lp_key);
	jg_arr(&j, "timeline");
	for (i = 0, t = tl.row; i < tl.n; i++, t++) {
		jg_obj(&j, NULL);
		jg_str(&j, "type", t->type);
		jg_str(&j, "role", t->role);
		jg_str(&j, "path", t->path);
		jg_str(&j, "campaign", t->campaign);
		jg_time(&j, "at", t->at);
		jg_obj_end(&j);
	}
	jg_arr_end(&j);
	dbrows_free(&tl);
	dbrows_free(&l);
	return req_gen_end(r, &j, 200);
}

enum fb_err
api_leads_get(struct req *r)
{
	return lead_answer(r, req_pathvar(r, "lead_id"));
}

/*
 * POST /api/v1/admin/leads/search {"contact"} (issue 42): the leads of
 * one email address or phone number, newest first, LEAD_SEARCH_MAX at
 * most, found by its blind index; the contact travels in the body, never
 * in a URL, and is neither stored nor logged.  A LeadListOut without a
 * cursor.
 */
enum fb_err
api_leads_search(struct req *r)
{
	struct page		 pg = { .limit = LEAD_SEARCH_MAX };
	struct page_names	 names;
	struct dbrows		 rows;
	struct page_member	 extra[] = {
		{ "date_field", "created_at" }, { NULL, NULL }
	};
	const char		*contact, *kind;
	struct bidx		 bidx;
	char			 masked[300];
	enum fb_err		 e;

	if (body_str(r, "contact", true, 254, &contact) < 0)
		return FB_OK;
	if (!contact_bidx(bidx_cur(r->conf), r->auth.tenant_id, contact,
	    &kind, &bidx, masked))
		return api_error(r, AC_PARAMETER_INVALID, "contact");
	if ((e = db_leads_by_contact(r->db, r->auth.tenant_id,
	    strcmp(kind, "email") == 0, &bidx, LEAD_SEARCH_MAX,
	    &rows)) != FB_OK)
		return e;
	if ((e = page_names_fill(r, &rows, &names)) != FB_OK) {
		page_names_done(r, &names);
		dbrows_free(&rows);
		return e;
	}
	e = page_answer(r, &pg, &rows, sizeof(struct lead_row),
	    offsetof(struct lead_row, id), lead_out_json, extra);
	page_names_done(r, &names);
	return e;
}

/*
 * POST /api/v1/admin/leads/{lead_id}/convert (issue 42): the shop marks
 * a lead converted by hand (conversion_source manual, as formbackctl
 * lead convert does: lead_convert()): its pending deliveries are
 * cancelled and conversion.detected is queued.  A lead already finished
 * stays as it is.  Answers LeadDetailOut.
 */
enum fb_err
api_leads_convert(struct req *r)
{
	const char	*id = req_pathvar(r, "lead_id");
	const struct lead_owner_row *l;
	struct dbrows	 o;
	char		 at[32];
	bool		 changed;
	enum fb_err	 e;

	e = db_lead_owner(r->db, id, &o);
	if (e == FB_OK && strcmp(((const struct lead_owner_row *)o.row)->
	    tenant_id, r->auth.tenant_id) != 0) {
		dbrows_free(&o);
		e = FB_ENOTFOUND;
	}
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "lead_id");
	if (e != FB_OK)
		return e;
	l = o.row;
	time_sql((int64_t)time(NULL), at);
	e = lead_convert(r->db, l, "manual", at, &changed);
	dbrows_free(&o);
	if (e != FB_OK)
		return e;
	r->audit_type = "lead";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	return lead_answer(r, id);
}
