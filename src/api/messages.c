/*
 * Messages (contract: Message, MessageExampleOut, MessagePreviewIn,
 * SmsEstimateIn; Endpoints, Messages).  API keys may not enter body_html:
 * 403 session_required (the contract's error for what only the admin UI
 * may do).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../api.h"
#include "../rowjson.h"
#include "../sanitize.h"
#include "../testsend.h"
#include "../url.h"
#include "../message.h"
#include "../db/store.h"

#define SUBJECT_MAX	255
#define BODY_MAX	5000
#define LINK_PARAMS_MAX	20

static enum fb_err
message_answer(struct req *r, const char *id, int status)
{
	struct dbrows	 m;
	enum fb_err	 e;

	e = db_message_get(r->db, r->auth.tenant_id, id, &m);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "message_id");
	if (e != FB_OK)
		return e;
	e = req_row(r, status, message_json, m.row);
	dbrows_free(&m);
	return e;
}

/* A message's fields, as stored (JSON as text). */
struct msg {
	char	*channel, *subject, *body, *header, *link, *params, *blocks;
	char	*html;		/* body_html, sanitized */
	long	 segments;	/* -1: none */
};

static void
msg_free(struct msg *m)
{
	free(m->channel);
	free(m->subject);
	free(m->body);
	free(m->header);
	free(m->link);
	free(m->params);
	free(m->blocks);
	free(m->html);
	memset(m, 0, sizeof(*m));
}

