/*
 * A flood quarantines itself, not the shop (issue 40; migration 0034;
 * formback.fcgi(8) "Abuse limits").  The leads of a source that passed a
 * limit in an hour -- a client address or its network past the
 * collector's capture limits (tag/collect.c), a visitor whose lead took
 * tag_visitor_captures contacts (tag/apply.c) -- and a site's new leads
 * of an hour past its ceiling are put in a quarantine batch: not judged,
 * nothing sent (formback-abandon, formback-deliver), until the batch is
 * released or discarded.  The site's other leads go on as ever.
 *
 * No lead of a source slips past its batch: an applier's batch first
 * adds its captures to their sources' flood_sources rows, which stay
 * locked until it commits, and reads there whether a source has a batch;
 * a trip points the row at its batch under the same lock before it puts
 * the source's leads of the hour in, so a lead is either committed
 * before (and put in by the trip) or applied after (and sees the batch).
 * Both take the source's row before any lead's, so they queue on it
 * rather than deadlock.
 *
 * site_lead_hours counts the leads of a site's hour that are not in a
 * batch: what a trip puts in is taken off it, so a flood from one
 * address does not push the site's real visitors past the ceiling, and
 * the baseline of the weeks after is not the flood's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formback.h"
#include "../ingest.h"
#include "../pii.h"
#include "../db/store.h"

/* The owners and admins mailed, and the audit row, of a new batch. */
static enum fb_err
announce(struct db *db, const struct flood_trip *t, const char *id)
{
	json_object	*o = json_object_new_object();
	enum fb_err	 e;

	jadd_str(o, "quarantine_id", id);
	jadd_str(o, "site_id", t->s.site);
	jadd_str(o, "domain", t->domain);
	jadd_str(o, "kind", t->s.kind);
	jadd_str(o, "source", t->shown);
	jadd_time(o, "hour", t->s.hour);
	jadd_int(o, "threshold", t->threshold);
	jadd_int(o, "count", t->count);
	logx(LOG_WARN, "site %s: %s %s reached %lld (at %lld) in the hour of "
	    "%s: its leads are quarantined (batch %s)", t->s.site, t->s.kind,
	    t->shown != NULL ? t->shown : "-", t->count, t->threshold,
	    t->s.hour, id);
	if ((e = db_opmail_add(db, t->s.tenant, "flood_quarantined",
	    o)) == FB_OK)
		e = db_audit_add(db, t->s.tenant, "system", NULL, NULL,
		    "flood.quarantined", "quarantine", id, json_text(o));
	json_object_put(o);
	return e;
}

/*
 * Put source s's unfinished leads of the hour that are in no batch in
 * batch `id`, when it is still quarantined (*open; its row share-locked
 * to the commit): *put how many.  Those of them counted in their site's
 * hour already -- all but the `own` the caller made and has not counted
 * -- are taken off it.
 */
static enum fb_err
flood_put_source(struct db *db, const struct flood_src *s, const char *id,
    long long own, unsigned long long *put, bool *open)
{
	long long	 left;
	enum fb_err	 e;

	*put = 0;
	if ((e = db_flood_batch_open(db, id, open)) != FB_OK || !*open ||
	    (e = db_flood_source_leads(db, s, id, put)) != FB_OK || *put == 0)
		return e;
	if ((e = db_flood_batch_count(db, id, (long long)*put)) != FB_OK)
		return e;
	/* those counted in their hour already are not any more */
	left = (long long)*put - own;
	return left > 0 ? db_site_leads_add(db, s->site, s->hour, -left,
	    &left) : FB_OK;
}

