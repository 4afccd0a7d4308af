/*
 * The lead life cycle, applied from the collector's intake queue
 * (design 3; db/migrations/0008_ingest.sql, 0011), a visitor's events in
 * receive order by one applier at a time, the queue's parts (by visitor)
 * in parallel: a capture updates the visitor's open lead of that
 * campaign (one per site, campaign and visitor while it is started or
 * captured); a conversion on a thanks page converts the visitor's lead of
 * that campaign (tag), the visitor's leads of other campaigns
 * (tag_visitor) and the leads of the same contact (hash_match).  Every
 * time written is the event's receive time, not the time it is applied.
 * An applied event moves to tag_events, in the same transaction as the
 * lead writes and outbox rows it causes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include <sodium.h>

#include "../formback.h"
#include "../ingest.h"
#include "../match.h"
#include "../pii.h"
#include "../db/store.h"

#define APPLY_BATCH	INGEST_DONE_MAX	/* events per transaction */

/*
 * The tag_events rows of a batch, written together before it commits;
 * what they point to outside the batch's queue rows is copied here.
 */
struct row_copy {
	char	 tenant[UUID_STRLEN + 1], site[UUID_STRLEN + 1];
	char	 campaign[UUID_STRLEN + 1], lead[UUID_STRLEN + 1];
	char	 url_path[URL_MAX];
};

/* A visitor's unfinished lead of a campaign, as the batch knows it. */
struct open_lead {
	char		 site[UUID_STRLEN + 1], visitor[UUID_STRLEN + 1];
	char		 campaign[UUID_STRLEN + 1], id[UUID_STRLEN + 1];
	bool		 captured;	/* any status past started */
	long long	 captures;
	struct lead_new	*unwritten;	/* new in the batch, not written yet */
};

/*
 * What a new lead held until the batch's next statement on leads, or its
 * end (leads_write()), points to outside the batch's queue rows: the new
 * leads of a batch take a statement per DB_MULTI_MAX rather than one
 * each.
 */
struct new_lead {
	struct lead_contact	 c;
	char			 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char			 site[UUID_STRLEN + 1];
	char			 campaign[UUID_STRLEN + 1];
	char			 utm[2048], lp_key[URL_MAX], consent[16];
	char			 tmask[32], emask[300];
	unsigned char		 ts[PII_SEALED_MAX(16)];
	unsigned char		 es[PII_SEALED_MAX(256)];
	struct bidx		 tb, eb;
};

/* What an outbox row held as the new leads are (outbox_write()) points to. */
struct held_outbox {
	char			 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char			*payload;
};

/*
 * What a batch reads first (read_ahead()), one statement per site for
 * all its events instead of one per event: the unfinished leads of the
 * batch's visitors, locked, kept up to date with the batch's own writes;
 * the first page view of the batch's sessions.  A conversion may finish
 * leads of other visitors (hash_match): after one, leads are looked up
 * in the database again (open_valid false).
 */
struct ahead {
	struct open_lead	 open[2 * APPLY_BATCH];
	size_t			 nopen;
	bool			 open_valid;
	/* session_landing_row */
	struct dbrows		 landing[APPLY_BATCH];
	const char		*landing_site[APPLY_BATCH];
	size_t			 nlanding;
};

struct rows {
	struct tag_event_row	 row[APPLY_BATCH];
	struct row_copy		 copy[APPLY_BATCH];
	size_t			 n;
	struct flood_lock	 sources;	/* of its captures, locked */
	struct flood_lead	 caught[APPLY_BATCH];	/* its captures */
	size_t			 ncaught;
	struct ahead		 ahead;
	struct lead_new		 unwritten[DB_MULTI_MAX];
	struct new_lead		 unwritten_data[DB_MULTI_MAX];
	size_t			 nunwritten;
	struct outbox_row	 outbox[DB_MULTI_MAX];
	struct held_outbox	 outbox_data[DB_MULTI_MAX];
	size_t			 noutbox;
	/* of held rows: no one event's */
	bool			 write_failed;
};

/* An applier's transaction: its connection, keys, the event's time and rows. */
struct apply {
	struct db		*db;
	const struct conf	*conf;
	const char		*at;	/* received, SQL DATETIME UTC */
	struct rows		*rows;
};

/* A queued event, its contacts opened (normalised, clear) for the moment. */
struct tag_ev {
	const char	*id, *visitor, *session, *type, *url, *referrer, *role;
	const char	*tel, *email;
	int		 consent;
	long long	 ts;
	struct url_loc	 loc;
	/* keyed hashes of its client address and network, or NULL */
	const unsigned char *src_addr, *src_net;
};

/* The batch's held outbox rows let go of, written or not. */
static void
outbox_drop(struct rows *w)
{
	size_t	 i;

	for (i = 0; i < w->noutbox; i++)
		free(w->outbox_data[i].payload);
	w->noutbox = 0;
}

/* The batch's held outbox rows, written (in the order they were made). */
static enum fb_err
outbox_write(struct db *db, struct rows *w)
{
	enum fb_err	 e;

	if (w->noutbox == 0)
		return FB_OK;
	if ((e = db_outbox_insert(db, w->outbox, w->noutbox)) != FB_OK)
		w->write_failed = true;
	outbox_drop(w);
	return e;
}

