/*
 * The request core on real endpoints: routing, body and parameter checks,
 * paging, idempotency, dry runs, the audit log (contract: conventions,
 * Errors, Idempotency, Authentication 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"
#include "../../src/api.h"

Test(core, unknown_path_is_404)
{
	struct resp *r = http("GET", "/api/v1/nothing-here", NULL, NULL, NULL);

	expect_error(r, 404, "not_found", "not_found", NULL);
	resp_free(r);
	r = http("GET", "/api/v1/sites/", NULL, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", NULL);
	resp_free(r);
}

Test(core, wrong_method_is_405_with_allow)
{
	struct resp *r = http("DELETE", "/api/v1/campaigns", NULL, NULL, NULL);

	expect_error(r, 405, "invalid_request", "method_not_allowed", NULL);
	cr_assert_str_eq(resp_header(r, "Allow"), "GET, POST");
	resp_free(r);
}

Test(core, malformed_json_is_400)
{
	struct fx	 f;
	struct resp	*r;
	char		 deep[512];
	int		 i;

	fx_new(&f, "pro", 0);
	r = http("POST", "/api/v1/campaigns", f.live, "{\"key\": ", NULL);
	expect_error(r, 400, "invalid_request", "invalid_json", "body");
	resp_free(r);
	r = http("POST", "/api/v1/campaigns", f.live, "not json at all", NULL);
	expect_error(r, 400, "invalid_request", "invalid_json", "body");
	resp_free(r);
	r = http("POST", "/api/v1/campaigns", f.live, "[1,2]", NULL);
	expect_error(r, 400, "invalid_request", "invalid_json", "body");
	resp_free(r);
	r = http("POST", "/api/v1/campaigns", f.live, "{\"a\":1} trailing",
	    NULL);
	expect_error(r, 400, "invalid_request", "invalid_json", "body");
	resp_free(r);
	/* nesting past max_json_depth */
	for (i = 0; i < 200; i++)
		deep[i] = '[';
	deep[i] = '\0';
	snprintf(deep + 200, sizeof(deep) - 200, "%s", "");
	{
		char	 b[1024];

		snprintf(b, sizeof(b), "{\"x\":%s", deep);
		r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
		expect_error(r, 400, "invalid_request", "invalid_json", "body");
		resp_free(r);
	}
	/* invalid UTF-8 */
	r = http("POST", "/api/v1/campaigns", f.live, "{\"name\":\"\xff\xfe\"}",
	    NULL);
	expect_error(r, 400, "invalid_request", "invalid_json", "body");
	resp_free(r);
	/* an escaped surrogate outside a pair: no character, never U+FFFD */
	r = http("POST", "/api/v1/campaigns", f.live,
	    "{\"name\":\"a\\ud800b\"}", NULL);
	expect_error(r, 400, "invalid_request", "invalid_json", "body");
	resp_free(r);
	r = http("POST", "/tag/v1/events", NULL,
	    "{\"v\":1,\"url\":\"\\udc00\"}", NULL);
	expect_error(r, 400, "invalid_request", "invalid_json", "body");
	resp_free(r);
}

#define BIG_BODY	(2u << 20)	/* past the 1 MiB max_body_bytes */

/* A JSON object of BIG_BODY bytes, mostly blanks (the caller frees it). */
static char *
big_body(void)
{
	char	*b = malloc(BIG_BODY + 1);

	cr_assert_not_null(b);
	memset(b, ' ', BIG_BODY);
	b[0] = '{';
	b[BIG_BODY - 1] = '}';
	b[BIG_BODY] = '\0';
	return b;
}

Test(core, body_too_large_is_400)
{
	struct fx	 f;
	struct resp	*r;
	char		*b = big_body();

	fx_new(&f, "pro", 0);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 400, "invalid_request", "body_too_large", NULL);
	/*
	 * an authenticated answer: it carries the rate headers (contract:
	 * Limits)
	 */
	cr_assert_not_null(resp_header(r, "X-RateLimit-Limit"));
	cr_assert_not_null(resp_header(r, "X-RateLimit-Remaining"));
	cr_assert_not_null(resp_header(r, "X-RateLimit-Reset"));
	resp_free(r);
	/* without a key the 401 comes first */
	r = http("POST", "/api/v1/campaigns", NULL, b, NULL);
	expect_error(r, 401, "authentication_error", "api_key_missing", NULL);
	resp_free(r);
	free(b);
}

/*
 * A body sent in chunks (Transfer-Encoding: chunked, no Content-Length)
 * is read whole behind every web server (lighttpd, mod_fcgid,
 * mod_proxy_fcgi), and one past max_body_bytes is refused alike.
 */