/* The message as msg_from_body() made it, as the database takes it. */
static struct message_fields
message_fields(const struct msg *m)
{
	struct message_fields f = { .channel = m->channel,
	    .subject = m->subject,
	    .body = m->body, .header_image_url = m->header, .link_url = m->link,
	    .link_params = m->params, .blocks = m->blocks, .body_html = m->html,
	    .sms_segments = m->segments };

	return f;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* A URL field as it is kept: as the parser writes it (STYLE 23). */
static bool
url_field(char **field)
{
	char	 href[URL_MAX + 1], *d;

	if (*field == NULL)
		return true;
	if (!url_normalize(*field, href) || (d = strdup(href)) == NULL)
		return false;
	free(*field);
	*field = d;
	return true;
}

/*
 * The body's body_html, when given, over m->html: direct HTML, from a
 * session of an owner or admin only (contract: MessageIn), kept as
 * html_sanitize() leaves it.  Returns 0, or -1 after writing the error.
 */
static int
msg_html(struct req *r, struct msg *m)
{
	json_object	*v;
	const char	*s;
	struct buf	 clean;

	if (!body_has(r, "body_html"))
		return 0;
	json_object_object_get_ex(r->json, "body_html", &v);
	if (v != NULL && !r->auth.session)
		return api_error(r, AC_SESSION_REQUIRED, "body_html"), -1;
	if (v != NULL && (r->auth.scopes & ROLE_ADMIN) == 0)
		return api_error(r, AC_ROLE_INSUFFICIENT, "body_html"), -1;
	if (body_str(r, "body_html", false, HTML_IN_MAX, &s) < 0)
		return -1;
	free(m->html);
	m->html = NULL;
	if (s == NULL || *s == '\0')
		return 0;
	buf_init(&clean, 2 * HTML_IN_MAX);
	if (html_sanitize(s, &clean) != FB_OK) {
		buf_release(&clean);
		return api_error(r, AC_PARAMETER_INVALID, "body_html"), -1;
	}
	m->html = buf_detach(&clean);
	return 0;
}

/*
 * The body's link_params, when given, over m->params: an object of at
 * most LINK_PARAMS_MAX string values (names 1 to 64 bytes, values at
 * most 256), null for none; "{}" when nothing says otherwise.  Returns
 * 0, or -1 after writing the error.
 */
static int
msg_link_params(struct req *r, struct msg *m)
{
	json_object	*lp;

	if (json_object_object_get_ex(r->json, "link_params", &lp)) {
		if (lp != NULL && (!json_object_is_type(lp, json_type_object) ||
		    json_object_object_length(lp) > LINK_PARAMS_MAX))
			return api_error(r, AC_PARAMETER_INVALID,
			    "link_params"), -1;
		if (lp != NULL) {
			json_object_object_foreach(lp, k, val) {
				if (strlen(k) == 0 || strlen(k) > 64 ||
				    val == NULL ||
				    !json_object_is_type(val,
				    json_type_string) ||
				    json_object_get_string_len(val) > 256)
					return api_error(r,
					    AC_PARAMETER_INVALID,
					    "link_params"), -1;
			}
		}
		free(m->params);
		m->params = strdup(lp != NULL ? json_text(lp) : "{}");
	}
	if (m->params == NULL)
		m->params = strdup("{}");
	return 0;
}

/*
 * Take the body's fields over `m` (absent: kept; null: cleared) and check
 * the result.  Returns 0, or -1 after writing the error.
 */
static int
msg_from_body(struct req *r, struct msg *m, bool create)
{
	json_object	*v;
	const char	*s;
	char		 param[64];
	struct sms_count c;

	if (msg_html(r, m) < 0)
		return -1;
	if (body_str(r, "channel", create, 8, &s) < 0)
		return -1;
	if (s != NULL) {
		if (strcmp(s, "sms") != 0 && strcmp(s, "email") != 0)
			return api_error(r, AC_PARAMETER_INVALID,
			    "channel"), -1;
		free(m->channel);
		m->channel = strdup(s);
	}
	/* an SMS has no HTML */
	if (m->html != NULL && m->channel != NULL &&
	    strcmp(m->channel, "sms") == 0)
		return api_error(r, AC_PARAMETER_INVALID, "body_html"), -1;
#define TEXT(name, read, max, field) do {				\
	if (body_has(r, name)) {					\
		if (read(r, name, false, max, &s) < 0)			\
			return -1;					\
		free(m->field);						\
		m->field = dup_or_null(s);				\
	}								\
} while (0)
	TEXT("subject", body_line, SUBJECT_MAX, subject);
	TEXT("body", body_str, BODY_MAX, body);
	TEXT("header_image_url", body_str, 2048, header);
	TEXT("link_url", body_str, 2048, link);
#undef TEXT
	if (!url_field(&m->header))
		return api_error(r, AC_PARAMETER_INVALID,
		    "header_image_url"), -1;
	if (!url_field(&m->link))
		return api_error(r, AC_PARAMETER_INVALID, "link_url"), -1;
	if (msg_link_params(r, m) < 0)
		return -1;
	if (json_object_object_get_ex(r->json, "blocks", &v)) {
		if (v != NULL && !blocks_ok(v, param, sizeof(param)))
			return api_error(r, AC_PARAMETER_INVALID, param), -1;
		free(m->blocks);
		m->blocks = v != NULL ? strdup(json_text(v)) : NULL;
	}
	m->segments = -1;
	if (strcmp(m->channel, "sms") == 0 && m->body != NULL) {
		if (!sms_count(m->body, r->conf->base_url, &c))
			return api_error(r, AC_PARAMETER_INVALID, "body"), -1;
		if (c.characters > SMS_MAX_CHARS)
			return api_error(r, AC_SMS_BODY_TOO_LONG, "body"), -1;
		m->segments = c.segments;
	}
	return 0;
}

enum fb_err
api_messages_create(struct req *r)
{
	struct msg	 m;
	struct message_fields f;
	char		 id[UUID_STRLEN + 1];
	enum fb_err	 e;

	memset(&m, 0, sizeof(m));
	if (msg_from_body(r, &m, true) < 0) {
		msg_free(&m);
		return FB_OK;
	}
	uuid_v7(id);
	f = message_fields(&m);
	e = db_message_insert(r->db, r->auth.tenant_id, id, &f);
	msg_free(&m);
	if (e != FB_OK)
		return e;
	r->audit_type = "message";
	memcpy(r->audit_id, id, sizeof(id));
	return message_answer(r, id, 201);
}

enum fb_err
api_messages_get(struct req *r)
{
	return message_answer(r, req_pathvar(r, "message_id"), 200);
}