/* A webhook event of the lead, held for outbox_write(); data is put. */
static enum fb_err
outbox_lead(struct apply *a, const char *tenant, const char *type,
    json_object *data)
{
	struct rows	*w = a->rows;
	struct held_outbox *ev;
	enum fb_err	 e = FB_OK;

	if (w->noutbox == NELEM(w->outbox))
		e = outbox_write(a->db, w);
	if (e == FB_OK) {
		ev = &w->outbox_data[w->noutbox];
		if ((ev->payload = strdup(json_text(data))) == NULL)
			e = FB_ENOMEM;
		else {
			/* its id now: the outbox is read in id order */
			uuid_v7(ev->id);
			snprintf(ev->tenant, sizeof(ev->tenant), "%s", tenant);
			w->outbox[w->noutbox++] = (struct outbox_row){ ev->id,
			    ev->tenant, "webhook", type, ev->payload };
		}
	}
	json_object_put(data);
	return e;
}

/*
 * The batch's new leads held so far, written: before any other statement
 * on leads, and at the end of the batch.
 */
static enum fb_err
leads_write(struct db *db, struct rows *w)
{
	size_t		 i;
	enum fb_err	 e;

	if (w->nunwritten == 0)
		return FB_OK;
	for (i = 0; i < w->ahead.nopen; i++)
		w->ahead.open[i].unwritten = NULL;
	e = db_leads_insert(db, w->unwritten, w->nunwritten);
	w->nunwritten = 0;
	if (e != FB_OK)
		w->write_failed = true;
	return e;
}

/* The UTM parameters of a page's query, decoded, as JSON into out. */
static void
utm_from(const char *search, char *out, size_t outsz)
{
	static const char *const keys[] = { "utm_source", "utm_medium",
	    "utm_campaign", "utm_term", "utm_content" };
	struct query_pair q;
	json_object	*o = json_object_new_object();
	const char	*p;
	char		 name[32], val[256];
	size_t		 k;

	for (p = *search == '?' ? search + 1 : search; query_next(&p, &q); ) {
		if (!q.has_value || q.name_len >= sizeof(name))
			continue;
		pct_decode(q.name, q.name_len, PCT_PLUS, name, sizeof(name));
		for (k = 0; k < NELEM(keys); k++)
			if (strcmp(name, keys[k]) == 0 && pct_decode(q.value,
			    q.value_len, PCT_PLUS, val, sizeof(val)) &&
			    utf8_len(val) >= 0)
				jadd_str(o, keys[k], val);
	}
	snprintf(out, outsz, "%s", json_text(o));
	json_object_put(o);
}

/* Remember an unfinished lead; false when the batch knows too many. */
static bool
open_add(struct ahead *h, const char *site, const char *visitor,
    const char *campaign, const char *id, bool captured, long long captures)
{
	struct open_lead *o;

	if (h->nopen == NELEM(h->open))
		return false;
	o = &h->open[h->nopen++];
	snprintf(o->site, sizeof(o->site), "%s", site);
	snprintf(o->visitor, sizeof(o->visitor), "%s", visitor);
	snprintf(o->campaign, sizeof(o->campaign), "%s", campaign);
	snprintf(o->id, sizeof(o->id), "%s", id);
	o->captured = captured;
	o->captures = captures;
	o->unwritten = NULL;
	return true;
}

/* The newest known unfinished lead of (site, visitor, campaign), or NULL. */
static struct open_lead *
open_find(struct ahead *h, const char *site, const char *visitor,
    const char *campaign)
{
	struct open_lead *o, *best = NULL;
	size_t		 i;

	for (i = 0; i < h->nopen; i++) {
		o = &h->open[i];
		/* UUIDv7 ids sort by time */
		if (strcmp(o->visitor, visitor) == 0 &&
		    strcmp(o->campaign, campaign) == 0 &&
		    strcmp(o->site, site) == 0 &&
		    (best == NULL || strcmp(o->id, best->id) > 0))
			best = o;
	}
	return best;
}

/* Add s to v[0 .. *n) unless it is there. */
static void
add_once(const char **v, size_t *n, const char *s)
{
	size_t	 i;

	for (i = 0; i < *n; i++)
		if (strcmp(v[i], s) == 0)
			return;
	v[(*n)++] = s;
}

/*
 * Read ahead for queued events q[0 .. n-1], site by site: a part's batch
 * is mostly one site's.
 */
static enum fb_err
read_ahead(struct db *db, const struct ingest_row *q, size_t n, struct ahead *h)
{
	const struct open_lead_of_row *o;
	const char	*visitor[APPLY_BATCH], *session[APPLY_BATCH];
	const char	*site;
	bool		 done[APPLY_BATCH] = { false };
	size_t		 i, j, k, nv, ns;
	struct dbrows	 l;
	enum fb_err	 e;

	h->open_valid = true;
	for (i = 0; i < n; i++) {
		if (done[i])
			continue;
		site = q[i].site_id;
		/* this site's distinct visitors and sessions */
		for (j = i, nv = ns = 0; j < n; j++) {
			if (done[j] || strcmp(q[j].site_id, site) != 0)
				continue;
			done[j] = true;
			add_once(visitor, &nv, q[j].visitor_id);
			add_once(session, &ns, q[j].session_id);
		}
		if ((e = db_leads_open_of(db, q[i].tenant_id, site, visitor, nv,
		    &l)) != FB_OK)
			return e;
		for (k = 0, o = l.row; k < l.n && h->open_valid; k++)
			h->open_valid = open_add(h, site, o[k].visitor_id,
			    o[k].campaign_id, o[k].id,
			    strcmp(o[k].status, "started") != 0, o[k].captures);
		dbrows_free(&l);
		h->landing_site[h->nlanding] = site;
		if ((e = db_lead_landings(db, site, session, ns,
		    &h->landing[h->nlanding])) != FB_OK)
			return e;
		h->nlanding++;
	}
	return FB_OK;
}