Test(core, chunked_body_is_read)
{
	struct fx	 f;
	struct resp	*r;
	char		*b = big_body();

	fx_new(&f, "pro", 0);
	r = http("POST", "/api/v1/suppressions", f.live,
	    "{\"value\":\"09011112222\","
	    "\"memo\":\"chunked\"}", "Transfer-Encoding: chunked");
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "memo"), "chunked");
	resp_free(r);
	/* past the 16 KiB mod_proxy_fcgi reads ahead: handed on as it comes */
	memset(b, ' ', 100000);
	snprintf(b + 100000, BIG_BODY - 100000, "{\"value\":\"09011113333\"}");
	r = http("POST", "/api/v1/suppressions", f.live, b,
	    "Transfer-Encoding: chunked");
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	free(b);
	b = big_body();
	r = http("POST", "/api/v1/suppressions", f.live, b,
	    "Transfer-Encoding: chunked");
	expect_error(r, 400, "invalid_request", "body_too_large", NULL);
	resp_free(r);
	free(b);
}

Test(core, missing_and_mistyped_fields_are_422)
{
	struct fx	 f;
	struct resp	*r;
	char		 b[512];

	fx_new(&f, "pro", 0);
	snprintf(b, sizeof(b), "{\"site_id\":\"%s\",\"name\":\"n\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing", "key");
	resp_free(r);
	snprintf(b, sizeof(b), "{\"site_id\":\"%s\",\"key\":\"k\",\"name\":5}",
	    f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "name");
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"site_id\":\"%s\",\"key\":\"k\",\"name\":\"n\","
	    "\"abandon_wait_minutes\":\"30\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "abandon_wait_minutes");
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"site_id\":\"%s\",\"key\":\"k\",\"name\":\"n\","
	    "\"abandon_wait_minutes\":0}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "abandon_wait_minutes");
	resp_free(r);
	r = http("POST", "/api/v1/campaigns", f.live,
	    "{\"site_id\":\"x\",\"key\":\"k\",\"name\":\"n\"}", NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "site_id");
	resp_free(r);
	r = http("POST", "/api/v1/campaigns", f.live, "", NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing", "site_id");
	resp_free(r);
}

Test(core, bad_query_and_path_parameters_are_400)
{
	struct fx	 f;
	struct resp	*r;
	static const char *const bad[] = { "limit=0", "limit=201", "limit=abc",
	    "limit=-1", "limit=", "limit=99999999999999999999" };
	char		 p[256];
	size_t		 i;

	fx_new(&f, "pro", 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(p, sizeof(p), "/api/v1/sites?%s", bad[i]);
		r = http("GET", p, f.live, NULL, NULL);
		expect_error(r, 400, "invalid_request", "parameter_invalid",
		    "limit");
		resp_free(r);
	}
	r = http("GET", "/api/v1/sites?limit=200", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	resp_free(r);
	r = http("GET", "/api/v1/sites?limit=1", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	resp_free(r);
	r = http("GET", "/api/v1/campaigns?status=running", f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "status");
	resp_free(r);
	r = http("GET", "/api/v1/campaigns?site_id=42", f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "site_id");
	resp_free(r);
	r = http("GET", "/api/v1/campaigns/not-a-uuid", f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid",
	    "campaign_id");
	resp_free(r);
	r = http("GET", "/api/v1/sites/123", f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "site_id");
	resp_free(r);
	/* a broken percent escape names its parameter */
	r = http("GET", "/api/v1/sites?limit=%zz", f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "limit");
	resp_free(r);
	r = http("GET", "/api/v1/sites?limit=5&cursor=ab%2", f.live, NULL,
	    NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "cursor");
	resp_free(r);
}

/*
 * What lighttpd refuses before any worker sees it still comes in the
 * contract's envelope (fcgi-conf/errors): a POST without Content-Length,
 * a GET with a body, a path its normalizing takes out of the routes
 * (.. and an encoded slash) or that names no file.
 */
Test(core, web_server_errors_are_json)
{
	static const char *const away[] = {
	    "/api/v1/leads/..%2f..%2f..%2fetc%2fpasswd", "/no-such-file.txt" };
	struct fx	 f;
	struct resp	*r;
	size_t		 i;

	fx_new(&f, "pro", 0);
	r = http("POST", "/api/v1/campaigns", f.live, NULL, NULL);
	cr_assert_eq(r->status, 411, "%s", r->body);
	cr_assert_str_eq(resp_header(r, "Content-Type"),
	    "application/json; charset=utf-8");
	cr_assert_str_eq(jget(r->json, "error.type"), "invalid_request");
	cr_assert_str_eq(jget(r->json, "error.code"), "length_required");
	cr_assert_not_null(jget(r->json, "error.message"));
	resp_free(r);
	r = http("GET", "/api/v1/sites", f.live, "{}", NULL);
	cr_assert_eq(r->status, 400, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "error.code"), "bad_request", "%s",
	    r->body);
	resp_free(r);
	for (i = 0; i < sizeof(away) / sizeof(away[0]); i++) {
		r = http("GET", away[i], f.live, NULL, NULL);
		cr_assert_eq(r->status, 404, "%s: %s", away[i], r->body);
		cr_assert_str_eq(resp_header(r, "Content-Type"),
		    "application/json; charset=utf-8");
		cr_assert_str_eq(jget(r->json, "error.type"), "not_found", "%s",
		    r->body);
		cr_assert_str_eq(jget(r->json, "error.code"), "not_found");
		resp_free(r);
	}
}

Test(core, cursor_never_issued_is_400)
{
	struct fx	 f;
	struct resp	*r;
	char		 a[40], b[40], p[512], cur[256];

	fx_new(&f, "pro", 0);
	r = http("GET",
	    "/api/v1/campaigns?cursor="
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "cursor_invalid", "cursor");
	resp_free(r);
	r = http("GET", "/api/v1/campaigns?cursor=hello", f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "cursor_invalid", "cursor");
	resp_free(r);
	/* a real cursor of another list is not accepted here */
	fx_campaign(&f, "c1", a);
	fx_campaign(&f, "c2", b);
	r = http("GET", "/api/v1/campaigns?limit=1", f.live, NULL, NULL);
	snprintf(cur, sizeof(cur), "%s", jget(r->json, "next_cursor"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/sites?cursor=%s", cur);
	r = http("GET", p, f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "cursor_invalid", "cursor");
	resp_free(r);
	/* a tampered cursor is refused */
	cur[5] = cur[5] == 'A' ? 'B' : 'A';
	snprintf(p, sizeof(p), "/api/v1/campaigns?cursor=%s", cur);
	r = http("GET", p, f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "cursor_invalid", "cursor");
	resp_free(r);
}

Test(core, paging_walks_every_row_once)
{
	struct fx	 f;
	struct resp	*r;
	char		 ids[5][40], key[16], p[512], cur[256] = "";
	char		 seen[8][40];
	int		 i, n = 0, pages = 0;
	json_object	*data;

	fx_new(&f, "pro", 0);
	for (i = 0; i < 5; i++) {
		snprintf(key, sizeof(key), "page%d", i);
		fx_campaign(&f, key, ids[i]);
	}
	do {
		snprintf(p, sizeof(p), "/api/v1/campaigns?limit=2%s%s",
		    cur[0] ? "&cursor=" : "", cur);
		r = http("GET", p, f.live, NULL, NULL);
		cr_assert_eq(r->status, 200, "%s", r->body);
		data = jobj(r->json, "data");
		for (i = 0; i < (int)json_object_array_length(data); i++)
			snprintf(seen[n++], 40, "%s",
			    jget(data, i == 0 ? "0.id" : "1.id"));
		pages++;
		if (jget(r->json, "next_cursor") != NULL) {
			cr_assert(json_object_get_boolean(jobj(r->json,
			    "has_more")));
			snprintf(cur, sizeof(cur), "%s",
			    jget(r->json, "next_cursor"));
		} else {
			cr_assert(!json_object_get_boolean(jobj(r->json,
			    "has_more")));
			cur[0] = '\0';
		}
		resp_free(r);
	} while (cur[0] != '\0' && pages < 10);
	cr_assert_eq(pages, 3);
	cr_assert_eq(n, 5);
	/* newest first */
	for (i = 0; i < 5; i++)
		cr_assert_str_eq(seen[i], ids[4 - i]);
}

Test(core, request_id_everywhere)
{
	struct resp *r = http("GET", "/api/v1/openapi.json", NULL, NULL, NULL);

	cr_assert_eq(r->status, 200);
	cr_assert_not_null(resp_header(r, "X-Request-Id"));
	/* public: a documentation tool of any origin may read it */
	cr_assert_str_eq(resp_header(r, "Access-Control-Allow-Origin"), "*");
	resp_free(r);
}

/*
 * Every answer of formback.fcgi says X-Content-Type-Options: nosniff
 * (issue 43): a JSON success, an error, a keyless path and the text of
 * the metrics, so no browser reads one as another type.
 */
Test(core, nosniff_on_every_answer)
{
	static const char *const paths[] = { "/api/v1/openapi.json",
	    "/api/v1/health", "/api/v1/sites", "/api/v1/no-such-path" };
	struct fx	 f;
	struct resp	*r;
	size_t		 i;

	fx_new(&f, "pro", 0);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		r = http("GET", paths[i], f.live, NULL, NULL);
		cr_assert_not_null(resp_header(r, "X-Content-Type-Options"),
		    "%s", paths[i]);
		cr_assert_str_eq(resp_header(r, "X-Content-Type-Options"),
		    "nosniff", "%s", paths[i]);
		resp_free(r);
	}
}

/*
 * The shipped fragments compress for a client that asks (issue 44): the
 * API's JSON from formback.fcgi and tag.js from the document root, with
 * Vary: Accept-Encoding, and leave a client that does not ask alone; the
 * static files say nosniff too (issue 43).
 */
Test(core, compressed_when_asked)
{
	static const char *const paths[] = { "/api/v1/openapi.json",
	    "/tag.js" };
	struct resp	*r;
	size_t		 i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		r = http("GET", paths[i], NULL, NULL, "Accept-Encoding: gzip");
		cr_assert_eq(r->status, 200, "%s", paths[i]);
		cr_assert_str_eq(resp_header(r, "Content-Encoding"), "gzip",
		    "%s", paths[i]);
		cr_assert_not_null(resp_header(r, "Vary"), "%s", paths[i]);
		cr_assert_not_null(strstr(resp_header(r, "Vary"),
		    "Accept-Encoding"), "%s", paths[i]);
		cr_assert_str_eq(resp_header(r, "X-Content-Type-Options"),
		    "nosniff", "%s", paths[i]);
		resp_free(r);
		r = http("GET", paths[i], NULL, NULL, NULL);
		cr_assert_null(resp_header(r, "Content-Encoding"), "%s",
		    paths[i]);
		resp_free(r);
	}
}

/*
 * Conditional requests (issue 44; RFC 9110 13): a GET's ETag, 304 for
 * If-None-Match, 412 precondition_failed for a PATCH of another version
 * (nothing written), the new version's tag in the write's answer, and a
 * part of a resource (PUT url-rules) checked against its parent's.
 */
Test(core, etag_if_none_match_and_if_match)
{
	struct fx	 f;
	struct resp	*r;
	char		 c[40], path[128], tag[64], hdr[128], old[64];

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "etag", c);
	snprintf(path, sizeof(path), "/api/v1/campaigns/%s", c);
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_not_null(resp_header(r, "ETag"));
	snprintf(tag, sizeof(tag), "%s", resp_header(r, "ETag"));
	cr_assert(tag[0] == '"' && strlen(tag) == 34, "%s", tag);
	resp_free(r);
	snprintf(hdr, sizeof(hdr), "If-None-Match: \"x\", W/%s", tag);
	r = http("GET", path, f.live, NULL, hdr);
	cr_assert_eq(r->status, 304, "%s", r->body);
	cr_assert_str_eq(r->body, "");
	cr_assert_str_eq(resp_header(r, "ETag"), tag);
	resp_free(r);
	/* another version: refused, nothing written */
	r = http("PATCH", path, f.live, "{\"name\":\"新しい名前\"}",
	    "If-Match: \"0123456789abcdef0123456789abcdef\"");
	expect_error(r, 412, "invalid_request", "precondition_failed",
	    "If-Match");
	resp_free(r);
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_str_eq(resp_header(r, "ETag"), tag);
	resp_free(r);
	/* this version: written, the new tag given */
	snprintf(hdr, sizeof(hdr), "If-Match: %s", tag);
	r = http("PATCH", path, f.live, "{\"name\":\"新しい名前\"}", hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	snprintf(old, sizeof(old), "%s", tag);
	snprintf(tag, sizeof(tag), "%s", resp_header(r, "ETag"));
	cr_assert_str_neq(tag, old);
	resp_free(r);
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_str_eq(resp_header(r, "ETag"), tag);
	resp_free(r);
	/* the old tag again: refused */
	snprintf(hdr, sizeof(hdr), "If-Match: %s", old);
	r = http("PATCH", path, f.live, "{\"name\":\"また別の名前\"}", hdr);
	expect_error(r, 412, "invalid_request", "precondition_failed",
	    "If-Match");
	resp_free(r);
	/* a part of the campaign: its rules, against the campaign's tag */
	snprintf(path, sizeof(path), "/api/v1/campaigns/%s/url-rules", c);
	r = http("PUT", path, f.live, "{\"rules\":[]}", hdr);
	expect_error(r, 412, "invalid_request", "precondition_failed",
	    "If-Match");
	resp_free(r);
	snprintf(hdr, sizeof(hdr), "If-Match: %s", tag);
	r = http("PUT", path, f.live, "{\"rules\":[]}", hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	/* a missing resource is its own 404; * is any version */
	r = http("PATCH",
	    "/api/v1/campaigns/01a22222-2222-7222-8222-222222222222",
	    f.live, "{\"name\":\"x\"}", "If-Match: *");
	cr_assert_eq(r->status, 404, "%s", r->body);
	resp_free(r);
	snprintf(path, sizeof(path), "/api/v1/campaigns/%s", c);
	r = http("PATCH", path, f.live, "{\"name\":\"x\"}", "If-Match: *");
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
}

/*
 * An answer is whole or nothing: a Range request (a download tool's, a
 * cache's) gets all of it, 200, as it would without one (RFC 9110 14.2),
 * not a piece of a JSON document, 206, which lighttpd would cut from a
 * short answer but for the Accept-Ranges: none of main-fcgi.c: a short
 * answer, one of the keyless paths and a long one.
 */
Test(core, range_request_gets_the_whole_answer)
{
	static const char *const ranges[] = {
		"Range: bytes=0-10", "Range: bytes=-5", "Range: bytes=2-",
		"Range: bytes=0-1,4-5", "Range: bytes=999999-",
	};
	struct fx	 fx;
	struct resp	*whole, *r;
	const char	*paths[] = { "/api/v1/sites", "/api/v1/health",
			    "/api/v1/openapi.json" };
	size_t		 i, k;

	fx_new(&fx, "pro", 0);
	for (i = 0; i < NELEM(paths); i++) {
		whole = http("GET", paths[i], i == 0 ? fx.live : NULL, NULL,
		    NULL);
		cr_assert_eq(whole->status, 200, "%s", paths[i]);
		for (k = 0; k < NELEM(ranges); k++) {
			r = http("GET", paths[i], i == 0 ? fx.live : NULL, NULL,
			    ranges[k]);
			cr_assert_eq(r->status, 200, "%s %s: %ld", paths[i],
			    ranges[k], r->status);
			cr_assert_null(resp_header(r, "Content-Range"), "%s %s",
			    paths[i], ranges[k]);
			cr_assert_str_eq(r->body, whole->body, "%s %s",
			    paths[i],
			    ranges[k]);
			resp_free(r);
		}
		resp_free(whole);
	}
}

/*
 * An answer longer than libfcgi's buffer goes out as formback.fcgi's own
 * FastCGI records of up to 65,528 bytes (main-fcgi.c): one three records
 * long arrives whole, byte for byte, with its headers.
 */
Test(core, long_answer_whole)
{
	json_object	*doc = openapi_document(getenv("FB_TEST_URL"));
	const char	*want = json_text(doc);
	struct resp	*r = http("GET", "/api/v1/openapi.json", NULL, NULL,
	    NULL);

	cr_assert_eq(r->status, 200);
	cr_assert_gt(strlen(want), 2 * 65528);
	cr_assert_eq(strlen(r->body), strlen(want));
	cr_assert(strcmp(r->body, want) == 0);
	cr_assert_not_null(resp_header(r, "X-Request-Id"));
	resp_free(r);
	json_object_put(doc);
}

Test(core, idempotent_create_exists_once)
{
	struct fx	 f;
	struct resp	*a, *b;
	char		 body[512];

	fx_new(&f, "pro", 0);
	snprintf(body, sizeof(body),
	    "{\"site_id\":\"%s\",\"key\":\"once\",\"name\":\"一度だけ\"}", f.site);
	a = http("POST", "/api/v1/campaigns", f.live, body,
	    "Idempotency-Key: 7c1d-once");
	cr_assert_eq(a->status, 201, "%s", a->body);
	cr_assert_null(resp_header(a, "Idempotency-Replayed"));
	b = http("POST", "/api/v1/campaigns", f.live, body,
	    "Idempotency-Key: 7c1d-once");
	cr_assert_eq(b->status, 201, "%s", b->body);
	cr_assert_str_eq(resp_header(b, "Idempotency-Replayed"), "true");
	cr_assert_str_eq(a->body, b->body);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM campaigns WHERE tenant_id = "
	    "'%s'", f.tenant), "1");
	resp_free(a);
	resp_free(b);
	/* same key, other body: 422 */
	snprintf(body, sizeof(body),
	    "{\"site_id\":\"%s\",\"key\":\"twice\",\"name\":\"x\"}", f.site);
	a = http("POST", "/api/v1/campaigns", f.live, body,
	    "Idempotency-Key: 7c1d-once");
	expect_error(a, 422, "invalid_request", "idempotency_key_reused", NULL);
	resp_free(a);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM campaigns WHERE tenant_id = "
	    "'%s'", f.tenant), "1");
}

