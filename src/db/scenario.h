/*
 * src/db/scenario.c: scenarios, steps, messages, presets, examples;
 * store.h includes every such header.
 */
#ifndef FORMBACK_DB_SCENARIO_H
#define FORMBACK_DB_SCENARIO_H

#include "db.h"

/* A message (contract: Message, MessageOut). */
#define MESSAGE_COLS(F, N) F(id, TEXT, "id") N(channel, TEXT, "channel") \
	N(subject, TEXT, "subject") N(body, TEXT, "body") \
	N(has_body_html, BOOL, "body_html IS NOT NULL") \
	N(body_html, TEXT, "body_html") \
	N(header_image_url, TEXT, "header_image_url") \
	N(link_url, TEXT, "link_url") \
	N(link_params, JSON, "COALESCE(link_params, '{}')") \
	N(blocks, JSON, "blocks") N(sms_segments, NINT, "sms_segments") \
	N(created_at, TIME, "created_at") N(updated_at, TIME, "updated_at")
struct message_row { DB_FIELDS(MESSAGE_COLS) };
/*
 * A message's editable fields as written (NULL for SQL NULL; link_params
 * and blocks JSON text); sms_segments < 0 for none.
 */
struct message_fields {
	const char	*channel, *subject, *body, *header_image_url, *link_url;
	const char	*link_params, *blocks;
	const char	*body_html;	/* as html_sanitize() wrote it */
	long long	 sms_segments;
};
enum fb_err db_message_insert(struct db *, const char *tenant, const char *id,
	    const struct message_fields *) FB_WUR;
/* Every editable field of the tenant's message `id` at once. */
enum fb_err db_message_update(struct db *, const char *tenant, const char *id,
	    const struct message_fields *) FB_WUR;
/* One struct message_row; FB_ENOTFOUND when it is not the tenant's. */
enum fb_err db_message_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* Rows of struct message_row, newest first, n max; channel NULL: any. */
enum fb_err db_message_list(struct db *, const char *tenant,
    const char *channel, const char *after, int n, struct dbrows *) FB_WUR;
/* FB_EDB when steps of deleted scenarios still name it. */
enum fb_err db_message_delete(struct db *, const char *tenant,
    const char *id) FB_WUR;
/* Whether a step of a scenario that is not deleted sends it. */
enum fb_err db_message_in_use(struct db *, const char *tenant, const char *id,
	    bool *in_use) FB_WUR;
/* Copy the tenant's message `from` as `id`. */
enum fb_err db_message_copy(struct db *, const char *tenant, const char *from,
	    const char *id) FB_WUR;

/* A scenario (contract: Scenario); abandon_wait_minutes -1 for none. */
#define SCENARIO_COLS(F, N) F(id, TEXT, "id") N(campaign_id, TEXT, \
    "campaign_id") \
	N(name, TEXT, "name") N(status, TEXT, "status") \
	N(abandon_wait_minutes, INT, "COALESCE(abandon_wait_minutes, -1)") \
	N(created_at, TIME, "created_at") N(updated_at, TIME, "updated_at")
struct scenario_row { DB_FIELDS(SCENARIO_COLS) };
/* A new draft (contract: States, Scenario); wait < 0: none. */
enum fb_err db_scenario_insert(struct db *, const char *tenant, const char *id,
	    const char *campaign, const char *name, long long wait) FB_WUR;
/* One struct scenario_row not deleted; FB_ENOTFOUND when not the tenant's. */
enum fb_err db_scenario_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* The campaign's scenarios, oldest first: rows of struct scenario_row. */
enum fb_err db_scenario_list(struct db *, const char *tenant,
	    const char *campaign, struct dbrows *) FB_WUR;
/* name NULL keeps it; with set_wait, wait is set (< 0: none). */
enum fb_err db_scenario_update(struct db *, const char *tenant, const char *id,
	    const char *name, bool set_wait, long long wait) FB_WUR;
/* Delete its steps and mark it deleted. */
enum fb_err db_scenario_delete(struct db *, const char *tenant,
    const char *id) FB_WUR;
