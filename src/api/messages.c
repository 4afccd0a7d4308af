/*
 * Messages (contract: Message, MessageExampleOut, MessagePreviewIn,
 * SmsEstimateIn; Endpoints, Messages).  API keys may not enter body_html:
 * 403 session_required (the contract's error for what only the admin UI
 * may do).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../api.h"
#include "../url.h"
#include "../sms.h"
#include "../store.h"

#define SUBJECT_MAX	255
#define BODY_MAX	5000
#define LINK_PARAMS_MAX	20

static json_object *
parsed(const char *text)
{
	return text != NULL ? json_tokener_parse(text) : NULL;
}

/* The one writer of a message. */
static json_object *
message_json(const struct dbres *m, unsigned i)
{
	json_object	*o = json_object_new_object(), *lp;

	jadd_str(o, "id", dbres_get(m, i, MSG_C_ID));
	jadd_str(o, "object", "message");
	jadd_str(o, "channel", dbres_get(m, i, MSG_C_CHANNEL));
	jadd_str(o, "subject", dbres_get(m, i, MSG_C_SUBJECT));
	jadd_str(o, "body", dbres_get(m, i, MSG_C_BODY));
	jadd_bool(o, "has_body_html", dbres_int(m, i, MSG_C_HAS_HTML) != 0);
	jadd_str(o, "header_image_url", dbres_get(m, i, MSG_C_HEADER_IMAGE));
	jadd_str(o, "link_url", dbres_get(m, i, MSG_C_LINK_URL));
	lp = parsed(dbres_get(m, i, MSG_C_LINK_PARAMS));
	json_object_object_add(o, "link_params", lp != NULL ? lp : json_object_new_object());
	json_object_object_add(o, "blocks", parsed(dbres_get(m, i, MSG_C_BLOCKS)));
	if (dbres_get(m, i, MSG_C_SEGMENTS) != NULL)
		jadd_int(o, "sms_segments", dbres_int(m, i, MSG_C_SEGMENTS));
	else
		jadd_str(o, "sms_segments", NULL);
	jadd_time(o, "created_at", dbres_get(m, i, MSG_C_CREATED));
	jadd_time(o, "updated_at", dbres_get(m, i, MSG_C_UPDATED));
	return o;
}

static enum fb_err
message_answer(struct req *r, const char *id, int status)
{
	struct dbres	 m;
	enum fb_err	 e;

	if ((e = db_sq(r->db, SQ_MSG_GET, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), &m)) != FB_OK)
		return e;
	if (m.nrows == 0) {
		dbres_free(&m);
		return api_error(r, AC_NOT_FOUND, "message_id");
	}
	e = req_json(r, status, message_json(&m, 0));
	dbres_free(&m);
	return e;
}