Test(core, idempotent_4xx_is_replayed)
{
	struct fx	 f;
	struct resp	*a, *b;
	char		 body[512];

	fx_new(&f, "pro", 0);
	snprintf(body, sizeof(body), "{\"site_id\":\"%s\",\"name\":\"no key\"}",
	    f.site);
	a = http("POST", "/api/v1/campaigns", f.live, body,
	    "Idempotency-Key: bad-1");
	expect_error(a, 422, "invalid_request", "parameter_missing", "key");
	b = http("POST", "/api/v1/campaigns", f.live, body,
	    "Idempotency-Key: bad-1");
	cr_assert_eq(b->status, 422);
	cr_assert_str_eq(resp_header(b, "Idempotency-Replayed"), "true");
	cr_assert_str_eq(a->body, b->body);
	resp_free(a);
	resp_free(b);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM campaigns WHERE tenant_id = "
	    "'%s'", f.tenant), "0");
}

Test(core, idempotency_key_invalid)
{
	struct fx	 f;
	struct resp	*r;
	char		 hdr[400], body[256];

	fx_new(&f, "pro", 0);
	memcpy(hdr, "Idempotency-Key: ", 17);
	memset(hdr + 17, 'k', 300);
	hdr[317] = '\0';
	snprintf(body, sizeof(body),
	    "{\"site_id\":\"%s\",\"key\":\"k\",\"name\":\"n\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, body, hdr);
	expect_error(r, 400, "invalid_request", "idempotency_key_invalid",
	    "Idempotency-Key");
	resp_free(r);
	/* a test key's dry run answers the same (contract: Authentication 3) */
	r = http("POST", "/api/v1/campaigns", f.test, body, hdr);
	expect_error(r, 400, "invalid_request", "idempotency_key_invalid",
	    "Idempotency-Key");
	cr_assert_str_eq(resp_header(r, "Formback-Dry-Run"), "true");
	resp_free(r);
}

/*
 * While another transaction holds the key's row, a second request is
 * answered 409 at once instead of waiting on the lock (design 6).
 */
Test(core, idempotency_key_in_progress, .timeout = 30)
{
	struct fx	 f;
	struct resp	*r;
	char		 body[256], cmd[1024];
	FILE		*p;
	int		 i;

	fx_new(&f, "pro", 0);
	snprintf(cmd, sizeof(cmd),
	    "mariadb --no-defaults -uroot --socket=%s formback >/dev/null",
	    getenv("FB_DB_SOCKET"));
	p = popen(cmd, "w");
	fprintf(p, "BEGIN; INSERT INTO idempotency_keys (tenant_id, endpoint, "
	    "idem_key, request_hash) VALUES ('%s', 'POST /api/v1/campaigns', "
	    "'busy-1', REPEAT('x', 32)); SELECT SLEEP(4); "
	    "ROLLBACK;\n", f.tenant);
	fflush(p);
	/* the holder has its row once it sleeps: wait for that, not a time */
	for (i = 0; i < 500 &&
	    strcmp(sql("SELECT COUNT(*) FROM information_schema."
	    "PROCESSLIST WHERE INFO = 'SELECT SLEEP(4)'"), "1") != 0; i++)
		usleep(10000);
	cr_assert_lt(i, 500, "the holder never took the key");
	snprintf(body, sizeof(body),
	    "{\"site_id\":\"%s\",\"key\":\"k\",\"name\":\"n\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, body,
	    "Idempotency-Key: busy-1");
	expect_error(r, 409, "invalid_request", "idempotency_key_in_progress",
	    NULL);
	resp_free(r);
	pclose(p);
	/* after the holder rolled back, the key works */
	r = http("POST", "/api/v1/campaigns", f.live, body,
	    "Idempotency-Key: busy-1");
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
}

Test(core, test_key_dry_run_leaves_nothing)
{
	struct fx	 f;
	struct resp	*r, *live;
	char		 body[256], path[128];

	fx_new(&f, "pro", 0);
	snprintf(body, sizeof(body),
	    "{\"site_id\":\"%s\",\"key\":\"dry\",\"name\":\"試し\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.test, body,
	    "Idempotency-Key: dry-1");
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(resp_header(r, "Formback-Dry-Run"), "true");
	cr_assert_str_eq(jget(r->json, "status"), "paused");
	cr_assert_str_eq(jget(r->json, "key"), "dry");
	snprintf(path, sizeof(path), "/api/v1/campaigns/%s",
	    jget(r->json, "id"));
	/* the live answer has the same shape */
	live = http("POST", "/api/v1/campaigns", f.live, body, NULL);
	cr_assert_eq(live->status, 201);
	cr_assert_eq(json_object_object_length(r->json),
	    json_object_object_length(live->json));
	cr_assert_null(resp_header(live, "Formback-Dry-Run"));
	resp_free(live);
	resp_free(r);
	r = http("GET", path, f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "campaign_id");
	resp_free(r);
	/* resending is a dry run every time, never a replay */
	r = http("POST", "/api/v1/campaigns", f.test, body,
	    "Idempotency-Key: dry-1");
	/* key taken by the live create */
	cr_assert_eq(r->status, 409, "%s", r->body);
	cr_assert_str_eq(resp_header(r, "Formback-Dry-Run"), "true");
	cr_assert_null(resp_header(r, "Idempotency-Replayed"));
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM campaigns WHERE tenant_id = "
	    "'%s'", f.tenant), "1");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM idempotency_keys WHERE "
	    "tenant_id = '%s'", f.tenant), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE tenant_id = "
	    "'%s' AND actor_type = 'api_key'", f.tenant), "1");
}

