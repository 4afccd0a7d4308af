/*
 * openapi.json (contract: conventions 7): built from the route table,
 * so the document lists exactly the implemented operations with their
 * operationId, x-service-scopes, parameters and schemas.  Component
 * schemas come from openapi-schemas.json, the prose (the introduction,
 * the tags' and each operation's description) from openapi.md, both
 * compiled in.  The document is the API's one reference: `make
 * reference` renders it into the page the web server serves at
 * {base_url}/docs/api; formback.fcgi(8) and the other man pages are the
 * operator's.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "events.h"

extern const char openapi_schemas_json[];
extern const char openapi_text_md[];

/* Whether the line at p opens or closes a fenced code block. */
static bool
is_fence(const char *p)
{
	return strncmp(p, "```", 3) == 0;
}

/* The first line from p that is a heading "# " outside a fence, or the end. */
static const char *
next_heading(const char *p)
{
	bool	 fenced = false;

	for (; *p != '\0'; p += strcspn(p, "\n"), p += *p == '\n') {
		if (is_fence(p))
			fenced = !fenced;
		else if (!fenced && strncmp(p, "# ", 2) == 0)
			break;
	}
	return p;
}

const char *
openapi_text_next(const char *p, char *name, size_t namesz,
    const char **body, size_t *bodylen)
{
	const char	*h, *b, *e, *nx;
	size_t		 n;

	h = next_heading(p != NULL ? p : openapi_text_md);
	if (*h == '\0')
		return NULL;
	n = strcspn(h + 2, "\n");
	if (namesz > 0) {
		if (n >= namesz)
			n = namesz - 1;
		memcpy(name, h + 2, n);
		name[n] = '\0';
	}
	/* the body: from its first line that is not blank to its last */
	b = h + 2 + strcspn(h + 2, "\n");
	e = nx = next_heading(b);
	while (b < e && isspace((unsigned char)*b))
		b++;
	if (b < e)
		/* the heading's newline at the latest */
		while (b[-1] != '\n')
			b--;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	*body = b;
	*bodylen = (size_t)(e - b);
	return nx;
}

/* The sections of openapi.md, read once per document. */
struct texts {
	size_t		 n;
	struct {
		char	 name[96];
		const char *body;
		size_t	 len;
	}		 s[256];
};

static void
texts_read(struct texts *t)
{
	const char	*p = NULL;

	for (t->n = 0; t->n < NELEM(t->s) && (p = openapi_text_next(p,
	    t->s[t->n].name, sizeof(t->s[t->n].name), &t->s[t->n].body,
	    &t->s[t->n].len)) != NULL; t->n++)
		;
}

/* Add "description": the text of section `name` to o, when there is one. */
static void
add_text(json_object *o, const struct texts *t, const char *name)
{
	size_t	 i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->s[i].name, name) == 0) {
			json_object_object_add(o, "description",
			    json_object_new_string_len(t->s[i].body,
			    (int)t->s[i].len));
			return;
		}
}

static const char *
ptype_name(enum ptype t)
{
	switch (t) {
	case PT_INT:
	case PT_LIMIT:
		return "integer";
	case PT_BOOL:
		return "boolean";
	default:
		return "string";
	}
}