/* A message's fields, as stored (JSON as text). */
struct msg {
	char	*channel, *subject, *body, *header, *link, *params, *blocks;
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
	memset(m, 0, sizeof(*m));
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
 * Take the body's fields over `m` (absent: kept; null: cleared) and check
 * the result.  Returns 0, or -1 after writing the error.
 */
static int
msg_from_body(struct req *r, struct msg *m, bool create)
{
	json_object	*v, *lp;
	const char	*s;
	char		 param[64];
	struct sms_count c;

	if (body_has(r, "body_html")) {
		json_object_object_get_ex(r->json, "body_html", &v);
		if (v != NULL)
			return api_error(r, AC_SESSION_REQUIRED, "body_html"), -1;
	}
	if (body_str(r, "channel", create, 8, &s) < 0)
		return -1;
	if (s != NULL) {
		if (strcmp(s, "sms") != 0 && strcmp(s, "email") != 0)
			return api_error(r, AC_PARAMETER_INVALID, "channel"), -1;
		free(m->channel);
		m->channel = strdup(s);
	}
#define TEXT(name, max, field) do {						\
	if (body_has(r, name)) {						\
		if (body_str(r, name, false, max, &s) < 0)			\
			return -1;						\
		free(m->field);							\
		m->field = dup_or_null(s);					\
	}									\
} while (0)
	TEXT("subject", SUBJECT_MAX, subject);
	TEXT("body", BODY_MAX, body);
	TEXT("header_image_url", 2048, header);
	TEXT("link_url", 2048, link);
#undef TEXT
	if (!url_field(&m->header))
		return api_error(r, AC_PARAMETER_INVALID, "header_image_url"), -1;
	if (!url_field(&m->link))
		return api_error(r, AC_PARAMETER_INVALID, "link_url"), -1;
	if (json_object_object_get_ex(r->json, "link_params", &lp)) {
		if (lp == NULL)
			lp = NULL;
		else if (!json_object_is_type(lp, json_type_object) ||
		    json_object_object_length(lp) > LINK_PARAMS_MAX)
			return api_error(r, AC_PARAMETER_INVALID, "link_params"), -1;
		else {
			json_object_object_foreach(lp, k, val) {
				if (strlen(k) == 0 || strlen(k) > 64 || val == NULL ||
				    !json_object_is_type(val, json_type_string) ||
				    json_object_get_string_len(val) > 256)
					return api_error(r, AC_PARAMETER_INVALID,
					    "link_params"), -1;
			}
		}
		free(m->params);
		m->params = strdup(lp != NULL ? json_text(lp) : "{}");
	}
	if (m->params == NULL)
		m->params = strdup("{}");
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
	char		 id[UUID_STRLEN + 1];
	enum fb_err	 e;

	memset(&m, 0, sizeof(m));
	if (msg_from_body(r, &m, true) < 0) {
		msg_free(&m);
		return FB_OK;
	}
	uuid_v7(id);
	e = db_sq(r->db, SQ_MSG_INSERT, DBPARAMS(P_STR(id), P_STR(r->auth.tenant_id),
	    P_STR(m.channel), P_STR(m.subject), P_STR(m.body), P_NULL,
	    P_STR(m.header), P_STR(m.link), P_STR(m.params), P_STR(m.blocks),
	    m.segments >= 0 ? P_INT(m.segments) : P_NULL), NULL);
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
	struct dbres	 cur;
	struct msg	 m;
	unsigned	 i;
	bool		 refused = false;
	enum fb_err	 e;

	if ((e = db_sq(r->db, SQ_MSG_GET, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), &cur)) != FB_OK)
		return e;
	if (cur.nrows == 0) {
		dbres_free(&cur);
		return api_error(r, AC_NOT_FOUND, "message_id");
	}
	memset(&m, 0, sizeof(m));
	m.channel = dup_or_null(dbres_get(&cur, 0, MSG_C_CHANNEL));
	m.subject = dup_or_null(dbres_get(&cur, 0, MSG_C_SUBJECT));
	m.body = dup_or_null(dbres_get(&cur, 0, MSG_C_BODY));
	m.header = dup_or_null(dbres_get(&cur, 0, MSG_C_HEADER_IMAGE));
	m.link = dup_or_null(dbres_get(&cur, 0, MSG_C_LINK_URL));
	m.params = dup_or_null(dbres_get(&cur, 0, MSG_C_LINK_PARAMS));
	m.blocks = dup_or_null(dbres_get(&cur, 0, MSG_C_BLOCKS));
	dbres_free(&cur);
	if (msg_from_body(r, &m, false) < 0) {
		msg_free(&m);
		return FB_OK;
	}
	e = db_sq(r->db, SQ_MSG_UPDATE, DBPARAMS(P_STR(m.channel), P_STR(m.subject),
	    P_STR(m.body), P_STR(m.header), P_STR(m.link), P_STR(m.params),
	    P_STR(m.blocks), m.segments >= 0 ? P_INT(m.segments) : P_NULL,
	    P_STR(r->auth.tenant_id), P_STR(id)), NULL);
	msg_free(&m);
	if (e != FB_OK)
		return e;
	/* the active scenarios that send it must stay sendable */
	if ((e = db_sq(r->db, SQ_SCN_ACTIVE_USING, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), &cur)) != FB_OK)
		return e;
	for (i = 0; i < cur.nrows && e == FB_OK && !refused; i++)
		e = scenario_keep_sendable(r, dbres_get(&cur, i, 0),
		    dbres_get(&cur, i, 1), &refused);
	dbres_free(&cur);
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
	struct dbres	 res;
	enum fb_err	 e;

	if ((e = db_sq(r->db, SQ_MSG_GET, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), &res)) != FB_OK)
		return e;
	if (res.nrows == 0) {
		dbres_free(&res);
		return api_error(r, AC_NOT_FOUND, "message_id");
	}
	dbres_free(&res);
	if ((e = db_sq(r->db, SQ_MSG_IN_USE, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), &res)) != FB_OK)
		return e;
	if (dbres_int(&res, 0, 0) > 0) {
		dbres_free(&res);
		return api_error(r, AC_MESSAGE_IN_USE, NULL);
	}
	dbres_free(&res);
	/* steps of deleted scenarios still point at it: drop those first */
	if ((e = db_sq(r->db, SQ_MSG_DELETE, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), NULL)) != FB_OK)
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
	return db_sq(r->db, SQ_MSG_COPY, DBPARAMS(P_STR(id), P_STR(r->auth.tenant_id),
	    P_STR(from)), NULL);
}

