/*
 * Authentication, scopes and the rate limit (contract: Authentication; Limits).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <curl/curl.h>

#include "harness.h"

Test(auth, missing_key)
{
	struct resp *r = http("GET", "/api/v1/sites", NULL, NULL, NULL);

	expect_error(r, 401, "authentication_error", "api_key_missing", NULL);
	cr_assert_not_null(resp_header(r, "WWW-Authenticate"));
	cr_assert_null(resp_header(r, "X-RateLimit-Limit"));
	resp_free(r);
}

Test(auth, wrong_scheme_and_unknown_key)
{
	struct resp	*r;

	r = http("GET", "/api/v1/sites", NULL, NULL,
	    "Authorization: Basic Zm9vOmJhcg==");
	expect_error(r, 401, "authentication_error", "api_key_invalid", NULL);
	resp_free(r);
	r = http("GET", "/api/v1/sites",
	    "fb_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", NULL, NULL);
	expect_error(r, 401, "authentication_error", "api_key_invalid", NULL);
	resp_free(r);
	r = http("GET", "/api/v1/sites", "not-a-key", NULL, NULL);
	expect_error(r, 401, "authentication_error", "api_key_invalid", NULL);
	resp_free(r);
}

Test(auth, key_in_query_is_refused)
{
	struct fx	 f;
	char		 path[256];
	struct resp	*r;

	fx_new(&f, "pro", 0);
	snprintf(path, sizeof(path), "/api/v1/sites?api_key=%s", f.live);
	r = http("GET", path, NULL, NULL, NULL);
	expect_error(r, 401, "authentication_error", "api_key_in_query", NULL);
	resp_free(r);
}

Test(auth, revoked_key)
{
	struct fx	 f;
	char		 key[80], id[40];
	struct resp	*r;

	fx_new(&f, "pro", 0);
	fx_key(&f, "live", "all", key, id);
	r = http("GET", "/api/v1/sites", key, NULL, NULL);
	cr_assert_eq(r->status, 200);
	resp_free(r);
	cr_assert_eq(ctl(NULL, "apikey revoke --id %s", id), 0);
	r = http("GET", "/api/v1/sites", key, NULL, NULL);
	expect_error(r, 401, "authentication_error", "api_key_revoked", NULL);
	resp_free(r);
}

Test(auth, creator_suspended_or_deleted)
{
	struct fx	 f;
	struct resp	*r;
	json_object	*o;
	char		 admin[40], key[80];

	fx_new(&f, "pro", 0);
	cr_assert_eq(ctl(NULL, "member suspend --id %s", f.member), 0);
	r = http("GET", "/api/v1/sites", f.live, NULL, NULL);
	expect_error(r, 401, "authentication_error", "api_key_creator_inactive",
	    NULL);
	resp_free(r);

	cr_assert_eq(ctl(&o,
	    "member create --tenant %s --email admin@x.example "
	    "--role admin", f.tenant), 0);
	snprintf(admin, sizeof(admin), "%s", jget(o, "id"));
	json_object_put(o);
	cr_assert_eq(ctl(&o,
	    "apikey create --tenant %s --member %s --kind test "
	    "--scopes all", f.tenant, admin), 0);
	snprintf(key, sizeof(key), "%s", jget(o, "key"));
	json_object_put(o);
	r = http("GET", "/api/v1/sites", key, NULL, NULL);
	cr_assert_eq(r->status, 200);
	resp_free(r);
	cr_assert_eq(ctl(NULL, "member delete --id %s", admin), 0);
	r = http("GET", "/api/v1/sites", key, NULL, NULL);
	expect_error(r, 401, "authentication_error", "api_key_creator_inactive",
	    NULL);
	resp_free(r);
}

Test(auth, scope_insufficient)
{
	struct fx	 f;
	char		 key[80];
	struct resp	*r;
	char		 body[256];

	fx_new(&f, "pro", 0);
	fx_key(&f, "live", "campaigns:read", key, NULL);
	r = http("GET", "/api/v1/sites", key, NULL, NULL);
	expect_error(r, 403, "permission_error", "scope_insufficient", NULL);
	/* an authenticated error still carries the rate-limit headers */
	cr_assert_not_null(resp_header(r, "X-RateLimit-Limit"));
	resp_free(r);
	r = http("GET", "/api/v1/campaigns", key, NULL, NULL);
	cr_assert_eq(r->status, 200);
	resp_free(r);
	snprintf(body, sizeof(body),
	    "{\"site_id\":\"%s\",\"key\":\"k\",\"name\":\"n\"}", f.site);
	r = http("POST", "/api/v1/campaigns", key, body, NULL);
	expect_error(r, 403, "permission_error", "scope_insufficient", NULL);
	resp_free(r);
	fx_key(&f, "live", "sites:read", key, NULL);
	r = http("GET", "/api/v1/delivery_status", key, NULL, NULL);
	expect_error(r, 403, "permission_error", "scope_insufficient", NULL);
	resp_free(r);
}

