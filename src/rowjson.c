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