enum fb_err
api_messages_duplicate(struct req *r)
{
	const char	*from = req_pathvar(r, "message_id");
	struct dbres	 res;
	char		 id[UUID_STRLEN + 1];
	enum fb_err	 e;

	if ((e = db_sq(r->db, SQ_MSG_GET, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(from)), &res)) != FB_OK)
		return e;
	if (res.nrows == 0) {
		dbres_free(&res);
		return api_error(r, AC_NOT_FOUND, "message_id");
	}
	/* the same permission as create: direct HTML is not for API keys */
	if (dbres_int(&res, 0, MSG_C_HAS_HTML) != 0) {
		dbres_free(&res);
		return api_error(r, AC_SESSION_REQUIRED, "body_html");
	}
	dbres_free(&res);
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
	struct dbres	 res;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_sq(r->db, SQ_MSG_LIST, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(pg.has_after ? pg.after : "ffffffff-ffff-ffff-ffff-ffffffffffff"),
	    P_STR(req_query(r, "channel")), P_STR(req_query(r, "channel")),
	    P_INT(pg.limit + 1)), &res)) != FB_OK)
		return e;
	return page_answer(r, &pg, &res, MSG_C_ID, message_json, NULL);
}

/* GET /message_examples: fixed data, in full, no paging. */
enum fb_err
api_message_examples(struct req *r)
{
	struct dbres	 ex;
	json_object	*o, *data, *x;
	unsigned	 i;
	enum fb_err	 e;

	if ((e = db_sq(r->db, SQ_EXAMPLES, DBPARAMS(P_STR(req_query(r, "channel")),
	    P_STR(req_query(r, "channel")), P_NULL, P_NULL), &ex)) != FB_OK)
		return e;
	data = json_object_new_array();
	for (i = 0; i < ex.nrows; i++) {
		x = json_object_new_object();
		jadd_str(x, "key", dbres_get(&ex, i, 0));
		jadd_str(x, "channel", dbres_get(&ex, i, 1));
		jadd_int(x, "position", dbres_int(&ex, i, 2));
		jadd_int(x, "delay_minutes", dbres_int(&ex, i, 3));
		jadd_str(x, "label", dbres_get(&ex, i, 4));
		jadd_str(x, "body", dbres_get(&ex, i, 5));
		jadd_str(x, "subject", dbres_get(&ex, i, 6));
		json_object_object_add(x, "blocks", parsed(dbres_get(&ex, i, 7)));
		json_object_array_add(data, x);
	}
	dbres_free(&ex);
	o = json_object_new_object();
	jadd_str(o, "object", "list");
	json_object_object_add(o, "data", data);
	return req_json(r, 200, o);
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
	*product = dup_or_null(((const struct campaign_row *)c.row)->product_name);
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

	_Static_assert(LINK_TOKEN_LEN < sizeof(pad), "pad shorter than a token");
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
	json_object	*o, *data, *v;
	char		*product, link[1024];
	bool		 found;
	size_t		 i;
	enum fb_err	 e;

	if ((e = campaign_product(r, req_query(r, "campaign_id"), &product, &found)) != FB_OK)
		return e;
	if (!found)
		return api_error(r, AC_NOT_FOUND, "campaign_id");
	sample_link(link, sizeof(link), r->conf->base_url, 'r');
	data = json_object_new_array();
	for (i = 0; i < NELEM(vars); i++) {
		v = json_object_new_object();
		jadd_str(v, "key", vars[i].key);
		jadd_str(v, "label", vars[i].label);
		if (i == 0) {
			jadd_str(v, "example", product);
			jadd_int(v, "sms_length", SMS_PRODUCT_NAME_CHARS);
		} else {
			jadd_str(v, "example", link);
			jadd_int(v, "sms_length", (long long)strlen(link));
		}
		json_object_array_add(data, v);
	}
	free(product);
	o = json_object_new_object();
	jadd_str(o, "campaign_id", req_query(r, "campaign_id"));
	json_object_object_add(o, "data", data);
	return req_json(r, 200, o);
}