enum fb_err
api_messages_update(struct req *r)
{
	const char	*id = req_pathvar(r, "message_id");
	struct dbrows	 cur;
	const struct message_row *c;
	const struct scenario_ref_row *s;
	struct message_fields f;
	struct msg	 m;
	size_t		 i;
	bool		 refused = false;
	enum fb_err	 e;

	e = db_message_get(r->db, r->auth.tenant_id, id, &cur);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "message_id");
	if (e != FB_OK)
		return e;
	c = cur.row;
	memset(&m, 0, sizeof(m));
	m.channel = dup_or_null(c->channel);
	m.subject = dup_or_null(c->subject);
	m.body = dup_or_null(c->body);
	m.header = dup_or_null(c->header_image_url);
	m.link = dup_or_null(c->link_url);
	m.params = dup_or_null(c->link_params);
	m.blocks = dup_or_null(c->blocks);
	m.html = dup_or_null(c->body_html);
	dbrows_free(&cur);
	if (msg_from_body(r, &m, false) < 0) {
		msg_free(&m);
		return FB_OK;
	}
	f = message_fields(&m);
	e = db_message_update(r->db, r->auth.tenant_id, id, &f);
	msg_free(&m);
	if (e != FB_OK)
		return e;
	/* the active scenarios that send it must stay sendable */
	if ((e = db_scenario_active_using(r->db, r->auth.tenant_id, id,
	    &cur)) != FB_OK)
		return e;
	for (i = 0, s = cur.row; i < cur.n && e == FB_OK && !refused; i++)
		e = scenario_keep_sendable(r, s[i].id, s[i].campaign_id,
		    &refused);
	dbrows_free(&cur);
	if (e != FB_OK || refused)
		return e;
	r->audit_type = "message";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	return message_answer(r, id, 200);
}

enum fb_err
api_messages_delete(struct req *r)
{
	const char	*id = req_pathvar(r, "message_id");
	struct dbrows	 res;
	bool		 in_use;
	enum fb_err	 e;

	e = db_message_get(r->db, r->auth.tenant_id, id, &res);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "message_id");
	if (e != FB_OK)
		return e;
	dbrows_free(&res);
	if ((e = db_message_in_use(r->db, r->auth.tenant_id, id,
	    &in_use)) != FB_OK)
		return e;
	if (in_use)
		return api_error(r, AC_MESSAGE_IN_USE, NULL);
	/* steps of deleted scenarios still point at it: drop those first */
	if ((e = db_message_delete(r->db, r->auth.tenant_id, id)) != FB_OK)
		return e == FB_EDB ? api_error(r, AC_MESSAGE_IN_USE, NULL) : e;
	r->audit_type = "message";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	req_empty(r, 204);
	return FB_OK;
}

/* Copy message `from` of the tenant as `id` (scenarios copy them too). */
enum fb_err
message_copy(struct req *r, const char *from, char id[UUID_STRLEN + 1])
{
	uuid_v7(id);
	return db_message_copy(r->db, r->auth.tenant_id, from, id);
}

enum fb_err
api_messages_duplicate(struct req *r)
{
	const char	*from = req_pathvar(r, "message_id");
	struct dbrows	 res;
	char		 id[UUID_STRLEN + 1];
	bool		 html;
	enum fb_err	 e;

	e = db_message_get(r->db, r->auth.tenant_id, from, &res);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "message_id");
	if (e != FB_OK)
		return e;
	html = ((const struct message_row *)res.row)->has_body_html;
	dbrows_free(&res);
	/* the same permission as create: direct HTML for owners and admins */
	if (html && !r->auth.session)
		return api_error(r, AC_SESSION_REQUIRED, "body_html");
	if (html && (r->auth.scopes & ROLE_ADMIN) == 0)
		return api_error(r, AC_ROLE_INSUFFICIENT, "body_html");
	if ((e = message_copy(r, from, id)) != FB_OK)
		return e;
	r->audit_type = "message";
	memcpy(r->audit_id, id, sizeof(id));
	return message_answer(r, id, 201);
}

enum fb_err
api_messages_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_message_list(r->db, r->auth.tenant_id,
	    req_query(r, "channel"),
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct message_row),
	    offsetof(struct message_row, id), message_json, NULL);
}

