/* Integration-test helpers over libcurl, formbackctl and the mariadb client. */
#include <ctype.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <curl/curl.h>

#include "harness.h"

static size_t
collect(char *p, size_t sz, size_t n, void *ud)
{
	char	**s = ud;
	size_t	 old = *s != NULL ? strlen(*s) : 0;

	*s = realloc(*s, old + sz * n + 1);
	memcpy(*s + old, p, sz * n);
	(*s)[old + sz * n] = '\0';
	return sz * n;
}

/*
 * Every answer of the API, one JSON line {"method","path","status",
 * "body"} appended to $FB_RESP_LOG when set: tests/integ/validate.mjs
 * then checks each against openapi.json's schema for its operation and
 * status (issue 18).
 */
/* The answer's header fields as an object: lower-case names, last wins. */
static json_object *
headers_of(const struct resp *r)
{
	json_object	*h = json_object_new_object();
	const char	*p = r->headers, *e, *c, *v;
	char		 name[128];
	size_t		 i, n;

	for (; p != NULL && *p != '\0'; p = e != NULL ? e + 2 : NULL) {
		e = strstr(p, "\r\n");
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if ((c = memchr(p, ':', n)) == NULL ||
		    (size_t)(c - p) >= sizeof(name))
			continue;
		for (i = 0; p + i < c; i++)
			name[i] = (char)tolower((unsigned char)p[i]);
		name[i] = '\0';
		for (v = c + 1; v < p + n && *v == ' '; v++)
			continue;
		json_object_object_add(h, name,
		    json_object_new_string_len(v, (int)(p + n - v)));
	}
	return h;
}

static void
record(const char *method, const char *path, const struct resp *r)
{
	const char	*f = getenv("FB_RESP_LOG");
	json_object	*o;
	FILE		*fp;
	size_t		 n = strcspn(path, "?");

	if (f == NULL || strncmp(path, "/api/v1/", 8) != 0 || r->json == NULL)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "method", json_object_new_string(method));
	json_object_object_add(o, "path",
	    json_object_new_string_len(path, (int)n));
	json_object_object_add(o, "status",
	    json_object_new_int((int)r->status));
	json_object_object_add(o, "body", json_object_get(r->json));
	json_object_object_add(o, "headers", headers_of(r));
	if ((fp = fopen(f, "a")) != NULL) {
		fprintf(fp, "%s\n",
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		fclose(fp);
	}
	json_object_put(o);
}

bool
apache(void)
{
	const char	*h = getenv("FB_HTTPD");

	return h != NULL && strcmp(h, "apache") == 0;
}

bool
apache_proxy(void)
{
	const char	*m = getenv("FB_APACHE_FCGI");

	return apache() && m != NULL && strcmp(m, "proxy") == 0;
}

