/*
 * The handlers of formback.fcgi's routes (route.c), one file per
 * resource under src/api/, and what they share.  The request core they
 * are written against is req.h; what they share with formbackctl (keys,
 * members, sites, scenario readiness, webhook endpoints, status, usage)
 * is the operations layer, src/ops/, one header per resource.
 */
#ifndef FORMBACK_API_H
#define FORMBACK_API_H

#include "req.h"

/*
 * hooks.c: POST /hooks/sms/{provider}, /hooks/email/{provider}, a
 * provider's receipt, in the dispatcher's transaction.
 */
enum fb_err	hooks_receipt(struct req *);

/* openapi.c */

/*
 * Build the OpenAPI 3.1 document from the route table, its servers and
 * externalDocs under base_url (a URL, or "/" for a document served by
 * any host).  Caller puts it.
 */
json_object	*openapi_document(const char *base_url);
/*
 * Walk the sections of openapi.md, the document's prose (compiled in):
 * each begins with a line "# <name>" outside a fenced code block, name
 * "info", "tag <tag>", "scheme <security scheme>" or "op <operationId>".
 * From p (NULL: the first section) puts the name into name (cut to
 * namesz) and the text under it, without surrounding blank lines, into
 * body and bodylen (not NUL-terminated); returns where the next section
 * begins, or NULL when there is none from p.
 */
const char	*openapi_text_next(const char *p, char *name, size_t namesz,
		    const char **body, size_t *bodylen);

/* Handlers, one file per resource under src/api/. */
enum fb_err	api_openapi_get(struct req *);
enum fb_err	api_sites_list(struct req *);
enum fb_err	api_sites_get(struct req *);
enum fb_err	api_consent_get(struct req *);
enum fb_err	api_delivery_status_get(struct req *);
enum fb_err	api_campaigns_list(struct req *);
enum fb_err	api_campaigns_create(struct req *);
enum fb_err	api_campaigns_get(struct req *);
enum fb_err	api_campaigns_update(struct req *);
enum fb_err	api_campaigns_url_rules(struct req *);
enum fb_err	api_campaigns_form_profile(struct req *);
enum fb_err	api_campaigns_duplicate(struct req *);
enum fb_err	api_sites_tag_config(struct req *);
enum fb_err	api_sites_match_test(struct req *);
enum fb_err	api_leads_list(struct req *);
enum fb_err	api_leads_export(struct req *);
enum fb_err	api_leads_search(struct req *);
enum fb_err	api_leads_convert(struct req *);
enum fb_err	api_lead_deliveries(struct req *);
enum fb_err	api_leads_get(struct req *);
enum fb_err	api_messages_list(struct req *);
enum fb_err	api_messages_create(struct req *);
enum fb_err	api_messages_get(struct req *);
enum fb_err	api_messages_update(struct req *);
enum fb_err	api_messages_delete(struct req *);
enum fb_err	api_messages_duplicate(struct req *);
enum fb_err	api_message_examples(struct req *);
enum fb_err	api_message_variables(struct req *);
enum fb_err	api_message_previews(struct req *);
enum fb_err	api_messages_estimate(struct req *);
enum fb_err	api_messages_preview_html(struct req *);
enum fb_err	api_scenarios_list(struct req *);
enum fb_err	api_scenarios_create(struct req *);
enum fb_err	api_scenarios_get(struct req *);
enum fb_err	api_scenarios_update(struct req *);
enum fb_err	api_scenarios_delete(struct req *);
enum fb_err	api_scenarios_steps(struct req *);
enum fb_err	api_scenarios_duplicate(struct req *);
enum fb_err	api_scenario_presets(struct req *);
enum fb_err	api_scenarios_from_preset(struct req *);
enum fb_err	api_deliveries_list(struct req *);
enum fb_err	api_deliveries_export(struct req *);
enum fb_err	api_deliveries_get(struct req *);
enum fb_err	api_suppressions_list(struct req *);
enum fb_err	api_suppressions_export(struct req *);
enum fb_err	api_suppressions_create(struct req *);
enum fb_err	api_suppressions_delete(struct req *);
enum fb_err	api_suppressions_import(struct req *);
enum fb_err	api_reports_funnel(struct req *);
enum fb_err	api_reports_daily(struct req *);
enum fb_err	api_pp_checks_list(struct req *);
enum fb_err	api_pp_checks_get(struct req *);
enum fb_err	api_webhooks_list(struct req *);
enum fb_err	api_webhooks_create(struct req *);
enum fb_err	api_webhooks_get(struct req *);
enum fb_err	api_webhooks_delete(struct req *);
enum fb_err	api_webhook_deliveries_list(struct req *);
enum fb_err	api_webhook_redeliver(struct req *);
/* session only (issue 40): enable, recover, send a test event */
enum fb_err	api_webhooks_enable(struct req *);
enum fb_err	api_webhooks_recover(struct req *);
enum fb_err	api_webhooks_test(struct req *);
enum fb_err	api_sites_create(struct req *);
enum fb_err	api_sites_update(struct req *);
enum fb_err	api_delivery_status_set(struct req *);
enum fb_err	api_consent_update(struct req *);
enum fb_err	api_usage_get(struct req *);
enum fb_err	api_health(struct req *);
enum fb_err	api_metrics(struct req *);
/* api/testsends.c */
enum fb_err	api_test_recipients_list(struct req *);
enum fb_err	api_test_recipients_add(struct req *);
enum fb_err	api_test_recipients_confirm(struct req *);
enum fb_err	api_test_recipients_delete(struct req *);
enum fb_err	api_test_sends_create(struct req *);
enum fb_err	api_test_sends_list(struct req *);
/* api/admin.c: the admin API (issue 16) */
enum fb_err	api_session_create(struct req *);
enum fb_err	api_session_get(struct req *);
enum fb_err	api_session_delete(struct req *);
enum fb_err	api_password_reset(struct req *);
enum fb_err	api_invitation_accept(struct req *);
enum fb_err	api_members_list(struct req *);
enum fb_err	api_members_invite(struct req *);
enum fb_err	api_members_update(struct req *);
enum fb_err	api_keys_list(struct req *);
enum fb_err	api_keys_create(struct req *);
enum fb_err	api_keys_revoke(struct req *);
enum fb_err	api_audit_list(struct req *);
enum fb_err	api_session_two_factor(struct req *);
/*
 * api/signin.c: the sign-in throttle (issue 16, 43) of the two subjects of
 * signin_subjects() (session.h): *held true with 429 signin_throttled
 * and Retry-After written while either is blocked.  Errors: the
 * database's.
 */