static json_object *
param_json(const struct param_def *d)
{
	json_object	*p = json_object_new_object();
	json_object	*s = json_object_new_object();
	json_object	*en;
	const char	*a, *e;

	jadd_str(p, "name", d->name);
	jadd_str(p, "in", d->in == IN_PATH ? "path" : "query");
	jadd_bool(p, "required", d->in == IN_PATH || d->required);
	if (d->desc != NULL)
		jadd_str(p, "description", d->desc);
	jadd_str(s, "type", ptype_name(d->type));
	switch (d->type) {
	case PT_UUID:
		jadd_str(s, "format", "uuid");
		break;
	case PT_DATETIME:
		jadd_str(s, "format", "date-time");
		break;
	case PT_LIMIT:
	case PT_INT:
		jadd_int(s, "minimum", d->min);
		jadd_int(s, "maximum", d->max);
		if (d->type == PT_LIMIT)
			jadd_int(s, "default", d->def);
		break;
	case PT_BOOL:
		jadd_bool(s, "default", false);
		break;
	case PT_ENUM:
		en = json_object_new_array();
		for (a = d->enums; ; a = e + 1) {
			e = strchr(a, '|');
			json_object_array_add(en, json_object_new_string_len(a,
			    e != NULL ? (int)(e - a) : (int)strlen(a)));
			if (e == NULL)
				break;
		}
		json_object_object_add(s, "enum", en);
		break;
	default:
		break;
	}
	json_object_object_add(p, "schema", s);
	return p;
}

static json_object *
ref(const char *schema)
{
	json_object	*o = json_object_new_object();
	json_object	*c = json_object_new_object();
	json_object	*m = json_object_new_object();
	json_object	*s = json_object_new_object();
	char		 r[256];

	snprintf(r, sizeof(r), "#/components/schemas/%s", schema);
	jadd_str(s, "$ref", r);
	json_object_object_add(m, "schema", s);
	json_object_object_add(c, "application/json", m);
	json_object_object_add(o, "content", c);
	return o;
}

/* A response whose body is `type` of media `media` (no component schema). */
static json_object *
typed(const char *media, const char *type)
{
	json_object	*o = json_object_new_object();
	json_object	*c = json_object_new_object();
	json_object	*m = json_object_new_object();
	json_object	*s = json_object_new_object();

	jadd_str(s, "type", type);
	json_object_object_add(m, "schema", s);
	json_object_object_add(c, media, m);
	json_object_object_add(o, "content", c);
	return o;
}

/* The response header fields formback.fcgi writes (main-fcgi.c). */
static const struct {
const char	*name, *type, *desc;
} header_defs[] = {
	{ "X-Request-Id", "string",
	    "The request's id, as error.request_id gives it." },
	{ "X-RateLimit-Limit", "integer",
	  "Requests a tenant may make in 60 seconds (contract: Limits)." },
	{ "X-RateLimit-Remaining", "integer", "Requests left in the window." },
	{ "X-RateLimit-Reset", "integer",
	    "Unix seconds when one more slot frees." },
	{ "RateLimit-Policy", "string",
	  "The tenant's quota, draft-ietf-httpapi-ratelimit-headers: "
	  "\"tenant\";q=<requests>;w=60. The X-RateLimit-* fields say "
	  "the same and stay for existing clients." },
	{ "RateLimit", "string",
	  "What is left, draft-ietf-httpapi-ratelimit-headers: "
	  "\"tenant\";r=<remaining>;t=<seconds until a slot frees>." },
	{ "Retry-After", "integer", "Seconds to wait before trying again." },
	{ "ETag", "string", "The resource's entity tag (RFC 9110 8.8.3), "
	  "strong, of the GET answer's bytes: If-None-Match on a GET, "
	  "If-Match on a write. A write with If-Match is answered with "
	  "the tag of the resource it left (of its GET, not of this "
	  "answer's body)." },
	{ "Idempotency-Replayed", "string",
	  "true when the answer is the stored one of an earlier request with "
	  "the same Idempotency-Key." },
	{ "Formback-Dry-Run", "string",
	  "true when a test key's write was checked and not kept (contract: "
	  "Authentication 3)." },
};

/*
 * The Header Object of header_defs' `name`, inline, so that whether it
 * is required can differ between answers (OpenAPI 3.1 4.8.21; a $ref
 * takes no sibling but a description).
 */
static json_object *
header_obj(const char *name, bool required)
{
	json_object	*h = json_object_new_object(), *sc;
	size_t		 i;

	for (i = 0; strcmp(header_defs[i].name, name) != 0; i++)
		continue;
	sc = json_object_new_object();
	jadd_str(sc, "type", header_defs[i].type);
	jadd_str(h, "description", header_defs[i].desc);
	jadd_bool(h, "required", required);
	json_object_object_add(h, "schema", sc);
	return h;
}