Test(core, audit_row_with_each_write)
{
	struct fx	 f;
	char		 id[40];

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "audited", id);
	cr_assert_str_eq(sql("SELECT action FROM audit_log WHERE tenant_id = "
	    "'%s' AND target_id = '%s'", f.tenant, id), "createCampaign");
	cr_assert_neq(strlen(sql("SELECT request_id FROM audit_log WHERE "
	    "target_id = '%s'", id)), 0);
}

Test(core, health_needs_no_key_and_names_the_schema)
{
	struct resp	*r = http("GET", "/api/v1/health", NULL, NULL, NULL);
	char		 v[16];

	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "status"), "ok");
	snprintf(v, sizeof(v), "%s",
	    sql("SELECT MAX(version) FROM schema_migrations"));
	cr_assert_str_eq(jget(r->json, "schema"), v);
	cr_assert_eq(json_object_object_length(r->json), 2, "%s", r->body);
	resp_free(r);
}

/*
 * Idempotency keys are scoped per tenant and per operation, expire after
 * 24 hours (contract: Idempotency), and expired records are purged.
 */
Test(core, idempotency_key_scoped_and_expiring)
{
	struct fx	 f, g;
	struct resp	*a, *b;
	char		 body[512], key[96];

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	snprintf(key, sizeof(key), "Idempotency-Key: shared-%s", f.tenant);
	snprintf(body, sizeof(body),
	    "{\"site_id\":\"%s\",\"key\":\"k1\",\"name\":\"A\"}", f.site);
	a = http("POST", "/api/v1/campaigns", f.live, body, key);
	cr_assert_eq(a->status, 201, "%s", a->body);
	resp_free(a);
	/* another tenant, the same key: its own request */
	snprintf(body, sizeof(body),
	    "{\"site_id\":\"%s\",\"key\":\"k1\",\"name\":\"B\"}", g.site);
	b = http("POST", "/api/v1/campaigns", g.live, body, key);
	cr_assert_eq(b->status, 201, "%s", b->body);
	cr_assert_null(resp_header(b, "Idempotency-Replayed"));
	cr_assert_str_eq(jget(b->json, "name"), "B");
	resp_free(b);
	/* the same tenant, the same key, another operation: its own too */
	a = http("POST", "/api/v1/messages", f.live,
	    "{\"channel\":\"sms\",\"body\":\"x\"}", key);
	cr_assert_eq(a->status, 201, "%s", a->body);
	cr_assert_null(resp_header(a, "Idempotency-Replayed"));
	resp_free(a);
	/* 25 hours on, the key is free again: a new body is a new request */
	sql("UPDATE idempotency_keys SET created_at = NOW(6) - INTERVAL 25 "
	    "HOUR WHERE tenant_id = '%s'", f.tenant);
	snprintf(body, sizeof(body),
	    "{\"site_id\":\"%s\",\"key\":\"k2\",\"name\":\"C\"}", f.site);
	a = http("POST", "/api/v1/campaigns", f.live, body, key);
	cr_assert_eq(a->status, 201, "%s", a->body);
	cr_assert_null(resp_header(a, "Idempotency-Replayed"));
	resp_free(a);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM campaigns WHERE tenant_id = "
	    "'%s'",
	    f.tenant), "2");
	/* and formback-deliver purges what expired */
	cr_assert_neq(atoi(sql("SELECT COUNT(*) FROM idempotency_keys WHERE "
	    "tenant_id = '%s' AND created_at < NOW(6) - INTERVAL 24 "
	    "HOUR", f.tenant)), 0);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" >/dev/null 2>&1"),
	    0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM idempotency_keys WHERE "
	    "tenant_id = '%s' AND created_at < NOW(6) - INTERVAL 24 "
	    "HOUR", f.tenant), "0");
}