enum fb_err
api_message_previews(struct req *r)
{
	const char	*cid, *subject;
	json_object	*blocks, *o;
	char		*product, link[1024], optout[1024], param[64];
	struct buf	 html, subj;
	bool		 found;
	enum fb_err	 e;

	if (body_str(r, "campaign_id", true, UUID_STRLEN, &cid) < 0 ||
	    body_str(r, "subject", false, SUBJECT_MAX, &subject) < 0)
		return FB_OK;
	if (!uuid_valid(cid))
		return api_error(r, AC_PARAMETER_INVALID, "campaign_id");
	if (!json_object_object_get_ex(r->json, "blocks", &blocks) || blocks == NULL)
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
		o = json_object_new_object();
		jadd_str(o, "subject", subject != NULL ? subj.data : NULL);
		jadd_str(o, "html", html.data);
		e = req_json(r, 200, o);
	}
	buf_release(&html);
	buf_release(&subj);
	return e;
}

/* POST /messages/estimate (contract: estimate rules; sms.h for the rule). */
enum fb_err
api_messages_estimate(struct req *r)
{
	const char		*body;
	struct sms_count	 c;
	json_object		*o;

	if (body_str(r, "body", true, BODY_MAX, &body) < 0)
		return FB_OK;
	if (*body == '\0')
		return api_error(r, AC_PARAMETER_INVALID, "body");
	if (!sms_count(body, r->conf->base_url, &c))
		return api_error(r, AC_PARAMETER_INVALID, "body");
	if (c.characters > SMS_MAX_CHARS)
		return api_error(r, AC_SMS_BODY_TOO_LONG, "body");
	o = json_object_new_object();
	jadd_int(o, "characters", c.characters);
	jadd_int(o, "characters_as_written", c.raw);
	jadd_int(o, "segments", c.segments);
	jadd_int(o, "max_characters", SMS_MAX_CHARS);
	jadd_int(o, "single_segment_characters", SMS_SINGLE_CHARS);
	jadd_int(o, "segment_characters", SMS_PART_CHARS);
	jadd_str(o, "encoding", "ucs2");
	jadd_str(o, "rule", "worst case of the Japanese carriers: UTF-16 code units, "
	    "70 in one SMS, 67 per part of a longer one, 660 at most");
	return req_json(r, 200, o);
}
