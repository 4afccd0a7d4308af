/* SQL of scenarios, steps, messages, presets and examples (store.h). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "store.h"

enum {
	SQ_MSG_INSERT, SQ_MSG_GET, SQ_MSG_LIST, SQ_MSG_UPDATE, SQ_MSG_DELETE,
	SQ_MSG_IN_USE, SQ_MSG_COPY, SQ_SCN_INSERT, SQ_SCN_GET, SQ_SCN_LIST,
	SQ_SCN_UPDATE, SQ_SCN_DELETE, SQ_SCN_STATUS, SQ_SCN_OTHER_ACTIVE,
	SQ_SCN_OWNER, SQ_STEPS_LIST, SQ_STEPS_DELETE, SQ_STEP_INSERT,
	SQ_STEP_MESSAGES, SQ_PRESETS, SQ_EXAMPLES, SQ_PLAN, SQ_STEP_UPDATE,
	SQ_STEPS_TRIM, SQ_SCN_ACTIVE_USING,
	SQ__MAX
};
_Static_assert(SQ__MAX <= DBSET_STMT_MAX, "raise DBSET_STMT_MAX");

static const struct dbstmt sq_sql[SQ__MAX] = {
	/* SQ_MSG_INSERT */
	{ "message_insert",
	  "INSERT INTO messages (id, tenant_id, channel, subject, body, "
	  "header_image_url, link_url, link_params, blocks, sms_segments, "
	  "body_html) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	/* SQ_MSG_GET */
	{ "message_get", "SELECT " DB_SELECT(MESSAGE_COLS) " FROM messages "
	  "WHERE tenant_id = ? AND id = ?" },
	/* SQ_MSG_LIST */
	{ "message_list", "SELECT " DB_SELECT(MESSAGE_COLS) " FROM messages "
	  "WHERE tenant_id = ? AND id < ? AND (? IS NULL OR channel = ?) "
	  "ORDER BY id DESC LIMIT ?" },
	/* SQ_MSG_UPDATE: the whole editable row, merged by the caller */
	{ "message_update",
	  "UPDATE messages SET channel = ?, subject = ?, body = ?, "
	  "header_image_url = ?, link_url = ?, link_params = ?, blocks = ?, "
	  "sms_segments = ?, body_html = ?, updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND id = ?" },
	/* SQ_MSG_DELETE */
	{ "message_delete",
	    "DELETE FROM messages WHERE tenant_id = ? AND id = ?" },
	/* SQ_MSG_IN_USE: steps of scenarios that are not deleted */
	{ "message_in_use",
	  "SELECT COUNT(*) FROM scenario_steps st JOIN scenarios s ON s.id = "
	  "st.scenario_id WHERE st.tenant_id = ? AND st.message_id = ? AND "
	  "s.deleted_at IS NULL" },
	/* SQ_MSG_COPY */
	{ "message_copy",
	  "INSERT INTO messages (id, tenant_id, channel, subject, body, "
	  "body_html, header_image_url, link_url, link_params, blocks, "
	  "sms_segments) SELECT ?, tenant_id, channel, subject, body, "
	  "body_html, header_image_url, link_url, link_params, blocks, "
	  "sms_segments FROM messages WHERE tenant_id = ? AND id = ?" },
	/* SQ_SCN_INSERT: always draft (contract: States, Scenario) */
	{ "scenario_insert",
	  "INSERT INTO scenarios (id, tenant_id, campaign_id, name, status, "
	  "abandon_wait_minutes) VALUES (?, ?, ?, ?, 'draft', ?)" },
	/* SQ_SCN_GET */
	{ "scenario_get", "SELECT " DB_SELECT(SCENARIO_COLS) " FROM scenarios "
	  "WHERE tenant_id = ? AND id = ? AND deleted_at IS NULL" },
	/* SQ_SCN_LIST */
	{ "scenario_list", "SELECT " DB_SELECT(SCENARIO_COLS) " FROM scenarios "
	  "WHERE tenant_id = ? AND campaign_id = ? AND deleted_at IS NULL "
	  "ORDER BY id" },
	/*
	 * SQ_SCN_UPDATE: NULL leaves the name; ? = 1 sets the wait (NULL
	 * clears)
	 */
	{ "scenario_update",
	  "UPDATE scenarios SET name = COALESCE(?, name), "
	  "abandon_wait_minutes = IF(?, ?, abandon_wait_minutes), "
	  "updated_at = NOW(6) WHERE tenant_id = ? AND id = ? AND deleted_at "
	  "IS NULL" },
	/* SQ_SCN_DELETE */
	{ "scenario_delete",
	  "UPDATE scenarios SET deleted_at = NOW(6) WHERE tenant_id = ? AND id "
	  "= ?" },
	/* SQ_SCN_STATUS */
	{ "scenario_set_status",
	  "UPDATE scenarios SET status = ?, updated_at = NOW(6) WHERE "
	  "tenant_id = ? AND id = ?" },
	/* SQ_SCN_OTHER_ACTIVE */
	{ "scenario_other_active",
	  "SELECT " DB_SELECT(SCENARIO_REF_COLS) " FROM scenarios s "
	  "WHERE s.tenant_id = ? AND s.campaign_id = ? AND s.status = 'active' "
	  "AND s.deleted_at IS NULL AND s.id <> ? FOR UPDATE" },
	/* SQ_SCN_OWNER: the tenant of a scenario (operator path) */
	{ "scenario_owner",
	  "SELECT tenant_id FROM scenarios WHERE id = ? AND deleted_at "
	  "IS NULL" },
	/* SQ_STEPS_LIST */
	{ "steps_list",
	  "SELECT " DB_SELECT(STEP_COLS) " FROM scenario_steps st "
	  "JOIN messages m ON m.id = st.message_id "
	  "WHERE st.tenant_id = ? AND st.scenario_id = ? ORDER BY "
	  "st.position" },
	/* SQ_STEPS_DELETE */
	{ "steps_delete",
	  "DELETE FROM scenario_steps WHERE tenant_id = ? AND scenario_id = "
	  "?" },
	/* SQ_STEP_INSERT */
	{ "step_insert",
	  "INSERT INTO scenario_steps (id, tenant_id, scenario_id, position, "
	  "message_id, delay_minutes) VALUES (?, ?, ?, ?, ?, ?)" },
	/* SQ_STEP_MESSAGES: what activation checks, in step order */
	{ "step_messages",
	  "SELECT " DB_SELECT(STEP_MESSAGE_COLS) " FROM scenario_steps st "
	  "JOIN messages m ON m.id = st.message_id "
	  "WHERE st.tenant_id = ? AND st.scenario_id = ? ORDER BY "
	  "st.position" },
	/* SQ_PRESETS */
	{ "presets", "SELECT " DB_SELECT(PRESET_COLS) " FROM scenario_presets "
	  "WHERE ? IS NULL OR preset_key = ? ORDER BY position" },
	/* SQ_EXAMPLES */
	{ "examples",
	  "SELECT " DB_SELECT(EXAMPLE_COLS) " FROM message_examples "
	  "WHERE (? IS NULL OR channel = ?) AND (? IS NULL OR example_key = ?) "
	  "ORDER BY channel DESC, position" },
	/* SQ_PLAN */
	{ "tenant_plan", "SELECT plan FROM tenants WHERE id = ?" },
	/*
	 * SQ_STEP_UPDATE: the step at a position keeps its id (and deliveries)
	 */
	{ "step_update",
	  "UPDATE scenario_steps SET message_id = ?, delay_minutes = ? "
	  "WHERE tenant_id = ? AND scenario_id = ? AND position = ?" },
	/* SQ_STEPS_TRIM: positions past the new list */
	{ "steps_trim",
	  "DELETE FROM scenario_steps WHERE tenant_id = ? AND scenario_id = ? "
	  "AND position >= ?" },
	/* SQ_SCN_ACTIVE_USING: the active scenarios a message is in */
	{ "scenario_active_using",
	  "SELECT DISTINCT " DB_SELECT(SCENARIO_REF_COLS) " FROM "
	  "scenario_steps st JOIN scenarios s ON s.id = st.scenario_id WHERE "
	  "st.tenant_id = ? AND st.message_id = ? AND s.status = 'active' AND "
	  "s.deleted_at IS NULL" },
};

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_SCENARIO, id, &sq_sql[id], p, n, r);
}

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols,
    size_t ncols, size_t rowsize, bool one, struct dbrows *out)
{
	return db_rows(db, DBSET_SCENARIO, id, &sq_sql[id], p, n, cols, ncols,
	    rowsize, one, out);
}