/* The rate headers into h: required on an admitted request's answer. */
static void
rate_headers(json_object *h, bool required)
{
	static const char *const names[] = { "X-RateLimit-Limit",
	    "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy",
	    "RateLimit" };
	size_t	 i;

	for (i = 0; i < NELEM(names); i++)
		json_object_object_add(h, names[i], header_obj(names[i],
		    required));
}

/*
 * The headers of a successful answer of route rt (main-fcgi.c writes
 * them): X-Request-Id always; the rate headers when a key or session was
 * admitted, as on every route but the public ones; the ETag of a GET's
 * JSON; on a POST, Idempotency-Replayed when it is a replay; on a test
 * key's write, Formback-Dry-Run; on a write with If-Match, its ETag.
 */
static json_object *
headers_of(const struct route *rt)
{
	json_object	*h = json_object_new_object();
	bool		 authed = (rt->flags & R_PUBLIC) == 0;

	json_object_object_add(h, "X-Request-Id", header_obj("X-Request-Id",
	    true));
	if (authed)
		rate_headers(h, true);
	if (authed &&
	    (strcmp(rt->method, "GET") == 0 ? rt->resp_schema != NULL :
	    strcmp(rt->method, "PATCH") == 0 || strcmp(rt->method, "PUT") == 0))
		json_object_object_add(h, "ETag", header_obj("ETag",
		    strcmp(rt->method, "GET") == 0));
	if (authed && strcmp(rt->method, "POST") == 0)
		json_object_object_add(h, "Idempotency-Replayed",
		    header_obj("Idempotency-Replayed", false));
	if ((rt->flags & R_WRITE) != 0)
		json_object_object_add(h, "Formback-Dry-Run",
		    header_obj("Formback-Dry-Run", false));
	return h;
}

static bool
authed(const struct route *rt)
{
	return (rt->flags & R_PUBLIC) == 0;
}

/*
 * Any request: its query, path, body or headers, or the web server's own 400.
 */
static bool
any(const struct route *rt)
{
	return true;
}

static bool
with_path(const struct route *rt)
{
	return strchr(rt->path, '{') != NULL || authed(rt);
}

static bool
with_body(const struct route *rt)
{
	return strcmp(rt->method, "POST") == 0 || strcmp(rt->method,
	    "PUT") == 0 ||
	    strcmp(rt->method, "PATCH") == 0;
}

static bool
posted(const struct route *rt)
{
	return strcmp(rt->method, "POST") == 0 || (rt->flags & R_WRITE) != 0;
}

/* A GET answered with a JSON body and its ETag (cond.h). */
static bool
tagged(const struct route *rt)
{
	return strcmp(rt->method, "GET") == 0 && rt->resp_schema != NULL &&
	    authed(rt);
}

/* A write that takes If-Match (cond.h). */
static bool
conditional(const struct route *rt)
{
	return authed(rt) && (strcmp(rt->method, "PATCH") == 0 ||
	    strcmp(rt->method, "PUT") == 0 ||
	    strcmp(rt->method, "DELETE") == 0);
}

static const struct {
	int		 status;
	const char	*ref;
	bool		(*applies)(const struct route *);
} errors[] = {
	{ 304, "#/components/responses/NotModified", tagged },
	{ 412, "#/components/responses/PreconditionFailed", conditional },
	{ 400, "#/components/responses/BadRequest", any },
	{ 401, "#/components/responses/Unauthorized", authed },
	{ 403, "#/components/responses/Forbidden", authed },
	{ 404, "#/components/responses/NotFound", with_path },
	{ 409, "#/components/responses/Conflict", posted },
	{ 422, "#/components/responses/Unprocessable", with_body },
	{ 429, "#/components/responses/TooManyRequests", authed },
};

