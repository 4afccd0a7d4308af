/*
 * The JSON writers of the rows answers write whole, each generated from
 * its column list (see rowjson.h).
 */
#include "rowjson.h"

ROWJSON(site_json, struct site_row, SITE_COLS, "site")
ROWJSON(member_json, struct member_row, MEMBER_COLS, "member")
ROWJSON(suppression_json, struct suppression_row, SUPPRESSION_COLS,
    "suppression")
ROWJSON(test_recipient_json, struct test_recipient_row,
    TEST_RECIPIENT_COLS, "test_recipient")
ROWJSON(test_send_json, struct test_send_row, TEST_SEND_COLS, "test_send")
ROWJSON(audit_json, struct audit_row, AUDIT_COLS, "audit_entry")
ROWJSON(message_json, struct message_row, MESSAGE_COLS, "message")
ROWJSON(quarantine_json, struct flood_batch_row, FLOOD_BATCH_COLS,
    "quarantine")
ROWJSON(webhook_endpoint_json, struct webhook_endpoint_row,
    WEBHOOK_ENDPOINT_COLS, "webhook_endpoint")
ROWJSON(webhook_delivery_json, struct webhook_delivery_row,
    WEBHOOK_DELIVERY_COLS, "webhook_delivery")

bool
suppression_deletable(const struct suppression_row *s)
{
	return strcmp(s->reason, "opt_out") != 0 &&
	    strcmp(s->reason, "complaint") != 0;
}

void
suppression_out_json(struct jgen *j, const void *row)
{
	suppression_json(j, row);
	jg_bool(j, "deletable", suppression_deletable(row));
}

/* The one writer of a lead (list and detail): masked contacts only. */
void
lead_out_json(struct jgen *j, const void *row)
{
	const struct lead_row *l = row;

	jg_str(j, "id", l->id);
	jg_str(j, "object", "lead");
	jg_obj(j, "site");
	jg_str(j, "id", l->site_id);
	jg_str(j, "name", l->site_name);
	jg_str(j, "domain", l->site_domain);
	jg_obj_end(j);
	jg_obj(j, "campaign");
	jg_str(j, "id", l->campaign_id);
	jg_str(j, "key", l->campaign_key);
	jg_str(j, "name", l->campaign_name);
	jg_obj_end(j);
	jg_str(j, "status", l->status);
	jg_str(j, "consent_state", l->consent_state);
	jg_str(j, "email_masked", l->email_masked);
	jg_str(j, "tel_masked", l->tel_masked);
	jg_str(j, "pii_state", l->pii_state);
	jg_str(j, "tel_kind", l->tel_kind);
	jg_bool(j, "sms_capable", l->sms_capable);
	jg_time(j, "created_at", l->created_at);
	jg_time(j, "captured_at", l->captured_at);
	jg_time(j, "abandoned_at", l->abandoned_at);
	jg_time(j, "converted_at", l->converted_at);
	jg_str(j, "conversion_source", l->conversion_source);
	jg_str(j, "suppress_reason", l->suppress_reason);
}
