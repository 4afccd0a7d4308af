/*
 * The activation checks of a scenario, shared by the admin API
 * (api/scenarios.c) and formbackctl scenario set-status (scenario.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops/scenario.h"
#include "message.h"
#include "db/store.h"

/* The first offending field of step i into param, the reason into why. */
static bool
fault(char *why, size_t whysz, char *param, size_t paramsz, size_t i,
    const char *field, const char *fmt, ...) FB_PRINTF(7, 8);

static bool
fault(char *why, size_t whysz, char *param, size_t paramsz, size_t i,
    const char *field, const char *fmt, ...)
{
	va_list	 ap;

	snprintf(param, paramsz, "steps[%zu].%s", i, field);
	va_start(ap, fmt);
	vsnprintf(why, whysz, fmt, ap);
	va_end(ap);
	return true;
}

/* Whether step i's message cannot be sent as it is (why, param: fault()). */
static bool
message_faulty(const struct step_message_row *sm, size_t i,
    const struct conf *conf, char *why, size_t whysz, char *param,
    size_t paramsz)
{
	const char	*subj = sm->subject, *body = sm->body;
	const char	*blocks = sm->blocks;
	struct sms_count c;

#define BAD(f, ...) fault(why, whysz, param, paramsz, i, f, __VA_ARGS__)
	if (subj != NULL && strstr(subj, STORE_PLACEHOLDER) != NULL)
		return BAD("subject", "step %zu: the subject still holds %s",
		    i + 1, STORE_PLACEHOLDER);
	if (body != NULL && strstr(body, STORE_PLACEHOLDER) != NULL)
		return BAD("body", "step %zu: the message still holds %s",
		    i + 1, STORE_PLACEHOLDER);
	if (blocks != NULL && strstr(blocks, STORE_PLACEHOLDER) != NULL)
		return BAD("blocks", "step %zu: the blocks still hold %s",
		    i + 1, STORE_PLACEHOLDER);
	if (strcmp(sm->channel, "sms") == 0) {
		if (body == NULL || *body == '\0')
			return BAD("body", "step %zu: the SMS has no body",
			    i + 1);
		if (!sms_count(body, conf->base_url, &c) ||
		    c.characters > SMS_MAX_CHARS)
			return BAD("body", "step %zu: the SMS is longer "
			    "than %d characters", i + 1, SMS_MAX_CHARS);
		return false;
	}
	if (subj == NULL || *subj == '\0')
		return BAD("subject", "step %zu: the email has no subject",
		    i + 1);
	if ((blocks == NULL || strcmp(blocks, "[]") == 0) &&
	    !sm->has_body_html)
		return BAD("blocks", "step %zu: the email has no content",
		    i + 1);
#undef BAD
	return false;
}

enum fb_err
scenario_ready(struct db *db, const struct conf *conf, const char *tenant,
    const char *scenario, const char *campaign, bool *ok, char *why,
    size_t whysz, char *param, size_t paramsz)
{
	struct dbrows	 m, other;
	const struct step_message_row *sm;
	const struct scenario_ref_row *o;
	size_t		 i;
	enum fb_err	 e;

	*ok = false;
	if ((e = db_step_messages(db, tenant, scenario, &m)) != FB_OK)
		return e;
	if (m.n == 0) {
		snprintf(why, whysz, "the scenario has no steps");
		snprintf(param, paramsz, "steps");
		dbrows_free(&m);
		return FB_OK;
	}
	for (i = 0, sm = m.row; i < m.n; i++)
		if (message_faulty(&sm[i], i, conf, why, whysz, param,
		    paramsz)) {
			dbrows_free(&m);
			return FB_OK;
		}
	dbrows_free(&m);
	if ((e = db_scenario_other_active(db, tenant, campaign, scenario,
	    &other)) != FB_OK)
		return e;
	if (other.n > 0) {
		o = other.row;
		snprintf(why, whysz, "scenario '%s' (%s) is already active in "
		    "this campaign; pause it first", o->name, o->id);
		snprintf(param, paramsz, "status");
		dbrows_free(&other);
		return FB_OK;
	}
	dbrows_free(&other);
	*ok = true;
	return FB_OK;
}
