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
 * Queue the DeliveryEventData of delivery `delivery` (contract: Events:
 * delivery.sent, delivery.failed as `status` is "sent" or "failed") in
 * the outbox, in the caller's transaction.  `step` is the 1-based step
 * number, NULL when the step is gone; `error_code` goes with a failure.
 */
enum fb_err	delivery_event(struct db *, const char *tenant,
		    const char *delivery, const char *lead, const char *campaign,
		    const char *channel, const char *step, const char *status,
		    const char *error_code) FB_WUR;

#endif