struct resp *
http(const char *method, const char *path, const char *key, const char *body,
    const char *hdr)
{
	CURL		*c;
	struct curl_slist *h = NULL;
	struct resp	*r = calloc(1, sizeof(*r));
	char		 url[4096], auth[256], one[1024];
	const char	*base = http_base != NULL ? http_base :
	    getenv("FB_TEST_URL");
	const char	*p;
	size_t		 n;
	CURLcode	 rc;

	cr_assert_not_null(base,
	    "FB_TEST_URL is not set: run through harness.sh");
	snprintf(url, sizeof(url), "%s%s", base, path);
	c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	/* the https instance's own certificate (harness.sh: FB_TLS_CA) */
	if (strncmp(base, "https://", 8) == 0 && getenv("FB_TLS_CA") != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, getenv("FB_TLS_CA"));
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (key != NULL) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", key);
		h = curl_slist_append(h, auth);
	}
	/* several headers: one per line */
	for (p = hdr; p != NULL && *p != '\0'; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		snprintf(one, sizeof(one), "%.*s", (int)n, p);
		h = curl_slist_append(h, one);
	}
	if (body != NULL) {
		if (hdr == NULL || strcasestr(hdr, "Content-Type:") == NULL)
			h = curl_slist_append(h,
			    "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &r->body);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &r->headers);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	if (http_source != NULL)
		curl_easy_setopt(c, CURLOPT_INTERFACE, http_source);
	rc = curl_easy_perform(c);
	cr_assert_eq(rc, CURLE_OK, "%s %s: %s", method, path,
	    curl_easy_strerror(rc));
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	if (r->body == NULL)
		r->body = strdup("");
	if (r->headers == NULL)
		r->headers = strdup("");
	r->json = json_tokener_parse(r->body);
	record(method, path, r);
	if (tag_autosettle && r->status == 204 && strcmp(method, "POST") == 0 &&
	    strcmp(path, "/tag/v1/events") == 0)
		tag_settle();
	return r;
}

bool	 tag_autosettle = true;
const char *http_source;
const char *http_base;

void
tag_settle(void)
{
	int	 i;

	for (i = 0; i < 1500; i++) {
		if (strcmp(sql("SELECT COUNT(*) FROM tag_ingest WHERE attempts "
		    "< 3"), "0") == 0)
			return;
		usleep(10000);
	}
	cr_assert_fail("queued tag events not applied within 15 s");
}

/* The hold's statement, as the process list shows it (appliers_release()). */
#define HOLD_SQL	"SELECT SLEEP(%d) AS appliers_hold"

void
appliers_hold(int secs)
{
	char	 cmd[1024];
	int	 i;

	snprintf(cmd, sizeof(cmd),
	    "mariadb --no-defaults --socket=\"$FB_DB_SOCKET\" "
	    "-uroot formback -e 'BEGIN; SELECT COUNT(*) FROM "
	    "tag_ingest_applier FOR UPDATE; " HOLD_SQL "; ROLLBACK;' "
	    ">/dev/null 2>&1 &", secs);
	cr_assert_eq(system(cmd), 0);
	/* held when none of the turns can be had */
	for (i = 0; i < 500; i++) {
		if (strcmp(sql("SELECT COUNT(*) FROM "
		    "information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT "
		    "SLEEP(%% AS appliers_hold'"), "0") != 0 &&
		    strcmp(sql("SELECT COUNT(*) FROM (SELECT id FROM "
		    "tag_ingest_applier FOR UPDATE SKIP LOCKED) t"), "0") == 0)
			return;
		usleep(10 * 1000);
	}
	cr_assert_fail("the applier turns were not taken");
}

void
appliers_release(void)
{
	const char	*id;

	id = sql("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO "
	    "LIKE 'SELECT SLEEP(%% AS appliers_hold'");
	if (*id != '\0')
		sql("KILL %s", id);
}

void
inserts_refused(const char *table, int err)
{
	sql("CREATE TRIGGER test_refused_%s BEFORE INSERT ON %s FOR EACH ROW "
	    "SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = %d, MESSAGE_TEXT = "
	    "'refused by the test'", table, table, err);
}

void
inserts_allowed(const char *table)
{
	sql("DROP TRIGGER IF EXISTS test_refused_%s", table);
}

/*
 * The count in an Aria table of its own, which a statement's rollback
 * does not undo, dropped with the trigger (check-db wants InnoDB only).
 */
void
deadlocks_planted(const char *table, const char *when, int n)
{
	sql("CREATE OR REPLACE TABLE test_deadlocks_%s (n INT NOT NULL) "
	    "ENGINE=Aria; INSERT INTO test_deadlocks_%s VALUES (%d); "
	    "DROP TRIGGER IF EXISTS test_deadlock_%s;\nDELIMITER //\n"
	    "CREATE TRIGGER test_deadlock_%s BEFORE UPDATE ON %s FOR EACH ROW "
	    "BEGIN IF (%s) AND (SELECT n FROM test_deadlocks_%s) > 0 THEN "
	    "UPDATE test_deadlocks_%s SET n = n - 1; SIGNAL SQLSTATE '40001' "
	    "SET MYSQL_ERRNO = 1213, MESSAGE_TEXT = "
	    "'deadlock planted by the test'; END IF; END//\nDELIMITER ;\n",
	    table, table, n, table, table, table, when, table, table);
}

int
deadlocks_left(const char *table)
{
	return atoi(sql("SELECT n FROM test_deadlocks_%s", table));
}

void
deadlocks_removed(const char *table)
{
	sql("DROP TRIGGER IF EXISTS test_deadlock_%s; DROP TABLE IF EXISTS "
	    "test_deadlocks_%s", table, table);
}

const char *
resp_header(const struct resp *r, const char *name)
{
	static char	 val[1024];
	const char	*p = r->headers, *e;
	size_t		 n = strlen(name);

	while (p != NULL && *p != '\0') {
		e = strstr(p, "\r\n");
		if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
			p += n + 1;
			while (*p == ' ')
				p++;
			snprintf(val, sizeof(val), "%.*s",
			    (int)(e != NULL ? e - p : (long)strlen(p)), p);
			return val;
		}
		p = e != NULL ? e + 2 : NULL;
	}
	return NULL;
}

