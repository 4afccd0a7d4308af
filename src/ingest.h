/*
 * The collector's intake queue (design 3; db/migrations/0008_ingest.sql).
 * POST /tag/v1/events files each event with one statement and answers;
 * the lead life cycle is applied from the queue by tag_apply(), called by
 * formback.fcgi workers that have no request waiting and by
 * formback-abandon before it judges.
 */
#ifndef FORMBACK_INGEST_H
#define FORMBACK_INGEST_H

#include <stdbool.h>

#include "formback.h"
#include "db/store.h"

struct db;
struct lead_owner_row;

/*
 * Apply up to `limit` queued events to leads, part after part of the
 * queue (INGEST_PARTS, by visitor), each part oldest first, 100 to a
 * transaction, each with the times it was received; applied events move
 * to tag_events.  One applier at a time works on a part (its row lock of
 * tag_ingest_applier): with `wait` false a part another applier has is
 * passed over, with `wait` true its turn is waited for
 * (innodb_lock_wait_timeout).  Each call starts at another part.  An event that
 * fails is rolled back with
 * its batch, counted, and parked after its third failure (attempts,
 * last_error; logged) so that one bad event cannot stop the queue; when
 * a write the batch's events share fails (their tag_events rows, the new
 * leads and outbox rows held for a multi-row INSERT), the events go again
 * one at a time to find the one at fault.
 * Returns FB_OK with *applied, or the database's error (FB_EGONE when
 * the connection is lost).  Needs conf->master_key to open and re-seal
 * contacts.
 */
enum fb_err	tag_apply(struct db *, const struct conf *, int limit,
    bool wait, int *applied) FB_WUR;
/*
 * Convert lead `l` from `source` at `at` (SQL DATETIME, UTC; contract:
 * Lead conversion_source, Events conversion.detected), in the caller's
 * transaction: unless it was converted or suppressed already (*changed
 * false), its scheduled deliveries are cancelled (cancel_reason
 * converted) and conversion.detected goes to the outbox.
 */
enum fb_err	lead_convert(struct db *, const struct lead_owner_row *l,
		    const char *source, const char *at, bool *changed) FB_WUR;
/*
 * tag_apply(), waiting, for the events queued (not parked) when it is
 * called: the cron jobs apply the queue as it stood when their pass
 * began, so that every conversion acknowledged before it is seen (issue
 * 11), without chasing what arrives meanwhile.
 */
enum fb_err	tag_apply_backlog(struct db *, const struct conf *,
		    int *applied) FB_WUR;
/*
 * tag_apply() for one part of the queue (0 .. INGEST_PARTS - 1), oldest
 * first: formback-deliver applies the part that holds a conversion it
 * must see before a send (issue 11).
 */
enum fb_err	tag_apply_part(struct db *, const struct conf *, unsigned part,
		    int limit, bool wait, int *applied) FB_WUR;

/*
 * The collector in steps, so that a worker files the events that arrived
 * together with one INSERT and one commit (formback.fcgi's main loop,
 * for the route that dispatch_begin() gives over, DISPATCH_COLLECT):
 * tag_collect_begin() checks a request and makes its event's row, or
 * answers it (an error) and returns NULL;
 * tag_collect_file() counts the batch against the abuse limits and files
 * the events within them; tag_collect_end() then writes each request's
 * answer (204, 429 for an event past a limit, or 503/500 with the
 * filing's error) and frees the pending event.
 */
struct req;
struct tag_pending;
struct tag_pending	*tag_collect_begin(struct req *);
/*
 * Count n pending events (1 .. INGEST_ADD_MAX) against the limits of the
 * hour per site and client address, and for captures with a contact per
 * site and the address's network too (issues 11, 40; formback.fcgi(8)
 * "Abuse limits"; the counts in MariaDB, so every worker and host
 * agrees: events pooled once a second, captures one by one) and file
 * those within them: captures in one transaction with their counts and
 * the trips of the sources that reach a limit (flood_trip(); run again
 * on a deadlock), other events with one autocommitted INSERT.  Those
 * past a limit are marked for a 429.  Returns the database's error:
 * nothing is filed then.
 */