enum fb_err
flood_trip(struct db *db, const struct flood_trip *t, long long own,
    char id[UUID_STRLEN + 1], bool *open)
{
	char			 nid[UUID_STRLEN + 1];
	unsigned long long	 put;
	bool			 made;
	enum fb_err		 e;

	uuid_v7(nid);
	*open = false;
	if ((e = db_flood_batch_make(db, &t->s, nid, t->shown, t->threshold,
	    &made, id)) != FB_OK)
		return e;
	/* a batch decided already: the decision holds for the hour */
	if (!made)
		return db_flood_batch_open(db, id, open);
	if ((e = announce(db, t, id)) != FB_OK)
		return e;
	if (strcmp(t->s.kind, "site") == 0)
		return db_flood_batch_open(db, id, open);
	if ((e = db_flood_source_mark(db, &t->s, id)) != FB_OK)
		return e;
	return flood_put_source(db, &t->s, id, own, &put, open);
}

/* A source of a captured lead of the batch: kind k of lead l. */
static bool
lead_source(const struct flood_lead *l, int k, struct flood_src *s)
{
	static const char *const kinds[] = { "address", "network", "visitor" };

	*s = (struct flood_src){ l->tenant, l->site, l->hour, kinds[k], NULL,
	    0 };
	switch (k) {
	case 0:
		s->src = l->has_addr ? l->addr : NULL;
		s->srclen = PII_BIDXBYTES;
		break;
	case 1:
		s->src = l->has_net ? l->net : NULL;
		s->srclen = PII_BIDXBYTES;
		break;
	default:
		s->src = (const unsigned char *)l->visitor;
		s->srclen = strlen(l->visitor);
		break;
	}
	return s->src != NULL;
}

static int
src_cmp(const void *a, const void *b)
{
	const struct flood_src *x = &((const struct flood_source_add *)a)->s;
	const struct flood_src *y = &((const struct flood_source_add *)b)->s;
	int		 c;

	if ((c = strcmp(x->site, y->site)) != 0 ||
	    (c = strcmp(x->hour, y->hour)) != 0 ||
	    (c = strcmp(x->kind, y->kind)) != 0)
		return c;
	if (x->srclen != y->srclen)
		return x->srclen < y->srclen ? -1 : 1;
	return memcmp(x->src, y->src, x->srclen);
}

static bool
src_eq(const struct flood_src *x, const struct flood_src *y)
{
	return strcmp(x->site, y->site) == 0 && strcmp(x->hour, y->hour) == 0 &&
	    strcmp(x->kind, y->kind) == 0 && x->srclen == y->srclen &&
	    memcmp(x->src, y->src, x->srclen) == 0;
}

/* How many of the batch's leads l[0 .. n) are new, in no batch, of source s. */
static long long
own_of(const struct flood_lead *l, size_t n, const struct flood_src *s)
{
	struct flood_src	 ls;
	long long		 own = 0;
	size_t			 i;
	int			 k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 3; k++)
			if (l[i].first && !l[i].quarantined &&
			    lead_source(&l[i], k, &ls) && src_eq(&ls, s))
				own++;
	return own;
}

/* The batch's leads of source s are in a batch now. */
static void
mark(struct flood_lead *l, size_t n, const struct flood_src *s)
{
	struct flood_src	 ls;
	size_t			 i;
	int			 k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 3; k++)
			if (lead_source(&l[i], k, &ls) && src_eq(&ls, s))
				l[i].quarantined = true;
}

/* The entry of source s in lock k, or NULL. */
static struct flood_source_add *
locked(struct flood_lock *k, const struct flood_src *s)
{
	size_t	 i;

	for (i = 0; i < k->n; i++)
		if (src_eq(&k->a[i].s, s))
			return &k->a[i];
	return NULL;
}

enum fb_err
flood_trip_batch(struct db *db, const struct flood_trip *t,
    struct flood_lock *k, struct flood_lead *l, size_t n, const char *also)
{
	struct flood_source_add	*a;
	char			 id[UUID_STRLEN + 1];
	unsigned long long	 put;
	bool			 open;
	enum fb_err		 e;

