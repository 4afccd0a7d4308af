/*
 * Deliveries and suppressions (contract: Delivery, Suppression; Endpoints,
 * Leads deliveries and delivery switch, Suppressions).  Destinations and
 * suppressed contacts are only ever answered masked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../api.h"
#include "../pii.h"
#include "../store.h"

#define MAX_ID "ffffffff-ffff-ffff-ffff-ffffffffffff"

static const char *const dlv_date_fields[] = { "created_at", "scheduled_at", "sent_at" };

static json_object *
summary(const char *id, const char *k1, const char *v1, const char *k2, const char *v2)
{
	json_object	*o;

	if (id == NULL)
		return NULL;
	o = json_object_new_object();
	jadd_str(o, "id", id);
	jadd_str(o, k1, v1);
	if (k2 != NULL)
		jadd_str(o, k2, v2);
	return o;
}

/* The one writer of a delivery (DeliveryOut). */
static json_object *
delivery_json(const struct dbres *d, unsigned i)
{
	json_object	*o = json_object_new_object(), *st;

	jadd_str(o, "id", dbres_get(d, i, DLV_C_ID));
	jadd_str(o, "object", "delivery");
	jadd_str(o, "lead_id", dbres_get(d, i, DLV_C_LEAD));
	jadd_str(o, "status", dbres_get(d, i, DLV_C_STATUS));
	jadd_str(o, "channel", dbres_get(d, i, DLV_C_CHANNEL));
	jadd_str(o, "to_masked", dbres_get(d, i, DLV_C_TO));
	jadd_str(o, "pii_state", dbres_get(d, i, DLV_C_PII));
	json_object_object_add(o, "campaign", summary(dbres_get(d, i, DLV_C_CAMPAIGN),
	    "key", dbres_get(d, i, DLV_C_CAMPAIGN_KEY), "name",
	    dbres_get(d, i, DLV_C_CAMPAIGN_NAME)));
	json_object_object_add(o, "scenario", summary(dbres_get(d, i, DLV_C_SCENARIO),
	    "name", dbres_get(d, i, DLV_C_SCENARIO_NAME), NULL, NULL));
	st = NULL;
	if (dbres_get(d, i, DLV_C_STEP) != NULL) {
		st = json_object_new_object();
		jadd_str(st, "id", dbres_get(d, i, DLV_C_STEP));
		jadd_int(st, "position", dbres_int(d, i, DLV_C_STEP_NO));
	}
	json_object_object_add(o, "step", st);
	jadd_time(o, "scheduled_at", dbres_get(d, i, DLV_C_SCHEDULED));
	jadd_time(o, "sent_at", dbres_get(d, i, DLV_C_SENT));
	jadd_time(o, "created_at", dbres_get(d, i, DLV_C_CREATED));
	jadd_str(o, "cancel_reason", dbres_get(d, i, DLV_C_CANCEL));
	jadd_str(o, "error_code", dbres_get(d, i, DLV_C_ERROR));
	/* the SMS parts as sent (contract: Messages, the estimate's note) */
	json_object_object_add(o, "segments", dbres_get(d, i, DLV_C_SEGMENTS) != NULL ?
	    json_object_new_int64(dbres_int(d, i, DLV_C_SEGMENTS)) : NULL);
	return o;
}

enum fb_err
api_deliveries_list(struct req *r)
{
	struct page	 pg;
	struct dbres	 res;
	json_object	*extra;
	const char	*df = req_query(r, "date_field"), *v;
	char		 fs[32] = "1000-01-01 00:00:00", ts[32] = "9999-12-31 00:00:00";
	int64_t		 t;
	bool		 hf = false, ht = false;
	int		 f = 0;
	unsigned	 i;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	for (i = 0; df != NULL && i < NELEM(dlv_date_fields); i++)
		if (strcmp(df, dlv_date_fields[i]) == 0)
			f = (int)i;
	if ((v = req_query(r, "from")) != NULL && time_parse_iso8601(v, &t)) {
		hf = true;
		time_sql(t, fs);
	}
	if ((v = req_query(r, "to")) != NULL && time_parse_iso8601(v, &t)) {
		ht = true;
		time_sql(t, ts);
	}
	if (hf && ht && strcmp(fs, ts) >= 0)
		return api_error(r, AC_QUERY_INVALID, "to");
	if ((e = db_sd(r->db, SD_LIST_CREATED + f, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(pg.has_after ? pg.after : MAX_ID), P_STR(req_query(r, "status")),
	    P_STR(req_query(r, "status")), P_STR(req_query(r, "campaign_id")),
	    P_STR(req_query(r, "campaign_id")), P_STR(req_query(r, "scenario_id")),
	    P_STR(req_query(r, "scenario_id")), P_INT(!hf), P_STR(fs), P_INT(!ht),
	    P_STR(ts), P_INT(pg.limit + 1)), &res)) != FB_OK)
		return e;
	extra = json_object_new_object();
	jadd_str(extra, "date_field", dlv_date_fields[f]);
	return page_answer(r, &pg, &res, DLV_C_ID, delivery_json, extra);
}