enum fb_err db_scenario_set_status(struct db *, const char *tenant,
	    const char *id, const char *status) FB_WUR;
/* The tenant of a scenario not deleted (operator path); FB_ENOTFOUND. */
enum fb_err db_scenario_tenant(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;
/* Another scenario, as a check names it. */
#define SCENARIO_REF_COLS(F, N) F(id, TEXT, "s.id") \
	N(campaign_id, TEXT, "s.campaign_id") N(name, TEXT, "s.name")
struct scenario_ref_row { DB_FIELDS(SCENARIO_REF_COLS) };
/* The campaign's active scenarios other than `scenario`, locked. */
enum fb_err db_scenario_other_active(struct db *, const char *tenant,
	    const char *campaign, const char *scenario, struct dbrows *) FB_WUR;
/* The active scenarios with a step that sends message `message`. */
enum fb_err db_scenario_active_using(struct db *, const char *tenant,
	    const char *message, struct dbrows *) FB_WUR;

/* A step (contract: ScenarioStep); position from 0. */
#define STEP_COLS(F, N) F(id, TEXT, "st.id") N(position, INT, "st.position") \
	N(message_id, TEXT, "st.message_id") \
	N(delay_minutes, INT, "st.delay_minutes") N(channel, TEXT, "m.channel")
struct step_row { DB_FIELDS(STEP_COLS) };
/* The scenario's steps in order: rows of struct step_row. */
enum fb_err db_steps_list(struct db *, const char *tenant, const char *scenario,
	    struct dbrows *) FB_WUR;
enum fb_err db_step_insert(struct db *, const char *tenant, const char *id,
	    const char *scenario, long long position, const char *message,
	    long long delay) FB_WUR;
/* The step at `position` keeps its id (and its deliveries). */
enum fb_err db_step_update(struct db *, const char *tenant,
    const char *scenario,
	    long long position, const char *message, long long delay) FB_WUR;
/* Remove the steps at `from` and after. */
enum fb_err db_steps_trim(struct db *, const char *tenant, const char *scenario,
	    long long from) FB_WUR;
/* What activation checks of each step's message, in step order. */
#define STEP_MESSAGE_COLS(F, N) F(position, INT, "st.position") \
	N(channel, TEXT, "m.channel") N(subject, TEXT, "m.subject") \
	N(body, TEXT, "m.body") N(blocks, TEXT, "m.blocks") \
	N(has_body_html, BOOL, "m.body_html IS NOT NULL")
struct step_message_row { DB_FIELDS(STEP_MESSAGE_COLS) };
enum fb_err db_step_messages(struct db *, const char *tenant,
	    const char *scenario, struct dbrows *) FB_WUR;

/* A scenario preset (contract: ScenarioPreset); steps as JSON text. */
#define PRESET_COLS(F, N) F(key, TEXT, "preset_key") N(name, TEXT, "name") \
	N(description, TEXT, "description") N(steps, TEXT, "steps")
struct preset_row { DB_FIELDS(PRESET_COLS) };
/* The presets in order, or the one of `key` (NULL: all). */
enum fb_err db_presets(struct db *, const char *key, struct dbrows *) FB_WUR;
/* A message example (contract: MessageExample); blocks as JSON text. */
#define EXAMPLE_COLS(F, N) F(key, TEXT, "example_key") \
	N(channel, TEXT, "channel") N(position, INT, "position") \
	N(delay_minutes, INT, "delay_minutes") N(label, TEXT, "label") \
	N(body, TEXT, "body") N(subject, TEXT, "subject") \
	N(blocks, TEXT, "blocks")
struct example_row { DB_FIELDS(EXAMPLE_COLS) };
/* The examples in order, of `channel` and `key` (NULL: any). */
enum fb_err db_examples(struct db *, const char *channel, const char *key,
	    struct dbrows *) FB_WUR;
/* The tenant's plan (PLAN_FREE when unknown). */
enum fb_err db_tenant_plan(struct db *, const char *tenant, enum plan *) FB_WUR;

#endif
