/*
 * The benchmark's bare responder: doing the same database work as
 * formback.fcgi, one request at a time and nothing around it, for
 *
 *   GET /api/v1/sites/{site_id}: the tenant's rate admission
 *   (db_rate_admit()) and the site's look-up (db_site_with_campaigns()),
 *   the row answered as JSON;
 *   GET /api/v1/leads?limit=N: the admission and the page's statement
 *   (db_lead_list(), N + 1 rows, no filter), each row's own columns
 *   answered as a JSON object of their names, written straight to the
 *   FastCGI stream (the names formback.fcgi nests come from what its
 *   workers keep, no database work: left out).
 *
 * No routing, key check, batching, cursor or error envelope.  The tenant
 * comes from FB_BARE_TENANT, its limit from FB_BARE_LIMIT, the database
 * from FORMBACK_CONF.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcgiapp.h>
#include <json-c/json.h>

#include "../../src/db/store.h"
#include "listen.h"

#define DB_ROW struct lead_row
static const struct dbcol lead_cols[] = { DB_COLUMNS(LEAD_OWN_COLS) };
#undef DB_ROW

/* s as a JSON string (RFC 8259 7), or null. */
static void
put_string(FCGX_Stream *out, const char *s)
{
	const char	*run;

	if (s == NULL) {
		FCGX_PutStr("null", 4, out);
		return;
	}
	FCGX_PutChar('"', out);
	while (*s != '\0') {
		for (run = s; *s != '\0' && *s != '"' && *s != '\\' &&
		    (unsigned char)*s >= 0x20; s++)
			continue;
		FCGX_PutStr(run, (int)(s - run), out);
		if (*s != '\0')
			FCGX_FPrintF(out, "\\u%04x", (unsigned char)*s++);
	}
	FCGX_PutChar('"', out);
}

/*
 * The admitted tenant's page of leads:
 * {"object":"list","data":[...],"has_more":...}.
 */
static int
leads(struct db *db, const char *tenant, const char *query, FCGX_Stream *out)
{
	struct lead_filter	 f;
	struct dbrows		 rows;
	const char		*row, *lim;
	const void		*v;
	size_t			 i, k, n = 10;

	if (query != NULL && (lim = strstr(query, "limit=")) != NULL)
		n = strtoul(lim + 6, NULL, 10);
	if (n < 1 || n > 200)
		return -1;
	memset(&f, 0, sizeof(f));
	if (db_lead_list(db, tenant, &f, NULL, (int)n + 1, &rows) != FB_OK)
		return -1;
	FCGX_PutS("Status: 200 OK\r\nContent-Type: application/json\r\n\r\n"
	    "{\"object\":\"list\",\"data\":[", out);
	for (i = 0; i < rows.n && i < n; i++) {
		row = (const char *)rows.row + i * sizeof(struct lead_row);
		for (k = 0; k < NELEM(lead_cols); k++) {
			FCGX_PutS(k == 0 ? (i == 0 ? "{\"" : ",{\"") : ",\"",
			    out);
			FCGX_PutS(lead_cols[k].name, out);
			FCGX_PutS("\":", out);
			v = row + lead_cols[k].off;
			if (lead_cols[k].type == DBT_BOOL)
				FCGX_PutS(*(const bool *)v ? "true" : "false",
				    out);
			else
				put_string(out, *(const char *const *)v);
		}
		FCGX_PutChar('}', out);
	}
	FCGX_PutS(rows.n > n ? "],\"has_more\":true}" : "],\"has_more\":false}",
	    out);
	dbrows_free(&rows);
	return 0;
}

int
main(int argc, char *argv[])
{
	FCGX_Request		 fr;
	struct conf		 conf;
	struct db		 db;
	struct dbrows		 rows;
	const struct site_snippets_row *site;
	struct rate_result	 rr;
	json_object		*o;
	const char		*tenant = getenv("FB_BARE_TENANT"), *uri, *id;
	char			 err[256];
	long long		 epoch;
	const char		*lim = getenv("FB_BARE_LIMIT");
	int			 limit = lim != NULL ? (int)strtol(lim, NULL,
	    10) :
				    1000000, rc;

	if ((rc = bench_listen(argc, argv)) != -1)
		return rc;
	if (tenant == NULL ||
	    conf_load(&conf, NULL, err, sizeof(err)) != FB_OK ||
	    db_open(&db, &conf) != FB_OK) {
		fprintf(stderr,
		    "bare.fcgi: FB_BARE_TENANT and a database needed\n");
		return 2;
	}
	FCGX_Init();
	FCGX_InitRequest(&fr, 0, 0);
	while (FCGX_Accept_r(&fr) >= 0) {
		uri = FCGX_GetParam("REQUEST_URI", fr.envp);
		if (uri == NULL)
			uri = "";
		if (db_rate_admit(&db, tenant, limit, -1, 1, false, &rr,
		    &epoch) != FB_OK)
			goto notfound;
		if (strncmp(uri, "/api/v1/leads", 13) == 0 &&
		    (uri[13] == '\0' || uri[13] == '?')) {
			if (leads(&db, tenant, strchr(uri, '?'), fr.out) != 0)
				goto notfound;
			FCGX_Finish_r(&fr);
			continue;
		}
		id = strrchr(uri, '/') != NULL ? strrchr(uri, '/') + 1 : "";
		if (db_site_with_campaigns(&db, tenant, id, &rows) != FB_OK)
			goto notfound;
		site = rows.row;
		o = json_object_new_object();
		jadd_str(o, "id", site->site.id);
		jadd_str(o, "name", site->site.name);
		jadd_str(o, "domain", site->site.domain);
		jadd_str(o, "public_key", site->site.public_key);
		jadd_str(o, "created_at", site->site.created_at);
		jadd_str(o, "updated_at", site->site.updated_at);
		jadd_str(o, "snippets", site->snippet_campaigns);
		dbrows_free(&rows);
		FCGX_FPrintF(fr.out,
		    "Status: 200 OK\r\nContent-Type: application/json\r\n"
		    "X-RateLimit-Remaining: %d\r\n\r\n%s", rr.remaining,
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		FCGX_Finish_r(&fr);
		continue;
notfound:
		FCGX_PutS("Status: 404 Not Found\r\n\r\n", fr.out);
		FCGX_Finish_r(&fr);
	}
	db_close(&db);
	return 0;
}