#define DB_ROW struct message_row
static const struct dbcol message_cols[] = { DB_COLUMNS(MESSAGE_COLS) };
#undef DB_ROW
#define DB_ROW struct scenario_row
static const struct dbcol scenario_cols[] = { DB_COLUMNS(SCENARIO_COLS) };
#undef DB_ROW
#define DB_ROW struct scenario_ref_row
static const struct dbcol scenario_ref_cols[] = {
	DB_COLUMNS(SCENARIO_REF_COLS) };
#undef DB_ROW

static struct dbp
int_or_null(long long v)
{
	return v >= 0 ? P_INT(v) : P_NULL;
}

enum fb_err
db_message_insert(struct db *db, const char *tenant, const char *id,
    const struct message_fields *m)
{
	return run(db, SQ_MSG_INSERT, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(m->channel), P_STR(m->subject), P_STR(m->body),
	    P_STR(m->header_image_url), P_STR(m->link_url),
	    P_STR(m->link_params), P_STR(m->blocks),
	    int_or_null(m->sms_segments), P_STR(m->body_html)), NULL);
}

enum fb_err
db_message_update(struct db *db, const char *tenant, const char *id,
    const struct message_fields *m)
{
	return run(db, SQ_MSG_UPDATE,
	    DBPARAMS(P_STR(m->channel), P_STR(m->subject),
	    P_STR(m->body), P_STR(m->header_image_url), P_STR(m->link_url),
	    P_STR(m->link_params), P_STR(m->blocks),
	    int_or_null(m->sms_segments), P_STR(m->body_html), P_STR(tenant),
	    P_STR(id)), NULL);
}