/* If-None-Match of a tagged GET, If-Match of a conditional write. */
static void
cond_params(const struct route *rt, json_object *params)
{
	json_object	*h, *s;

	if (!tagged(rt) && !conditional(rt))
		return;
	h = json_object_new_object();
	s = json_object_new_object();
	jadd_str(h, "name", tagged(rt) ? "If-None-Match" : "If-Match");
	jadd_str(h, "in", "header");
	jadd_bool(h, "required", false);
	jadd_str(h, "description", tagged(rt) ? "An ETag of an earlier "
	    "answer: 304 with no body while it is still the resource's "
	    "(RFC 9110 13.1.2)." : "The ETag of the resource as the client "
	    "read it (its GET, or its parent's for a part of it), or *: 412 "
	    "precondition_failed when it changed since (RFC 9110 13.1.1).");
	jadd_str(s, "type", "string");
	json_object_object_add(h, "schema", s);
	json_object_array_add(params, h);
}

/* Who may call it: scopes, tag, roles and security (contract: Auth). */
static void
op_access(json_object *op, const struct route *rt)
{
	static const char *const roles[] = { "owner", "admin", "member",
	    "viewer" };
	json_object	*sc, *tags, *ro, *sec, *b;
	bool		 admin = strncmp(rt->path, "/api/v1/admin/", 14) == 0;
	size_t		 i;

	sc = json_object_new_array();
	for (i = 0; i < SCOPE__MAX; i++)
		if (rt->scopes & SCOPE_BIT(i))
			json_object_array_add(sc,
			    json_object_new_string(scope_names[i]));
	json_object_object_add(op, "x-service-scopes", sc);
	/*
	 * the admin API (issue 16) under its own tag, with the roles it needs
	 */
	tags = json_object_new_array();
	json_object_array_add(tags,
	    json_object_new_string(admin ? "admin" : "public"));
	json_object_object_add(op, "tags", tags);
	if ((rt->flags & R_SESSION) != 0) {
		ro = json_object_new_array();
		for (i = 0; i < NELEM(roles); i++)
			if (scope_covers(role_scopes(roles[i]), rt->scopes))
				json_object_array_add(ro,
				    json_object_new_string(roles[i]));
		json_object_object_add(op, "x-service-roles", ro);
	}
	/* what a member who must enrol a second factor may call (issue 43) */
	if ((rt->flags & R_ENROL) != 0)
		jadd_bool(op, "x-formback-enrol", true);
	sec = json_object_new_array();
	if ((rt->flags & R_PUBLIC) == 0) {
		b = json_object_new_object();
		json_object_object_add(b, (rt->flags & R_SESSION) != 0 ?
		    "sessionCookie" : "bearerAuth", json_object_new_array());
		json_object_array_add(sec, b);
	}
	json_object_object_add(op, "security", sec);
}

/* Its parameters: the route's, the conditional and Idempotency-Key. */
static json_object *
op_parameters(const struct route *rt)
{
	json_object		*params = json_object_new_array(), *h, *s;
	const struct param_def	*d;

	for (d = rt->params; d != NULL && d->name != NULL; d++)
		json_object_array_add(params, param_json(d));
	cond_params(rt, params);
	if (strcmp(rt->method, "POST") != 0)
		return params;
	h = json_object_new_object();
	s = json_object_new_object();
	jadd_str(h, "name", "Idempotency-Key");
	jadd_str(h, "in", "header");
	jadd_bool(h, "required", false);
	jadd_str(h, "description", "Replay-safe retries for 24 hours "
	    "(contract: Idempotency).");
	jadd_str(s, "type", "string");
	jadd_int(s, "maxLength", 255);
	json_object_object_add(h, "schema", s);
	json_object_array_add(params, h);
	return params;
}