/* GET /message_examples: fixed data, in full, no paging. */
enum fb_err
api_message_examples(struct req *r)
{
	struct dbrows	 ex;
	const struct example_row *x;
	struct jgen	 j;
	size_t		 i;
	enum fb_err	 e;

	if ((e = db_examples(r->db, req_query(r, "channel"), NULL,
	    &ex)) != FB_OK)
		return e;
	req_gen_begin(r, &j);
	jg_str(&j, "object", "list");
	jg_arr(&j, "data");
	for (i = 0, x = ex.row; i < ex.n; i++) {
		jg_obj(&j, NULL);
		jg_str(&j, "key", x[i].key);
		jg_str(&j, "channel", x[i].channel);
		jg_int(&j, "position", x[i].position);
		jg_int(&j, "delay_minutes", x[i].delay_minutes);
		jg_str(&j, "label", x[i].label);
		jg_str(&j, "body", x[i].body);
		jg_str(&j, "subject", x[i].subject);
		jg_raw(&j, "blocks", x[i].blocks);
		jg_obj_end(&j);
	}
	jg_arr_end(&j);
	dbrows_free(&ex);
	return req_gen_end(r, &j, 200);
}

/* The campaign's product name, or 404 naming campaign_id. */
static enum fb_err
campaign_product(struct req *r, const char *id, char **product, bool *found)
{
	struct dbrows	 c;
	enum fb_err	 e;

	*product = NULL;
	*found = false;
	e = db_campaign_get(r->db, r->auth.tenant_id, id, &c);
	if (e == FB_ENOTFOUND)
		return FB_OK;
	if (e != FB_OK)
		return e;
	*found = true;
	*product = dup_or_null(
	    ((const struct campaign_row *)c.row)->product_name);
	dbrows_free(&c);
	return FB_OK;
}

/*
 * A sample short link for previews: real tokens are minted only when a
 * delivery is sent, so the preview shows one of the same length
 * (LINK_TOKEN_LEN), which is what SMS length counting needs.
 */
static void
sample_link(char *dst, size_t n, const char *base_url, char kind)
{
	static const char pad[] = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX";

	_Static_assert(LINK_TOKEN_LEN < sizeof(pad),
	    "pad shorter than a token");
	snprintf(dst, n, "%s/%c/%.*s", base_url, kind, LINK_TOKEN_LEN, pad);
}

enum fb_err
api_message_variables(struct req *r)
{
	static const struct { const char *key, *label; } vars[] = {
		{ "{{product_name}}", "商品名(キャンペーンの product_name)" },
		{ "{{link_url}}", "続きのページへの短縮リンク(クリックを記録)" },
		{ "{{optout_url}}", "配信停止ページへの短縮リンク" },
	};
	struct jgen	 j;
	char		*product, link[1024];
	bool		 found;
	size_t		 i;
	enum fb_err	 e;

	if ((e = campaign_product(r, req_query(r, "campaign_id"), &product,
	    &found)) != FB_OK)
		return e;
	if (!found)
		return api_error(r, AC_NOT_FOUND, "campaign_id");
	sample_link(link, sizeof(link), r->conf->base_url, 'r');
	req_gen_begin(r, &j);
	jg_str(&j, "campaign_id", req_query(r, "campaign_id"));
	jg_arr(&j, "data");
	for (i = 0; i < NELEM(vars); i++) {
		jg_obj(&j, NULL);
		jg_str(&j, "key", vars[i].key);
		jg_str(&j, "label", vars[i].label);
		jg_str(&j, "example", i == 0 ? product : link);
		jg_int(&j, "sms_length", i == 0 ? SMS_PRODUCT_NAME_CHARS :
		    (long long)strlen(link));
		jg_obj_end(&j);
	}
	jg_arr_end(&j);
	free(product);
	return req_gen_end(r, &j, 200);
}