enum fb_err
db_message_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, SQ_MSG_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    message_cols,
	    NELEM(message_cols), sizeof(struct message_row), true, out);
}

enum fb_err
db_message_list(struct db *db, const char *tenant, const char *channel,
    const char *after, int n, struct dbrows *out)
{
	return rows(db, SQ_MSG_LIST,
	    DBPARAMS(P_STR(tenant), P_STR(after != NULL ?
	    after : DB_MAX_ID), P_STR(channel),
	    P_STR(channel), P_INT(n)), message_cols, NELEM(message_cols),
	    sizeof(struct message_row), false, out);
}

enum fb_err
db_message_delete(struct db *db, const char *tenant, const char *id)
{
	return run(db, SQ_MSG_DELETE, DBPARAMS(P_STR(tenant), P_STR(id)), NULL);
}

enum fb_err
db_message_in_use(struct db *db, const char *tenant, const char *id,
    bool *in_use)
{
	long long	 n;
	bool		 found;
	enum fb_err	 e;

	e = db_value(db, DBSET_SCENARIO, SQ_MSG_IN_USE, &sq_sql[SQ_MSG_IN_USE],
	    DBPARAMS(P_STR(tenant), P_STR(id)), &n, &found);
	*in_use = n > 0;
	return e;
}

enum fb_err
db_message_copy(struct db *db, const char *tenant, const char *from,
    const char *id)
{
	return run(db, SQ_MSG_COPY,
	    DBPARAMS(P_STR(id), P_STR(tenant), P_STR(from)), NULL);
}

enum fb_err
db_scenario_insert(struct db *db, const char *tenant, const char *id,
    const char *campaign, const char *name, long long wait)
{
	return run(db, SQ_SCN_INSERT, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(campaign), P_STR(name), int_or_null(wait)), NULL);
}

enum fb_err
db_scenario_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, SQ_SCN_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    scenario_cols, NELEM(scenario_cols), sizeof(struct scenario_row),
	    true, out);
}

enum fb_err
db_scenario_list(struct db *db, const char *tenant, const char *campaign,
    struct dbrows *out)
{
	return rows(db, SQ_SCN_LIST, DBPARAMS(P_STR(tenant), P_STR(campaign)),
	    scenario_cols, NELEM(scenario_cols), sizeof(struct scenario_row),
	    false, out);
}

enum fb_err
db_scenario_update(struct db *db, const char *tenant, const char *id,
    const char *name, bool set_wait, long long wait)
{
	return run(db, SQ_SCN_UPDATE, DBPARAMS(P_STR(name), P_INT(set_wait),
	    int_or_null(wait), P_STR(tenant), P_STR(id)), NULL);
}

enum fb_err
db_scenario_delete(struct db *db, const char *tenant, const char *id)
{
	enum fb_err	 e;

	if ((e = run(db, SQ_STEPS_DELETE, DBPARAMS(P_STR(tenant), P_STR(id)),
	    NULL)) != FB_OK)
		return e;
	return run(db, SQ_SCN_DELETE, DBPARAMS(P_STR(tenant), P_STR(id)), NULL);
}

enum fb_err
db_scenario_set_status(struct db *db, const char *tenant, const char *id,
    const char *status)
{
	return run(db, SQ_SCN_STATUS, DBPARAMS(P_STR(status), P_STR(tenant),
	    P_STR(id)), NULL);
}

