/* The events of the outbox (events.h). */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "db/store.h"

/* the nil UUID: every id of a test event's data */
#define NIL	"\"00000000-0000-0000-0000-000000000000\""

const struct event_type event_types[] = {
	{ "lead.captured", "LeadCapturedData",
	  "A partly entered contact is captured.",
	  "{\"lead_id\":" NIL ",\"campaign_id\":" NIL ",\"site_id\":" NIL
	  ",\"channels\":[\"sms\",\"email\"]}" },
	{ "lead.abandoned", "LeadAbandonedData",
	  "A lead is judged to have left mid-entry.",
	  "{\"lead_id\":" NIL ",\"campaign_id\":" NIL
	  ",\"abandoned_at\":\"2026-01-01T00:00:00Z\"}" },
	{ "delivery.sent", "DeliveryEventData",
	  "The sending provider accepted an SMS or email.",
	  "{\"delivery_id\":" NIL ",\"lead_id\":" NIL ",\"campaign_id\":" NIL
	  ",\"channel\":\"sms\",\"step\":1,\"status\":\"sent\"}" },
	{ "delivery.failed", "DeliveryEventData",
	  "A sending failure is final.",
	  "{\"delivery_id\":" NIL ",\"lead_id\":" NIL ",\"campaign_id\":" NIL
	  ",\"channel\":\"email\",\"step\":1,\"status\":\"failed\","
	  "\"error_code\":\"test\"}" },
	{ "conversion.detected", "ConversionDetectedData",
	  "A conversion is detected.",
	  "{\"lead_id\":" NIL ",\"campaign_id\":" NIL ",\"site_id\":" NIL
	  ",\"conversion_source\":\"tag\","
	  "\"converted_at\":\"2026-01-01T00:00:00Z\"}" },
	{ "usage.threshold_reached", "UsageThresholdReachedData",
	  "The plan's sending quota reaches 80% and 100%.",
	  "{\"threshold_percent\":80,\"period\":\"2026-01\",\"used\":800,"
	  "\"quota\":1000,\"plan\":\"test\"}" },
	{ NULL, NULL, NULL, NULL }
};

const struct event_type *
event_type_find(const char *name)
{
	const struct event_type	*t;

	for (t = event_types; t->name != NULL; t++)
		if (strcmp(name, t->name) == 0)
			return t;
	return NULL;
}

bool
event_type_known(const char *name)
{
	return event_type_find(name) != NULL;
}

json_object *
event_envelope(const char *id, const char *type, const char *created_at,
    const char *tenant, const char *data)
{
	json_object	*env = json_object_new_object(), *d;

	jadd_str(env, "id", id);
	jadd_str(env, "type", type);
	jadd_time(env, "created_at", created_at);
	jadd_str(env, "tenant_id", tenant);
	d = data != NULL ? json_tokener_parse(data) : NULL;
	if (d != NULL && !json_object_is_type(d, json_type_object)) {
		json_object_put(d);
		d = NULL;
	}
	json_object_object_add(env, "data", d != NULL ? d :
	    json_object_new_object());
	return env;
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