/* Its request body: a schema, CSV for an R_RAW route, or NULL. */
static json_object *
op_request_body(const struct route *rt)
{
	json_object	*req;

	if (rt->body_schema != NULL)
		req = ref(rt->body_schema);
	else if ((rt->flags & R_RAW) != 0)
		req = typed("text/csv", "string");
	else
		return NULL;
	jadd_bool(req, "required", true);
	return req;
}

/*
 * Its responses: the success, the errors it can answer (contract:
 * Errors, Limits) and the envelope for any other.
 */
static json_object *
op_responses(const struct route *rt)
{
	json_object	*resp = json_object_new_object(), *ok, *err;
	bool		 doc = rt->fn == api_openapi_get;
	char		 code[8];
	size_t		 i;

	if (rt->resp_schema != NULL)
		ok = ref(rt->resp_schema);
	else if (rt->media != NULL)
		ok = typed(rt->media, "string");
	else if (rt->status != 204)
		ok = typed(doc ? "application/json" : "text/html",
		    doc ? "object" : "string");
	else
		ok = json_object_new_object();
	jadd_str(ok, "description", "Success");
	json_object_object_add(ok, "headers", headers_of(rt));
	snprintf(code, sizeof(code), "%d", rt->status);
	json_object_object_add(resp, code, ok);
	for (i = 0; i < NELEM(errors); i++) {
		if (!errors[i].applies(rt))
			continue;
		err = json_object_new_object();
		snprintf(code, sizeof(code), "%d", errors[i].status);
		jadd_str(err, "$ref", errors[i].ref);
		json_object_object_add(resp, code, err);
	}
	err = json_object_new_object();
	jadd_str(err, "$ref", "#/components/responses/Error");
	json_object_object_add(resp, "default", err);
	return resp;
}

static json_object *
operation_json(const struct route *rt, const struct texts *t)
{
	json_object	*op = json_object_new_object(), *req;
	char		 name[96];

	jadd_str(op, "operationId", rt->operation_id);
	jadd_str(op, "summary", rt->summary);
	/* its prose: openapi.md's section "op <operationId>" */
	snprintf(name, sizeof(name), "op %s", rt->operation_id);
	add_text(op, t, name);
	op_access(op, rt);
	json_object_object_add(op, "parameters", op_parameters(rt));
	if ((req = op_request_body(rt)) != NULL)
		json_object_object_add(op, "requestBody", req);
	json_object_object_add(op, "responses", op_responses(rt));
	return op;
}

/* The error answers, one per status, each the contract's envelope. */
static json_object *
components_responses(void)
{
	static const struct { const char *name, *desc; bool retry; } rs[] = {
		{ "BadRequest",
		    "A query parameter, path id, body or header that cannot be "
		  "read (parameter_invalid, invalid_json, body_too_large, "
		  "cursor_invalid, idempotency_key_invalid).", false },
		{ "Unauthorized",
		    "No key, or a key that is invalid, revoked or whose member "
		  "is gone; a session that ended.", false },
		{ "Forbidden",
		    "A scope, role or plan that does not allow it, or an "
		  "operation for a member's session "
		  "(session_required).", false },
		{ "NotFound", "No such resource, or another tenant's.", false },
		{ "Conflict",
		    "A state conflict, or the same Idempotency-Key still "
		    "running.", false },
		{ "Unprocessable",
		    "A field's value is refused; param names it.", false },
		{ "TooManyRequests",
		    "Over the tenant's rate limit; wait Retry-After seconds.",
		  true },
		{ "PreconditionFailed", "If-Match names another version of the "
		  "resource (precondition_failed): read it again.", false },
		{ "Error",
		    "Error envelope (contract: Errors); 503 comes with "
		    "Retry-After.", true },
	};
	json_object	*o = json_object_new_object(), *r, *h;
	size_t		 i;

	for (i = 0; i < NELEM(rs); i++) {
		r = ref("Error");
		jadd_str(r, "description", rs[i].desc);
		h = json_object_new_object();
		/*
		 * not on what the web server answers itself (fcgi-conf/errors)
		 */
		json_object_object_add(h, "X-Request-Id",
		    header_obj("X-Request-Id", false));
		/* a 429 is an admitted request's; others, when one was */
		rate_headers(h, strcmp(rs[i].name, "TooManyRequests") == 0);
		if (rs[i].retry)
			json_object_object_add(h, "Retry-After",
			    header_obj("Retry-After",
			    strcmp(rs[i].name, "TooManyRequests") == 0));
		json_object_object_add(r, "headers", h);
		json_object_object_add(o, rs[i].name, r);
	}
	/* If-None-Match still names the resource: no body (RFC 9110 15.4.5) */
	r = json_object_new_object();
	jadd_str(r, "description", "Not modified: the ETag If-None-Match "
	    "named is still the resource's.");
	h = json_object_new_object();
	json_object_object_add(h, "X-Request-Id", header_obj("X-Request-Id",
	    true));
	rate_headers(h, true);
	json_object_object_add(h, "ETag", header_obj("ETag", true));
	json_object_object_add(r, "headers", h);
	json_object_object_add(o, "NotModified", r);
	return o;
}