void
resp_free(struct resp *r)
{
	if (r == NULL)
		return;
	free(r->body);
	free(r->headers);
	json_object_put(r->json);
	free(r);
}

json_object *
jobj(json_object *o, const char *path)
{
	char		 part[128];
	const char	*p = path, *e;
	size_t		 n;

	while (o != NULL && *p != '\0') {
		e = strchr(p, '.');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		snprintf(part, sizeof(part), "%.*s", (int)n, p);
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o,
			    strtoul(part, NULL, 10));
		else if (!json_object_object_get_ex(o, part, &o))
			return NULL;
		p += n + (e != NULL);
	}
	return o;
}

const char *
jget(json_object *o, const char *path)
{
	json_object	*v = jobj(o, path);

	return v != NULL ? json_object_get_string(v) : NULL;
}

void
expect_error(const struct resp *r, long status, const char *type,
    const char *code, const char *param)
{
	const char	*rid;

	cr_assert_eq(r->status, status, "status %ld, want %ld: %s", r->status,
	    status, r->body);
	cr_assert_not_null(r->json, "error body is not JSON: %s", r->body);
	cr_assert_str_eq(jget(r->json, "error.type"), type, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "error.code"), code, "%s", r->body);
	if (param == NULL)
		cr_assert_null(jget(r->json, "error.param"), "%s", r->body);
	else
		cr_assert_str_eq(jget(r->json, "error.param"), param, "%s",
		    r->body);
	cr_assert_not_null(jget(r->json, "error.message"));
	rid = jget(r->json, "error.request_id");
	cr_assert_not_null(rid);
	cr_assert_str_eq(resp_header(r, "X-Request-Id"), rid);
}

static char *
run_capture(const char *cmd, int *status)
{
	FILE	*f;
	char	*out = NULL, chunk[4096];
	size_t	 len = 0, n;

	f = popen(cmd, "r");
	cr_assert_not_null(f, "cannot run %s", cmd);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		out = realloc(out, len + n + 1);
		memcpy(out + len, chunk, n);
		len += n;
	}
	if (out == NULL)
		out = calloc(1, 1);
	out[len] = '\0';
	*status = pclose(f);
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : 255;
	return out;
}