enum fb_err
db_scenario_tenant(struct db *db, const char *id,
    char tenant_out[UUID_STRLEN + 1])
{
	return db_tenant_of(db, DBSET_SCENARIO, SQ_SCN_OWNER,
	    &sq_sql[SQ_SCN_OWNER], id, tenant_out);
}

enum fb_err
db_scenario_other_active(struct db *db, const char *tenant,
    const char *campaign, const char *scenario, struct dbrows *out)
{
	return rows(db, SQ_SCN_OTHER_ACTIVE,
	    DBPARAMS(P_STR(tenant), P_STR(campaign),
	    P_STR(scenario)), scenario_ref_cols, NELEM(scenario_ref_cols),
	    sizeof(struct scenario_ref_row), false, out);
}

enum fb_err
db_scenario_active_using(struct db *db, const char *tenant, const char *message,
    struct dbrows *out)
{
	return rows(db, SQ_SCN_ACTIVE_USING, DBPARAMS(P_STR(tenant),
	    P_STR(message)), scenario_ref_cols, NELEM(scenario_ref_cols),
	    sizeof(struct scenario_ref_row), false, out);
}

enum fb_err
db_steps_list(struct db *db, const char *tenant, const char *scenario,
    struct dbrows *out)
{
#define DB_ROW struct step_row
	static const struct dbcol cols[] = { DB_COLUMNS(STEP_COLS) };
#undef DB_ROW

	return rows(db, SQ_STEPS_LIST, DBPARAMS(P_STR(tenant), P_STR(scenario)),
	    cols, NELEM(cols), sizeof(struct step_row), false, out);
}

enum fb_err
db_step_insert(struct db *db, const char *tenant, const char *id,
    const char *scenario, long long position, const char *message,
    long long delay)
{
	return run(db, SQ_STEP_INSERT, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(scenario), P_INT(position), P_STR(message),
	    P_INT(delay)), NULL);
}

enum fb_err
db_step_update(struct db *db, const char *tenant, const char *scenario,
    long long position, const char *message, long long delay)
{
	return run(db, SQ_STEP_UPDATE, DBPARAMS(P_STR(message), P_INT(delay),
	    P_STR(tenant), P_STR(scenario), P_INT(position)), NULL);
}

enum fb_err
db_steps_trim(struct db *db, const char *tenant, const char *scenario,
    long long from)
{
	return run(db, SQ_STEPS_TRIM, DBPARAMS(P_STR(tenant), P_STR(scenario),
	    P_INT(from)), NULL);
}

enum fb_err
db_step_messages(struct db *db, const char *tenant, const char *scenario,
    struct dbrows *out)
{
#define DB_ROW struct step_message_row
	static const struct dbcol cols[] = { DB_COLUMNS(STEP_MESSAGE_COLS) };
#undef DB_ROW

	return rows(db, SQ_STEP_MESSAGES,
	    DBPARAMS(P_STR(tenant), P_STR(scenario)),
	    cols, NELEM(cols), sizeof(struct step_message_row), false, out);
}

enum fb_err
db_presets(struct db *db, const char *key, struct dbrows *out)
{
#define DB_ROW struct preset_row
	static const struct dbcol cols[] = { DB_COLUMNS(PRESET_COLS) };
#undef DB_ROW

	return rows(db, SQ_PRESETS, DBPARAMS(P_STR(key), P_STR(key)), cols,
	    NELEM(cols), sizeof(struct preset_row), false, out);
}

enum fb_err
db_examples(struct db *db, const char *channel, const char *key,
    struct dbrows *out)
{
#define DB_ROW struct example_row
	static const struct dbcol cols[] = { DB_COLUMNS(EXAMPLE_COLS) };
#undef DB_ROW

	return rows(db, SQ_EXAMPLES, DBPARAMS(P_STR(channel), P_STR(channel),
	    P_STR(key), P_STR(key)), cols, NELEM(cols),
	    sizeof(struct example_row), false, out);
}

enum fb_err
db_tenant_plan(struct db *db, const char *tenant, enum plan *plan)
{
	struct dbres	 r;
	enum fb_err	 e;

	*plan = PLAN_FREE;
	if ((e = run(db, SQ_PLAN, DBPARAMS(P_STR(tenant)), &r)) != FB_OK)
		return e;
	if (r.nrows != 1 || !plan_parse(r.cell[0], plan))
		*plan = PLAN_FREE;
	dbres_free(&r);
	return FB_OK;
}
