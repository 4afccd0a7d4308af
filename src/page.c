/*
 * Cursor paging (contract: conventions 5; design 6).  A cursor is
 * base64url(version | tag | last id | MAC), the MAC keyed by a subkey of
 * the master key over the cursor and its whole scope (the list, the
 * tenant, the path and the filters; cursor_scope()), so only cursors this
 * service issued for this list of this tenant with these filters are
 * accepted, on any host (issue 11: one minted for another tenant or
 * filter set is 400).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "csv.h"
#include "req.h"

#define CUR_VERSION	2
#define CUR_TAGLEN	4
#define CUR_MACLEN	16
#define CUR_RAWLEN	(1 + CUR_TAGLEN + 16 + CUR_MACLEN)
#define CURSOR_SCOPE_MAX (REQ_MAX_QUERY * 600)

static void
cursor_key(const unsigned char *mk, unsigned char key[32])
{
	crypto_kdf_derive_from_key(key, 32, 1, "fbcursor", mk);
}

static void
cursor_mac(const unsigned char *mk, const unsigned char *raw, const char *tag,
    unsigned char mac[CUR_MACLEN])
{
	crypto_generichash_state st;
	unsigned char	 key[32];

	cursor_key(mk, key);
	crypto_generichash_init(&st, key, sizeof(key), CUR_MACLEN);
	crypto_generichash_update(&st, raw, CUR_RAWLEN - CUR_MACLEN);
	crypto_generichash_update(&st, (const unsigned char *)tag, strlen(tag));
	crypto_generichash_final(&st, mac, CUR_MACLEN);
	sodium_memzero(key, sizeof(key));
}

void
cursor_encode(const unsigned char *mk, const char *tag, const char *id,
    char *out, size_t outsz)
{
	unsigned char	 raw[CUR_RAWLEN], th[CUR_TAGLEN];

	crypto_generichash(th, sizeof(th), (const unsigned char *)tag,
	    strlen(tag), NULL, 0);
	raw[0] = CUR_VERSION;
	memcpy(raw + 1, th, CUR_TAGLEN);
	if (!uuid_to_bytes(id, raw + 1 + CUR_TAGLEN))
		memset(raw + 1 + CUR_TAGLEN, 0, 16);
	cursor_mac(mk, raw, tag, raw + CUR_RAWLEN - CUR_MACLEN);
	if (outsz > b64url_len(sizeof(raw)))
		b64url_encode(raw, sizeof(raw), out);
	else if (outsz > 0)
		out[0] = '\0';
}

bool
cursor_decode(const unsigned char *mk, const char *tag, const char *cur,
    char id[UUID_STRLEN + 1])
{
	unsigned char	 raw[CUR_RAWLEN + 1], th[CUR_TAGLEN], mac[CUR_MACLEN];

	if (strlen(cur) != b64url_len(CUR_RAWLEN) ||
	    b64url_decode(cur, raw, sizeof(raw)) != CUR_RAWLEN ||
	    raw[0] != CUR_VERSION)
		return false;
	crypto_generichash(th, sizeof(th), (const unsigned char *)tag,
	    strlen(tag), NULL, 0);
	cursor_mac(mk, raw, tag, mac);
	if (sodium_memcmp(mac, raw + CUR_RAWLEN - CUR_MACLEN,
	    CUR_MACLEN) != 0 ||
	    memcmp(th, raw + 1, CUR_TAGLEN) != 0)
		return false;
	uuid_from_bytes(raw + 1 + CUR_TAGLEN, id);
	return true;
}

/*
 * cursor_decode() under either blind index slot's key (pii.h): a cursor
 * signed before a re-key switched the slot in force still reads while
 * its key is in a slot (docs/internals/key-rotation.md).
 */
static bool
cursor_decode_any(const struct bidx_keys *k, const char *tag,
    const char *cur, char id[UUID_STRLEN + 1])
{
	int	 s;

	for (s = 0; s < 2; s++)
		if (k->k[s] != NULL && cursor_decode(k->k[s], tag, cur, id))
			return true;
	return false;
}

/*
 * What a cursor of this request belongs to: the operation, the tenant,
 * the path variables and the value (or absence) of every query parameter
 * of the route but limit and cursor, in the route's order.
 */
static void
cursor_scope(const struct req *r, char *out, size_t outsz)
{
	const struct param_def *p;
	const char	*v;
	size_t		 o, i;

	o = (size_t)snprintf(out, outsz, "%s\n%s", r->route->operation_id,
	    r->auth.tenant_id);
	for (i = 0; i < r->npathvars && o < outsz; i++)
		o += (size_t)snprintf(out + o, outsz - o, "\n%s=%s",
		    r->pathvar_name[i], r->pathvar[i]);
	for (p = r->route->params; p != NULL && p->name != NULL &&
	    o < outsz; p++) {
		if (p->in != IN_QUERY || p->type == PT_LIMIT ||
		    p->type == PT_CURSOR)
			continue;
		v = req_query(r, p->name);
		o += (size_t)snprintf(out + o, outsz - o, "\n%s%c%s", p->name,
		    v != NULL ? '=' : '!', v != NULL ? v : "");
	}
}

