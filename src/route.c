/*
 * The one route table: every path formback.fcgi answers, the public API
 * and what is outside the contract (the tag's collector, the links of
 * sent messages, providers' receipts: R_INTERNAL, not in openapi.json).
 * Each row carries its policy: scopes (all are required), flags, the
 * parameters the dispatcher checks, and the schema names openapi.json
 * shows.  To add a route: write the handler in src/api/<resource>.c,
 * declare it in api.h, add its row here (the operationId from the
 * contract's scope table), and its schemas to openapi-schemas.json;
 * tests/integ/test_openapi.c checks the rest.
 */
#include "api.h"
#include "ingest.h"
#include "links.h"

#define LIMIT(def)	{ "limit", IN_QUERY, PT_LIMIT, false, NULL, 1, 200, def, \
			  "Page size, 1 to 200." }
#define CURSOR		{ "cursor", IN_QUERY, PT_CURSOR, false, NULL, 0, 0, 0, \
			  "next_cursor of the previous page." }
#define PATH_ID(n)	{ n, IN_PATH, PT_UUID, true, NULL, 0, 0, 0, "Resource id." }
#define END		{ NULL, 0, 0, false, NULL, 0, 0, 0, NULL }

static const struct param_def p_none[] = { END };
static const struct param_def p_list_sites[] = { LIMIT(50), CURSOR, END };
static const struct param_def p_get_site[] = {
	PATH_ID("site_id"),
	{ "nonce", IN_QUERY, PT_BOOL, false, NULL, 0, 0, 0,
	  "Add nonce=\"__CSP_NONCE__\" to every script tag of the snippets." },
	END
};
static const struct param_def p_list_campaigns[] = {
	{ "site_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this site's campaigns." },
	{ "status", IN_QUERY, PT_ENUM, false, "active|paused|archived", 0, 0, 0,
	  "Only campaigns in this state." },
	LIMIT(50), CURSOR, END
};
static const struct param_def p_get_campaign[] = { PATH_ID("campaign_id"), END };
static const struct param_def p_site[] = { PATH_ID("site_id"), END };
static const struct param_def p_list_leads[] = {
	{ "site_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this site's leads." },
	{ "campaign_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this campaign's leads." },
	{ "status", IN_QUERY, PT_ENUM, false,
	  "started|captured|abandoned|queued|sent|converted|suppressed", 0, 0, 0,
	  "Only leads in this state." },
	{ "date_field", IN_QUERY, PT_ENUM, false,
	  "created_at|captured_at|abandoned_at|converted_at", 0, 0, 0,
	  "The datetime that from and to filter on (default created_at)." },
	{ "from", IN_QUERY, PT_DATETIME, false, NULL, 0, 0, 0,
	  "Inclusive lower bound, ISO 8601 with Z or an offset." },
	{ "to", IN_QUERY, PT_DATETIME, false, NULL, 0, 0, 0,
	  "Exclusive upper bound, ISO 8601 with Z or an offset." },
	LIMIT(50), CURSOR, END
};
static const struct param_def p_get_lead[] = { PATH_ID("lead_id"), END };
static const struct param_def p_scenario[] = { PATH_ID("scenario_id"), END };
static const struct param_def p_list_deliveries[] = {
	{ "status", IN_QUERY, PT_ENUM, false,
	  "scheduled|sending|sent|delivered|failed|cancelled|suppressed", 0, 0, 0,
	  "Only deliveries in this state." },
	{ "campaign_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this campaign's." },
	{ "scenario_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this scenario's." },
	{ "date_field", IN_QUERY, PT_ENUM, false, "created_at|scheduled_at|sent_at",
	  0, 0, 0, "The datetime that from and to filter on (default created_at)." },
	{ "from", IN_QUERY, PT_DATETIME, false, NULL, 0, 0, 0, "Inclusive lower bound." },
	{ "to", IN_QUERY, PT_DATETIME, false, NULL, 0, 0, 0, "Exclusive upper bound." },
	LIMIT(50), CURSOR, END
};
static const struct param_def p_delivery[] = { PATH_ID("delivery_id"), END };
static const struct param_def p_list_suppressions[] = {
	{ "q", IN_QUERY, PT_STRING, false, NULL, 0, 254, 0,
	  "An exact phone number or email address (matched through its blind index)." },
	{ "kind", IN_QUERY, PT_ENUM, false, "email|tel", 0, 0, 0, "Only this kind." },
	{ "reason", IN_QUERY, PT_ENUM, false,
	  "opt_out|manual|bounce|complaint|undeliverable", 0, 0, 0, "Only this reason." },
	{ "scope", IN_QUERY, PT_ENUM, false, "tenant|campaign", 0, 0, 0, "Only this scope." },
	{ "campaign_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this campaign's." },
	LIMIT(50), CURSOR, END
};
static const struct param_def p_suppression[] = { PATH_ID("suppression_id"), END };
static const struct param_def p_list_pp_checks[] = {
	PATH_ID("site_id"), LIMIT(20), CURSOR, END
};
static const struct param_def p_pp_check[] = {
	PATH_ID("site_id"), PATH_ID("check_id"), END
};
static const struct param_def p_funnel[] = {
	{ "from", IN_QUERY, PT_DATETIME, true, NULL, 0, 0, 0,
	  "Start, included: ISO 8601 date-time with Z or an offset." },
	{ "to", IN_QUERY, PT_DATETIME, true, NULL, 0, 0, 0,
	  "End, excluded: ISO 8601 date-time with Z or an offset; at most 93 days after from." },
	{ "site_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this site." },
	{ "campaign_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this campaign." },
	{ "group_by", IN_QUERY, PT_ENUM, false, "campaign", 0, 0, 0,
	  "campaign: add groups, one per campaign (campaign_id null: pages under none)." },
	END
};
static const struct param_def p_daily[] = {
	{ "from", IN_QUERY, PT_STRING, true, NULL, 0, 10, 0,
	  "First day, included: YYYY-MM-DD, Japan Standard Time." },
	{ "to", IN_QUERY, PT_STRING, true, NULL, 0, 10, 0,
	  "Day after the last, excluded: YYYY-MM-DD, JST; at most 366 days after from." },
	{ "site_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this site." },
	{ "campaign_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0, "Only this campaign." },
	{ "scenario_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0,
	  "Only this scenario's messages (the other counts are null)." },
	{ "group_by", IN_QUERY, PT_ENUM, false, "step", 0, 0, 0,
	  "step: add groups, one per step with messages sent in the range." },
	END
};
static const struct param_def p_webhook_endpoint[] = { PATH_ID("endpoint_id"), END };
static const struct param_def p_list_webhooks[] = { LIMIT(50), CURSOR, END };
static const struct param_def p_list_webhook_deliveries[] = {
	PATH_ID("endpoint_id"), LIMIT(50), CURSOR, END
};
static const struct param_def p_webhook_delivery[] = { PATH_ID("delivery_id"), END };
static const struct param_def p_webhook_recover[] = {
	PATH_ID("endpoint_id"),
	{ "since", IN_QUERY, PT_DATETIME, false, NULL, 0, 0, 0,
	  "Only records created at this time or later (default: all kept)." },
	END
};
static const struct param_def p_webhook_test[] = {
	PATH_ID("endpoint_id"),
	{ "event_type", IN_QUERY, PT_STRING, false, NULL, 0, 64, 0,
	  "The event type (default: the endpoint's first, else "
	  "lead.captured)." },
	END
};
static const struct param_def p_message[] = { PATH_ID("message_id"), END };
static const struct param_def p_list_messages[] = {
	{ "channel", IN_QUERY, PT_ENUM, false, "sms|email", 0, 0, 0, "Only this channel." },
	LIMIT(50), CURSOR, END
};
static const struct param_def p_examples[] = {
	{ "channel", IN_QUERY, PT_ENUM, false, "sms|email", 0, 0, 0, "Only this channel." },
	END
};
static const struct param_def p_variables[] = {
	{ "campaign_id", IN_QUERY, PT_UUID, true, NULL, 0, 0, 0,
	  "The campaign whose values the variables take." },
	END
};

static const struct param_def p_member[] = { PATH_ID("member_id"), END };
static const struct param_def p_key[] = { PATH_ID("key_id"), END };
static const struct param_def p_list[] = { LIMIT(50), CURSOR, END };
static const struct param_def p_recipient[] = { PATH_ID("recipient_id"), END };
static const struct param_def p_list_quarantines[] = {
	{ "status", IN_QUERY, PT_ENUM, false, "quarantined|released|discarded",
	  0, 0, 0, "Only batches in this state." },
	LIMIT(50), CURSOR, END
};
static const struct param_def p_quarantine[] = { PATH_ID("quarantine_id"), END };
static const struct param_def p_import[] = {
	{ "scope", IN_QUERY, PT_ENUM, false, "tenant|campaign", 0, 0, 0,
	  "The scope of every row (default tenant)." },
	{ "campaign_id", IN_QUERY, PT_UUID, false, NULL, 0, 0, 0,
	  "The campaign, for scope=campaign." },
	END
};

static const struct param_def p_token[] = {
	{ "token", IN_PATH, PT_STRING, true, NULL, 0, 64, 0, "The link's token." },
	END
};
static const struct param_def p_provider[] = {
	{ "provider", IN_PATH, PT_STRING, true, NULL, 0, 64, 0, "The provider's name." },
	END
};

#define S(x)	SCOPE_BIT(SC_##x)
#define OUTSIDE	(R_PUBLIC | R_INTERNAL)	/* no key, not in the contract */
/* the admin API: a member's session only (issue 16; tag "admin") */
#define ADMIN	R_SESSION
#define ADMIN_W	(R_SESSION | R_WRITE)

const struct route routes[] = {
	{ "GET", "/api/v1/openapi.json", api_openapi_get, "getOpenApiDocument",
	  0, R_PUBLIC, p_none, NULL, 200, NULL,
	  "This document (OpenAPI 3.1), without authentication." },
	{ "GET", "/api/v1/sites", api_sites_list, "listSites",
	  S(SITES_READ), 0, p_list_sites, NULL, 200, "SiteListOut",
	  "List sites, newest first." },
	{ "GET", "/api/v1/sites/{site_id}", api_sites_get, "getSite",
	  S(SITES_READ), 0, p_get_site, NULL, 200, "SiteDetailOut",
	  "Get a site with its installation snippets, one per campaign." },
	{ "GET", "/api/v1/consent_settings", api_consent_get, "getConsentSettings",
	  S(SITES_READ), 0, p_none, NULL, 200, "ConsentSettingsOut",
	  "Get the tenant's consent settings." },
	{ "GET", "/api/v1/delivery_status", api_delivery_status_get,
	  "getDeliveryStatus", S(SCENARIOS_READ), 0, p_none, NULL, 200,
	  "DeliveryStatusOut", "Get the delivery switch." },
	{ "GET", "/api/v1/campaigns", api_campaigns_list, "listCampaigns",
	  S(CAMPAIGNS_READ), 0, p_list_campaigns, NULL, 200, "CampaignListOut",
	  "List campaigns, newest first." },
	{ "POST", "/api/v1/campaigns", api_campaigns_create, "createCampaign",
	  S(CAMPAIGNS_WRITE), R_WRITE, p_none, "CampaignIn", 201,
	  "CampaignDetailOut",
	  "Create a campaign; an API key creates it paused." },
	{ "GET", "/api/v1/campaigns/{campaign_id}", api_campaigns_get,
	  "getCampaign", S(CAMPAIGNS_READ), 0, p_get_campaign, NULL, 200,
	  "CampaignDetailOut", "Get a campaign." },
	{ "PATCH", "/api/v1/campaigns/{campaign_id}", api_campaigns_update,
	  "updateCampaign", S(CAMPAIGNS_WRITE), R_WRITE, p_get_campaign,
	  "CampaignPatch", 200, "CampaignDetailOut",
	  "Update a campaign; a status change needs a session (403 session_required)." },
	{ "PUT", "/api/v1/campaigns/{campaign_id}/url-rules", api_campaigns_url_rules,
	  "replaceCampaignUrlRules", S(CAMPAIGNS_WRITE), R_WRITE, p_get_campaign,
	  "UrlRulesIn", 200, "CampaignDetailOut",
	  "Replace all URL rules; one invalid rule saves nothing (422)." },
	{ "PUT", "/api/v1/campaigns/{campaign_id}/form-profile",
	  api_campaigns_form_profile, "replaceCampaignFormProfile",
	  S(CAMPAIGNS_WRITE), R_WRITE, p_get_campaign, "FormProfileIn", 200,
	  "CampaignDetailOut",
	  "Replace the form profile; empty arrays restore automatic detection." },
	{ "POST", "/api/v1/campaigns/{campaign_id}/duplicate", api_campaigns_duplicate,
	  "duplicateCampaign", S(CAMPAIGNS_WRITE) | S(MESSAGES_WRITE) |
	  S(SCENARIOS_WRITE), R_WRITE, p_get_campaign, "CampaignDuplicateIn", 201,
	  "CampaignDetailOut",
	  "Copy a campaign (paused, never run) with its rules, profile and scenarios (as drafts)." },
	{ "POST", "/api/v1/sites/{site_id}/url-rules/test", api_sites_match_test,
	  "testSiteUrlRules", S(CAMPAIGNS_READ), 0, p_site, "MatchTestIn", 200,
	  "MatchTestOut",
	  "Which campaign and role the live tag configuration gives a URL; writes nothing." },
	{ "GET", "/api/v1/sites/{site_id}/pp-checks", api_pp_checks_list,
	  "listSitePpChecks", S(SITES_READ), 0, p_list_pp_checks, NULL, 200,
	  "PpCheckListOut", "The site's privacy-policy checks, newest first (20 a page by default)." },
	{ "GET", "/api/v1/sites/{site_id}/pp-checks/{check_id}", api_pp_checks_get,
	  "getSitePpCheck", S(SITES_READ), 0, p_pp_check, NULL, 200, "PpCheckOut",
	  "One privacy-policy check with its findings." },
	{ "GET", "/api/v1/sites/{site_id}/tag-config", api_sites_tag_config,
	  "getSiteTagConfig", S(SITES_READ), 0, p_site, NULL, 200, "TagConfigOut",
	  "The site's live tag configuration (free-form, outside the contract)." },
	{ "GET", "/api/v1/campaigns/{campaign_id}/scenarios", api_scenarios_list,
	  "listCampaignScenarios", S(SCENARIOS_READ), 0, p_get_campaign, NULL, 200,
	  "ScenarioListOut", "List a campaign's scenarios with their steps." },
	{ "POST", "/api/v1/campaigns/{campaign_id}/scenarios", api_scenarios_create,
	  "createCampaignScenario", S(SCENARIOS_WRITE), R_WRITE, p_get_campaign,
	  "ScenarioIn", 201, "ScenarioOut",
	  "Create a scenario, always as a draft (an API key sending another status: 422 api_key_draft_only)." },
	{ "POST", "/api/v1/campaigns/{campaign_id}/scenarios/from_preset",
	  api_scenarios_from_preset, "createCampaignScenarioFromPreset",
	  S(MESSAGES_WRITE) | S(SCENARIOS_WRITE), R_WRITE, p_get_campaign,
	  "FromPresetIn", 201, "ScenarioOut",
	  "Create a draft scenario and its messages from a preset; over the plan's step limit: 403." },
	{ "GET", "/api/v1/scenarios/{scenario_id}", api_scenarios_get, "getScenario",
	  S(SCENARIOS_READ), 0, p_scenario, NULL, 200, "ScenarioOut", "Get a scenario." },
	{ "PATCH", "/api/v1/scenarios/{scenario_id}", api_scenarios_update,
	  "updateScenario", S(SCENARIOS_WRITE), R_WRITE, p_scenario, "ScenarioPatch",
	  200, "ScenarioOut",
	  "Update a scenario; a status change needs a session (403 session_required)." },
	{ "DELETE", "/api/v1/scenarios/{scenario_id}", api_scenarios_delete,
	  "deleteScenario", S(SCENARIOS_WRITE), R_WRITE, p_scenario, NULL, 204, NULL,
	  "Delete a draft or paused scenario (409 scenario_active for the active one)." },
	{ "PUT", "/api/v1/scenarios/{scenario_id}/steps", api_scenarios_steps,
	  "replaceScenarioSteps", S(SCENARIOS_WRITE), R_WRITE, p_scenario, "StepsIn",
	  200, "ScenarioOut",
	  "Replace all steps; one invalid step saves nothing (422); the plan limits their number (403)." },
	{ "POST", "/api/v1/scenarios/{scenario_id}/duplicate", api_scenarios_duplicate,
	  "duplicateScenario", S(MESSAGES_WRITE) | S(SCENARIOS_WRITE), R_WRITE,
	  p_scenario, "ScenarioDuplicateIn", 201, "ScenarioOut",
	  "Copy a scenario as a draft with copies of its messages, into this or another campaign of the tenant." },
	{ "GET", "/api/v1/scenario_presets", api_scenario_presets,
	  "listScenarioPresets", S(SCENARIOS_READ), 0, p_none, NULL, 200,
	  "ScenarioPresetListOut", "Presets, each available or not by the plan's step limit." },
	{ "GET", "/api/v1/messages", api_messages_list, "listMessages",
	  S(MESSAGES_READ), 0, p_list_messages, NULL, 200, "MessageListOut",
	  "List messages, newest first." },
	{ "POST", "/api/v1/messages", api_messages_create, "createMessage",
	  S(MESSAGES_WRITE), R_WRITE, p_none, "MessageIn", 201, "MessageOut",
	  "Create a message; body_html is for the admin UI only (403 session_required)." },
	{ "POST", "/api/v1/messages/estimate", api_messages_estimate,
	  "estimateSmsSegments", S(MESSAGES_READ), 0, p_none, "SmsEstimateIn", 200,
	  "SmsEstimateOut", "Characters and billed segments of an SMS body (worst-case carrier)." },
	{ "GET", "/api/v1/messages/{message_id}", api_messages_get, "getMessage",
	  S(MESSAGES_READ), 0, p_message, NULL, 200, "MessageOut", "Get a message." },
	{ "PATCH", "/api/v1/messages/{message_id}", api_messages_update,
	  "updateMessage", S(MESSAGES_WRITE), R_WRITE, p_message, "MessagePatch", 200,
	  "MessageOut", "Update a message." },
	{ "DELETE", "/api/v1/messages/{message_id}", api_messages_delete,
	  "deleteMessage", S(MESSAGES_WRITE), R_WRITE, p_message, NULL, 204, NULL,
	  "Delete a message (409 message_in_use when a step uses it)." },
	{ "POST", "/api/v1/messages/{message_id}/duplicate", api_messages_duplicate,
	  "duplicateMessage", S(MESSAGES_WRITE), R_WRITE, p_message, NULL, 201,
	  "MessageOut", "Copy a message." },
	{ "GET", "/api/v1/message_variables", api_message_variables,
	  "listMessageVariables", S(MESSAGES_READ), 0, p_variables, NULL, 200,
	  "MessageVariablesOut", "The variables a message may use, with the campaign's values." },
	{ "GET", "/api/v1/message_examples", api_message_examples,
	  "listMessageExamples", S(MESSAGES_READ), 0, p_examples, NULL, 200,
	  "MessageExampleListOut", "Example texts of the recommended scenario, in full." },
	{ "POST", "/api/v1/message_previews", api_message_previews, "previewMessage",
	  S(MESSAGES_READ), 0, p_none, "MessagePreviewIn", 200, "MessagePreviewOut",
	  "Render email blocks to HTML, every value escaped." },
	{ "POST", "/api/v1/test_sends", api_test_sends_create, "createTestSend",
	  S(MESSAGES_WRITE), R_SESSION | R_WRITE, p_none, "TestSendIn", 202,
	  "TestSendListOut",
	  "Send a message, rendered with sample values, to the confirmed test recipients of its channel (a session only)." },
	{ "GET", "/api/v1/deliveries", api_deliveries_list, "listDeliveries",
	  S(DELIVERIES_READ), 0, p_list_deliveries, NULL, 200, "DeliveryListOut",
	  "List deliveries, newest first." },
	{ "GET", "/api/v1/deliveries/{delivery_id}", api_deliveries_get,
	  "getDelivery", S(DELIVERIES_READ), 0, p_delivery, NULL, 200, "DeliveryOut",
	  "Get a delivery (destination masked)." },
	{ "GET", "/api/v1/suppressions", api_suppressions_list, "listSuppressions",
	  S(SUPPRESSIONS_READ), 0, p_list_suppressions, NULL, 200,
	  "SuppressionListOut", "List suppressions, newest first, masked." },
	{ "POST", "/api/v1/suppressions", api_suppressions_create,
	  "createSuppression", S(SUPPRESSIONS_WRITE), R_WRITE, p_none,
	  "SuppressionIn", 201, "SuppressionCreatedOut",
	  "Add one entry; 409 suppression_exists when an active one of the same scope exists." },
	{ "DELETE", "/api/v1/suppressions/{suppression_id}", api_suppressions_delete,
	  "deleteSuppression", S(SUPPRESSIONS_WRITE), R_WRITE, p_suppression, NULL,
	  204, NULL, "Delete an entry; opt-outs and complaints cannot be (409)." },
	{ "GET", "/api/v1/reports/funnel", api_reports_funnel, "getFunnelReport",
	  S(REPORTS_READ), 0, p_funnel, NULL, 200, "FunnelReportOut",
	  "The funnel of a range, counted from the raw rows, each count by its own time." },
	{ "GET", "/api/v1/reports/daily", api_reports_daily, "getDailyReport",
	  S(REPORTS_READ), 0, p_daily, NULL, 200, "DailyReportOut",
	  "Counts per JST day, from the raw rows, each on the day of its own time." },
	{ "GET", "/api/v1/webhook_endpoints", api_webhooks_list, "listWebhookEndpoints",
	  S(WEBHOOKS_WRITE), 0, p_list_webhooks, NULL, 200, "WebhookEndpointListOut",
	  "List webhook endpoints, newest first; never their secrets." },
	{ "POST", "/api/v1/webhook_endpoints", api_webhooks_create,
	  "createWebhookEndpoint", S(WEBHOOKS_WRITE), R_WRITE, p_none,
	  "WebhookEndpointIn", 201, "WebhookEndpointCreatedOut",
	  "Register an https endpoint for some event types; the response alone carries its secret." },
	{ "GET", "/api/v1/webhook_endpoints/{endpoint_id}", api_webhooks_get,
	  "getWebhookEndpoint", S(WEBHOOKS_WRITE), 0, p_webhook_endpoint, NULL, 200,
	  "WebhookEndpointOut", "Get an endpoint (never its secret)." },
	{ "DELETE", "/api/v1/webhook_endpoints/{endpoint_id}", api_webhooks_delete,
	  "deleteWebhookEndpoint", S(WEBHOOKS_WRITE), R_WRITE, p_webhook_endpoint,
	  NULL, 204, NULL, "Delete an endpoint; nothing more is sent to it." },
	{ "GET", "/api/v1/webhook_endpoints/{endpoint_id}/deliveries",
	  api_webhook_deliveries_list, "listWebhookEndpointDeliveries",
	  S(WEBHOOKS_WRITE), 0, p_list_webhook_deliveries, NULL, 200,
	  "WebhookDeliveryListOut", "The endpoint's delivery log, newest first." },
	{ "POST", "/api/v1/webhook_deliveries/{delivery_id}/redeliver",
	  api_webhook_redeliver, "redeliverWebhookDelivery", S(WEBHOOKS_WRITE),
	  R_WRITE, p_webhook_delivery, NULL, 202, "WebhookDeliveryOut",
	  "Queue the same event again (same payload and event id) as a new pending record." },
	/* session only (issue 40): an owner's or admin's, in the admin UI */
	{ "POST", "/api/v1/webhook_endpoints/{endpoint_id}/enable",
	  api_webhooks_enable, "enableWebhookEndpoint", S(WEBHOOKS_WRITE),
	  R_SESSION | R_WRITE, p_webhook_endpoint, NULL, 200,
	  "WebhookEndpointOut",
	  "Send to a stopped endpoint again, its failures and pause "
	  "forgotten (a session only)." },
	{ "POST", "/api/v1/webhook_endpoints/{endpoint_id}/recover",
	  api_webhooks_recover, "recoverWebhookEndpoint", S(WEBHOOKS_WRITE),
	  R_SESSION | R_WRITE, p_webhook_recover, NULL, 202,
	  "WebhookRecoveryOut",
	  "Queue again the endpoint's records that ended \"endpoint "
	  "stopped\" (a session only; 409 while it is stopped)." },
	{ "POST", "/api/v1/webhook_endpoints/{endpoint_id}/test",
	  api_webhooks_test, "testWebhookEndpoint", S(WEBHOOKS_WRITE),
	  R_SESSION | R_WRITE, p_webhook_test, NULL, 202, "WebhookDeliveryOut",
	  "Queue a test event for this endpoint alone, every id of its data "
	  "the nil UUID (a session only)." },
	{ "GET", "/api/v1/leads", api_leads_list, "listLeads", S(LEADS_READ), 0,
	  p_list_leads, NULL, 200, "LeadListOut", "List leads, newest first." },
	{ "GET", "/api/v1/leads/{lead_id}", api_leads_get, "getLead", S(LEADS_READ),
	  0, p_get_lead, NULL, 200, "LeadDetailOut",
	  "Get a lead with its landing page, UTM and timeline; contacts masked." },

	/*
	 * The admin API (outside the contract, Conventions 6; issue 16): the
	 * same dispatcher, a member's session in place of a key; ROLE_ADMIN
	 * and ROLE_OWNER are the roles' bits (formback.fcgi(8), ROLES).
	 */
	{ "POST", "/api/v1/admin/session", api_session_create, "createAdminSession",
	  0, R_PUBLIC | R_TX | R_KEEP, p_none, "SignInIn", 200, "SessionOut",
	  "Sign in: sets the session cookie; throttled per account and address (429 signin_throttled)." },
	{ "GET", "/api/v1/admin/session", api_session_get, "getAdminSession",
	  0, ADMIN, p_none, NULL, 200, "SessionOut",
	  "The signed-in member and the CSRF token unsafe requests send in X-CSRF-Token." },
	{ "DELETE", "/api/v1/admin/session", api_session_delete, "deleteAdminSession",
	  0, ADMIN_W, p_none, NULL, 204, NULL, "Sign out: ends the session, clears the cookie." },
	{ "POST", "/api/v1/admin/password_resets", api_password_reset,
	  "createPasswordReset", 0, R_PUBLIC | R_TX, p_none, "PasswordResetIn", 202,
	  "PasswordResetOut",
	  "Mail a one-hour reset link to the active members with this address; the same 202 for any address." },
	{ "POST", "/api/v1/admin/invitations/accept", api_invitation_accept,
	  "acceptInvitation", 0, R_PUBLIC | R_TX, p_none, "InvitationAcceptIn", 200,
	  "MemberOut",
	  "Set the password with a one-time invitation or reset token; ends the member's sessions." },
	{ "GET", "/api/v1/admin/members", api_members_list, "listMembers",
	  ROLE_ADMIN, ADMIN, p_list, NULL, 200, "MemberListOut",
	  "The tenant's members, newest first (owners and admins)." },
	{ "POST", "/api/v1/admin/members", api_members_invite, "inviteMember",
	  ROLE_OWNER, ADMIN_W, p_none, "MemberInviteIn", 201, "MemberOut",
	  "Invite a member by email (owners): created without a password, mailed a 72-hour link." },
	{ "PATCH", "/api/v1/admin/members/{member_id}", api_members_update,
	  "updateMember", ROLE_OWNER, ADMIN_W, p_member, "MemberPatch", 200,
	  "MemberOut",
	  "Change a member's role or status (owners); the last owner stays (409 last_owner)." },
	{ "GET", "/api/v1/admin/api_keys", api_keys_list, "listApiKeys",
	  ROLE_ADMIN, ADMIN, p_list, NULL, 200, "ApiKeyListOut",
	  "API keys with prefix, scopes and last use; never the key." },
	{ "POST", "/api/v1/admin/api_keys", api_keys_create, "createApiKey",
	  ROLE_ADMIN, ADMIN_W, p_none, "ApiKeyIn", 201, "ApiKeyCreatedOut",
	  "Issue a key (owners and admins); the response alone carries it." },
	{ "DELETE", "/api/v1/admin/api_keys/{key_id}", api_keys_revoke,
	  "revokeApiKey", ROLE_ADMIN, ADMIN_W, p_key, NULL, 204, NULL,
	  "Revoke a key at once, on every web host." },
	{ "POST", "/api/v1/admin/suppressions/import", api_suppressions_import,
	  "importSuppressions", S(SUPPRESSIONS_WRITE), ADMIN_W | R_RAW,
	  p_import, NULL, 200, "SuppressionImportOut",
	  "Add suppressions from a CSV (text/csv: value[,memo[,expires_at]]; UTF-8 or Shift_JIS; at most 10,000 rows), all or nothing for a broken file." },
	{ "GET", "/api/v1/admin/test_recipients", api_test_recipients_list,
	  "listTestRecipients", ROLE_ADMIN, ADMIN, p_none, NULL, 200,
	  "TestRecipientListOut", "The tenant's test recipients, masked, with their state." },
	{ "POST", "/api/v1/admin/test_recipients", api_test_recipients_add,
	  "addTestRecipient", ROLE_ADMIN, ADMIN_W, p_none, "TestRecipientIn", 201,
	  "TestRecipientOut",
	  "Add a phone number or address: sent a 6-digit code, it counts once confirmed." },
	{ "POST", "/api/v1/admin/test_recipients/{recipient_id}/confirm",
	  api_test_recipients_confirm, "confirmTestRecipient", ROLE_ADMIN,
	  ADMIN_W | R_KEEP,
	  p_recipient, "TestRecipientConfirmIn", 200, "TestRecipientOut",
	  "Type back the code (30 minutes, 5 tries)." },
	{ "DELETE", "/api/v1/admin/test_recipients/{recipient_id}",
	  api_test_recipients_delete, "deleteTestRecipient", ROLE_ADMIN, ADMIN_W,
	  p_recipient, NULL, 204, NULL, "Remove a test recipient." },
	{ "GET", "/api/v1/admin/messages/{message_id}/preview",
	  api_messages_preview_html, "previewMessageHtml", S(MESSAGES_READ), ADMIN,
	  p_message, NULL, 200, NULL,
	  "An email as it is sent, text/html under a CSP sandbox, for a sandboxed frame." },
	{ "GET", "/api/v1/admin/test_sends", api_test_sends_list, "listTestSends",
	  S(MESSAGES_READ), ADMIN, p_list, NULL, 200, "TestSendListOut",
	  "Test sends, newest first, with their outcome." },
	{ "POST", "/api/v1/admin/sites", api_sites_create, "createSite",
	  ROLE_ADMIN, ADMIN_W, p_none, "SiteIn", 201, "SiteOut",
	  "Add a site (owners and admins); its public key is new." },
	{ "PATCH", "/api/v1/admin/sites/{site_id}", api_sites_update, "updateSite",
	  ROLE_ADMIN, ADMIN_W, p_site, "SitePatch", 200, "SiteOut",
	  "Rename a site or set its privacy-policy URL (checked by formback-webhooks)." },
	{ "GET", "/api/v1/admin/usage", api_usage_get, "getUsage", 0, ADMIN, p_none,
	  NULL, 200, "UsageOut", "This JST month's sends against the tenant's quota." },
	{ "PATCH", "/api/v1/admin/consent_settings", api_consent_update,
	  "updateConsentSettings", ROLE_ADMIN, ADMIN_W, p_none, "ConsentSettingsPatch",
	  200, "ConsentSettingsOut",
	  "Change the consent settings; every site's tag configuration is published again." },
	{ "PUT", "/api/v1/admin/delivery_status", api_delivery_status_set,
	  "setDeliveryStatus", ROLE_ADMIN, ADMIN_W, p_none, "DeliveryStatusIn", 200,
	  "DeliveryStatusOut", "Turn sending off, to test recipients only, or live." },
	{ "GET", "/api/v1/admin/audit_log", api_audit_list, "listAuditLog",
	  ROLE_ADMIN, ADMIN, p_list, NULL, 200, "AuditEntryListOut",
	  "Every write with who made it (key or member), newest first." },
	{ "GET", "/api/v1/admin/quarantines", api_quarantines_list,
	  "listQuarantines", ROLE_ADMIN, ADMIN, p_list_quarantines, NULL, 200,
	  "QuarantineListOut",
	  "A flood's leads held per source and hour, newest first: nothing is sent to them until released." },
	{ "POST", "/api/v1/admin/quarantines/{quarantine_id}/release",
	  api_quarantine_release, "releaseQuarantine", ROLE_ADMIN, ADMIN_W,
	  p_quarantine, NULL, 200, "QuarantineOut",
	  "Send to the batch's leads as if never held (409 quarantine_decided once decided)." },
	{ "POST", "/api/v1/admin/quarantines/{quarantine_id}/discard",
	  api_quarantine_discard, "discardQuarantine", ROLE_ADMIN, ADMIN_W,
	  p_quarantine, NULL, 200, "QuarantineOut",
	  "Suppress the batch's leads (lead_ineligible): nothing is sent to them." },

	/* for load balancers and monitors (issue 18): no key, no tenant */
	{ "GET", "/api/v1/health", api_health, "getHealth", 0, OUTSIDE, p_none,
	  NULL, 200, NULL, "The database answers, and the schema version." },
	{ "GET", "/api/v1/metrics", api_metrics, "getMetrics", 0, OUTSIDE, p_none,
	  NULL, 200, NULL, "Queues and cron jobs, Prometheus text (metrics = yes)." },

	/* the page tag's collector (design 3), filed in batches by the main loop */
	{ "POST", "/tag/v1/events", NULL, "collectTagEvent", 0, OUTSIDE | R_COLLECT,
	  p_none, NULL, 204, NULL, "An event of the page tag." },
	{ "OPTIONS", "/tag/v1/events", tag_preflight, "preflightTagEvent", 0,
	  OUTSIDE, p_none, NULL, 204, NULL, "The CORS preflight of the collector." },
	/* the short links of sent messages (design 2) */
	{ "GET", "/r/{token}", links_click, "followLink", 0, OUTSIDE, p_token,
	  NULL, 302, NULL, "A message's click link." },
	{ "GET", "/o/{token}", links_open, "openPixel", 0, OUTSIDE, p_token,
	  NULL, 200, NULL, "An email's open pixel." },
	{ "GET", "/u/{token}", links_optout_page, "optOutPage", 0, OUTSIDE, p_token,
	  NULL, 200, NULL, "A recipient's opt-out page." },
	{ "POST", "/u/{token}", links_optout, "optOut", 0, OUTSIDE | R_TX, p_token,
	  NULL, 200, NULL, "Opt out (the page's button, RFC 8058 one-click)." },
	/* providers' receipts (design 2) */
	{ "POST", "/hooks/sms/{provider}", hooks_receipt, "smsReceipt", 0,
	  OUTSIDE | R_TX, p_provider, "ReceiptIn", 204, NULL,
	  "An SMS provider's receipt." },
	{ "POST", "/hooks/email/{provider}", hooks_receipt, "emailReceipt", 0,
	  OUTSIDE | R_TX, p_provider, "ReceiptIn", 204, NULL,
	  "An email provider's receipt." },
};

const size_t routes_len = NELEM(routes);