/* A header parameter of a webhook: a string, required or not. */
static json_object *
hook_header(const char *name, bool required, const char *konst,
    const char *desc)
{
	json_object	*p = json_object_new_object();
	json_object	*sc = json_object_new_object();

	jadd_str(p, "name", name);
	jadd_str(p, "in", "header");
	jadd_bool(p, "required", required);
	jadd_str(p, "description", desc);
	jadd_str(sc, "type", "string");
	if (konst != NULL)
		jadd_str(sc, "const", konst);
	json_object_object_add(p, "schema", sc);
	return p;
}

/* An event's operationId: lead.captured is leadCapturedEvent. */
static void
event_op_id(const char *name, char *id, size_t idsz)
{
	size_t	 i, j;
	bool	 up = false;

	for (i = j = 0; name[i] != '\0' && j + 6 < idsz; i++)
		if (name[i] == '.' || name[i] == '_')
			up = true;
		else {
			id[j++] = up ? (char)toupper((unsigned char)name[i]) :
			    name[i];
			up = false;
		}
	snprintf(id + j, idsz - j, "Event");
}

/* The headers a webhook comes with: ours and Standard Webhooks'. */
static json_object *
webhook_headers(const struct event_type *t)
{
	json_object	*ps = json_object_new_array();

	json_object_array_add(ps, hook_header("X-Formback-Event", true,
	    t->name, "The event's type, as the body's `type`."));
	json_object_array_add(ps, hook_header("X-Formback-Delivery", true,
	    NULL, "The delivery record's id, as "
	    "listWebhookEndpointDeliveries lists it: the same on "
	    "every retry of the record, another for a redelivery."));
	json_object_array_add(ps, hook_header("X-Formback-Signature", true,
	    NULL, "t=<unix seconds>,v1=<lower-case hex HMAC-SHA256>; t "
	    "is stamped anew on every send."));
	json_object_array_add(ps, hook_header("webhook-id", false, NULL,
	    "Standard Webhooks: the event's id."));
	json_object_array_add(ps, hook_header("webhook-timestamp", false,
	    NULL, "Standard Webhooks: the send's unix seconds."));
	json_object_array_add(ps, hook_header("webhook-signature", false,
	    NULL, "Standard Webhooks: v1,<base64 HMAC-SHA256 over "
	    "<webhook-id>.<webhook-timestamp>.<body>, keyed by the "
	    "secret's decoded bytes>."));
	return ps;
}