static void
ahead_free(struct ahead *h)
{
	size_t	 i;

	for (i = 0; i < h->nlanding; i++)
		dbrows_free(&h->landing[i]);
	h->nlanding = 0;
}

/*
 * The visitor's unfinished lead of the campaign into id, if any (*found);
 * *was_captured when it has been captured before (any status past
 * started); *captures, the captures with a contact it has taken.
 */
static enum fb_err
find_lead(struct apply *a, const char *tenant, const char *site,
    const char *campaign, const struct tag_ev *ev, char id[UUID_STRLEN + 1],
    bool *was_captured, long long *captures, bool *found)
{
	struct dbrows	 l;
	const struct open_lead_row *o;
	struct open_lead *k;
	size_t		 i, n = 0;
	enum fb_err	 e;

	*was_captured = *found = false;
	*captures = 0;
	if (a->rows->ahead.open_valid) {
		if ((k = open_find(&a->rows->ahead, site, ev->visitor,
		    campaign)) != NULL) {
			snprintf(id, UUID_STRLEN + 1, "%s", k->id);
			*was_captured = k->captured;
			*captures = k->captures;
			*found = true;
		}
		return FB_OK;
	}
	if ((e = leads_write(a->db, a->rows)) != FB_OK ||
	    (e = db_lead_find_open(a->db, tenant, site, ev->visitor, campaign,
	    &l)) != FB_OK)
		return e;
	if (l.n >= 1) {
		/* the newest (UUIDv7 ids sort by time) */
		for (i = 1, o = l.row; i < l.n; i++)
			if (strcmp(o[i].id, o[n].id) > 0)
				n = i;
		snprintf(id, UUID_STRLEN + 1, "%s", o[n].id);
		*was_captured = strcmp(o[n].status, "started") != 0;
		*captures = o[n].captures;
		*found = true;
	}
	dbrows_free(&l);
	return FB_OK;
}

/* Contacts c copied into held lead n; n's copy. */
static const struct lead_contact *
contact_copy(struct new_lead *n, const struct lead_contact *c)
{
	n->c = *c;
	snprintf(n->consent, sizeof(n->consent), "%s", c->consent_state);
	n->c.consent_state = n->consent;
	if (c->tel_sealed != NULL) {
		memcpy(n->ts, c->tel_sealed, c->tel_sealed_len);
		n->tb = *c->tel_bidx;
		snprintf(n->tmask, sizeof(n->tmask), "%s", c->tel_masked);
		n->c.tel_sealed = n->ts;
		n->c.tel_bidx = &n->tb;
		n->c.tel_masked = n->tmask;
	}
	if (c->email_sealed != NULL) {
		memcpy(n->es, c->email_sealed, c->email_sealed_len);
		n->eb = *c->email_bidx;
		snprintf(n->emask, sizeof(n->emask), "%s", c->email_masked);
		n->c.email_sealed = n->es;
		n->c.email_bidx = &n->eb;
		n->c.email_masked = n->emask;
	}
	return &n->c;
}

/*
 * A new lead `id` for the visitor, its landing page the session's first
 * page view; captured at once with the contacts `c` when not NULL.  Held
 * for leads_write().
 */
