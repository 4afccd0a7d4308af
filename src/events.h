/*
 * The events of the outbox (contract: Events; design 6): the data of each
 * event type, built in one place and queued in the caller's transaction
 * for formback-webhooks.
 */
#ifndef FORMBACK_EVENTS_H
#define FORMBACK_EVENTS_H

#include "formback.h"

struct db;

/*
 * The contract's event types (Events), in its order: the name (the
 * envelope's `type` and X-Formback-Event), the openapi.json schema of its
 * `data` (src/openapi-schemas.json), when it is sent, and the data of a
 * test event (every id the nil UUID; issue 40).  An endpoint subscribes
 * to some (api/webhooks.c); openapi.json describes each as a webhook
 * (openapi.c).  Ends with a NULL name.
 */
struct event_type {
	const char	*name;
	const char	*data_schema;
	const char	*summary;
	const char	*sample;	/* JSON object text */
};
extern const struct event_type	event_types[];

/* The row of `name` (exact, case-sensitive), or NULL. */
const struct event_type *event_type_find(const char *name);
/* Whether `name` is one of event_types[]. */
bool		event_type_known(const char *name);

/*
 * The envelope of an event (contract: Events), the bytes every attempt
 * of its records sends: {"id","type","created_at" (a DATETIME as the
 * database writes it, or UTC seconds as time_sql() does),"tenant_id",
 * "data"}, data from the JSON object text `data` (NULL or not an object:
 * {}).  The caller puts it.
 */
json_object	*event_envelope(const char *id, const char *type,
		    const char *created_at, const char *tenant,
		    const char *data);

/*
 * Queue the DeliveryEventData of delivery `delivery` (contract: Events:
 * delivery.sent, delivery.failed as `status` is "sent" or "failed") in
 * the outbox, in the caller's transaction.  `step` is the 1-based step
 * number, NULL when the step is gone; `error_code` goes with a failure.
 */
enum fb_err	delivery_event(struct db *, const char *tenant,
		    const char *delivery, const char *lead,
		    const char *campaign, const char *channel, const char *step,
		    const char *status, const char *error_code) FB_WUR;

#endif
