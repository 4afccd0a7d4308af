/*
 * Each row's JSON from its column list (issue 41; openradtool's
 * generated JSON writers): ROWJSON(name, ROW, COLS, object) defines
 *
 *   void name(struct jgen *j, const void *row);
 *
 * which writes every column of COLS (store.h) of the ROW at `row` as a
 * member of the object already open in j, under the column's name, in
 * the list's order, typed (TEXT a string, TIME a datetime, INT a
 * number, BOOL true or false, NINT a number or null, JSON as it is
 * stored), with "object": `object` after the first
 * (the id), as every resource of the contract has it (contract:
 * Conventions).  X types and BIN are not written (db.h).  A handler
 * writes a resource's derived members after it.  The writers are in
 * rowjson.c, one per row type that an answer writes whole, each held
 * against its openapi.json component by tests/unit/test_rowjson.c.
 */
#ifndef FORMBACK_ROWJSON_H
#define FORMBACK_ROWJSON_H

#include <stdlib.h>

#include "formback.h"
#include "db/store.h"

#define RJ_TEXT(f)	jg_str(j, #f, r->f);
#define RJ_TIME(f)	jg_time(j, #f, r->f);
#define RJ_INT(f)	jg_int(j, #f, r->f);
#define RJ_BOOL(f)	jg_bool(j, #f, r->f);
#define RJ_JSON(f)	jg_raw(j, #f, r->f);
#define RJ_NINT(f)	if (r->f != NULL)				\
				jg_int(j, #f, strtoll(r->f, NULL, 10));	\
			else						\
				jg_str(j, #f, NULL);
#define RJ_BIN(f)
#define RJ_XTEXT(f)
#define RJ_XTIME(f)
#define RJ_XINT(f)
#define RJ_XBOOL(f)
#define RJ_F_(f, t, sql)	RJ_##t(f) jg_str(j, "object", object_);
#define RJ_N_(f, t, sql)	RJ_##t(f)
#define ROWJSON(name, ROW, COLS, object)			\
void								\
name(struct jgen *j, const void *row)				\
{								\
	const ROW	*r = row;				\
	const char	*object_ = (object);			\
								\
	COLS(RJ_F_, RJ_N_)					\
}

/* The writers (rowjson.c): the row type each takes, its "object". */
void	site_json(struct jgen *, const void *);	/* site_row, "site" */
void	member_json(struct jgen *, const void *); /* member_row, "member" */
void	suppression_json(struct jgen *, const void *);
/*
 * SuppressionOut: a suppression's columns (masked value only) and
 * `deletable`, false for opt-outs and complaints, the recipient's word
 * (contract: Suppression).
 */
void	suppression_out_json(struct jgen *, const void *);
/* LeadOut: a lead_row's fields, masked contacts only (contract: Lead). */
void	lead_out_json(struct jgen *, const void *);
bool	suppression_deletable(const struct suppression_row *);
				/* suppression_row, "suppression" */
void	test_recipient_json(struct jgen *, const void *);
				/* test_recipient_row, "test_recipient" */
void	test_send_json(struct jgen *, const void *);
				/* test_send_row, "test_send" */
void	audit_json(struct jgen *, const void *); /* audit_row, "audit_entry" */
void	message_json(struct jgen *, const void *); /* message_row, "message" */
void	quarantine_json(struct jgen *, const void *);
				/* flood_batch_row, "quarantine" */
void	webhook_endpoint_json(struct jgen *, const void *);
				/* webhook_endpoint_row, "webhook_endpoint" */
void	webhook_delivery_json(struct jgen *, const void *);
				/* webhook_delivery_row, "webhook_delivery" */

#endif
