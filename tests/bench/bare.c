/*
 * The benchmark's bare responder: GET /api/v1/sites/{site_id} doing the
 * same database work as formback.fcgi, one request at a time and nothing
 * around it -- the tenant's rate admission (db_rate_admit()) and the
 * site's look-up (db_site_with_campaigns()) per request, the row answered
 * as JSON.  No routing, key check, batching or error envelope.  The
 * tenant comes from FB_BARE_TENANT, its limit from FB_BARE_LIMIT, the
 * database from FORMBACK_CONF.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcgiapp.h>
#include <json-c/json.h>

#include "../../src/db/store.h"
#include "listen.h"

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
	int			 limit = lim != NULL ? (int)strtol(lim, NULL, 10) :
				    1000000, rc;

	if ((rc = bench_listen(argc, argv)) != -1)
		return rc;
	if (tenant == NULL || conf_load(&conf, NULL, err, sizeof(err)) != FB_OK ||
	    db_open(&db, &conf) != FB_OK) {
		fprintf(stderr, "bare.fcgi: FB_BARE_TENANT and a database needed\n");
		return 2;
	}
	FCGX_Init();
	FCGX_InitRequest(&fr, 0, 0);
	while (FCGX_Accept_r(&fr) >= 0) {
		uri = FCGX_GetParam("REQUEST_URI", fr.envp);
		id = uri != NULL && strrchr(uri, '/') != NULL ? strrchr(uri, '/') + 1 : "";
		if (db_rate_admit(&db, tenant, limit, -1, 1, false, &rr, &epoch) != FB_OK ||
		    db_site_with_campaigns(&db, tenant, id, &rows) != FB_OK) {
			FCGX_PutS("Status: 404 Not Found\r\n\r\n", fr.out);
			FCGX_Finish_r(&fr);
			continue;
		}
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
		FCGX_FPrintF(fr.out, "Status: 200 OK\r\nContent-Type: application/json\r\n"
		    "X-RateLimit-Remaining: %d\r\n\r\n%s", rr.remaining,
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		FCGX_Finish_r(&fr);
	}
	db_close(&db);
	return 0;
}