pid_t
spawn(const char *fmt, ...)
{
	char	 cmd[4096];
	va_list	 ap;
	pid_t	 pid;
	int	 fd;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_neq(pid = fork(), -1);
	if (pid == 0) {
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int
reap(pid_t pid, int secs)
{
	struct timespec	 t = { 0, 20 * 1000 * 1000 };
	int		 st, i;
	pid_t		 w;

	for (i = 0; i < secs * 50; i++) {
		if ((w = waitpid(pid, &st, WNOHANG)) == pid)
			return st;
		if (w == -1)
			return -1;
		nanosleep(&t, NULL);
	}
	kill(pid, SIGKILL);
	(void)waitpid(pid, &st, 0);
	return -1;
}

int
ctl(json_object **out, const char *fmt, ...)
{
	char	 args[2048], cmd[4096], *o;
	va_list	 ap;
	int	 st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", getenv("FB_CTL"), args);
	o = run_capture(cmd, &st);
	if (out != NULL)
		*out = o[0] != '\0' ? json_tokener_parse(o) : NULL;
	free(o);
	return st;
}

/* Set member `id`'s password through formbackctl (standard input). */
int
set_password(const char *id, const char *pw)
{
	char	 path[] = "/tmp/fb-pw-XXXXXX";
	int	 fd = mkstemp(path), st;
	FILE	*f = fdopen(fd, "w");

	fprintf(f, "%s\n", pw);
	fclose(f);
	st = ctl(NULL, "member set-password --id %s < %s", id, path);
	unlink(path);
	return st;
}

struct resp *
signin(const char *email, const char *pw, const char *extra)
{
	char	 body[1024];

	snprintf(body, sizeof(body), "{\"email\":\"%s\",\"password\":\"%s\"%s}",
	    email, pw, extra != NULL ? extra : "");
	return http("POST", "/api/v1/admin/session", NULL, body, NULL);
}

/* Sign in and keep the cookie and CSRF token; asserts success. */
void
session_of(const char *email, const char *pw, struct sess *s)
{
	struct resp	*r = signin(email, pw, NULL);
	const char	*sc, *v;
	size_t		 n;

	cr_assert_eq(r->status, 200, "sign-in: %ld %s", r->status, r->body);
	sc = resp_header(r, "Set-Cookie");
	cr_assert_not_null(sc);
	v = strstr(sc, "fb_session=");
	cr_assert_not_null(v);
	n = strcspn(v, ";");
	snprintf(s->cookie, sizeof(s->cookie), "Cookie: %.*s", (int)n, v);
	snprintf(s->csrf, sizeof(s->csrf), "%s", jget(r->json, "csrf_token"));
	snprintf(s->hdr, sizeof(s->hdr), "%s\nX-CSRF-Token: %s\nOrigin: %s",
	    s->cookie, s->csrf, getenv("FB_TEST_URL"));
	resp_free(r);
}

static const char *sql_run(const char *q, bool whole_row);

const char *
sql(const char *fmt, ...)
{
	char		 q[4096];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(q, sizeof(q), fmt, ap);
	va_end(ap);
	return sql_run(q, false);
}

const char *
sql_row(const char *fmt, ...)
{
	char		 q[4096];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(q, sizeof(q), fmt, ap);
	va_end(ap);
	return sql_run(q, true);
}

static const char *
sql_run(const char *q, bool whole_row)
{
	static char	 val[4096];
	char		 cmd[8192], *o;
	int		 st;
	FILE		*f;
	char		 tmp[] = "/tmp/fbsqlXXXXXX";
	int		 fd;

	fd = mkstemp(tmp);
	f = fdopen(fd, "w");
	fputs(q, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "mariadb --no-defaults -uroot -N -B "
	    "--socket=%s formback < %s", getenv("FB_DB_SOCKET"), tmp);
	o = run_capture(cmd, &st);
	unlink(tmp);
	cr_assert_eq(st, 0, "sql failed: %s", q);
	snprintf(val, sizeof(val), "%.*s",
	    (int)strcspn(o, whole_row ? "\n" : "\t\n"), o);
	free(o);
	return val;
}

long long
page_ids(const struct fx *f, const char *path, char *out, size_t n,
    char *next, size_t nn)
{
	json_object	*data;
	struct resp	*r;
	size_t		 i, len = 0;
	long long	 before = index_reads();

	r = http("GET", path, f->live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s: %s", path, r->body);
	out[0] = '\0';
	data = jobj(r->json, "data");
	for (i = 0; i < json_object_array_length(data); i++)
		len += (size_t)snprintf(out + len, n - len, "%s%s",
		    len ? "," : "",
		    json_object_get_string(json_object_object_get(
		    json_object_array_get_idx(data, i), "id")));
	if (next != NULL)
		snprintf(next, nn, "%s", jget(r->json, "next_cursor") != NULL ?
		    jget(r->json, "next_cursor") : "");
	resp_free(r);
	cr_assert(len < n, "%s", path);
	return index_reads() - before;
}

void
old_range_page(const struct fx *f, const char *list, const char *query,
    const char *table, const char *cond)
{
	char		 p[512], got[4096];
	long long	 reads;

	snprintf(p, sizeof(p), "/api/v1/%s?limit=50&%s", list, query);
	reads = page_ids(f, p, got, sizeof(got), NULL, 0);
	cr_assert_str_eq(got,
	    sql("SELECT GROUP_CONCAT(id ORDER BY id DESC) FROM "
	    "(SELECT id FROM %s WHERE tenant_id = '%s' AND %s ORDER BY id DESC "
	    "LIMIT 50) x", table, f->tenant, cond), "%s", p);
	cr_assert_lt(reads, 15000, "%s read %lld index entries", p, reads);
}

long long
list_ids(const struct fx *f, const char *list, const char *query, char *out,
    size_t n)
{
	char		 p[1024], cur[256] = "";
	size_t		 len = 0;
	int		 pages = 0;
	long long	 reads = 0;

	out[0] = '\0';
	do {
		snprintf(p, sizeof(p), "/api/v1/%s?limit=25%s%s%s%s", list,
		    query[0] ? "&" : "", query, cur[0] ? "&cursor=" : "", cur);
		if (len > 0)
			out[len++] = ',';
		reads += page_ids(f, p, out + len, n - len, cur, sizeof(cur));
		len += strlen(out + len);
		if (len > 0 && out[len - 1] == ',')
			out[--len] = '\0';	/* an empty last page */
		cr_assert(len < n && ++pages < 20, "%s", p);
	} while (cur[0] != '\0');
	return reads;
}

void
list_filters_match(const struct fx *f, const char *list, const char *table,
    const struct list_filter *filters, size_t nfilters,
    const struct list_range *ranges, size_t nranges)
{
	size_t		 pick[8] = { 0 }, i, k, qn, wn;
	char		 q[1024], w[2048], got[8192], want[8192];
	const char	*v;

	cr_assert(nfilters < sizeof(pick) / sizeof(pick[0]));
	for (;;) {
		qn = wn = 0;
		q[0] = '\0';
		wn = (size_t)snprintf(w, sizeof(w), "tenant_id = '%s'",
		    f->tenant);
		for (i = 0; i < nfilters; i++) {
			if (pick[i] == 0)
				continue;
			v = filters[i].values[pick[i] - 1];
			qn += (size_t)snprintf(q + qn, sizeof(q) - qn,
			    "%s%s=%s",
			    qn ? "&" : "", filters[i].param, v);
			wn += (size_t)snprintf(w + wn, sizeof(w) - wn,
			    " AND %s = '%s'", filters[i].column, v);
		}
		if (pick[nfilters] > 0) {
			qn += (size_t)snprintf(q + qn, sizeof(q) - qn, "%s%s",
			    qn ? "&" : "", ranges[pick[nfilters] - 1].query);
			wn += (size_t)snprintf(w + wn, sizeof(w) - wn,
			    " AND %s",
			    ranges[pick[nfilters] - 1].where);
		}
		cr_assert(qn < sizeof(q) && wn < sizeof(w));
		list_ids(f, list, q, got, sizeof(got));
		snprintf(want, sizeof(want), "%s",
		    sql("SELECT COALESCE(GROUP_CONCAT("
		    "id ORDER BY id DESC), '') FROM %s WHERE %s", table, w));
		cr_assert_str_eq(got, want, "GET /api/v1/%s?%s", list, q);
		/* the next combination: an odometer over the choices */
		for (k = 0; k <= nfilters; k++) {
			size_t	 n = nranges;

			if (k < nfilters)
				for (n = 0; n < 3 && filters[k].values[n]; n++)
					;
			if (++pick[k] <= n)
				break;
			pick[k] = 0;
		}
		if (k > nfilters)
			return;
	}
}

long long
index_reads(void)
{
	return atoll(sql("SELECT SUM(VARIABLE_VALUE) FROM "
	    "information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN "
	    "('HANDLER_READ_PREV', 'HANDLER_READ_NEXT')"));
}

static void
copy(char *dst, size_t n, json_object *o, const char *path)
{
	const char	*v = jget(o, path);

	cr_assert_not_null(v, "missing %s", path);
	snprintf(dst, n, "%s", v);
}

void
fx_new(struct fx *f, const char *plan, int rate_limit)
{
	json_object	*o;
	char		 rl[32] = "";

	memset(f, 0, sizeof(*f));
	if (rate_limit > 0)
		snprintf(rl, sizeof(rl), "--rate-limit %d", rate_limit);
	cr_assert_eq(ctl(&o, "tenant create --name 'テスト店舗' --plan %s %s",
	    plan, rl), 0);
	copy(f->tenant, sizeof(f->tenant), o, "id");
	json_object_put(o);
	cr_assert_eq(ctl(&o,
	    "member create --tenant %s --email owner@t%s.example "
	    "--role owner", f->tenant, f->tenant), 0);
	copy(f->member, sizeof(f->member), o, "id");
	json_object_put(o);
	cr_assert_eq(ctl(&o, "site create --tenant %s --name 'ショップ' "
	    "--domain shop.example.jp", f->tenant), 0);
	copy(f->site, sizeof(f->site), o, "id");
	copy(f->site_pk, sizeof(f->site_pk), o, "public_key");
	json_object_put(o);
	fx_key(f, "live", "all", f->live, NULL);
	fx_key(f, "test", "all", f->test, NULL);
}

void
fx_key(const struct fx *f, const char *kind, const char *scopes, char out[80],
    char id_out[40])
{
	json_object	*o;

	cr_assert_eq(ctl(&o, "apikey create --tenant %s --member %s --kind %s "
	    "--scopes %s", f->tenant, f->member, kind, scopes), 0);
	copy(out, 80, o, "key");
	if (id_out != NULL)
		copy(id_out, 40, o, "id");
	json_object_put(o);
}

void
fx_campaign(const struct fx *f, const char *key, char out[40])
{
	char		 body[512];
	struct resp	*r;

	snprintf(body, sizeof(body), "{\"site_id\":\"%s\",\"key\":\"%s\","
	    "\"name\":\"キャンペーン %s\"}", f->site, key, key);
	r = http("POST", "/api/v1/campaigns", f->live, body, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(out, 40, "%s", jget(r->json, "id"));
	resp_free(r);
}

/* Member k of o, a string; none when s is NULL. */
static void
add_str(json_object *o, const char *k, const char *s)
{
	if (s != NULL)
		json_object_object_add(o, k, json_object_new_string(s));
}

void
tag_ev_body(const struct fx *f, const struct tag_ev *ev, char *b, size_t n)
{
	json_object	*o = json_object_new_object(), *c;
	char		 v[64];
	const char	*s;

	cr_assert_not_null(ev->visitor, "a tag event without a visitor");
	snprintf(v, sizeof(v), ev->visitor, ev->n);
	json_object_object_add(o, "v", json_object_new_int(1));
	add_str(o, "site", ev->site != NULL ? ev->site : f->site_pk);
	add_str(o, "visitor", v);
	add_str(o, "session", v);
	add_str(o, "type", ev->type != NULL ? ev->type : "capture");
	add_str(o, "url", ev->url != NULL ? ev->url :
	    "https://shop.example.jp/form");
	add_str(o, "referrer", ev->referrer);
	add_str(o, "campaign", ev->campaign);
	add_str(o, "role", ev->role);
	if (ev->tel != NULL || ev->email != NULL) {
		c = json_object_new_object();
		add_str(c, "tel", ev->tel);
		add_str(c, "email", ev->email);
		json_object_object_add(o, "contact", c);
	}
	if (ev->consent != TAG_CONSENT_ABSENT)
		json_object_object_add(o, "consent",
		    json_object_new_boolean(ev->consent == TAG_CONSENT_TRUE));
	if (ev->ts != 0)
		json_object_object_add(o, "ts", json_object_new_int64(ev->ts));
	s = json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	cr_assert_lt(strlen(s), n, "a tag event of %zu bytes", strlen(s));
	memcpy(b, s, strlen(s) + 1);
	json_object_put(o);
}

struct resp *
tag_ev_send(const struct fx *f, const struct tag_ev *ev)
{
	char	 b[8192], o[256];

	tag_ev_body(f, ev, b, sizeof(b));
	if (ev->origin != NULL)
		snprintf(o, sizeof(o), "Origin: %s", ev->origin);
	return http("POST", "/tag/v1/events", NULL, b,
	    ev->origin != NULL ? o : NULL);
}

long
tag_ev_post(const struct fx *f, const struct tag_ev *ev)
{
	struct resp	*r = tag_ev_send(f, ev);
	long		 st = r->status;

	if (st != 204)
		cr_log_info("tag event %s: %ld %s", ev->type != NULL ?
		    ev->type : "capture", st, r->body);
	resp_free(r);
	return st;
}

void
sms_gateway(const char *knob, const char *value)
{
	char	 p[1024];
	FILE	*f;

	snprintf(p, sizeof(p), "%s.%s", getenv("FB_SMS_FILE"), knob);
	if (value == NULL) {
		unlink(p);
		return;
	}
	cr_assert_not_null(f = fopen(p, "w"), "%s", p);
	fprintf(f, "%s\n", value);
	fclose(f);
}

void
sms_gateway_normal(void)
{
	sms_gateway("delay", NULL);
	sms_gateway("fail", NULL);
}

int
cron(const char *bin, const char *args)
{
	char	 cmd[1024];

	snprintf(cmd, sizeof(cmd), "\"$FB_CTL_DIR/%s\" %s", bin, args);
	return system(cmd);
}

int
sms_to(const char *intl)
{
	char	 cmd[1024];
	FILE	*p;
	int	 n = -1;

	snprintf(cmd, sizeof(cmd), "cat \"$FB_SMS_FILE\" 2>/dev/null | "
	    "grep -c '\"to\": \"+81%s\"'", intl);
	cr_assert_not_null(p = popen(cmd, "r"));
	cr_assert_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

const char *
file_tail(const char *path)
{
	static char	 buf[1 << 20];
	FILE		*f = fopen(path, "r");
	size_t		 n = 0;

	if (f != NULL) {
		if (fseek(f, -(long)(sizeof(buf) - 1), SEEK_END) != 0)
			rewind(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

void
fx_one_step(const struct fx *f, const char *key, const char *channel,
    const char *mode, const char *link_url)
{
	char		 c[40], m[40], s[40], p[256], b[2048], link[512] = "";
	struct resp	*r;

	fx_campaign(f, key, c);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/url-rules", c);
	resp_free(http("PUT", p, f->live, "{\"rules\":[{\"role\":\"form\","
	    "\"match_type\":\"prefix\",\"pattern\":\"/form\"}]}", NULL));
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status active",
	    c), 0);
	if (link_url != NULL)
		snprintf(link, sizeof(link), ",\"link_url\":\"%s\"", link_url);
	if (strcmp(channel, "sms") == 0)
		snprintf(b, sizeof(b),
		    "{\"channel\":\"sms\",\"body\":\"テスト商店です。"
		    "続きはこちら {{link_url}}\"%s}", link);
	else
		snprintf(b, sizeof(b),
		    "{\"channel\":\"email\",\"subject\":\"お手続きのご案内\"%s,"
		    "\"blocks\":[{\"type\":\"text\",\"text\":\"続きはこちら\"},"
		    "{\"type\":\"button\",\"text\":\"続ける\","
		    "\"url\":\"{{link_url}}\"}]}", link);
	r = http("POST", "/api/v1/messages", f->live, b, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(m, sizeof(m), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios", c);
	r = http("POST", p, f->live, "{\"name\":\"one step\"}", NULL);
	snprintf(s, sizeof(s), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/steps", s);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":5}]}", m);
	r = http("PUT", p, f->live, b, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status active",
	    s), 0);
	cr_assert_eq(ctl(NULL, "delivery-switch --tenant %s --mode %s",
	    f->tenant, mode), 0);
}

/*
 * The decoded subject, then the text part, then the HTML part of the
 * `nth` (0-based) mail in the sink to `to`, by Python's email parser;
 * "" when there is none (static storage).
 */
const char *
mail_to(const char *to, int nth)
{
	static char	 out[1 << 16];
	char		 cmd[2048];
	FILE		*p;
	size_t		 n;

	snprintf(cmd, sizeof(cmd),
	    "f=$(grep -l -r -F 'X-Envelope-To: %s' \"$FB_MAIL_DIR\" "
	    "2>/dev/null | sort | sed -n '%dp'); [ -n \"$f\" ] && "
	    "/usr/bin/python3 -c 'import email, sys\n"
	    "from email import policy\n"
	    "m = email.message_from_binary_file(open(sys.argv[1], \"rb\"), "
	    "policy=policy.default)\nprint(\"Message-ID:\", "
	    "m[\"message-id\"])\nprint(\"Subject:\", m[\"subject\"])\n"
	    "for k in (\"plain\", \"html\"):\n"
	    "    b = m.get_body((k,))\n"
	    "    print(b.get_content() if b is not None else \"\")\n"
	    "' \"$f\"", to, nth + 1);
	p = popen(cmd, "r");
	n = fread(out, 1, sizeof(out) - 1, p);
	pclose(p);
	out[n] = '\0';
	return out;
}