static enum fb_err
create_lead(struct apply *a, const char *tenant, const char *site,
    const char *campaign, const struct tag_ev *ev, const char *id,
    const struct lead_contact *c)
{
	struct rows	*w = a->rows;
	const struct ahead *h = &w->ahead;
	const struct session_landing_row *lr;
	struct new_lead	*n;
	struct lead_new	*l;
	struct url_loc	 ll;
	const char	*landing = NULL, *ref = NULL;
	size_t		 i, j;
	enum fb_err	 e;

	/* a page view applied before the batch (read ahead) */
	for (i = 0; i < h->nlanding && landing == NULL; i++) {
		if (strcmp(h->landing_site[i], site) != 0)
			continue;
		for (j = 0, lr = h->landing[i].row; j < h->landing[i].n; j++)
			if (strcmp(lr[j].session_id, ev->session) == 0) {
				landing = lr[j].url;
				ref = lr[j].referrer;
				break;
			}
	}
	/* else one of the batch, whose rows are not written yet */
	for (i = 0; i < w->n && landing == NULL; i++) {
		const struct tag_event_row *r = &w->row[i];

		if (strcmp(r->type, "page_view") == 0 &&
		    strcmp(r->site, site) == 0 &&
		    strcmp(r->session, ev->session) == 0) {
			landing = r->url;
			ref = r->referrer;
		}
	}
	if (landing == NULL) {
		landing = ev->url;
		ref = ev->referrer;
	}
	if (!url_parse(landing, &ll))
		ll = ev->loc;
	if (w->nunwritten == NELEM(w->unwritten) &&
	    (e = leads_write(a->db, w)) != FB_OK)
		return e;
	/*
	 * held: landing, ref and the event's fields live as long as the batch
	 */
	l = &w->unwritten[w->nunwritten];
	n = &w->unwritten_data[w->nunwritten++];
	snprintf(n->id, sizeof(n->id), "%s", id);
	snprintf(n->tenant, sizeof(n->tenant), "%s", tenant);
	snprintf(n->site, sizeof(n->site), "%s", site);
	snprintf(n->campaign, sizeof(n->campaign), "%s", campaign);
	utm_from(ll.search, n->utm, sizeof(n->utm));
	snprintf(n->lp_key, sizeof(n->lp_key), "%s", ll.pathname);
	*l = (struct lead_new){ .id = n->id, .tenant = n->tenant,
	    .site = n->site, .campaign = n->campaign, .visitor = ev->visitor,
	    .session = ev->session, .landing = landing, .referrer = ref,
	    .utm = n->utm, .lp_key = n->lp_key, .at = a->at,
	    .c = c != NULL ? contact_copy(n, c) : NULL };
	if (w->ahead.open_valid &&
	    (w->ahead.open_valid = open_add(&w->ahead, site, ev->visitor,
	    campaign, id, c != NULL, c != NULL ? 1 : 0)))
		w->ahead.open[w->ahead.nopen - 1].unwritten = l;
	return FB_OK;
}

/* The visitor's open lead of the campaign, created when there is none. */
static enum fb_err
open_lead(struct apply *a, const char *tenant, const char *site,
    const char *campaign, const struct tag_ev *ev, char id[UUID_STRLEN + 1])
{
	long long	 captures;
	bool		 found, was;
	enum fb_err	 e;

	if ((e = find_lead(a, tenant, site, campaign, ev, id, &was, &captures,
	    &found)) != FB_OK ||
	    found)
		return e;
	uuid_v7(id);
	return create_lead(a, tenant, site, campaign, ev, id, NULL);
}

/*
 * A capture kept on lead `id` of `site` (`first`: its first, so a new
 * lead of the hour), for the batch's end (flood_batch_end()).
 */
static void
caught(struct apply *a, const char *tenant, const char *site,
    const char *domain, const char *id, const struct tag_ev *ev, bool first)
{
	struct rows	  *w = a->rows;
	struct flood_lead *l;

	if (w->ncaught == NELEM(w->caught))
		return;	/* cannot be: one per event at most */
	l = &w->caught[w->ncaught++];
	memset(l, 0, sizeof(*l));
	snprintf(l->id, sizeof(l->id), "%s", id);
	snprintf(l->tenant, sizeof(l->tenant), "%s", tenant);
	snprintf(l->site, sizeof(l->site), "%s", site);
	snprintf(l->visitor, sizeof(l->visitor), "%s", ev->visitor);
	snprintf(l->hour, sizeof(l->hour), "%.13s:00:00", a->at);
	snprintf(l->domain, sizeof(l->domain), "%s", domain);
	if ((l->has_addr = ev->src_addr != NULL))
		memcpy(l->addr, ev->src_addr, sizeof(l->addr));
	if ((l->has_net = ev->src_net != NULL))
		memcpy(l->net, ev->src_net, sizeof(l->net));
	l->first = first;
}

/*
 * The visitor's lead `lead` took the contacts it may (tag_visitor_captures)
 * and one more came: the visitor passed a limit, and its leads of the
 * hour, this one whatever its hour, are quarantined (issue 40).
 */
static enum fb_err
visitor_trip(struct apply *a, const char *tenant, const char *site,
    const char *domain, const struct tag_ev *ev, const char *lead,
    long long captures)
{
	struct flood_trip t;
	char		 hour[20];
	enum fb_err	 e;

	if ((e = leads_write(a->db, a->rows)) != FB_OK)
		return e;
	snprintf(hour, sizeof(hour), "%.13s:00:00", a->at);
	memset(&t, 0, sizeof(t));
	t.s = (struct flood_src){ tenant, site, hour, "visitor",
	    (const unsigned char *)ev->visitor, strlen(ev->visitor) };
	t.shown = ev->visitor;
	t.domain = domain;
	t.threshold = a->conf->tag_visitor_captures;
	t.count = captures + 1;
	return flood_trip_batch(a->db, &t, &a->rows->sources, a->rows->caught,
	    a->rows->ncaught, lead);
}