enum fb_err
api_message_previews(struct req *r)
{
	const char	*cid, *subject;
	json_object	*blocks;
	struct jgen	 j;
	char		*product, link[1024], optout[1024], param[64];
	struct buf	 html, subj;
	bool		 found;
	enum fb_err	 e;

	if (body_str(r, "campaign_id", true, UUID_STRLEN, &cid) < 0 ||
	    body_line(r, "subject", false, SUBJECT_MAX, &subject) < 0)
		return FB_OK;
	if (!uuid_valid(cid))
		return api_error(r, AC_PARAMETER_INVALID, "campaign_id");
	if (!json_object_object_get_ex(r->json, "blocks", &blocks) ||
	    blocks == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "blocks");
	if (!blocks_ok(blocks, param, sizeof(param)))
		return api_error(r, AC_PARAMETER_INVALID, param);
	if ((e = campaign_product(r, cid, &product, &found)) != FB_OK)
		return e;
	if (!found)
		return api_error(r, AC_NOT_FOUND, "campaign_id");
	sample_link(link, sizeof(link), r->conf->base_url, 'r');
	sample_link(optout, sizeof(optout), r->conf->base_url, 'u');
	buf_init(&html, 4u << 20);
	buf_init(&subj, 4096);
	e = blocks_html(blocks, product, link, optout, NULL, &html);
	if (e == FB_OK && subject != NULL)
		e = vars_expand(&subj, subject, product, link, optout);
	free(product);
	if (e == FB_OK) {
		req_gen_begin(r, &j);
		jg_str(&j, "subject", subject != NULL ? subj.data : NULL);
		jg_str(&j, "html", html.data);
		e = req_gen_end(r, &j, 200);
	}
	buf_release(&html);
	buf_release(&subj);
	return e;
}

/*
 * POST /messages/estimate (contract: estimate rules; message.h for the rule).
 */
enum fb_err
api_messages_estimate(struct req *r)
{
	const char		*body;
	struct sms_count	 c;
	struct jgen		 j;

	if (body_str(r, "body", true, BODY_MAX, &body) < 0)
		return FB_OK;
	if (*body == '\0')
		return api_error(r, AC_PARAMETER_INVALID, "body");
	if (!sms_count(body, r->conf->base_url, &c))
		return api_error(r, AC_PARAMETER_INVALID, "body");
	if (c.characters > SMS_MAX_CHARS)
		return api_error(r, AC_SMS_BODY_TOO_LONG, "body");
	req_gen_begin(r, &j);
	jg_int(&j, "characters", c.characters);
	jg_int(&j, "characters_as_written", c.raw);
	jg_int(&j, "segments", c.segments);
	jg_int(&j, "max_characters", SMS_MAX_CHARS);
	jg_int(&j, "single_segment_characters", SMS_SINGLE_CHARS);
	jg_int(&j, "segment_characters", SMS_PART_CHARS);
	jg_str(&j, "encoding", "ucs2");
	jg_str(&j, "rule", "worst case of the Japanese carriers: UTF-16 code "
	    "units, 70 in one SMS, 67 per part of a longer one, 660 at most");
	return req_gen_end(r, &j, 200);
}

/*
 * GET /api/v1/admin/messages/{message_id}/preview: an email as a test
 * send renders it, as text/html for the admin UI's sandboxed frame: the
 * answer itself carries a CSP sandbox (no script, no form, no plugin, no
 * same origin) and loads nothing but images, so even HTML that slipped
 * past the allow-list cannot act.
 */
enum fb_err
api_messages_preview_html(struct req *r)
{
	struct dbrows	 m;
	const struct message_row *g;
	json_object	*blocks;
	char		 link[URL_MAX + 1];
	enum fb_err	 e;

	e = db_message_get(r->db, r->auth.tenant_id,
	    req_pathvar(r, "message_id"), &m);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "message_id");
	if (e != FB_OK)
		return e;
	g = m.row;
	if (strcmp(g->channel, "email") != 0) {
		dbrows_free(&m);
		return api_error(r, AC_PARAMETER_INVALID, "message_id");
	}
	snprintf(link, sizeof(link), "%s/", r->conf->base_url);
	buf_reset(&r->out);
	if (g->body_html != NULL)
		e = body_html_render(g->body_html, TESTSEND_PRODUCT, link, link,
		    NULL, &r->out);
	else {
		blocks = g->blocks != NULL ?
		    json_tokener_parse(g->blocks) : NULL;
		if (blocks == NULL)
			blocks = json_object_new_array();
		e = blocks_html(blocks, TESTSEND_PRODUCT, link, link, NULL,
		    &r->out);
		json_object_put(blocks);
	}
	dbrows_free(&m);
	if (e != FB_OK)
		return e;
	if ((e = req_header(r, "Content-Security-Policy",
	    "sandbox; default-src "
	    "'none'; img-src https: http: data:; style-src "
	    "'unsafe-inline'")) != FB_OK)
		return e;
	r->out_type = "text/html; charset=utf-8";
	r->status = 200;
	return FB_OK;
}
