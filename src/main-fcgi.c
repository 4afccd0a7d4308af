/*
 * formback.fcgi: the FastCGI responder.  One process handles one request
 * at a time with one database connection; the web server pre-forks and
 * respawns as many as it is told (fcgi-conf/).
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcgiapp.h>

#include "api.h"
#include "store.h"

static const char *
status_text(int s)
{
	switch (s) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 422: return "Unprocessable Content";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return s >= 500 ? "Internal Server Error" : "OK";
	}
}

static void
read_body(struct req *r, FCGX_Stream *in)
{
	char	 chunk[8192];
	int	 n;

	if (r->content_length > (long)r->body.max) {
		r->body_too_large = true;
		return;
	}
	while ((n = FCGX_GetStr(chunk, sizeof(chunk), in)) > 0)
		if (buf_add(&r->body, chunk, (size_t)n) != FB_OK) {
			r->body_too_large = true;
			return;
		}
}

static void
respond(struct req *r, FCGX_Stream *out)
{
	size_t	 i;

	FCGX_FPrintF(out, "Status: %d %s\r\n", r->status, status_text(r->status));
	if (r->out.len > 0)
		FCGX_FPrintF(out, "Content-Type: %s\r\n", r->out_type != NULL ?
		    r->out_type : "application/json; charset=utf-8");
	FCGX_FPrintF(out, "X-Request-Id: %s\r\nCache-Control: no-store\r\n",
	    r->request_id);
	if (r->rate.set) {
		FCGX_FPrintF(out, "X-RateLimit-Limit: %d\r\n"
		    "X-RateLimit-Remaining: %d\r\nX-RateLimit-Reset: %lld\r\n",
		    r->rate.limit, r->rate.remaining, r->rate.reset);
		if (r->status == 429)
			FCGX_FPrintF(out, "Retry-After: %lld\r\n", r->rate.retry_after);
	}
	if (r->dry_run)
		FCGX_PutS("Formback-Dry-Run: true\r\n", out);
	if (r->replayed)
		FCGX_PutS("Idempotency-Replayed: true\r\n", out);
	for (i = 0; i < r->nhdr; i++)
		FCGX_FPrintF(out, "%s: %s\r\n", r->hdr_name[i], r->hdr_value[i]);
	FCGX_PutS("\r\n", out);
	if (r->out.len > 0 && strcmp(r->method, "HEAD") != 0)
		FCGX_PutStr(r->out.data, (int)r->out.len, out);
}

static void
handle(FCGX_Request *fr, struct db *db, const struct conf *conf)
{
	struct req	 r;
	const char	*uri, *q, *cl;
	char		*path;

	req_init(&r, db, conf);
	log_set_request_id(r.request_id);
	r.method = FCGX_GetParam("REQUEST_METHOD", fr->envp);
	uri = FCGX_GetParam("REQUEST_URI", fr->envp);
	if (r.method == NULL)
		r.method = "GET";
	if (uri == NULL)
		uri = "/";
	q = strchr(uri, '?');
	path = q != NULL ? strndup(uri, (size_t)(q - uri)) : strdup(uri);
	r.path = path;
	r.authorization = FCGX_GetParam("HTTP_AUTHORIZATION", fr->envp);
	r.idem_key = FCGX_GetParam("HTTP_IDEMPOTENCY_KEY", fr->envp);
	r.content_type = FCGX_GetParam("CONTENT_TYPE", fr->envp);
	r.origin = FCGX_GetParam("HTTP_ORIGIN", fr->envp);
	if ((cl = FCGX_GetParam("CONTENT_LENGTH", fr->envp)) != NULL && *cl != '\0')
		r.content_length = strtol(cl, NULL, 10);
	if (path == NULL)
		(void)api_error(&r, AC_INTERNAL, NULL);
	else if (req_parse_query(&r, q != NULL ? q + 1 : NULL) != FB_OK)
		(void)api_error(&r, AC_QUERY_INVALID, NULL);
	else {
		read_body(&r, fr->in);
		dispatch(&r);
	}
	respond(&r, fr->out);
	logx(LOG_DEBUG, "%s %s -> %d", r.method, r.path != NULL ? r.path : "-",
	    r.status);
	req_release(&r);
	log_set_request_id(NULL);
}

/* Warn about durability settings the design asks for (design 6). */
static void
check_server(struct db *db)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	static const char q[] = "SELECT @@innodb_flush_log_at_trx_commit, "
	    "@@log_bin, @@sync_binlog";

	if (mysql_real_query(db->my, q, sizeof(q) - 1) != 0 ||
	    (res = mysql_store_result(db->my)) == NULL)
		return;
	if ((row = mysql_fetch_row(res)) != NULL) {
		if (row[0] != NULL && strcmp(row[0], "1") != 0)
			logx(LOG_WARN, "innodb_flush_log_at_trx_commit is %s; "
			    "1 is needed for durable writes", row[0]);
		if (row[1] != NULL && strcmp(row[1], "1") == 0 &&
		    row[2] != NULL && strcmp(row[2], "1") != 0)
			logx(LOG_WARN, "sync_binlog is %s with the binary log "
			    "on; 1 is needed for durable writes", row[2]);
	}
	mysql_free_result(res);
	db_rollback(db);
}

static void
usage(void)
{
	fprintf(stderr, "usage: formback.fcgi [-c file]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct conf	 conf;
	struct db	 db;
	FCGX_Request	 fr;
	char		 err[512];
	const char	*cpath = NULL;
	int		 ch;

	while ((ch = getopt(argc, argv, "c:h")) != -1)
		switch (ch) {
		case 'c':
			cpath = optarg;
			break;
		default:
			usage();
		}
	log_init("formback.fcgi", LOG_INFO);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * A request allocates and frees its whole working set; keep up to
	 * 2 MiB of freed memory for the next one rather than handing it back
	 * and asking again (glibc trims at 128 KiB by default).
	 */
	mallopt(M_TRIM_THRESHOLD, 2 << 20);
	mallopt(M_TOP_PAD, 1 << 20);
	if (conf_load(&conf, cpath, err, sizeof(err)) != FB_OK) {
		fprintf(stderr, "formback.fcgi: %s\n", err);
		return 2;
	}
	log_set_level((enum log_level)conf.log_level);
	if (db_open(&db, &conf) == FB_OK)
		check_server(&db);
	else {
		/* answer 503 until the database is back (db_ensure) */
		db.conf = &conf;
		db.broken = true;
	}
	if (FCGX_Init() != 0) {
		fprintf(stderr, "formback.fcgi: cannot initialise libfcgi\n");
		return 1;
	}
	FCGX_InitRequest(&fr, 0, 0);
	while (FCGX_Accept_r(&fr) >= 0) {
		handle(&fr, &db, &conf);
		FCGX_Finish_r(&fr);
	}
	db_close(&db);
	conf_free(&conf);
	return 0;
}