/* Seal, index and mask what the capture carries, and store it. */
static enum fb_err
capture(struct apply *a, const char *tenant, const char *site,
    const char *domain,
    const char *campaign, const char *consent_mode, const struct tag_ev *ev,
    char lead[UUID_STRLEN + 1])
{
	const unsigned char *mk = a->conf->master_key;
	const struct bidx_keys *ik;
	char		 tel[16], email[256], tmask[32], emask[300];
	unsigned char	 ts[PII_SEALED_MAX(16)], es[PII_SEALED_MAX(256)];
	struct bidx	 tb, eb;
	struct lead_contact c;
	struct open_lead *k;
	enum tel_kind	 kind;
	bool		 has_tel, has_email, was, found;
	json_object	*d, *ch;
	long long	 captures;
	enum fb_err	 e;

	has_tel = ev->tel != NULL && contact_tel_normalize(ev->tel, tel, &kind);
	has_email = ev->email != NULL && contact_email_normalize(ev->email,
	    email);
	if (!has_tel && !has_email)
		return FB_OK;
	/* explicit consent: nothing is kept without it */
	if (strcmp(consent_mode, "explicit") == 0 && ev->consent != 1)
		return FB_OK;
	/* the id first: it is the sealed contacts' associated data */
	if ((e = find_lead(a, tenant, site, campaign, ev, lead, &was, &captures,
	    &found)) != FB_OK)
		return e;
	/*
	 * one visitor's lead takes so many contacts, no more: cycling made-up
	 * numbers through one lead changes nothing (issue 11; formback.fcgi(8)
	 * "Abuse limits")
	 */
	if (found && captures >= a->conf->tag_visitor_captures) {
		logx(LOG_INFO, "lead %s: capture past its %d, not kept", lead,
		    a->conf->tag_visitor_captures);
		sodium_memzero(tel, sizeof(tel));
		sodium_memzero(email, sizeof(email));
		return visitor_trip(a, tenant, site, domain, ev, lead,
		    captures);
	}
	if (!found)
		uuid_v7(lead);
	if ((e = bidx_refresh(a->db, a->conf)) != FB_OK)
		return e;
	ik = bidx_cur(a->conf);
	memset(&c, 0, sizeof(c));
	c.consent_state = consent_mode;
	c.session = ev->session;
	c.key_id = a->conf->master_key_id;
	c.src_addr = ev->src_addr;
	c.src_net = ev->src_net;
	if (has_tel) {
		c.tel_sealed_len = pii_seal(mk, tenant, lead, "tel", tel, ts);
		c.tel_sealed = ts;
		bidx_of(ik, tenant, "tel", tel, &tb);
		c.tel_bidx = &tb;
		contact_tel_mask(tel, tmask);
		c.tel_masked = tmask;
		c.tel_kind = tel_kind_names[kind];
	}
	if (has_email) {
		c.email_sealed_len = pii_seal(mk, tenant, lead, "email", email,
		    es);
		c.email_sealed = es;
		bidx_of(ik, tenant, "email", email, &eb);
		c.email_bidx = &eb;
		contact_email_mask(email, emask);
		c.email_masked = emask;
	}
	sodium_memzero(tel, sizeof(tel));
	sodium_memzero(email, sizeof(email));
	/* a new lead is inserted captured: one write instead of two */
	if (found) {
		if ((e = leads_write(a->db, a->rows)) != FB_OK ||
		    (e = db_lead_capture(a->db, tenant, lead, &c,
		    a->at)) != FB_OK)
			return e;
		if (a->rows->ahead.open_valid &&
		    (k = open_find(&a->rows->ahead, site, ev->visitor,
		    campaign)) != NULL) {
			k->captured = true;
			k->captures++;
		}
	} else if ((e = create_lead(a, tenant, site, campaign, ev, lead,
	    &c)) != FB_OK)
		return e;
	caught(a, tenant, site, domain, lead, ev, !was);
	if (was)
		return FB_OK;
	/*
	 * lead.captured (contract: Events, LeadCapturedData), first time only
	 */
	d = json_object_new_object();
	jadd_str(d, "lead_id", lead);
	jadd_str(d, "campaign_id", campaign);
	jadd_str(d, "site_id", site);
	ch = json_object_new_array();
	if (has_tel && kind == TEL_MOBILE)
		json_object_array_add(ch, json_object_new_string("sms"));
	if (has_email)
		json_object_array_add(ch, json_object_new_string("email"));
	json_object_object_add(d, "channels", ch);
	return outbox_lead(a, tenant, "lead.captured", d);
}

enum fb_err
lead_convert(struct db *db, const struct lead_owner_row *l, const char *source,
    const char *at, bool *changed)
{
	json_object	*d;
	enum fb_err	 e;

	if ((e = db_lead_convert(db, l->tenant_id, l->id, source, at,
	    changed)) != FB_OK || !*changed)
		return e;
	/* nothing pending is sent after a conversion */
	if ((e = db_converted_cancel(db, l->tenant_id, l->id)) != FB_OK)
		return e;
	d = json_object_new_object();
	jadd_str(d, "lead_id", l->id);
	jadd_str(d, "campaign_id", l->campaign_id);
	jadd_str(d, "site_id", l->site_id);
	jadd_str(d, "conversion_source", source);
	jadd_time(d, "converted_at", at);
	e = db_outbox_add(db, l->tenant_id, "webhook", "conversion.detected",
	    json_text(d));
	json_object_put(d);
	return e;
}

