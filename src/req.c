/* The request: query parsing, headers, and success and error responses. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "req.h"
#include "url.h"

#define OUT_MAX		(64u << 20)
#define RETRY_AFTER_UNAVAILABLE	"5"	/* seconds, on a 503 */

void
req_init(struct req *r, struct db *db, const struct conf *c)
{
	memset(r, 0, sizeof(*r));
	r->db = db;
	r->conf = c;
	r->content_length = -1;
	buf_init(&r->body, (size_t)c->max_body_bytes);
	buf_init(&r->out, OUT_MAX);
	uuid_v7(r->request_id);
}

void
req_release(struct req *r)
{
	size_t	 i;

	for (i = 0; i < r->nq; i++) {
		free(r->q[i].name);
		free(r->q[i].value);
	}
	for (i = 0; i < r->npathvars; i++)
		free(r->pathvar[i]);
	for (i = 0; i < r->nhdr; i++) {
		free(r->hdr_name[i]);
		free(r->hdr_value[i]);
	}
	free(r->path);
	free(r->query);
	if (r->json != NULL)
		json_object_put(r->json);
	buf_release(&r->body);
	buf_release(&r->out);
	free(r->idem_body);
	memset(r, 0, sizeof(*r));
}

enum fb_err
req_keep_for_replay(struct req *r)
{
	free(r->idem_body);
	r->idem_body = strdup(r->out.data);
	return r->idem_body != NULL ? FB_OK : FB_ENOMEM;
}

/* A part of the query, percent-decoded strictly into a new string, or NULL. */
static char *
query_part(const char *s, size_t n)
{
	char	*o;

	if ((o = malloc(n + 1)) != NULL &&
	    !pct_decode(s, n, PCT_PLUS | PCT_STRICT, o, n + 1)) {
		free(o);
		o = NULL;
	}
	return o;
}

enum fb_err
req_parse_query(struct req *r, const char *query, char *bad, size_t badsz)
{
	struct query_pair q;
	const char	*p;

	bad[0] = '\0';
	if (query == NULL || *query == '\0')
		return FB_OK;
	if ((r->query = strdup(query)) == NULL)
		return FB_ENOMEM;
	for (p = query; query_next(&p, &q); ) {
		if (r->nq == REQ_MAX_QUERY)
			return FB_EINVAL;
		r->q[r->nq].name = query_part(q.name, q.name_len);
		r->q[r->nq].value = query_part(q.value, q.value_len);
		r->nq++;
		if (r->q[r->nq - 1].name == NULL ||
		    r->q[r->nq - 1].value == NULL) {
			snprintf(bad, badsz, "%.*s", (int)q.name_len, q.name);
			return FB_EINVAL;
		}
	}
	return FB_OK;
}

const char *
req_query(const struct req *r, const char *name)
{
	size_t	 i;

	for (i = 0; i < r->nq; i++)
		if (strcmp(r->q[i].name, name) == 0)
			return r->q[i].value;
	return NULL;
}

const char *
req_pathvar(const struct req *r, const char *name)
{
	size_t	 i;

	for (i = 0; i < r->npathvars; i++)
		if (strcmp(r->pathvar_name[i], name) == 0)
			return r->pathvar[i];
	return NULL;
}

enum fb_err
req_header(struct req *r, const char *name, const char *value)
{
	if (!header_ok(name, value)) {
		logx(LOG_WARN, "header '%s' refused: a control character or "
		    "non-ASCII byte in it", name);
		return FB_EINVAL;
	}
	if (r->nhdr == REQ_MAX_HEADERS)
		return FB_ENOMEM;
	r->hdr_name[r->nhdr] = strdup(name);
	r->hdr_value[r->nhdr] = strdup(value);
	r->nhdr++;
	if (r->hdr_name[r->nhdr - 1] == NULL ||
	    r->hdr_value[r->nhdr - 1] == NULL)
		return FB_ENOMEM;
	return FB_OK;
}

void
req_reset_response(struct req *r)
{
	size_t	 i;

	for (i = 0; i < r->nhdr; i++) {
		free(r->hdr_name[i]);
		free(r->hdr_value[i]);
	}
	r->nhdr = 0;
	r->status = 0;
	buf_reset(&r->out);
	r->audit_type = NULL;
	r->audit_id[0] = '\0';
	r->audit_bidx[0] = '\0';
}

enum fb_err
req_json(struct req *r, int status, json_object *o)
{
	enum fb_err	 e;

	buf_reset(&r->out);
	e = buf_addstr(&r->out, json_text(o));
	json_object_put(o);
	r->status = status;
	return e;
}

void
req_gen_begin(struct req *r, struct jgen *j)
{
	buf_reset(&r->out);
	jgen_begin(j, &r->out);
	jg_obj(j, NULL);
}

enum fb_err
req_gen_end(struct req *r, struct jgen *j, int status)
{
	enum fb_err	 e;

	jg_obj_end(j);
	if ((e = jgen_end(j)) != FB_OK) {
		buf_reset(&r->out);
		return e;
	}
	r->status = status;
	return FB_OK;
}

enum fb_err
req_row(struct req *r, int status, row_gen gen, const void *row)
{
	struct jgen	 j;

	req_gen_begin(r, &j);
	gen(&j, row);
	return req_gen_end(r, &j, status);
}

void
req_empty(struct req *r, int status)
{
	buf_reset(&r->out);
	r->status = status;
}

enum fb_err
api_error(struct req *r, enum api_code code, const char *param)
{
	return api_error_with(r, code, param, NULL, NULL);
}

enum fb_err
api_error_with(struct req *r, enum api_code code, const char *param,
    void (*more)(struct jgen *, const void *), const void *arg)
{
	const struct api_code_def *d = &api_codes[code];
	struct jgen	 j;

	req_gen_begin(r, &j);
	jg_obj(&j, "error");
	jg_str(&j, "type", d->type);
	jg_str(&j, "code", d->code);
	jg_str(&j, "message", d->message_ja);
	jg_str(&j, "param", param);
	jg_str(&j, "request_id", r->request_id);
	if (more != NULL)
		more(&j, arg);
	jg_obj_end(&j);
	if (req_gen_end(r, &j, d->status) != FB_OK)
		r->status = 500;
	/* the database or a worker is away for a moment: when to try again */
	if (d->status == 503)
		req_header(r, "Retry-After", RETRY_AFTER_UNAVAILABLE);
	if (d->status >= 500)
		logx(LOG_ERR, "answered %d %s", d->status, d->code);
	else
		logx(LOG_INFO, "answered %d %s%s%s", d->status, d->code,
		    param != NULL ? " param=" : "", param != NULL ? param : "");
	return FB_OK;
}

void
api_internal(struct req *r, enum fb_err e)
{
	req_reset_response(r);
	logx(LOG_ERR, "request failed: %s", fb_strerror(e));
	(void)api_error(r, e == FB_EGONE || e == FB_ERETRY ? AC_UNAVAILABLE :
	    AC_INTERNAL, NULL);
}

const char *
req_actor_type(const struct req *r)
{
	return r->auth.session ? "session" : "api_key";
}

const char *
req_actor_id(const struct req *r)
{
	return r->auth.session ? r->auth.member_id : r->auth.key_id;
}
