/*
 * Each row's CSV from its column list, as ROWJSON (rowjson.h) writes its
 * JSON (issue 43, the exports): ROWCSV(name, ROW, COLS) defines
 *
 *   void name_head(struct csvw *w);		the header record
 *   void name(struct csvw *w, const void *row);	one record
 *
 * a field per column of COLS (db/store.h), named as the column is, in
 * the list's order: TEXT through csv_cell() (a formula neutralised),
 * TIME as the contract writes a datetime, INT and NINT as numbers, BOOL
 * true or false, JSON as its text.  X types and BIN are never written,
 * as in the JSON answers: a contact leaves masked or not at all.
 */
#ifndef FORMBACK_ROWCSV_H
#define FORMBACK_ROWCSV_H

#include "csv.h"
#include "db/store.h"

#define RC_TEXT(f)	csv_cell(w, r->f);
#define RC_TIME(f)	csv_time(w, r->f);
#define RC_INT(f)	csv_int(w, r->f);
#define RC_BOOL(f)	csv_plain(w, r->f ? "true" : "false");
#define RC_NINT(f)	csv_plain(w, r->f);
#define RC_JSON(f)	csv_cell(w, r->f);
#define RC_BIN(f)
#define RC_XTEXT(f)
#define RC_XTIME(f)
#define RC_XINT(f)
#define RC_XBOOL(f)
#define RC_F_(f, t, sql)	RC_##t(f)
#define RH_TEXT(f)	csv_plain(w, #f);
#define RH_TIME(f)	RH_TEXT(f)
#define RH_INT(f)	RH_TEXT(f)
#define RH_BOOL(f)	RH_TEXT(f)
#define RH_NINT(f)	RH_TEXT(f)
#define RH_JSON(f)	RH_TEXT(f)
#define RH_BIN(f)
#define RH_XTEXT(f)
#define RH_XTIME(f)
#define RH_XINT(f)
#define RH_XBOOL(f)
#define RH_F_(f, t, sql)	RH_##t(f)
#define ROWCSV(name, ROW, COLS)					\
void								\
name##_head(struct csvw *w)					\
{								\
	COLS(RH_F_, RH_F_)					\
	csv_end(w);						\
}								\
								\
void								\
name(struct csvw *w, const void *row)				\
{								\
	const ROW	*r = row;				\
								\
	COLS(RC_F_, RC_F_)					\
	csv_end(w);						\
}

/* The writers (rowcsv.c): the row type each takes. */
void	lead_csv_head(struct csvw *);
void	lead_csv(struct csvw *, const void *);		/* lead_row */
void	delivery_csv_head(struct csvw *);
void	delivery_csv(struct csvw *, const void *);	/* delivery_row */
void	suppression_csv_head(struct csvw *);
void	suppression_csv(struct csvw *, const void *);	/* suppression_row */

#endif
