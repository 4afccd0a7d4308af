/*
 * Each row's JSON writer (src/rowjson.c) held against its openapi.json
 * component (issue 41): every member it writes is a property of the
 * component, every required property is written (but the derived ones
 * its handler adds), and no sealed (BIN) or no-export column is written.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-c/json.h>

#include "../../src/rowcsv.h"
#include "../../src/rowjson.h"

extern const char openapi_schemas_json[];

/* A row filled with a value of every column's type; the caller frees. */
static void *
row_fill(const struct dbcol *cols, size_t n, size_t size)
{
	char		*row = calloc(1, size);
	size_t		 i;

	cr_assert_not_null(row);
	for (i = 0; i < n; i++) {
		char	*at = row + cols[i].off;

		switch (cols[i].type) {
		case DBT_TEXT:
			/* a string, also as a JSON column's document */
			*(const char **)(void *)at = "\"x\"";
			break;
		case DBT_TIME:
			*(const char **)(void *)at =
			    "2026-11-28 00:00:00.000000";
			break;
		case DBT_INT:
			*(long long *)(void *)at = 1;
			break;
		case DBT_BOOL:
			*(bool *)(void *)at = true;
			break;
		case DBT_BIN:
			((struct dbbin *)(void *)at)->p =
			    (const unsigned char *)"s";
			((struct dbbin *)(void *)at)->n = 1;
			break;
		}
	}
	return row;
}

/* Is key one of the NULL-terminated names? */
static bool
named(const char *const *names, const char *key)
{
	for (; *names != NULL; names++)
		if (strcmp(*names, key) == 0)
			return true;
	return false;
}

static void
holds(void (*writer)(struct jgen *, const void *), const struct dbcol *cols,
    size_t ncols, size_t size, const char *component,
    const char *const *derived)
{
	json_object	*schemas, *c, *props, *req, *got, *v;
	struct buf	 b;
	struct jgen	 j;
	void		*row = row_fill(cols, ncols, size);
	size_t		 i;

	schemas = json_tokener_parse(openapi_schemas_json);
	cr_assert(json_object_object_get_ex(schemas, component, &c),
	    "%s", component);
	cr_assert(json_object_object_get_ex(c, "properties", &props));
	buf_init(&b, 1 << 16);
	jgen_begin(&j, &b);
	jg_obj(&j, NULL);
	writer(&j, row);
	jg_obj_end(&j);
	cr_assert_eq(jgen_end(&j), FB_OK);
	got = json_tokener_parse(b.data);
	cr_assert_not_null(got, "%s", b.data);
	json_object_object_foreach(got, key, val) {
		(void)val;
		cr_expect(json_object_object_get_ex(props, key, &v),
		    "%s writes %s, not in its schema", component, key);
	}
	if (json_object_object_get_ex(c, "required", &req))
		for (i = 0; i < json_object_array_length(req); i++) {
			const char *k = json_object_get_string(
			    json_object_array_get_idx(req, i));

			cr_expect(json_object_object_get_ex(got, k, &v) ||
			    named(derived, k), "%s lacks %s", component, k);
		}
	for (i = 0; i < ncols; i++)
		if (cols[i].type == DBT_BIN)
			cr_expect(!json_object_object_get_ex(got, cols[i].name,
			    &v), "%s writes sealed %s", component,
			    cols[i].name);
	json_object_put(got);
	json_object_put(schemas);
	buf_release(&b);
	free(row);
}

#define HOLDS(writer, ROW, COLS, component, ...) do {			\
	static const struct dbcol cols_[] = { DB_COLUMNS(COLS) };	\
	static const char *const derived_[] = { __VA_ARGS__, NULL };	\
									\
	holds(writer, cols_, sizeof(cols_) / sizeof(cols_[0]),		\
	    sizeof(ROW), component, derived_);				\
} while (0)

Test(rowjson, site_against_SiteOut)
{
#define DB_ROW struct site_row
	HOLDS(site_json, struct site_row, SITE_COLS, "SiteOut", NULL);
#undef DB_ROW
}

Test(rowjson, member_against_MemberOut)
{
#define DB_ROW struct member_row
	HOLDS(member_json, struct member_row, MEMBER_COLS, "MemberOut", NULL);
#undef DB_ROW
}

Test(rowjson, suppression_against_SuppressionOut)
{
#define DB_ROW struct suppression_row
	HOLDS(suppression_json, struct suppression_row, SUPPRESSION_COLS,
	    "SuppressionOut", "deletable");
#undef DB_ROW
}

Test(rowjson, test_recipient_against_TestRecipientOut)
{
#define DB_ROW struct test_recipient_row
	HOLDS(test_recipient_json, struct test_recipient_row,
	    TEST_RECIPIENT_COLS, "TestRecipientOut", "status");
#undef DB_ROW
}

Test(rowjson, test_send_against_TestSendOut)
{
#define DB_ROW struct test_send_row
	HOLDS(test_send_json, struct test_send_row, TEST_SEND_COLS,
	    "TestSendOut", NULL);
#undef DB_ROW
}

