/* SQL of privacy-policy checks (store.h; migration 0016). */
#include <string.h>

#include "store.h"

enum { PP_LIST, PP_GET, PP_SET_URL, PP_DUE, PP_ADD, PP__MAX };

static const struct dbstmt pp_sql[PP__MAX] = {
	{ "pp_check_list",
	  "SELECT " DB_SELECT(PP_CHECK_COLS) " FROM pp_checks WHERE tenant_id "
	  "= ? AND site_id = ? AND id < ? ORDER BY id DESC LIMIT ?" },
	{ "pp_check_get",
	  "SELECT " DB_SELECT(PP_CHECK_COLS) " FROM pp_checks WHERE tenant_id "
	  "= ? AND site_id = ? AND id = ?" },
	{ "site_set_pp_url",
	  "UPDATE sites SET privacy_policy_url = ?, updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND id = ?" },
	/* each site once a day, and at once after its URL changes */
	{ "pp_due",
	  "SELECT " DB_SELECT(PP_DUE_COLS) " FROM sites s LEFT JOIN "
	  "consent_settings cs ON cs.tenant_id = s.tenant_id "
	  "WHERE s.privacy_policy_url IS NOT NULL AND NOT EXISTS (SELECT 1 "
	  "FROM pp_checks c WHERE c.site_id = s.id AND c.url = "
	  "s.privacy_policy_url AND c.checked_at > ?) ORDER BY s.id LIMIT ?" },
	{ "pp_check_add",
	  "INSERT INTO pp_checks (id, tenant_id, site_id, url, consent_mode, "
	  "status, http_status, findings, page_sha256, error, checked_at) "
	  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" },
};

#define DB_ROW struct pp_check_row
static const struct dbcol check_cols[] = { DB_COLUMNS(PP_CHECK_COLS) };
#undef DB_ROW
#define DB_ROW struct pp_due_row
static const struct dbcol due_cols[] = { DB_COLUMNS(PP_DUE_COLS) };
#undef DB_ROW

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols,
    size_t ncols, size_t rowsize, bool one, struct dbrows *out)
{
	return db_rows(db, DBSET_PPCHECK, id, &pp_sql[id], p, n, cols, ncols,
	    rowsize, one, out);
}

static enum fb_err
changed(struct db *db, int id, const struct dbp *p, size_t n)
{
	unsigned long long c;

	return db_changed(db, DBSET_PPCHECK, id, &pp_sql[id], p, n, &c);
}

enum fb_err
db_pp_check_list(struct db *db, const char *tenant, const char *site,
    const char *after, int n, struct dbrows *out)
{
	return rows(db, PP_LIST, DBPARAMS(P_STR(tenant), P_STR(site),
	    P_STR(after != NULL ? after : DB_MAX_ID), P_INT(n)), check_cols,
	    NELEM(check_cols), sizeof(struct pp_check_row), false, out);
}

enum fb_err
db_pp_check_get(struct db *db, const char *tenant, const char *site,
    const char *id, struct dbrows *out)
{
	return rows(db, PP_GET, DBPARAMS(P_STR(tenant), P_STR(site), P_STR(id)),
	    check_cols, NELEM(check_cols), sizeof(struct pp_check_row),
	    true, out);
}

enum fb_err
db_site_set_pp_url(struct db *db, const char *tenant, const char *site,
    const char *url)
{
	return changed(db, PP_SET_URL,
	    DBPARAMS(P_STR(url), P_STR(tenant), P_STR(site)));
}

enum fb_err
db_pp_due(struct db *db, const char *since, int n, struct dbrows *out)
{
	return rows(db, PP_DUE, DBPARAMS(P_STR(since), P_INT(n)), due_cols,
	    NELEM(due_cols), sizeof(struct pp_due_row), false, out);
}

enum fb_err
db_pp_check_add(struct db *db, const struct pp_check_new *c)
{
	return changed(db, PP_ADD, DBPARAMS(P_STR(c->id), P_STR(c->tenant),
	    P_STR(c->site), P_STR(c->url),
	    P_STR(c->consent_mode), P_STR(c->status),
	    c->http_status > 0 ? P_INT(c->http_status) : P_NULL,
	    P_STR(c->findings), P_STR(c->page_sha256), P_STR(c->error),
	    P_STR(c->checked_at)));
}