/*
 * Retention (issue 18; formback.fcgi(8) "Retention", formback.conf(5)):
 * formback-deliver deletes tag events, audit-log rows and click and open
 * links older than their configured days, keeps what is younger and
 * every opt-out link, and keeps everything of a kind set to 0.
 */
Test(core, retention_deletes_what_outlived_its_days)
{
	struct fx	 f;
	struct resp	*r;
	struct tag_ev	 ev = { .type = "page_view",
	    .visitor = "7e7e7e7e-0000-4000-8000-000000000001",
	    .url = "https://shop.example.jp/", .consent = TAG_CONSENT_ABSENT };
	char		 b[512], conf[512], cmd[2048];

	fx_new(&f, "pro", 0);
	/* two events, an audit row (a campaign's creation), three links */
	tag_ev_post(&f, &ev);
	tag_ev_post(&f, &ev);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM tag_events WHERE site_id = "
	    "'%s'", f.site),
	    "2");
	sql("UPDATE tag_events SET received_at = NOW(6) - INTERVAL 401 DAY "
	    "WHERE site_id = '%s' ORDER BY id LIMIT 1", f.site);
	sql("UPDATE tag_events SET received_at = NOW(6) - INTERVAL 399 DAY "
	    "WHERE site_id = '%s' AND received_at > NOW(6) - INTERVAL 1 "
	    "DAY", f.site);
	snprintf(b, sizeof(b),
	    "{\"site_id\":\"%s\",\"key\":\"ret\",\"name\":\"R\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	sql("UPDATE audit_log SET created_at = NOW(6) - INTERVAL 731 DAY WHERE "
	    "tenant_id = '%s'", f.tenant);
	sql("INSERT INTO links (token, tenant_id, delivery_id, lead_id, kind, "
	    "created_at) VALUES (LEFT(MD5(RAND()), 10), '%s', UUID(), UUID(), "
	    "'click', NOW(6) - INTERVAL 401 DAY), (LEFT(MD5(RAND()), 10), "
	    "'%s', UUID(), UUID(), 'optout', NOW(6) - INTERVAL 401 DAY), "
	    "(LEFT(MD5(RAND()), 10), '%s', UUID(), UUID(), 'open', NOW(6) - "
	    "INTERVAL 399 DAY)", f.tenant, f.tenant, f.tenant);

	/* 0: kept for ever */
	snprintf(conf, sizeof(conf), "%s.keep", getenv("FORMBACK_CONF"));
	snprintf(cmd, sizeof(cmd),
	    "cp \"$FORMBACK_CONF\" '%s' && printf '%%s\\n' "
	    "'tag_event_retention_days = 0' 'audit_retention_days = 0' "
	    "'link_retention_days = 0' >> '%s' && FORMBACK_CONF='%s' "
	    "\"$FB_CTL_DIR/formback-deliver\" >/dev/null "
	    "2>&1", conf, conf, conf);
	cr_assert_eq(system(cmd), 0);
	cr_assert_str_eq(sql_row("SELECT (SELECT COUNT(*) FROM tag_events "
	    "WHERE site_id = '%s'), (SELECT COUNT(*) > 0 FROM audit_log WHERE "
	    "tenant_id = '%s'), (SELECT COUNT(*) FROM links WHERE tenant_id = "
	    "'%s')", f.site, f.tenant, f.tenant),
	    "2\t1\t3");
	/* the defaults: 400, 730 and 400 days */
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" >/dev/null 2>&1"),
	    0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM tag_events WHERE site_id = "
	    "'%s' AND received_at > NOW(6) - INTERVAL 400 DAY", f.site), "1");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM tag_events WHERE site_id = "
	    "'%s'", f.site),
	    "1");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE tenant_id = "
	    "'%s'",
	    f.tenant), "0");
	cr_assert_str_eq(sql("SELECT GROUP_CONCAT(kind ORDER BY kind) FROM "
	    "links WHERE tenant_id = '%s'", f.tenant), "open,optout");
}