Test(auth, rate_limit_headers)
{
	struct fx	 f;
	struct resp	*r;

	fx_new(&f, "growth", 0);
	r = http("GET", "/api/v1/sites", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	cr_assert_str_eq(resp_header(r, "X-RateLimit-Limit"), "300");
	cr_assert_str_eq(resp_header(r, "X-RateLimit-Remaining"), "299");
	cr_assert_not_null(resp_header(r, "X-RateLimit-Reset"));
	/*
	 * and as the IETF fields say it (draft-ietf-httpapi-ratelimit-headers)
	 */
	cr_assert_str_eq(resp_header(r, "RateLimit-Policy"),
	    "\"tenant\";q=300;w=60");
	cr_assert(strncmp(resp_header(r, "RateLimit"), "\"tenant\";r=299;t=",
	    16) == 0, "%s", resp_header(r, "RateLimit"));
	cr_assert(atoi(resp_header(r, "RateLimit") + 16) <= 60);
	resp_free(r);
	/* test keys count in the same budget (contract: Limits) */
	r = http("GET", "/api/v1/sites", f.test, NULL, NULL);
	cr_assert_str_eq(resp_header(r, "X-RateLimit-Remaining"), "298");
	resp_free(r);
	/* an unknown path or method with a key is counted and labelled too */
	r = http("GET", "/api/v1/nope", f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", NULL);
	cr_assert_str_eq(resp_header(r, "X-RateLimit-Remaining"), "297");
	resp_free(r);
	r = http("DELETE", "/api/v1/sites", f.live, NULL, NULL);
	cr_assert_eq(r->status, 405);
	cr_assert_not_null(resp_header(r, "Allow"));
	cr_assert_str_eq(resp_header(r, "X-RateLimit-Remaining"), "296");
	resp_free(r);
	/* with a bad key it stays a 404, unlabelled */
	r = http("GET", "/api/v1/nope",
	    "fb_live_nonexistentkeyxxxxxxxxxxxxxxxx", NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", NULL);
	cr_assert_null(resp_header(r, "X-RateLimit-Remaining"));
	cr_assert_null(resp_header(r, "WWW-Authenticate"));
	resp_free(r);
}

Test(auth, custom_rate_limit_is_authoritative)
{
	struct fx	 f;
	struct resp	*r;

	fx_new(&f, "free", 5);
	r = http("GET", "/api/v1/sites", f.live, NULL, NULL);
	cr_assert_str_eq(resp_header(r, "X-RateLimit-Limit"), "5");
	resp_free(r);
}

/* CURLOPT_HEADERFUNCTION: keep X-RateLimit-Remaining in *userdata. */
static size_t
remaining_header(char *b, size_t size, size_t n, void *userdata)
{
	if (n > 22 && strncasecmp(b, "X-RateLimit-Remaining:", 22) == 0)
		*(int *)userdata = atoi(b + 22);
	return size * n;
}

/*
 * The 61st request in a minute on a Free tenant is refused, with requests
 * sent 10 at a time so both FastCGI workers serve them, and each takes in
 * the ones that wait with it (one admission for all): the count lives in
 * MariaDB, so no worker can reset or over-admit it, and every admitted
 * request is told its own remaining count.
 */
Test(auth, free_plan_61st_request_is_429, .timeout = 60)
{
	struct fx	 f;
	CURLM		*m;
	CURL		*h[70];
	struct curl_slist *hdr;
	char		 url[512], auth[128];
	int		 running, i, ok = 0, limited = 0, left[70];
	char		 others[256] = "";
	size_t		 on = 0;
	bool		 seen[60] = { false };
	long		 code;
	struct resp	*r;
	FILE		*null = fopen("/dev/null", "w");

	fx_new(&f, "free", 0);
	snprintf(url, sizeof(url), "%s/api/v1/sites", getenv("FB_TEST_URL"));
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", f.live);
	hdr = curl_slist_append(NULL, auth);
	m = curl_multi_init();
	curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, 10L);
	for (i = 0; i < 70; i++) {
		h[i] = curl_easy_init();
		curl_easy_setopt(h[i], CURLOPT_URL, url);
		curl_easy_setopt(h[i], CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(h[i], CURLOPT_WRITEDATA, null);
		left[i] = -1;
		curl_easy_setopt(h[i], CURLOPT_HEADERFUNCTION,
		    remaining_header);
		curl_easy_setopt(h[i], CURLOPT_HEADERDATA, &left[i]);
		curl_multi_add_handle(m, h[i]);
	}
	do {
		curl_multi_perform(m, &running);
		curl_multi_poll(m, NULL, 0, 1000, NULL);
	} while (running > 0);
	for (i = 0; i < 70; i++) {
		curl_easy_getinfo(h[i], CURLINFO_RESPONSE_CODE, &code);
		if (code == 200) {
			ok++;
			cr_assert(left[i] >= 0 && left[i] < 60 &&
			    !seen[left[i]],
			    "X-RateLimit-Remaining %d given twice or out of "
			    "range",
			    left[i]);
			seen[left[i]] = true;
		} else if (code == 429) {
			limited++;
			cr_assert_eq(left[i], 0);
		} else if (on < sizeof(others) - 8)
			on += (size_t)snprintf(others + on, sizeof(others) - on,
			    " %ld", code);
		curl_multi_remove_handle(m, h[i]);
		curl_easy_cleanup(h[i]);
	}
	curl_multi_cleanup(m);
	curl_slist_free_all(hdr);
	fclose(null);
	cr_assert_eq(ok, 60, "admitted %d of 70 (429: %d; others:%s)", ok,
	    limited,
	    others);
	cr_assert_eq(limited, 10, "429: %d of 70 (others:%s)", limited, others);

	r = http("GET", "/api/v1/sites", f.live, NULL, NULL);
	expect_error(r, 429, "rate_limit_error", "rate_limit_exceeded", NULL);
	cr_assert_not_null(resp_header(r, "Retry-After"));
	cr_assert_gt(atoi(resp_header(r, "Retry-After")), 0);
	cr_assert_leq(atoi(resp_header(r, "Retry-After")), 60);
	cr_assert_str_eq(resp_header(r, "X-RateLimit-Remaining"), "0");
	cr_assert_str_eq(resp_header(r, "X-RateLimit-Limit"), "60");
	resp_free(r);
}