	if ((e = flood_trip(db, t, own_of(l, n, &t->s), id, &open)) != FB_OK ||
	    !open)
		return e;
	mark(l, n, &t->s);
	/* the batch's later leads of the source go in too */
	if ((a = locked(k, &t->s)) != NULL && a->quarantine_id[0] == '\0')
		snprintf(a->quarantine_id, sizeof(a->quarantine_id), "%s", id);
	if (also == NULL ||
	    (e = db_flood_leads_put(db, t->s.tenant, id, &also, 1,
	    &put)) != FB_OK || put == 0)
		return e;
	return db_flood_batch_count(db, id, (long long)put);
}

void
flood_lock_free(struct flood_lock *k)
{
	free(k->a);
	free(k->hours);
	memset(k, 0, sizeof(*k));
}

/* The sources of queued event q into a[0 ..), their hour into hour. */
static size_t
event_sources(const struct ingest_row *q, char hour[20],
    struct flood_source_add *a)
{
	size_t	 n = 0;

	if (strcmp(q->event_type, "capture") != 0 ||
	    (q->tel_sealed.p == NULL && q->email_sealed.p == NULL))
		return 0;
	snprintf(hour, 20, "%.13s:00:00", q->received_at);
	if (q->src_addr.n == PII_BIDXBYTES)
		a[n++].s = (struct flood_src){ q->tenant_id, q->site_id, hour,
		    "address", q->src_addr.p, PII_BIDXBYTES };
	if (q->src_net.n == PII_BIDXBYTES)
		a[n++].s = (struct flood_src){ q->tenant_id, q->site_id, hour,
		    "network", q->src_net.p, PII_BIDXBYTES };
	a[n++].s = (struct flood_src){ q->tenant_id, q->site_id, hour,
	    "visitor", (const unsigned char *)q->visitor_id,
	    strlen(q->visitor_id) };
	return n;
}

enum fb_err
flood_batch_begin(struct db *db, const struct ingest_row *q, size_t n,
    struct flood_lock *k)
{
	struct flood_source_add	*a;
	size_t			 i, j, na = 0;
	enum fb_err		 e = FB_OK;

	memset(k, 0, sizeof(*k));
	if (n == 0)
		return FB_OK;
	k->a = a = calloc(3 * n, sizeof(*a));
	k->hours = calloc(n, sizeof(*k->hours));
	if (a == NULL || k->hours == NULL)
		return FB_ENOMEM;
	for (i = 0; i < n; i++)
		na += event_sources(&q[i], k->hours[i], a + na);
	qsort(a, na, sizeof(*a), src_cmp);
	/* each source once, with its count of captures */
	for (i = j = 0; i < na; i++) {
		if (j > 0 && src_eq(&a[j - 1].s, &a[i].s)) {
			a[j - 1].captures++;
			continue;
		}
		a[j] = a[i];
		a[j++].captures = 1;
	}
	k->n = j;
	for (i = 0; i < k->n && e == FB_OK; i += FLOOD_SOURCES_MAX)
		e = db_flood_sources_add(db, a + i,
		    k->n - i < FLOOD_SOURCES_MAX ?
		    k->n - i : FLOOD_SOURCES_MAX);
	return e;
}

/* The batch's leads of sources that point at a batch, put in it. */
static enum fb_err
sources_put(struct db *db, const struct flood_lock *k, struct flood_lead *l,
    size_t n)
{
	unsigned long long	 put;
	size_t			 i;
	bool			 open;
	enum fb_err		 e = FB_OK;

	for (i = 0; i < k->n && e == FB_OK; i++) {
		if (k->a[i].quarantine_id[0] == '\0' ||
		    (e = flood_put_source(db, &k->a[i].s, k->a[i].quarantine_id,
		    own_of(l, n, &k->a[i].s), &put, &open)) != FB_OK || !open)
			continue;
		mark(l, n, &k->a[i].s);
	}
	return e;
}

/*
 * Leads of the batch past their site's ceiling, k of them, the last of
 * group g: put in the site's batch of the hour.
 */