/* A conversion on a thanks page (design 3). */
static enum fb_err
conversion(struct apply *a, const char *tenant, const char *site,
    const char *campaign, const struct tag_ev *ev)
{
	struct dbrows	 v, m;
	const struct lead_owner_row *l, *o;
	size_t		 i, j;
	bool		 changed, own;
	enum fb_err	 e;

	/*
	 * leads of any visitor may finish: look them up in the database again
	 */
	a->rows->ahead.open_valid = false;
	if ((e = leads_write(a->db, a->rows)) != FB_OK ||
	    (e = db_leads_of_visitor(a->db, tenant, site, ev->visitor,
	    &v)) != FB_OK)
		return e;
	for (i = 0, l = v.row; i < v.n && e == FB_OK; i++) {
		own = strcmp(l[i].campaign_id, campaign) == 0;
		e = lead_convert(a->db, &l[i], own ? "tag" : "tag_visitor",
		    a->at, &changed);
		if (e != FB_OK || !own || !changed)
			continue;
		/* the same contact's other leads */
		if ((e = db_leads_of_contact(a->db, tenant, l[i].id,
		    &m)) != FB_OK)
			break;
		for (j = 0, o = m.row; j < m.n && e == FB_OK; j++)
			e = lead_convert(a->db, &o[j], "hash_match", a->at,
			    &changed);
		dbrows_free(&m);
	}
	dbrows_free(&v);
	return e;
}

/*
 * Activity at the event's time on the visitor's open lead of the campaign:
 * nothing to write when the batch knows it has none; a held new lead
 * takes it with it.
 */
static enum fb_err
touch(struct apply *a, const char *site, const char *visitor,
    const char *campaign)
{
	struct ahead	*h = &a->rows->ahead;
	struct open_lead *k;
	enum fb_err	 e;

	if (h->open_valid) {
		if ((k = open_find(h, site, visitor, campaign)) == NULL)
			return FB_OK;
		if (k->unwritten != NULL) {
			k->unwritten->activity_at = a->at;
			return FB_OK;
		}
	}
	if ((e = leads_write(a->db, a->rows)) != FB_OK)
		return e;
	return db_lead_touch(a->db, site, visitor, campaign, a->at);
}

/* One event against its site and campaign (`cx`: db_event_context_site). */
static enum fb_err
handle(struct apply *a, const struct tag_ev *ev,
    const struct event_context_row *cx)
{
	struct tag_event_row	*row;
	struct row_copy		*c;
	const char		*tenant = cx->tenant_id;
	const char		*site = cx->site_id;
	const char		*cid = cx->campaign_id;
	char			 lead[UUID_STRLEN + 1] = "";
	char			 campaign[UUID_STRLEN + 1] = "";
	bool			 published = false, active = false;
	enum fb_err		 e;

	/* the campaign counts only when it is this site's and published */
	if (cid != NULL && strcmp(cx->campaign_site_id, site) == 0 &&
	    cx->published) {
		published = true;
		active = strcmp(cx->campaign_status, "active") == 0;
		snprintf(campaign, sizeof(campaign), "%s", cid);
	}
	if (active && strcmp(ev->type, "capture") == 0) {
		if ((e = capture(a, tenant, site, cx->domain, campaign,
		    cx->consent_mode, ev, lead)) != FB_OK)
			return e;
	} else if (active && strcmp(ev->type, "form_start") == 0) {
		if ((e = open_lead(a, tenant, site, campaign, ev,
		    lead)) != FB_OK)
			return e;
	}
	/* activity delays the judgement (a capture already stamped it) */
	if (active && (strcmp(ev->type, "page_view") == 0 ||
	    strcmp(ev->type, "form_start") == 0 || strcmp(ev->type,
	    "consent") == 0) &&
	    (e = touch(a, site, ev->visitor, campaign)) != FB_OK)
		return e;
	c = &a->rows->copy[a->rows->n];
	row = &a->rows->row[a->rows->n++];
	memset(row, 0, sizeof(*row));
	snprintf(c->tenant, sizeof(c->tenant), "%s", tenant);
	snprintf(c->site, sizeof(c->site), "%s", site);
	snprintf(c->campaign, sizeof(c->campaign), "%s", campaign);
	snprintf(c->lead, sizeof(c->lead), "%s", lead);
	snprintf(c->url_path, sizeof(c->url_path), "%s", ev->loc.pathname);
	row->tenant = c->tenant;
	row->site = c->site;
	row->campaign = published ? c->campaign : NULL;
	row->lead = lead[0] != '\0' ? c->lead : NULL;
	row->visitor = ev->visitor;
	row->session = ev->session;
	row->type = ev->type;
	row->role = published ? ev->role : NULL;
	row->url = ev->url;
	row->url_path = c->url_path;
	row->referrer = ev->referrer;
	row->consent = ev->consent;
	row->client_ts = ev->ts;
	row->at = a->at;
	if (published && strcmp(ev->type, "conversion") == 0 &&
	    ev->role != NULL &&
	    strcmp(ev->role, "thanks") == 0)
		return conversion(a, tenant, site, campaign, ev);
	return FB_OK;
}

/* Open a sealed contact of queued event q into out; false when absent. */
static bool
open_contact(const struct conf *conf, const struct ingest_row *q,
    const struct dbbin *sealed, const char *field, char *out, size_t outsz)
{
	if (sealed->p == NULL)
		return false;
	/* sealed under the key of its id, current or earlier */
	if (pii_open_any(conf, q->pii_key_id, "ingest", q->id, field,
	    sealed->p, sealed->n, out, outsz, NULL))
		return true;
	logx(LOG_WARN, "queued event %s: its %s does not open under this "
	    "master key; applied without it", q->id, field);
	return false;
}

/*
 * Apply queued event q.  `cx` caches the context of the previous event
 * (site and campaign key in `cxkey`; none when cx->n is 0): a batch is
 * mostly one site's.
 */