Test(rowjson, audit_against_AuditEntryOut)
{
#define DB_ROW struct audit_row
	HOLDS(audit_json, struct audit_row, AUDIT_COLS, "AuditEntryOut", NULL);
#undef DB_ROW
}

Test(rowjson, webhook_endpoint_against_WebhookEndpointOut)
{
#define DB_ROW struct webhook_endpoint_row
	HOLDS(webhook_endpoint_json, struct webhook_endpoint_row,
	    WEBHOOK_ENDPOINT_COLS, "WebhookEndpointOut", NULL);
#undef DB_ROW
}

Test(rowjson, webhook_delivery_against_WebhookDeliveryOut)
{
#define DB_ROW struct webhook_delivery_row
	HOLDS(webhook_delivery_json, struct webhook_delivery_row,
	    WEBHOOK_DELIVERY_COLS, "WebhookDeliveryOut", NULL);
#undef DB_ROW
}

Test(rowjson, message_against_MessageOut)
{
#define DB_ROW struct message_row
	HOLDS(message_json, struct message_row, MESSAGE_COLS, "MessageOut",
	    NULL);
#undef DB_ROW
}

Test(rowjson, quarantine_against_QuarantineOut)
{
#define DB_ROW struct flood_batch_row
	HOLDS(quarantine_json, struct flood_batch_row, FLOOD_BATCH_COLS,
	    "QuarantineOut", NULL);
#undef DB_ROW
}

/* A sealed column is never written, whatever its row (db.h). */
Test(rowjson, sealed_and_no_export_columns_left_out)
{
	static const struct {
		const char	*id;
		struct dbbin	 sealed;
		const char	*secret;
	} row = { "i", { (const unsigned char *)"s", 1 }, "k" };
	struct buf	 b;
	struct jgen	 jg, *j = &jg;

#define T_COLS(F, N) F(id, TEXT, "id") N(sealed, BIN, "s") \
	N(secret, XTEXT, "k")
#define T_RJ(f, t, sql) RJ_##t(f)
	buf_init(&b, 4096);
	jgen_begin(j, &b);
	jg_obj(j, NULL);
	{
		const __typeof__(row) *r = &row;

		T_COLS(T_RJ, T_RJ)
	}
	jg_obj_end(j);
	cr_assert_eq(jgen_end(j), FB_OK);
	cr_assert_str_eq(b.data, "{\"id\":\"i\"}");
	buf_release(&b);
}

/*
 * The CSV writer of the exports (csv.h; issue 43): RFC 4180 quoting,
 * and a cell a spreadsheet would read as a formula made text (OWASP,
 * CSV Injection); numbers and datetimes of ours left as they are.
 */
Test(rowcsv, quoted_and_formulas_neutralised)
{
	static const struct {
		const char *in, *out;
	} cell[] = {
		{ "plain", "plain" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\r\nlines", "\"two\r\nlines\"" },
		{ "=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\"" },
		{ "+81", "\"'+81\"" },
		{ "-1+2", "\"'-1+2\"" },
		{ "@SUM(A1)", "\"'@SUM(A1)\"" },
		{ "\tx", "\"'\tx\"" },
		{ "", "" },
	};
	struct buf	 b;
	struct csvw	 w;
	size_t		 i;

	for (i = 0; i < sizeof(cell) / sizeof(cell[0]); i++) {
		buf_init(&b, 1024);
		csvw_begin(&w, &b);
		csv_cell(&w, cell[i].in);
		cr_assert_eq(w.err, FB_OK);
		cr_assert_str_eq(b.data, cell[i].out, "%s", cell[i].in);
		buf_release(&b);
	}
	buf_init(&b, 1024);
	csvw_begin(&w, &b);
	csv_int(&w, -5);
	csv_time(&w, "2026-11-28 09:00:00.000000");
	csv_cell(&w, NULL);
	csv_plain(&w, "-x");
	csv_end(&w);
	cr_assert_str_eq(b.data, "-5,2026-11-28T09:00:00Z,,-x\r\n");
	buf_release(&b);
}

/* A suppression's record: its columns named, the memo neutralised. */
Test(rowcsv, suppression_record_from_its_columns)
{
	struct suppression_row s = { .id = "01", .kind = "email",
	    .value_masked = "t***@example.jp", .scope = "tenant",
	    .reason = "manual", .memo = "=1+1",
	    .created_at = "2026-11-28 00:00:00" };
	struct buf	 b;
	struct csvw	 w;

	buf_init(&b, 4096);
	csvw_begin(&w, &b);
	suppression_csv_head(&w);
	suppression_csv(&w, &s);
	cr_assert_str_eq(b.data, "id,kind,value_masked,scope,campaign_id,"
	    "reason,memo,expires_at,created_at\r\n"
	    "01,email,t***@example.jp,tenant,,manual,\"'=1+1\",,"
	    "2026-11-28T00:00:00Z\r\n");
	buf_release(&b);
}