/* The body: the envelope, its type and data made precise. */
static json_object *
webhook_body(const struct event_type *t)
{
	json_object	*props, *own, *all, *sc, *body, *x;
	char		 r[128];

	props = json_object_new_object();
	x = json_object_new_object();
	jadd_str(x, "const", t->name);
	json_object_object_add(props, "type", x);
	x = json_object_new_object();
	snprintf(r, sizeof(r), "#/components/schemas/%s", t->data_schema);
	jadd_str(x, "$ref", r);
	json_object_object_add(props, "data", x);
	own = json_object_new_object();
	json_object_object_add(own, "properties", props);
	x = json_object_new_object();
	jadd_str(x, "$ref", "#/components/schemas/WebhookEvent");
	all = json_object_new_array();
	json_object_array_add(all, x);
	json_object_array_add(all, own);
	sc = json_object_new_object();
	json_object_object_add(sc, "allOf", all);
	x = json_object_new_object();
	json_object_object_add(x, "schema", sc);
	body = json_object_new_object();
	json_object_object_add(body, "application/json", x);
	x = json_object_new_object();
	jadd_bool(x, "required", true);
	json_object_object_add(x, "content", body);
	return x;
}

/* One event's webhook: a POST to the customer's endpoint. */
static json_object *
webhook_op(const struct event_type *t)
{
	json_object	*op = json_object_new_object(), *tg, *resps, *ok;
	char		 id[64];

	event_op_id(t->name, id, sizeof(id));
	jadd_str(op, "operationId", id);
	tg = json_object_new_array();
	json_object_array_add(tg, json_object_new_string("webhooks"));
	json_object_object_add(op, "tags", tg);
	jadd_str(op, "summary", t->summary);
	jadd_str(op, "description",
	    "POSTed to each endpoint subscribed to "
	    "it. Check X-Formback-Signature (t=<unix "
	    "seconds>,v1=<hex>: HMAC-SHA256 keyed with the endpoint's "
	    "whole secret, whsec_ included, over `<t>.` and the raw "
	    "body) in constant time and discard a t more than 5 "
	    "minutes from the receive time. A 2xx answer is success; "
	    "anything else, or none, is tried again: 6 attempts in "
	    "all, after 1 minute, 5 minutes, 30 minutes, 2 hours and 6 "
	    "hours. Redirects are not followed.");
	json_object_object_add(op, "parameters", webhook_headers(t));
	json_object_object_add(op, "requestBody", webhook_body(t));
	resps = json_object_new_object();
	ok = json_object_new_object();
	jadd_str(ok, "description", "Received: not sent again.");
	json_object_object_add(resps, "2XX", ok);
	ok = json_object_new_object();
	jadd_str(ok, "description", "Not received: tried again (the "
	    "delivery rules above); an endpoint that keeps failing is "
	    "stopped (disabled_reason).");
	json_object_object_add(resps, "default", ok);
	json_object_object_add(op, "responses", resps);
	/* the receiver is the customer's: no key of ours */
	json_object_object_add(op, "security", json_object_new_array());
	return op;
}

/*
 * The events formback-webhooks sends (contract: Events), one webhook of
 * OpenAPI 3.1 each (events.c's event_types[]): its headers, the envelope
 * (WebhookEvent) with `type` fixed and `data` of its schema, and the
 * answers it takes as received.
 */
static json_object *
webhooks_json(void)
{
	const struct event_type	*t;
	json_object		*o = json_object_new_object(), *item;

	for (t = event_types; t->name != NULL; t++) {
		item = json_object_new_object();
		json_object_object_add(item, "post", webhook_op(t));
		json_object_object_add(o, t->name, item);
	}
	return o;
}

