/*
 * ops/scenario.c: whether a scenario may be active (contract: States,
 * Scenario), as the admin API's edits and formbackctl scenario
 * set-status both ask it (design 4).
 *
 * In the caller's transaction; reads only.
 */
#ifndef OPS_SCENARIO_H
#define OPS_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "formback.h"

struct db;

/*
 * The activation checks of scenario `scenario` of campaign `campaign` of
 * `tenant` (contract: States, Scenario): it has steps, no other scenario
 * of the campaign is active, and every message is sendable -- an SMS
 * with a body within SMS_MAX_CHARS characters (conf's base_url sizes its
 * links), an email with a subject and content, and nowhere the
 * unreplaced STORE_PLACEHOLDER (sms.h).  Sets *ok; when false, `why`
 * (whysz bytes, a sentence for people) holds the reason and `param`
 * (paramsz bytes) the first offending field ("steps", "steps[2].body",
 * "status").  Returns FB_OK whatever *ok, else the database's errors (then
 * *ok is false and why, param unset).
 */
enum fb_err	scenario_ready(struct db *, const struct conf *,
		    const char *tenant, const char *scenario,
		    const char *campaign, bool *ok, char *why, size_t whysz,
		    char *param, size_t paramsz) FB_WUR;

#endif
