/* The events of the outbox (events.h). */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "db/store.h"

const struct event_type event_types[] = {
	{ "lead.captured", "LeadCapturedData",
	  "A partly entered contact is captured." },
	{ "lead.abandoned", "LeadAbandonedData",
	  "A lead is judged to have left mid-entry." },
	{ "delivery.sent", "DeliveryEventData",
	  "The sending provider accepted an SMS or email." },
	{ "delivery.failed", "DeliveryEventData",
	  "A sending failure is final." },
	{ "conversion.detected", "ConversionDetectedData",
	  "A conversion is detected." },
	{ "usage.threshold_reached", "UsageThresholdReachedData",
	  "The plan's sending quota reaches 80% and 100%." },
	{ NULL, NULL, NULL }
};

bool
event_type_known(const char *name)
{
	const struct event_type	*t;

	for (t = event_types; t->name != NULL; t++)
		if (strcmp(name, t->name) == 0)
			return true;
	return false;
}

enum fb_err
delivery_event(struct db *db, const char *tenant, const char *delivery,
    const char *lead, const char *campaign, const char *channel,
    const char *step, const char *status, const char *error_code)
{
	json_object	*ev = json_object_new_object();
	bool		 failed = strcmp(status, "failed") == 0;
	enum fb_err	 e;

	jadd_str(ev, "delivery_id", delivery);
	jadd_str(ev, "lead_id", lead);
	jadd_str(ev, "campaign_id", campaign);
	jadd_str(ev, "channel", channel);
	if (step != NULL)
		jadd_int(ev, "step", strtol(step, NULL, 10));
	else
		jadd_str(ev, "step", NULL);
	jadd_str(ev, "status", status);
	if (failed)
		jadd_str(ev, "error_code", error_code);
	e = db_outbox_add(db, tenant, "webhook", failed ? "delivery.failed" :
	    "delivery.sent", json_text(ev));
	json_object_put(ev);
	return e;
}