static enum fb_err
apply_one(struct db *db, const struct conf *conf, const struct ingest_row *q,
    struct dbrows *cx, char *cxkey, size_t cxkeysz, struct rows *rows)
{
	struct apply	 a = { db, conf, q->received_at, rows };
	struct tag_ev	 ev;
	char		 key[UUID_STRLEN + 80], tel[64], email[256];
	const char	*ck = q->campaign_key;
	enum fb_err	 e;

	snprintf(key, sizeof(key), "%s %s", q->site_id, ck != NULL ? ck : "");
	if (cxkey[0] == '\0' || strcmp(key, cxkey) != 0) {
		dbrows_free(cx);
		cxkey[0] = '\0';
		e = db_event_context_site(db, q->site_id, ck, cx);
		if (e != FB_OK && e != FB_ENOTFOUND)
			return e;
		snprintf(cxkey, cxkeysz, "%s", key);
	}
	if (cx->n != 1)
		/* the site was deleted since: nothing to apply */
		return FB_OK;
	memset(&ev, 0, sizeof(ev));
	ev.id = q->id;
	ev.visitor = q->visitor_id;
	ev.session = q->session_id;
	ev.type = q->event_type;
	ev.url = q->url;
	ev.referrer = q->referrer;
	ev.role = q->role;
	ev.consent = (int)q->consent;
	ev.ts = q->client_ts;
	if (!url_parse(ev.url, &ev.loc))
		return FB_OK;	/* checked when filed; cannot happen */
	if (open_contact(conf, q, &q->tel_sealed, "tel", tel, sizeof(tel)))
		ev.tel = tel;
	if (open_contact(conf, q, &q->email_sealed, "email", email,
	    sizeof(email)))
		ev.email = email;
	if (q->src_addr.n == PII_BIDXBYTES)
		ev.src_addr = q->src_addr.p;
	if (q->src_net.n == PII_BIDXBYTES)
		ev.src_net = q->src_net.p;
	e = handle(&a, &ev, cx->row);
	sodium_memzero(tel, sizeof(tel));
	sodium_memzero(email, sizeof(email));
	return e;
}

/* A failure of event id (why), counted out of turn (db_tx()). */
struct failure {
	unsigned	 part;
	const char	*id;
	enum fb_err	 why;
};

static enum fb_err
failure_tx(struct db *db, void *arg)
{
	const struct failure *f = arg;

	return db_ingest_failed(db, f->part, f->id, fb_strerror(f->why));
}

/* One batch of a part (batch_tx()): what it asks and what came of it. */
struct batch {
	const struct conf *conf;
	unsigned	 part;
	int		 n;
	bool		 wait;
	unsigned	 done;		/* events applied, 0: another's turn */
	char		 failed[UUID_STRLEN + 1]; /* the one to blame */
	enum fb_err	 why;		/* the failure counted in turn */
};

/*
 * The writes of one batch of events read from the queue: its leads,
 * outbox rows, flood counts, tag events, and the queue's rows removed.
 */
static enum fb_err
batch_apply(struct db *db, struct batch *b, const struct dbrows *q,
    struct rows *rows)
{
	const struct ingest_row *ev = q->row;
	const char	*ids[APPLY_BATCH];
	struct dbrows	 cx = { 0 };
	char		 cxkey[UUID_STRLEN + 80] = "";
	size_t		 i;
	enum fb_err	 e;

	/* the captures' sources before any lead (tag/quarantine.c) */
	if ((e = flood_batch_begin(db, q->row, q->n, &rows->sources)) == FB_OK)
		e = read_ahead(db, q->row, q->n, &rows->ahead);
	for (i = 0; i < q->n; i++)
		ids[i] = ev[i].id;
	for (i = 0; i < q->n && e == FB_OK; i++)
		/* held rows written on the way fail as the batch's */
		if ((e = apply_one(db, b->conf, &ev[i], &cx, cxkey,
		    sizeof(cxkey), rows)) != FB_OK && !rows->write_failed)
			snprintf(b->failed, sizeof(b->failed), "%s", ids[i]);
	dbrows_free(&cx);
	if (e == FB_OK && (e = leads_write(db, rows)) == FB_OK)
		e = outbox_write(db, rows);
	if (e == FB_OK)
		e = flood_batch_end(db, b->conf, &rows->sources, rows->caught,
		    rows->ncaught);
	if (e == FB_OK)
		e = db_tag_events_insert(db, rows->row, rows->n);
	if (e == FB_OK)
		e = db_ingest_done(db, b->part, ids, q->n);
	/* a batch of one: the failure of the batch is the event's */
	if (e != FB_OK && b->failed[0] == '\0' && q->n == 1)
		snprintf(b->failed, sizeof(b->failed), "%s", ids[0]);
	return e;
}

/*
 * One transaction (db_tx()): the part's applier turn, up to n of its
 * events applied and removed.  On an error nothing of the batch stays;
 * when an event is to blame (b->failed) its failure is counted in the
 * same transaction, undone to the savepoint, the part's turn still held,
 * so that no other applier takes the event up before its count is
 * written (out of turn one did, and counted a fourth failure): then the
 * count is committed and b->why says what failed.  A deadlock, or a
 * connection lost, leaves no savepoint to go back to.
 */