enum fb_err	signin_wait(struct req *, const unsigned char *acct,
		    const unsigned char *addr, bool *held) FB_WUR;
/* Count a failure (a password, a code) against both subjects. */
enum fb_err	signin_fail(struct req *, const unsigned char *acct,
		    const unsigned char *addr) FB_WUR;
/* api/twofactor.c: a member's second factor (issue 43, item 4) */
enum fb_err	api_totp_get(struct req *);
enum fb_err	api_totp_begin(struct req *);
enum fb_err	api_totp_confirm(struct req *);
enum fb_err	api_totp_disable(struct req *);
enum fb_err	api_recovery_codes_create(struct req *);
enum fb_err	api_two_factor_policy_get(struct req *);
enum fb_err	api_two_factor_policy_set(struct req *);
/*
 * Check a second factor of member `member` of `tenant` in the caller's
 * transaction: a TOTP `code` (totp_check(): the window of one step
 * either way, a step after the last accepted one, which it becomes) or
 * else a `recovery_code` (used up when it matches).  *ok false for a
 * wrong, replayed or used code, or a member without an active TOTP,
 * after the same work.  Errors: the database's, FB_ECRYPTO for a secret
 * that no key opens.
 */
enum fb_err	two_factor_check(struct req *, const char *tenant,
		    const char *member, const char *code,
		    const char *recovery_code, bool *ok) FB_WUR;
/* api/personal.c: data-subject requests (issue 43) */
enum fb_err	api_personal_export(struct req *);
enum fb_err	api_personal_erase(struct req *);
/* api/quarantines.c: a flood's quarantined leads (issue 40) */
enum fb_err	api_quarantines_list(struct req *);
enum fb_err	api_quarantine_release(struct req *);
enum fb_err	api_quarantine_discard(struct req *);
/*
 * After an edit in the request's transaction: active scenario `scenario`
 * of `campaign` must still pass scenario_ready() (an active scenario
 * cannot be edited into a state activation refuses; contract: Message,
 * States).  When it does not, answers 422 scenario_not_sendable with the
 * offending field as `param` (the dispatcher then rolls the edit back)
 * and sets *refused.
 */
enum fb_err	scenario_keep_sendable(struct req *, const char *scenario,
		    const char *campaign, bool *refused) FB_WUR;

/*
 * Copy scenario `from` of the request's tenant into campaign `to` as a
 * draft named `name` (NULL: the same name), with copies of its messages
 * and its steps; the new id in `id` (api/scenarios.c).
 */
enum fb_err	scenario_copy(struct req *, const char *from, const char *to,
		    const char *name, char id[UUID_STRLEN + 1]) FB_WUR;
/* Copy a message of the request's tenant as a new id (messages.c). */
enum fb_err	message_copy(struct req *, const char *from,
    char id[UUID_STRLEN + 1]) FB_WUR;

#endif