static enum fb_err
site_excess(struct db *db, struct flood_lead *l, const size_t *g, size_t ng,
    long long k, long long ceiling, long long leads)
{
	struct flood_trip	 t;
	const char		*ids[FLOOD_LEADS_MAX];
	char			 id[UUID_STRLEN + 1];
	unsigned long long	 put, all = 0;
	size_t			 i, m;
	bool			 open;
	enum fb_err		 e;

	memset(&t, 0, sizeof(t));
	t.s = (struct flood_src){ l[g[0]].tenant, l[g[0]].site, l[g[0]].hour,
	    "site", (const unsigned char *)"", 0 };
	t.domain = l[g[0]].domain;
	t.threshold = ceiling;
	t.count = leads;
	if ((e = flood_trip(db, &t, 0, id, &open)) != FB_OK || !open)
		return e;
	for (i = ng - (size_t)k; i < ng; i += m) {
		for (m = 0; i + m < ng && m < FLOOD_LEADS_MAX; m++) {
			ids[m] = l[g[i + m]].id;
			l[g[i + m]].quarantined = true;
		}
		if ((e = db_flood_leads_put(db, l[g[0]].tenant, id, ids, m,
		    &put)) != FB_OK)
			return e;
		all += put;
	}
	if (all == 0)
		return FB_OK;
	if ((e = db_flood_batch_count(db, id, (long long)all)) != FB_OK)
		return e;
	return db_site_leads_add(db, t.s.site, t.s.hour, -(long long)all,
	    &leads);
}

/*
 * The batch's new leads of one site and hour (group g of ng, in their
 * order), counted in the hour (a short row lock, held to the commit):
 * past the site's ceiling -- the larger of site_new_leads_floor and
 * site_new_leads_factor times its busiest hour of the week before --
 * those past it are quarantined.
 */
static enum fb_err
site_count(struct db *db, const struct conf *c, struct flood_lead *l,
    const size_t *g, size_t ng)
{
	long long	 leads, busiest, ceiling, before, k;
	enum fb_err	 e;

	if ((e = db_site_leads_add(db, l[g[0]].site, l[g[0]].hour,
	    (long long)ng, &leads)) != FB_OK)
		return e;
	/* under the floor, the busiest hour need not be read */
	if (leads <= c->site_new_leads_floor)
		return FB_OK;
	if ((e = db_site_leads_busiest(db, l[g[0]].site, l[g[0]].hour,
	    &busiest)) != FB_OK)
		return e;
	ceiling = (long long)c->site_new_leads_factor * busiest;
	if (ceiling < c->site_new_leads_floor)
		ceiling = c->site_new_leads_floor;
	if (leads <= ceiling)
		return FB_OK;
	before = leads - (long long)ng;
	k = leads - (before > ceiling ? before : ceiling);
	return site_excess(db, l, g, ng, k, ceiling, leads);
}

enum fb_err
flood_batch_end(struct db *db, const struct conf *c, const struct flood_lock *k,
    struct flood_lead *l, size_t n)
{
	size_t		*g, i, j, ng;
	bool		*done;
	enum fb_err	 e;

	if (n == 0)
		return FB_OK;
	if ((e = sources_put(db, k, l, n)) != FB_OK)
		return e;
	g = calloc(n, sizeof(*g));
	done = calloc(n, sizeof(*done));
	if (g == NULL || done == NULL)
		e = FB_ENOMEM;
	/* a site and hour at a time: the new leads not in a batch */
	for (i = 0; i < n && e == FB_OK; i++) {
		if (done[i] || !l[i].first || l[i].quarantined)
			continue;
		for (j = i, ng = 0; j < n; j++)
			if (!done[j] && l[j].first && !l[j].quarantined &&
			    strcmp(l[j].site, l[i].site) == 0 &&
			    strcmp(l[j].hour, l[i].hour) == 0) {
				done[j] = true;
				g[ng++] = j;
			}
		e = site_count(db, c, l, g, ng);
	}
	free(g);
	free(done);
	return e;
}
