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
