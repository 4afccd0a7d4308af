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

/*
 * Apply up to `limit` queued events to leads, oldest first, 100 to a
 * transaction, each with the times it was received; applied events move
 * to tag_events.  Only one applier works at a time (the row lock of
 * tag_ingest_applier): with `wait` false the call returns at once with
 * *applied 0 when another has the turn, with `wait` true it waits for it
 * (innodb_lock_wait_timeout).  An event that fails is rolled back with
 * its batch, counted, and parked after its third failure (attempts,
 * last_error; logged) so that one bad event cannot stop the queue.
 * Returns FB_OK with *applied, or the database's error (FB_EGONE when
 * the connection is lost).  Needs conf->master_key to open and re-seal
 * contacts.
 */
enum fb_err	tag_apply(struct db *, const struct conf *, int limit, bool wait,
		    int *applied) FB_WUR;

/*
 * Whether this process filed an event since the last call (the worker's
 * hint that the queue has work); clears the hint.
 */
bool		tag_collect_filed(void);

#endif