static enum fb_err
batch_tx(struct db *db, void *arg)
{
	struct batch	*b = arg;
	struct dbrows	 q;
	struct rows	*rows;
	bool		 held;
	enum fb_err	 e;

	b->done = 0;
	b->failed[0] = '\0';
	b->why = FB_OK;
	if ((e = db_ingest_lock(db, b->part, b->wait, &held)) != FB_OK ||
	    !held || (e = db_savepoint(db, "batch")) != FB_OK)
		return e;
	if ((rows = calloc(1, sizeof(*rows))) == NULL)
		return FB_ENOMEM;
	if ((e = db_ingest_batch(db, b->part, b->n, &q)) != FB_OK) {
		free(rows);
		return e;
	}
	if ((e = batch_apply(db, b, &q, rows)) == FB_OK)
		b->done = (unsigned)q.n;
	else if (b->failed[0] != '\0' && e != FB_ERETRY && e != FB_EGONE &&
	    db_rollback_to(db, "batch") == FB_OK &&
	    db_ingest_failed(db, b->part, b->failed, fb_strerror(e)) == FB_OK) {
		b->why = e;
		e = FB_OK;
	}
	ahead_free(&rows->ahead);
	flood_lock_free(&rows->sources);
	outbox_drop(rows);
	dbrows_free(&q);
	free(rows);
	return e;
}

/*
 * A batch of up to n events of a part, in one transaction (db_tx(),
 * retried on deadlock).  *done: how many (0 when another applier has
 * the turn).  On an error *failed names the event it happened on, when
 * one is to blame, and *counted says whether its failure is counted.
 */
static enum fb_err
apply_batch(struct db *db, const struct conf *conf, unsigned part, int n,
    bool wait, unsigned *done, char failed[UUID_STRLEN + 1], bool *counted)
{
	struct batch	 b = { .conf = conf, .part = part, .wait = wait,
			    .n = n > APPLY_BATCH ? APPLY_BATCH : n };
	enum fb_err	 e;

	e = db_tx(db, batch_tx, &b);
	*counted = e == FB_OK && b.why != FB_OK;
	if (*counted)
		e = b.why;
	*done = e == FB_OK ? b.done : 0;
	snprintf(failed, UUID_STRLEN + 1, "%s", e == FB_OK ? "" : b.failed);
	return e;
}

enum fb_err
tag_apply_part(struct db *db, const struct conf *conf, unsigned part, int limit,
    bool wait, int *applied)
{
	char		 failed[UUID_STRLEN + 1];
	unsigned	 done;
	bool		 counted;
	enum fb_err	 e = FB_OK;
	struct failure	 f;
	int		 n, fails = 0, single = 0;

	*applied = 0;
	while (*applied < limit) {
		n = limit - *applied < APPLY_BATCH ? limit - *applied :
		    APPLY_BATCH;
		if (single > 0)
			n = 1;
		e = apply_batch(db, conf, part, n, wait, &done, failed,
		    &counted);
		if (e == FB_EGONE)
			return e;
		if (e != FB_OK) {
			/*
			 * The batch is undone.  When the event it failed on
			 * is known it is counted (parked at the third time)
			 * and the others go again; a failure of the batch's
			 * common writes sends the next events one at a time
			 * until the culprit is found.
			 */
			if (failed[0] != '\0') {
				logx(LOG_ERR,
				    "queued tag event %s not applied: %s",
				    failed, fb_strerror(e));
				f = (struct failure){ part, failed, e };
				if (!counted &&
				    db_tx(db, failure_tx, &f) != FB_OK)
					logx(LOG_ERR,
					    "its failure not counted");
				if (single > 0)
					single--;
			} else if (n > 1)
				single = n;
			else
				return e;
			if (++fails > 2 * APPLY_BATCH)
				return e;
			continue;
		}
		if (done == 0)
			break;	/* nothing queued, or another applier's turn */
		*applied += (int)done;
		if (single > 0)
			single--;
	}
	return FB_OK;
}

enum fb_err
tag_apply(struct db *db, const struct conf *conf, int limit, bool wait,
    int *applied)
{
	static unsigned	 next = UINT_MAX;
	unsigned	 k, first;
	enum fb_err	 e;
	int		 n;

	/* each call starts at another part, each process at its own */
	if (next == UINT_MAX)
		next = (unsigned)getpid();
	first = next++ % INGEST_PARTS;
	*applied = 0;
	for (k = 0; k < INGEST_PARTS && *applied < limit; k++) {
		if ((e = tag_apply_part(db, conf, (first + k) % INGEST_PARTS,
		    limit - *applied, wait, &n)) != FB_OK)
			return e;
		*applied += n;
	}
	return FB_OK;
}

enum fb_err
tag_apply_backlog(struct db *db, const struct conf *conf, int *applied)
{
	struct dbrows	 q;
	const struct ingest_status_row *st;
	long long	 n;
	enum fb_err	 e;

	*applied = 0;
	if ((e = db_ingest_status(db, &q)) != FB_OK)
		return e;
	st = q.row;
	n = q.n == 1 ? st->queued - st->parked : 0;
	dbrows_free(&q);
	return n > 0 ? tag_apply(db, conf, n > INT_MAX ? INT_MAX : (int)n, true,
	    applied) : FB_OK;
}
