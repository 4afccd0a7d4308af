/*
 * CSV as spreadsheets export it (RFC 4180), for the suppression import
 * (issue 16): text in UTF-8, with or without a byte-order mark, or in
 * Shift_JIS (Windows code page 932, as Japanese Excel saves "CSV"), read
 * into UTF-8 records of fields.
 */
#ifndef FORMBACK_CSV_H
#define FORMBACK_CSV_H

#include "formback.h"

#define CSV_MAX_FIELDS	16	/* fields of a record */
#define CSV_MAX_FIELD	1024	/* bytes of a field, after decoding */

/*
 * The text of `in` (n bytes) as UTF-8: a UTF-8 byte-order mark is
 * dropped; text that is not valid UTF-8 is converted from CP932 with
 * iconv(3).  Into out (its own buffer, released by the caller);
 * *encoding names what was found ("utf-8", "utf-8-bom", "shift_jis").
 * FB_EINVAL when it is neither (a NUL byte, a UTF-16 mark, bytes CP932
 * does not have), FB_ENOMEM when out is full.
 */
enum fb_err	csv_text(const char *in, size_t n, struct buf *out,
		    const char **encoding) FB_WUR;

struct csv {
	const char	*p, *end;
	/* 1-based number of the last record read */
	long		 record;
	char		*field[CSV_MAX_FIELDS];
	size_t		 nfields;
	char		 store[CSV_MAX_FIELDS * (CSV_MAX_FIELD + 1)];
};

/* Start reading the UTF-8 text s (n bytes), borrowed. */
void		csv_init(struct csv *, const char *s, size_t n);
/*
 * The next record into c->field[0..nfields-1] (NUL-terminated, valid as
 * long as c): fields are separated by ',', records by CRLF or LF; a
 * field in double quotes may hold commas, line breaks and "" for a
 * quote (RFC 4180 section 2).  Returns 1 for a record, 0 at the end,
 * -1 for a broken file: a quote left open, a quote inside an unquoted
 * field or text after a closing quote, more than CSV_MAX_FIELDS fields
 * or a field longer than CSV_MAX_FIELD bytes (c->record names it).
 * A last line without its line break is a record; an empty line is a
 * record of one empty field.
 */
int		csv_next(struct csv *);

/*
 * Writing CSV (RFC 4180) for the exports (issue 43): fields separated by
 * ',', records ended by CRLF, a field in double quotes when it holds a
 * comma, a quote, CR or LF, its quotes doubled.  A text cell that a
 * spreadsheet would read as a formula -- one beginning with '=', '+',
 * '-', '@', a tab or a CR -- is written with a "'" before it (OWASP, CSV
 * Injection), so a memo of "=HYPERLINK(...)" stays text.  The first
 * error (FB_ENOMEM: the buffer's cap) sticks; csvw.err holds it.
 */
struct csvw {
	struct buf	*out;
	enum fb_err	 err;
	bool		 first;		/* no field yet in this record */
};
void	csvw_begin(struct csvw *, struct buf *out);
/* A text cell from anywhere (NULL: empty), neutralised as above. */
void	csv_cell(struct csvw *, const char *v);
/* A cell of ours, a number or a name (NULL: empty): never neutralised. */
void	csv_plain(struct csvw *, const char *v);
/* A number. */
void	csv_int(struct csvw *, long long v);
/* A DATETIME, written as time_out() writes it. */
void	csv_time(struct csvw *, const char *v);
/* End the record. */
void	csv_end(struct csvw *);

#endif