enum fb_err		 tag_collect_file(struct db *, const struct conf *,
			    struct tag_pending **, size_t n) FB_WUR;
/*
 * OPTIONS /tag/v1/events, the CORS preflight, a route of its own: 204,
 * with the CORS headers for an origin on a site's domain only.
 */
enum fb_err		 tag_preflight(struct req *);
void			 tag_collect_end(struct req *, struct tag_pending *,
			    enum fb_err);

/*
 * tag/quarantine.c: a flood quarantines itself, not the shop (issue 40;
 * formback.fcgi(8) "Abuse limits").
 *
 * A source of an hour's leads that passed a limit: s (db/store.h), what
 * the owner is shown of it (`shown`: the address, network or visitor;
 * NULL for the site), the limit or ceiling it passed (`threshold`) and
 * the count that passed it, and its site's domain (the mail).
 */
struct flood_trip {
	struct flood_src	 s;
	const char		*shown, *domain;
	long long		 threshold, count;
};
/*
 * Trip t, in the caller's transaction: its quarantine batch made unless
 * there is one -- then the tenant's owners and admins are mailed
 * (operator email flood_quarantined) and an audit row written
 * (flood.quarantined, actor system), once a batch -- and, for a source
 * (kind address, network or visitor), its flood_sources row pointed at
 * the batch and its unfinished leads of the hour put in it.  `own`: how
 * many of those leads the caller's transaction made and has not counted
 * in site_lead_hours yet.  *id the batch, *open whether it is still
 * quarantined (a batch released or discarded already takes no more
 * leads: its decision holds for the rest of the hour).
 */
enum fb_err	flood_trip(struct db *, const struct flood_trip *t,
		    long long own, char id[UUID_STRLEN + 1], bool *open) FB_WUR;
/* A lead an applier's batch captured (tag/apply.c). */
struct flood_lead {
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 site[UUID_STRLEN + 1], visitor[UUID_STRLEN + 1];
	char		 hour[20];	/* of the capture, UTC */
	char		 domain[256];	/* of its site */
	unsigned char	 addr[32], net[32];	/* keyed, PII_BIDXBYTES */
	bool		 has_addr, has_net;
	bool		 first;		/* its first capture: a new lead */
	bool		 quarantined;	/* put in a batch by the batch's end */
};
/*
 * The sources (address, network, visitor) of the captures with a contact
 * of an applier's batch of queued events q[0 .. n) (borrowed, kept until
 * flood_lock_free()), their captures added to their rows of
 * flood_sources, which the batch's transaction holds from here -- before
 * any lead's row -- to its end; each with the batch it points at.
 */
struct flood_lock {
	struct flood_source_add	*a;	/* sorted, each source once */
	size_t			 n;
	char			(*hours)[20];	/* a[i].s.hour's */
};
struct ingest_row;
enum fb_err	flood_batch_begin(struct db *, const struct ingest_row *q,
		    size_t n, struct flood_lock *) FB_WUR;
void		flood_lock_free(struct flood_lock *);
/*
 * flood_trip() of a source of the applier's batch (locked in k; its
 * captured leads l[0 .. n), written): its own leads found among them,
 * and marked quarantined when the batch takes them, as are its later
 * ones (k points at the batch); lead `also` (NULL: none), the source's
 * whatever the hour it was first captured in, put in too.
 */
enum fb_err	flood_trip_batch(struct db *, const struct flood_trip *t,
		    struct flood_lock *k, struct flood_lead *l, size_t n,
		    const char *also) FB_WUR;
/*
 * The end of an applier's batch (its sources locked in k, its captured
 * leads l[0 .. n) written, in its transaction): the leads of a source
 * that points at a batch put in it; then the new leads not in a batch
 * counted in their site's hour (site_lead_hours), and those past the
 * site's ceiling -- the larger of site_new_leads_floor and
 * site_new_leads_factor times its busiest hour of the 7 days before --
 * put in the site's batch of the hour (flood_trip(), kind site).
 */
enum fb_err	flood_batch_end(struct db *, const struct conf *,
		    const struct flood_lock *k, struct flood_lead *l,
		    size_t n) FB_WUR;

#endif