int
page_from_req(struct req *r, struct page *pg)
{
	char		 scope[CURSOR_SCOPE_MAX];
	const struct param_def *p;
	const char	*v;

	memset(pg, 0, sizeof(*pg));
	pg->limit = 50;
	for (p = r->route->params; p != NULL && p->name != NULL; p++)
		if (p->type == PT_LIMIT)
			pg->limit = (int)p->def;
	if ((v = req_query(r, "limit")) != NULL)
		pg->limit = (int)strtol(v, NULL, 10);
	if ((v = req_query(r, "cursor")) != NULL) {
		cursor_scope(r, scope, sizeof(scope));
		if (!cursor_decode_any(bidx_cur(r->conf), scope, v,
		    pg->after)) {
			(void)api_error(r, AC_CURSOR_INVALID, "cursor");
			return -1;
		}
		pg->has_after = true;
	}
	return 0;
}

int
page_range_from_req(struct req *r, const char *const *fields, size_t nfields,
    struct date_range *out)
{
	const char	*v = req_query(r, "date_field");
	int64_t		 t;
	size_t		 i;

	memset(out, 0, sizeof(*out));
	for (i = 0; v != NULL && i < nfields; i++)
		if (strcmp(v, fields[i]) == 0)
			out->field = (int)i;
	if ((v = req_query(r, "from")) != NULL && time_parse_iso8601(v, &t)) {
		out->has_from = true;
		out->from = t;
	}
	if ((v = req_query(r, "to")) != NULL && time_parse_iso8601(v, &t)) {
		out->has_to = true;
		out->to = t;
	}
	if (out->has_from && out->has_to && out->from >= out->to) {
		(void)api_error(r, AC_QUERY_INVALID, "to");
		return -1;
	}
	return 0;
}

enum fb_err
page_answer(struct req *r, const struct page *pg, struct dbrows *rows,
    size_t rowsize, size_t id_off, row_gen gen, const struct page_member *extra)
{
	struct jgen	 j;
	char		 cur[128], scope[CURSOR_SCOPE_MAX];
	size_t		 i, n = rows->n > (size_t)pg->limit ?
	    (size_t)pg->limit : rows->n;
	bool		 more = rows->n > (size_t)pg->limit;

	req_gen_begin(r, &j);
	jg_str(&j, "object", "list");
	jg_arr(&j, "data");
	for (i = 0; i < n; i++) {
		jg_obj(&j, NULL);
		gen(&j, (const char *)rows->row + i * rowsize);
		jg_obj_end(&j);
	}
	jg_arr_end(&j);
	for (; extra != NULL && extra->key != NULL; extra++)
		jg_str(&j, extra->key, extra->value);
	/* the cursor is signed with the id of the last row shown */
	if (more) {
		cursor_scope(r, scope, sizeof(scope));
		cursor_encode(bidx_signing_key(bidx_cur(r->conf)), scope,
		    *(const char *const *)
		    (const void *)((const char *)rows->row + (n - 1) * rowsize +
		    id_off), cur, sizeof(cur));
		jg_str(&j, "next_cursor", cur);
	} else
		jg_str(&j, "next_cursor", NULL);
	jg_bool(&j, "has_more", more);
	dbrows_free(rows);
	return req_gen_end(r, &j, 200);
}


/* The export's pages into w; the rows written into *total. */
static enum fb_err
export_rows(struct req *r, struct csvw *w, page_fetch fetch,
    const void *filter, size_t rowsize, size_t id_off,
    void (*row)(struct csvw *, const void *), size_t *total, bool *more)
{
	struct dbrows	 rows;
	char		 after[UUID_STRLEN + 1] = "";
	const char	*last;
	size_t		 i, n;
	enum fb_err	 e;

	*total = 0;
	do {
		if ((e = fetch(r, filter, after[0] != '\0' ? after : NULL,
		    EXPORT_PAGE, &rows)) != FB_OK)
			return e;
		for (i = 0; i < rows.n && *total < EXPORT_MAX_ROWS; i++)
			row(w, (const char *)rows.row + i * rowsize),
			    (*total)++;
		if ((n = rows.n) > 0) {
			last = *(const char *const *)(const void *)
			    ((const char *)rows.row + (n - 1) * rowsize +
			    id_off);
			snprintf(after, sizeof(after), "%s", last);
		}
		dbrows_free(&rows);
		*more = n == EXPORT_PAGE;
	} while (w->err == FB_OK && *more && *total < EXPORT_MAX_ROWS);
	return w->err;
}

enum fb_err
export_answer(struct req *r, const char *name, page_fetch fetch,
    const void *filter, size_t rowsize, size_t id_off,
    void (*head)(struct csvw *), void (*row)(struct csvw *, const void *))
{
	struct csvw	 w;
	char		 cd[128], day[16];
	time_t		 t = time(NULL) + 9 * 3600;
	size_t		 total;
	bool		 more;
	enum fb_err	 e;

	buf_reset(&r->out);
	csvw_begin(&w, &r->out);
	w.err = buf_add(&r->out, "\xef\xbb\xbf", 3);
	head(&w);
	if ((e = export_rows(r, &w, fetch, filter, rowsize, id_off, row,
	    &total, &more)) != FB_OK) {
		buf_reset(&r->out);
		return e;
	}
	strftime(day, sizeof(day), "%Y%m%d", gmtime(&t));
	snprintf(cd, sizeof(cd), "attachment; filename=\"%s-%s.csv\"", name,
	    day);
	if ((e = req_header(r, "Content-Disposition", cd)) == FB_OK &&
	    total == EXPORT_MAX_ROWS && more)
		e = req_header(r, "Formback-Export-Truncated", "true");
	r->out_type = "text/csv; charset=utf-8";
	r->status = 200;
	return e;
}
