/* SQL of scenarios, steps, messages, presets and examples. */
#include <stdio.h>
#include <string.h>

#include "../store.h"

#define MSG_COLS "id, channel, subject, body, body_html IS NOT NULL, " \
	"header_image_url, link_url, link_params, blocks, sms_segments, " \
	DB_TS("created_at") ", " DB_TS("updated_at")
#define SCN_COLS "id, campaign_id, name, status, abandon_wait_minutes, " \
	DB_TS("created_at") ", " DB_TS("updated_at")

/* statement indexes: enum SQ_* in store.h */
#define SQ__MAX (SQ_SCN_ACTIVE_USING + 1)

static const struct dbstmt sq_sql[SQ__MAX] = {
	/* SQ_MSG_INSERT */
	{ "message_insert",
	  "INSERT INTO messages (id, tenant_id, channel, subject, body, body_html, "
	  "header_image_url, link_url, link_params, blocks, sms_segments) "
	  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	/* SQ_MSG_GET */
	{ "message_get", "SELECT " MSG_COLS " FROM messages WHERE tenant_id = ? AND id = ?" },
	/* SQ_MSG_LIST */
	{ "message_list", "SELECT " MSG_COLS " FROM messages WHERE tenant_id = ? "
	  "AND id < ? AND (? IS NULL OR channel = ?) ORDER BY id DESC LIMIT ?" },
	/* SQ_MSG_UPDATE: the whole editable row, merged by the caller */
	{ "message_update",
	  "UPDATE messages SET channel = ?, subject = ?, body = ?, "
	  "header_image_url = ?, link_url = ?, link_params = ?, blocks = ?, "
	  "sms_segments = ?, updated_at = NOW(6) WHERE tenant_id = ? AND id = ?" },
	/* SQ_MSG_DELETE */
	{ "message_delete", "DELETE FROM messages WHERE tenant_id = ? AND id = ?" },
	/* SQ_MSG_IN_USE: steps of scenarios that are not deleted */
	{ "message_in_use",
	  "SELECT COUNT(*) FROM scenario_steps st JOIN scenarios s ON s.id = st.scenario_id "
	  "WHERE st.tenant_id = ? AND st.message_id = ? AND s.deleted_at IS NULL" },
	/* SQ_MSG_COPY */
	{ "message_copy",
	  "INSERT INTO messages (id, tenant_id, channel, subject, body, body_html, "
	  "header_image_url, link_url, link_params, blocks, sms_segments) "
	  "SELECT ?, tenant_id, channel, subject, body, body_html, header_image_url, "
	  "link_url, link_params, blocks, sms_segments FROM messages "
	  "WHERE tenant_id = ? AND id = ?" },
	/* SQ_SCN_INSERT: always draft (contract: States, Scenario) */
	{ "scenario_insert",
	  "INSERT INTO scenarios (id, tenant_id, campaign_id, name, status, "
	  "abandon_wait_minutes) VALUES (?, ?, ?, ?, 'draft', ?)" },
	/* SQ_SCN_GET */
	{ "scenario_get", "SELECT " SCN_COLS " FROM scenarios WHERE tenant_id = ? "
	  "AND id = ? AND deleted_at IS NULL" },
	/* SQ_SCN_LIST */
	{ "scenario_list", "SELECT " SCN_COLS " FROM scenarios WHERE tenant_id = ? "
	  "AND campaign_id = ? AND deleted_at IS NULL ORDER BY id" },
	/* SQ_SCN_UPDATE: NULL leaves the name; ? = 1 sets the wait (NULL clears) */
	{ "scenario_update",
	  "UPDATE scenarios SET name = COALESCE(?, name), "
	  "abandon_wait_minutes = IF(?, ?, abandon_wait_minutes), "
	  "updated_at = NOW(6) WHERE tenant_id = ? AND id = ? AND deleted_at IS NULL" },
	/* SQ_SCN_DELETE */
	{ "scenario_delete",
	  "UPDATE scenarios SET deleted_at = NOW(6) WHERE tenant_id = ? AND id = ?" },
	/* SQ_SCN_STATUS */
	{ "scenario_set_status",
	  "UPDATE scenarios SET status = ?, updated_at = NOW(6) WHERE tenant_id = ? AND id = ?" },
	/* SQ_SCN_OTHER_ACTIVE */
	{ "scenario_other_active",
	  "SELECT id, name FROM scenarios WHERE tenant_id = ? AND campaign_id = ? "
	  "AND status = 'active' AND deleted_at IS NULL AND id <> ? FOR UPDATE" },
	/* SQ_SCN_OWNER: the tenant of a scenario (operator path) */
	{ "scenario_owner",
	  "SELECT tenant_id FROM scenarios WHERE id = ? AND deleted_at IS NULL" },
	/* SQ_STEPS_LIST */
	{ "steps_list",
	  "SELECT st.id, st.position, st.message_id, st.delay_minutes, m.channel "
	  "FROM scenario_steps st JOIN messages m ON m.id = st.message_id "
	  "WHERE st.tenant_id = ? AND st.scenario_id = ? ORDER BY st.position" },
	/* SQ_STEPS_DELETE */
	{ "steps_delete",
	  "DELETE FROM scenario_steps WHERE tenant_id = ? AND scenario_id = ?" },
	/* SQ_STEP_INSERT */
	{ "step_insert",
	  "INSERT INTO scenario_steps (id, tenant_id, scenario_id, position, "
	  "message_id, delay_minutes) VALUES (?, ?, ?, ?, ?, ?)" },
	/* SQ_STEP_MESSAGES: what activation checks, in step order */
	{ "step_messages",
	  "SELECT st.position, m.id, m.channel, m.subject, m.body, m.blocks, "
	  "m.body_html FROM scenario_steps st JOIN messages m ON m.id = st.message_id "
	  "WHERE st.tenant_id = ? AND st.scenario_id = ? ORDER BY st.position" },
	/* SQ_PRESETS */
	{ "presets", "SELECT preset_key, name, description, steps FROM scenario_presets "
	  "WHERE ? IS NULL OR preset_key = ? ORDER BY position" },
	/* SQ_EXAMPLES */
	{ "examples",
	  "SELECT example_key, channel, position, delay_minutes, label, body, "
	  "subject, blocks FROM message_examples WHERE (? IS NULL OR channel = ?) "
	  "AND (? IS NULL OR example_key = ?) ORDER BY channel DESC, position" },
	/* SQ_PLAN */
	{ "tenant_plan", "SELECT plan FROM tenants WHERE id = ?" },
	/* SQ_STEP_UPDATE: the step at a position keeps its id (and deliveries) */
	{ "step_update",
	  "UPDATE scenario_steps SET message_id = ?, delay_minutes = ? "
	  "WHERE tenant_id = ? AND scenario_id = ? AND position = ?" },
	/* SQ_STEPS_TRIM: positions past the new list */
	{ "steps_trim",
	  "DELETE FROM scenario_steps WHERE tenant_id = ? AND scenario_id = ? "
	  "AND position >= ?" },
	/* SQ_SCN_ACTIVE_USING: the active scenarios (id, campaign) a message is in */
	{ "scenario_active_using",
	  "SELECT DISTINCT s.id, s.campaign_id FROM scenario_steps st "
	  "JOIN scenarios s ON s.id = st.scenario_id WHERE st.tenant_id = ? "
	  "AND st.message_id = ? AND s.status = 'active' AND s.deleted_at IS NULL" },
};

enum fb_err
db_sq(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_SCENARIO, id, &sq_sql[id], p, n, r);
}