json_object *
openapi_document(const char *base_url)
{
	json_object	*doc = json_object_new_object(), *info, *servers, *srv;
	json_object	*paths, *item, *comp, *schemas;
	json_object	*ss, *bearer, *lic, *ext;
	json_object	*tags, *tag;
	struct texts	 t;
	char		 m[16], url[1024];
	size_t		 i, j;

	texts_read(&t);
	jadd_str(doc, "openapi", "3.1.0");
	info = json_object_new_object();
	jadd_str(info, "title", "Formback API");
	jadd_str(info, "version", "v1");
	add_text(info, &t, "info");
	lic = json_object_new_object();
	jadd_str(lic, "name", "Proprietary");
	jadd_str(lic, "identifier", "LicenseRef-Formback-Proprietary");
	json_object_object_add(info, "license", lic);
	json_object_object_add(doc, "info", info);
	/* the page rendered from this document, which the web server serves */
	ext = json_object_new_object();
	jadd_str(ext, "description", "The API reference, rendered from this "
	    "document (operators: formback.fcgi(8))");
	snprintf(url, sizeof(url), "%s%sdocs/api", base_url,
	    base_url[0] != '\0' && base_url[strlen(base_url) - 1] == '/' ?
	    "" : "/");
	jadd_str(ext, "url", url);
	json_object_object_add(doc, "externalDocs", ext);
	tags = json_object_new_array();
	tag = json_object_new_object();
	jadd_str(tag, "name", "public");
	add_text(tag, &t, "tag public");
	json_object_array_add(tags, tag);
	tag = json_object_new_object();
	jadd_str(tag, "name", "admin");
	add_text(tag, &t, "tag admin");
	json_object_array_add(tags, tag);
	tag = json_object_new_object();
	jadd_str(tag, "name", "webhooks");
	add_text(tag, &t, "tag webhooks");
	json_object_array_add(tags, tag);
	json_object_object_add(doc, "tags", tags);
	servers = json_object_new_array();
	srv = json_object_new_object();
	jadd_str(srv, "url", base_url);
	json_object_array_add(servers, srv);
	json_object_object_add(doc, "servers", servers);
	paths = json_object_new_object();
	for (i = 0; i < routes_len; i++) {
		/* outside the public contract (Conventions 6) */
		if ((routes[i].flags & R_INTERNAL) != 0)
			continue;
		if (!json_object_object_get_ex(paths, routes[i].path, &item)) {
			item = json_object_new_object();
			json_object_object_add(paths, routes[i].path, item);
		}
		for (j = 0; j < sizeof(m) - 1 &&
		    routes[i].method[j] != '\0'; j++)
			m[j] = (char)(routes[i].method[j] | 0x20);
		m[j] = '\0';
		json_object_object_add(item, m, operation_json(&routes[i], &t));
	}
	json_object_object_add(doc, "paths", paths);
	json_object_object_add(doc, "webhooks", webhooks_json());
	comp = json_object_new_object();
	schemas = json_tokener_parse(openapi_schemas_json);
	json_object_object_add(comp, "schemas", schemas);
	ss = json_object_new_object();
	bearer = json_object_new_object();
	jadd_str(bearer, "type", "http");
	jadd_str(bearer, "scheme", "bearer");
	add_text(bearer, &t, "scheme bearerAuth");
	json_object_object_add(ss, "bearerAuth", bearer);
	bearer = json_object_new_object();
	jadd_str(bearer, "type", "apiKey");
	jadd_str(bearer, "in", "cookie");
	jadd_str(bearer, "name", strncmp(base_url, "https://", 8) == 0 ?
	    "__Host-fb_session" : "fb_session");
	add_text(bearer, &t, "scheme sessionCookie");
	json_object_object_add(ss, "sessionCookie", bearer);
	json_object_object_add(comp, "securitySchemes", ss);
	json_object_object_add(comp, "responses", components_responses());
	json_object_object_add(doc, "components", comp);
	return doc;
}

/* GET /api/v1/openapi.json: built once per process (it derives from code). */
enum fb_err
api_openapi_get(struct req *r)
{
	static char	*cached;
	json_object	*doc;

	if (cached == NULL) {
		doc = openapi_document(r->conf->base_url);
		cached = strdup(json_text(doc));
		json_object_put(doc);
		if (cached == NULL)
			return FB_ENOMEM;
	}
	buf_reset(&r->out);
	r->status = 200;
	/* public, and read by documentation tools of any origin (issue 44) */
	if (req_header(r, "Access-Control-Allow-Origin", "*") != FB_OK)
		return FB_ENOMEM;
	return buf_addstr(&r->out, cached);
}