enum fb_err
api_deliveries_get(struct req *r)
{
	struct dbres	 d;
	enum fb_err	 e;

	if ((e = db_sd(r->db, SD_GET, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(req_pathvar(r, "delivery_id"))), &d)) != FB_OK)
		return e;
	if (d.nrows == 0) {
		dbres_free(&d);
		return api_error(r, AC_NOT_FOUND, "delivery_id");
	}
	e = req_json(r, 200, delivery_json(&d, 0));
	dbres_free(&d);
	return e;
}

/* The one writer of a suppression: masked value only. */
static json_object *
suppression_json(const struct dbres *s, unsigned i)
{
	json_object	*o = json_object_new_object();

	jadd_str(o, "id", dbres_get(s, i, SUP_C_ID));
	jadd_str(o, "object", "suppression");
	jadd_str(o, "kind", dbres_get(s, i, SUP_C_KIND));
	jadd_str(o, "value_masked", dbres_get(s, i, SUP_C_MASKED));
	jadd_str(o, "scope", dbres_get(s, i, SUP_C_SCOPE));
	jadd_str(o, "campaign_id", dbres_get(s, i, SUP_C_CAMPAIGN));
	jadd_str(o, "reason", dbres_get(s, i, SUP_C_REASON));
	jadd_str(o, "memo", dbres_get(s, i, SUP_C_MEMO));
	jadd_time(o, "expires_at", dbres_get(s, i, SUP_C_EXPIRES));
	jadd_time(o, "created_at", dbres_get(s, i, SUP_C_CREATED));
	jadd_bool(o, "deletable", strcmp(dbres_get(s, i, SUP_C_REASON), "opt_out") != 0 &&
	    strcmp(dbres_get(s, i, SUP_C_REASON), "complaint") != 0);
	return o;
}

/*
 * GET /suppressions: `q` is an exact contact, looked up through the blind
 * index (a phone number in any typed form, or an email address).
 */
enum fb_err
api_suppressions_list(struct req *r)
{
	struct page	 pg;
	struct dbres	 res;
	const char	*q = req_query(r, "q"), *kind;
	unsigned char	 bidx[PII_BIDXBYTES];
	char		 masked[300];
	bool		 has_q = false;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if (q != NULL && *q != '\0') {
		if (!contact_key(r->conf->index_key, r->auth.tenant_id, q,
		    &kind, bidx, masked))
			memset(bidx, 0, sizeof(bidx));	/* matches nothing */
		has_q = true;
	}
	if ((e = db_sd(r->db, SD_SUP_LIST, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(pg.has_after ? pg.after : MAX_ID), P_STR(req_query(r, "kind")),
	    P_STR(req_query(r, "kind")), P_STR(req_query(r, "reason")),
	    P_STR(req_query(r, "reason")), P_STR(req_query(r, "scope")),
	    P_STR(req_query(r, "scope")), P_STR(req_query(r, "campaign_id")),
	    P_STR(req_query(r, "campaign_id")), has_q ? P_INT(1) : P_NULL,
	    P_BIN(bidx, sizeof(bidx)), P_BIN(bidx, sizeof(bidx)),
	    P_INT(pg.limit + 1)), &res)) != FB_OK)
		return e;
	return page_answer(r, &pg, &res, SUP_C_ID, suppression_json, NULL);
}

