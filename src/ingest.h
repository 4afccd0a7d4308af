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

struct db;
struct lead_owner_row;

/*
 * Apply up to `limit` queued events to leads, part after part of the
 * queue (INGEST_PARTS, by visitor), each part oldest first, 100 to a
 * transaction, each with the times it was received; applied events move
 * to tag_events.  One applier at a time works on a part (its row lock of
 * tag_ingest_applier): with `wait` false a part another applier has is
 * passed over, with `wait` true its turn is waited for
 * (innodb_lock_wait_timeout).  Each call starts at another part.  An event that fails is rolled back with
 * its batch, counted, and parked after its third failure (attempts,
 * last_error; logged) so that one bad event cannot stop the queue; when
 * a write the batch's events share fails (their tag_events rows, the new
 * leads and outbox rows held for a multi-row INSERT), the events go again
 * one at a time to find the one at fault.
 * Returns FB_OK with *applied, or the database's error (FB_EGONE when
 * the connection is lost).  Needs conf->master_key to open and re-seal
 * contacts.
 */
enum fb_err	tag_apply(struct db *, const struct conf *, int limit, bool wait,
		    int *applied) FB_WUR;
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
 * Count n pending events (1 .. INGEST_ADD_MAX) against the limits per
 * site and client address and per site and visitor of the hour (issue
 * 11; formback.fcgi(8) "Abuse limits"; the counts in MariaDB, so every
 * worker and host agrees) and file those within them, in one
 * transaction (retried on a deadlock).  Those past a limit are marked
 * for a 429.  Returns the database's error: nothing is filed then.
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

#endif