/* POST /suppressions: one entry (contract: SuppressionIn). */
enum fb_err
api_suppressions_create(struct req *r)
{
	const char	*scope, *cid, *expires, *memo, *value, *kind;
	unsigned char	 bidx[PII_BIDXBYTES];
	char		 masked[300], id[UUID_STRLEN + 1], camp[UUID_STRLEN + 1] = "";
	char		 exp[32];
	int64_t		 t;
	struct dbres	 res;
	struct dbrows	 c;
	enum fb_err	 e;

	if (body_str(r, "scope", false, 16, &scope) < 0 ||
	    body_str(r, "campaign_id", false, UUID_STRLEN, &cid) < 0 ||
	    body_str(r, "expires_at", false, 40, &expires) < 0 ||
	    body_str(r, "memo", false, 500, &memo) < 0 ||
	    body_str(r, "value", true, 254, &value) < 0)
		return FB_OK;
	if (scope == NULL)
		scope = "tenant";
	if (strcmp(scope, "tenant") != 0 && strcmp(scope, "campaign") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "scope");
	if (strcmp(scope, "campaign") == 0 && cid == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "campaign_id");
	if (cid != NULL && !uuid_valid(cid))
		return api_error(r, AC_PARAMETER_INVALID, "campaign_id");
	if (expires != NULL) {
		/* an entry that would never be in force is a mistake */
		if (!time_parse_iso8601(expires, &t) || t <= time(NULL))
			return api_error(r, AC_PARAMETER_INVALID, "expires_at");
		time_sql(t, exp);
	}
	if (!contact_key(r->conf->index_key, r->auth.tenant_id, value, &kind,
	    bidx, masked))
		return api_error(r, AC_PARAMETER_INVALID, "value");
	if (cid != NULL) {
		snprintf(camp, sizeof(camp), "%s", cid);
		uuid_lower(camp);
		e = db_campaign_get(r->db, r->auth.tenant_id, camp, &c);
		if (e == FB_ENOTFOUND)
			return api_error(r, AC_NOT_FOUND, "campaign_id");
		if (e != FB_OK)
			return e;
		dbrows_free(&c);
	}
	/* a tenant-wide entry names no campaign */
	if (strcmp(scope, "tenant") == 0)
		camp[0] = '\0';
	if ((e = db_sd(r->db, SD_SUP_ACTIVE, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(kind), P_BIN(bidx, sizeof(bidx)), P_STR(scope),
	    P_STR(camp[0] != '\0' ? camp : NULL)), &res)) != FB_OK)
		return e;
	if (res.nrows > 0) {
		dbres_free(&res);
		return api_error(r, AC_SUPPRESSION_EXISTS, "value");
	}
	dbres_free(&res);
	uuid_v7(id);
	if ((e = db_sd(r->db, SD_SUP_INSERT, DBPARAMS(P_STR(id), P_STR(r->auth.tenant_id),
	    P_STR(kind), P_BIN(bidx, sizeof(bidx)), P_STR(masked), P_STR(scope),
	    P_STR(camp[0] != '\0' ? camp : NULL), P_STR("manual"), P_STR(memo),
	    P_STR(expires != NULL ? exp : NULL)), NULL)) != FB_OK)
		return e;
	r->audit_type = "suppression";
	memcpy(r->audit_id, id, sizeof(id));
	if ((e = db_sd(r->db, SD_SUP_GET, DBPARAMS(P_STR(r->auth.tenant_id), P_STR(id)),
	    &res)) != FB_OK)
		return e;
	e = req_json(r, 201, suppression_json(&res, 0));
	dbres_free(&res);
	return e;
}

/* DELETE /suppressions/{id}: opt-outs and complaints stay (contract). */
enum fb_err
api_suppressions_delete(struct req *r)
{
	const char	*id = req_pathvar(r, "suppression_id");
	struct dbres	 s;
	enum fb_err	 e;

	if ((e = db_sd(r->db, SD_SUP_GET, DBPARAMS(P_STR(r->auth.tenant_id), P_STR(id)),
	    &s)) != FB_OK)
		return e;
	if (s.nrows == 0) {
		dbres_free(&s);
		return api_error(r, AC_NOT_FOUND, "suppression_id");
	}
	if (strcmp(dbres_get(&s, 0, SUP_C_REASON), "opt_out") == 0 ||
	    strcmp(dbres_get(&s, 0, SUP_C_REASON), "complaint") == 0) {
		dbres_free(&s);
		return api_error(r, AC_SUPPRESSION_NOT_DELETABLE, NULL);
	}
	dbres_free(&s);
	if ((e = db_sd(r->db, SD_SUP_DELETE, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), NULL)) != FB_OK)
		return e;
	r->audit_type = "suppression";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	req_empty(r, 204);
	return FB_OK;
}
