/*
 * The one route table: every path formback.fcgi answers, the public API
 * and what is outside the contract (the tag's collector, the links of
 * sent messages, providers' receipts: R_INTERNAL, not in openapi.json).
 * Each row carries its policy: scopes (all are required), flags, the
 * parameters the dispatcher checks, and the schema names openapi.json
 * shows.  To add a route: write the handler in src/api/<resource>.c,
 * declare it in api.h, add its row here (the operationId from the
 * contract's scope table), its schemas to openapi-schemas.json and
 * what a client must know of it beyond its summary to openapi.md;
 * tests/integ/test_openapi.c checks the rest.
 */
#include "api.h"
#include "ingest.h"
#include "links.h"

#define LIMIT(d)	{ .name = "limit", .in = IN_QUERY, .type = PT_LIMIT, \
			  .min = 1, .max = 200, .def = (d), \
			  .desc = "Page size, 1 to 200." }
#define CURSOR		{ .name = "cursor", .in = IN_QUERY, \
			  .type = PT_CURSOR, \
			  .desc = "next_cursor of the previous page." }
#define PATH_ID(n)	{ .name = (n), .in = IN_PATH, .type = PT_UUID, \
			  .required = true, .desc = "Resource id." }
#define END		{ .name = NULL }

static const struct param_def p_none[] = { END };
static const struct param_def p_list_sites[] = { LIMIT(50), CURSOR, END };
static const struct param_def p_get_site[] = {
	PATH_ID("site_id"),
	{ .name = "nonce", .in = IN_QUERY, .type = PT_BOOL,
	  .desc = "Add nonce=\"__CSP_NONCE__\" to every script tag of the "
	  "snippets." },
	END
};
static const struct param_def p_list_campaigns[] = {
	{ .name = "site_id", .in = IN_QUERY, .type = PT_UUID,
	  .desc = "Only this site's campaigns." },
	{ .name = "status", .in = IN_QUERY, .type = PT_ENUM,
	  .enums = "active|paused|archived",
	  .desc = "Only campaigns in this state." },
	LIMIT(50), CURSOR, END
};
static const struct param_def p_get_campaign[] = {
	PATH_ID("campaign_id"), END
};
static const struct param_def p_site[] = { PATH_ID("site_id"), END };
#define LEAD_FILTERS \
	{ .name = "site_id", .in = IN_QUERY, .type = PT_UUID, \
	  .desc = "Only this site's leads." }, \
	{ .name = "campaign_id", .in = IN_QUERY, .type = PT_UUID, \
	  .desc = "Only this campaign's leads." }, \
	{ .name = "status", .in = IN_QUERY, .type = PT_ENUM, \
	  .enums = "started|captured|abandoned|queued|sent|converted|" \
	  "suppressed", \
	  .desc = "Only leads in this state." }, \
	{ .name = "date_field", .in = IN_QUERY, .type = PT_ENUM, \
	  .enums = "created_at|captured_at|abandoned_at|converted_at", \
	  .desc = "The datetime that from and to filter on (default " \
	  "created_at)." }, \
	{ .name = "from", .in = IN_QUERY, .type = PT_DATETIME, \
	  .desc = "Inclusive lower bound, ISO 8601 with Z or an offset." }, \
	{ .name = "to", .in = IN_QUERY, .type = PT_DATETIME, \
	  .desc = "Exclusive upper bound, ISO 8601 with Z or an offset." }
static const struct param_def p_list_leads[] = {
	LEAD_FILTERS, LIMIT(50), CURSOR, END
};
static const struct param_def p_export_leads[] = { LEAD_FILTERS, END };
static const struct param_def p_get_lead[] = { PATH_ID("lead_id"), END };
static const struct param_def p_scenario[] = { PATH_ID("scenario_id"), END };
#define DELIVERY_FILTERS \
	{ .name = "status", .in = IN_QUERY, .type = PT_ENUM, \
	  .enums = "scheduled|sending|sent|delivered|failed|cancelled|" \
	  "suppressed", \
	  .desc = "Only deliveries in this state." }, \
	{ .name = "campaign_id", .in = IN_QUERY, .type = PT_UUID, \
	  .desc = "Only this campaign's." }, \
	{ .name = "scenario_id", .in = IN_QUERY, .type = PT_UUID, \
	  .desc = "Only this scenario's." }, \
	{ .name = "date_field", .in = IN_QUERY, .type = PT_ENUM, \
	  .enums = "created_at|scheduled_at|sent_at", \
	  .desc = "The datetime that from and to filter on (default " \
	  "created_at)." }, \
	{ .name = "from", .in = IN_QUERY, .type = PT_DATETIME, \
	  .desc = "Inclusive lower bound." }, \
	{ .name = "to", .in = IN_QUERY, .type = PT_DATETIME, \
	  .desc = "Exclusive upper bound." }
static const struct param_def p_list_deliveries[] = {
	DELIVERY_FILTERS, LIMIT(50), CURSOR, END
};
static const struct param_def p_export_deliveries[] = {
	DELIVERY_FILTERS, END
};
static const struct param_def p_delivery[] = { PATH_ID("delivery_id"), END };
#define SUPPRESSION_FILTERS \
	{ .name = "q", .in = IN_QUERY, .type = PT_STRING, .max = 254, \
	  .desc = "An exact phone number or email address (matched through " \
	      "its " \
	  "blind index)." }, \
	{ .name = "kind", .in = IN_QUERY, .type = PT_ENUM, \
	    .enums = "email|tel", \
	  .desc = "Only this kind." }, \
	{ .name = "reason", .in = IN_QUERY, .type = PT_ENUM, \
	  .enums = "opt_out|manual|bounce|complaint|undeliverable", \
	  .desc = "Only this reason." }, \
	{ .name = "scope", .in = IN_QUERY, .type = PT_ENUM, \
	  .enums = "tenant|campaign", .desc = "Only this scope." }, \
	{ .name = "campaign_id", .in = IN_QUERY, .type = PT_UUID, \
	  .desc = "Only this campaign's." }
static const struct param_def p_list_suppressions[] = {
	SUPPRESSION_FILTERS, LIMIT(50), CURSOR, END
};
static const struct param_def p_export_suppressions[] = {
	SUPPRESSION_FILTERS, END
};
static const struct param_def p_suppression[] = {
	PATH_ID("suppression_id"), END
};
static const struct param_def p_list_pp_checks[] = {
	PATH_ID("site_id"), LIMIT(20), CURSOR, END
};
static const struct param_def p_pp_check[] = {
	PATH_ID("site_id"), PATH_ID("check_id"), END
};
static const struct param_def p_funnel[] = {
	{ .name = "from", .in = IN_QUERY, .type = PT_DATETIME, .required = true,
	  .desc = "Start, included: ISO 8601 date-time with Z or an offset." },
	{ .name = "to", .in = IN_QUERY, .type = PT_DATETIME, .required = true,
	  .desc = "End, excluded: ISO 8601 date-time with Z or an offset; at "
	  "most 93 days after from." },
	{ .name = "site_id", .in = IN_QUERY, .type = PT_UUID,
	  .desc = "Only this site." },
	{ .name = "campaign_id", .in = IN_QUERY, .type = PT_UUID,
	  .desc = "Only this campaign." },
	{ .name = "group_by", .in = IN_QUERY, .type = PT_ENUM,
	  .enums = "campaign", .desc = "campaign: add groups, one per campaign "
	  "(campaign_id null: pages under none)." },
	END
};
static const struct param_def p_daily[] = {
	{ .name = "from", .in = IN_QUERY, .type = PT_STRING, .required = true,
	  .max = 10,
	  .desc = "First day, included: YYYY-MM-DD, Japan Standard Time." },
	{ .name = "to", .in = IN_QUERY, .type = PT_STRING, .required = true,
	  .max = 10, .desc = "Day after the last, excluded: YYYY-MM-DD, JST; "
	  "at most 366 days after from." },
	{ .name = "site_id", .in = IN_QUERY, .type = PT_UUID,
	  .desc = "Only this site." },
	{ .name = "campaign_id", .in = IN_QUERY, .type = PT_UUID,
	  .desc = "Only this campaign." },
	{ .name = "scenario_id", .in = IN_QUERY, .type = PT_UUID,
	  .desc = "Only this scenario's messages (the other counts are "
	  "null)." },
	{ .name = "group_by", .in = IN_QUERY, .type = PT_ENUM, .enums = "step",
	  .desc = "step: add groups, one per step with messages sent in the "
	  "range." },
	END
};
static const struct param_def p_webhook_endpoint[] = {
	PATH_ID("endpoint_id"), END
};
static const struct param_def p_list_webhooks[] = { LIMIT(50), CURSOR, END };
static const struct param_def p_list_webhook_deliveries[] = {
	PATH_ID("endpoint_id"), LIMIT(50), CURSOR, END
};
static const struct param_def p_webhook_delivery[] = {
	PATH_ID("delivery_id"), END
};
static const struct param_def p_webhook_recover[] = {
	PATH_ID("endpoint_id"),
	{ .name = "since", .in = IN_QUERY, .type = PT_DATETIME,
	  .desc = "Only records created at this time or later (default: all "
	  "kept)." },
	END
};
static const struct param_def p_webhook_test[] = {
	PATH_ID("endpoint_id"),
	{ .name = "event_type", .in = IN_QUERY, .type = PT_STRING, .max = 64,
	  .desc = "The event type (default: the endpoint's first, else "
	  "lead.captured)." },
	END
};
static const struct param_def p_message[] = { PATH_ID("message_id"), END };
static const struct param_def p_list_messages[] = {
	{ .name = "channel", .in = IN_QUERY, .type = PT_ENUM,
	  .enums = "sms|email", .desc = "Only this channel." },
	LIMIT(50), CURSOR, END
};
static const struct param_def p_examples[] = {
	{ .name = "channel", .in = IN_QUERY, .type = PT_ENUM,
	  .enums = "sms|email", .desc = "Only this channel." },
	END
};
static const struct param_def p_variables[] = {
	{ .name = "campaign_id", .in = IN_QUERY, .type = PT_UUID,
	  .required = true,
	  .desc = "The campaign whose values the variables take." },
	END
};

static const struct param_def p_member[] = { PATH_ID("member_id"), END };
static const struct param_def p_key[] = { PATH_ID("key_id"), END };
static const struct param_def p_list[] = { LIMIT(50), CURSOR, END };
static const struct param_def p_recipient[] = { PATH_ID("recipient_id"), END };
static const struct param_def p_list_quarantines[] = {
	{ .name = "status", .in = IN_QUERY, .type = PT_ENUM,
	  .enums = "quarantined|released|discarded",
	  .desc = "Only batches in this state." },
	LIMIT(50), CURSOR, END
};
static const struct param_def p_quarantine[] = {
	PATH_ID("quarantine_id"), END
};
static const struct param_def p_import[] = {
	{ .name = "scope", .in = IN_QUERY, .type = PT_ENUM,
	  .enums = "tenant|campaign",
	  .desc = "The scope of every row (default tenant)." },
	{ .name = "campaign_id", .in = IN_QUERY, .type = PT_UUID,
	  .desc = "The campaign, for scope=campaign." },
	END
};

static const struct param_def p_token[] = {
	{ .name = "token", .in = IN_PATH, .type = PT_STRING, .required = true,
	  .max = 64, .desc = "The link's token." },
	END
};
static const struct param_def p_provider[] = {
	{ .name = "provider", .in = IN_PATH, .type = PT_STRING,
	  .required = true, .max = 64, .desc = "The provider's name." },
	END
};

#define S(x)	SCOPE_BIT(SC_##x)
/* no key, not in the contract */
#define OUTSIDE	(R_PUBLIC | R_INTERNAL)
/* the admin API: a member's session only (issue 16; tag "admin") */
#define ADMIN	R_SESSION
#define ADMIN_W	(R_SESSION | R_WRITE)

const struct route routes[] = {
	{ .method = "GET", .path = "/api/v1/openapi.json",
	  .fn = api_openapi_get, .operation_id = "getOpenApiDocument",
	  .flags = R_PUBLIC, .params = p_none, .status = 200,
	  .summary = "This document (OpenAPI 3.1), without authentication." },
	{ .method = "GET", .path = "/api/v1/sites", .fn = api_sites_list,
	  .operation_id = "listSites", .scopes = S(SITES_READ),
	  .params = p_list_sites, .status = 200, .resp_schema = "SiteListOut",
	  .summary = "List sites, newest first." },
	{ .method = "GET", .path = "/api/v1/sites/{site_id}",
	  .fn = api_sites_get, .operation_id = "getSite",
	  .scopes = S(SITES_READ), .params = p_get_site, .status = 200,
	  .resp_schema = "SiteDetailOut",
	  .summary = "Get a site with its installation snippets, one per "
	  "campaign." },
	{ .method = "GET", .path = "/api/v1/consent_settings",
	  .fn = api_consent_get, .operation_id = "getConsentSettings",
	  .scopes = S(SITES_READ), .params = p_none, .status = 200,
	  .resp_schema = "ConsentSettingsOut",
	  .summary = "Get the tenant's consent settings." },
	{ .method = "GET", .path = "/api/v1/delivery_status",
	  .fn = api_delivery_status_get, .operation_id = "getDeliveryStatus",
	  .scopes = S(SCENARIOS_READ), .params = p_none, .status = 200,
	  .resp_schema = "DeliveryStatusOut",
	  .summary = "Get the delivery switch." },
	{ .method = "GET", .path = "/api/v1/campaigns",
	  .fn = api_campaigns_list, .operation_id = "listCampaigns",
	  .scopes = S(CAMPAIGNS_READ), .params = p_list_campaigns,
	  .status = 200, .resp_schema = "CampaignListOut",
	  .summary = "List campaigns, newest first." },
	{ .method = "POST", .path = "/api/v1/campaigns",
	  .fn = api_campaigns_create, .operation_id = "createCampaign",
	  .scopes = S(CAMPAIGNS_WRITE), .flags = R_WRITE, .params = p_none,
	  .body_schema = "CampaignIn", .status = 201,
	  .resp_schema = "CampaignDetailOut",
	  .summary = "Create a campaign; an API key creates it paused." },
	{ .method = "GET", .path = "/api/v1/campaigns/{campaign_id}",
	  .fn = api_campaigns_get, .operation_id = "getCampaign",
	  .scopes = S(CAMPAIGNS_READ), .params = p_get_campaign, .status = 200,
	  .resp_schema = "CampaignDetailOut",
	  .summary = "Get a campaign." },
	{ .method = "PATCH", .path = "/api/v1/campaigns/{campaign_id}",
	  .fn = api_campaigns_update, .operation_id = "updateCampaign",
	  .scopes = S(CAMPAIGNS_WRITE), .flags = R_WRITE,
	  .params = p_get_campaign, .body_schema = "CampaignPatch",
	  .status = 200, .resp_schema = "CampaignDetailOut",
	  .summary = "Update a campaign; a status change needs a session (403 "
	  "session_required)." },
	{ .method = "PUT", .path = "/api/v1/campaigns/{campaign_id}/url-rules",
	  .fn = api_campaigns_url_rules,
	  .operation_id = "replaceCampaignUrlRules",
	  .scopes = S(CAMPAIGNS_WRITE), .flags = R_WRITE,
	  .params = p_get_campaign, .body_schema = "UrlRulesIn", .status = 200,
	  .resp_schema = "CampaignDetailOut",
	  .summary = "Replace all URL rules; one invalid rule saves nothing "
	  "(422)." },
	{ .method = "PUT",
	  .path = "/api/v1/campaigns/{campaign_id}/form-profile",
	  .fn = api_campaigns_form_profile,
	  .operation_id = "replaceCampaignFormProfile",
	  .scopes = S(CAMPAIGNS_WRITE), .flags = R_WRITE,
	  .params = p_get_campaign, .body_schema = "FormProfileIn",
	  .status = 200, .resp_schema = "CampaignDetailOut",
	  .summary = "Replace the form profile; empty arrays restore automatic "
	  "detection." },
	{ .method = "POST", .path = "/api/v1/campaigns/{campaign_id}/duplicate",
	  .fn = api_campaigns_duplicate, .operation_id = "duplicateCampaign",
	  .scopes = S(CAMPAIGNS_WRITE) | S(MESSAGES_WRITE) | S(SCENARIOS_WRITE),
	  .flags = R_WRITE, .params = p_get_campaign,
	  .body_schema = "CampaignDuplicateIn", .status = 201,
	  .resp_schema = "CampaignDetailOut",
	  .summary = "Copy a campaign (paused, never run) with its rules, "
	  "profile and scenarios (as drafts)." },
	{ .method = "POST", .path = "/api/v1/sites/{site_id}/url-rules/test",
	  .fn = api_sites_match_test, .operation_id = "testSiteUrlRules",
	  .scopes = S(CAMPAIGNS_READ), .params = p_site,
	  .body_schema = "MatchTestIn", .status = 200,
	  .resp_schema = "MatchTestOut",
	  .summary = "Which campaign and role the live tag configuration gives "
	  "a URL; writes nothing." },
	{ .method = "GET", .path = "/api/v1/sites/{site_id}/pp-checks",
	  .fn = api_pp_checks_list, .operation_id = "listSitePpChecks",
	  .scopes = S(SITES_READ), .params = p_list_pp_checks, .status = 200,
	  .resp_schema = "PpCheckListOut",
	  .summary = "The site's privacy-policy checks, newest first (20 a "
	  "page by default)." },
	{ .method = "GET",
	  .path = "/api/v1/sites/{site_id}/pp-checks/{check_id}",
	  .fn = api_pp_checks_get, .operation_id = "getSitePpCheck",
	  .scopes = S(SITES_READ), .params = p_pp_check, .status = 200,
	  .resp_schema = "PpCheckOut",
	  .summary = "One privacy-policy check with its findings." },
	{ .method = "GET", .path = "/api/v1/sites/{site_id}/tag-config",
	  .fn = api_sites_tag_config, .operation_id = "getSiteTagConfig",
	  .scopes = S(SITES_READ), .params = p_site, .status = 200,
	  .resp_schema = "TagConfigOut",
	  .summary = "The site's live tag configuration (free-form, outside "
	  "the contract)." },
	{ .method = "GET", .path = "/api/v1/campaigns/{campaign_id}/scenarios",
	  .fn = api_scenarios_list, .operation_id = "listCampaignScenarios",
	  .scopes = S(SCENARIOS_READ), .params = p_get_campaign, .status = 200,
	  .resp_schema = "ScenarioListOut",
	  .summary = "List a campaign's scenarios with their steps." },
	{ .method = "POST", .path = "/api/v1/campaigns/{campaign_id}/scenarios",
	  .fn = api_scenarios_create, .operation_id = "createCampaignScenario",
	  .scopes = S(SCENARIOS_WRITE), .flags = R_WRITE,
	  .params = p_get_campaign, .body_schema = "ScenarioIn", .status = 201,
	  .resp_schema = "ScenarioOut",
	  .summary = "Create a scenario, always as a draft (an API key sending "
	  "another status: 422 api_key_draft_only)." },
	{ .method = "POST",
	  .path = "/api/v1/campaigns/{campaign_id}/scenarios/from_preset",
	  .fn = api_scenarios_from_preset,
	  .operation_id = "createCampaignScenarioFromPreset",
	  .scopes = S(MESSAGES_WRITE) | S(SCENARIOS_WRITE), .flags = R_WRITE,
	  .params = p_get_campaign, .body_schema = "FromPresetIn",
	  .status = 201, .resp_schema = "ScenarioOut",
	  .summary = "Create a draft scenario and its messages from a preset; "
	  "over the plan's step limit: 403." },
	{ .method = "GET", .path = "/api/v1/scenarios/{scenario_id}",
	  .fn = api_scenarios_get, .operation_id = "getScenario",
	  .scopes = S(SCENARIOS_READ), .params = p_scenario, .status = 200,
	  .resp_schema = "ScenarioOut",
	  .summary = "Get a scenario." },
	{ .method = "PATCH", .path = "/api/v1/scenarios/{scenario_id}",
	  .fn = api_scenarios_update, .operation_id = "updateScenario",
	  .scopes = S(SCENARIOS_WRITE), .flags = R_WRITE, .params = p_scenario,
	  .body_schema = "ScenarioPatch", .status = 200,
	  .resp_schema = "ScenarioOut",
	  .summary = "Update a scenario; a status change needs a session (403 "
	  "session_required)." },
	{ .method = "DELETE", .path = "/api/v1/scenarios/{scenario_id}",
	  .fn = api_scenarios_delete, .operation_id = "deleteScenario",
	  .scopes = S(SCENARIOS_WRITE), .flags = R_WRITE, .params = p_scenario,
	  .status = 204,
	  .summary = "Delete a draft or paused scenario (409 scenario_active "
	  "for the active one)." },
	{ .method = "PUT", .path = "/api/v1/scenarios/{scenario_id}/steps",
	  .fn = api_scenarios_steps, .operation_id = "replaceScenarioSteps",
	  .scopes = S(SCENARIOS_WRITE), .flags = R_WRITE, .params = p_scenario,
	  .body_schema = "StepsIn", .status = 200, .resp_schema = "ScenarioOut",
	  .summary = "Replace all steps; one invalid step saves nothing (422); "
	  "the plan limits their number (403)." },
	{ .method = "POST", .path = "/api/v1/scenarios/{scenario_id}/duplicate",
	  .fn = api_scenarios_duplicate, .operation_id = "duplicateScenario",
	  .scopes = S(MESSAGES_WRITE) | S(SCENARIOS_WRITE), .flags = R_WRITE,
	  .params = p_scenario, .body_schema = "ScenarioDuplicateIn",
	  .status = 201, .resp_schema = "ScenarioOut",
	  .summary = "Copy a scenario as a draft with copies of its messages, "
	  "into this or another campaign of the tenant." },
	{ .method = "GET", .path = "/api/v1/scenario_presets",
	  .fn = api_scenario_presets, .operation_id = "listScenarioPresets",
	  .scopes = S(SCENARIOS_READ), .params = p_none, .status = 200,
	  .resp_schema = "ScenarioPresetListOut",
	  .summary = "Presets, each available or not by the plan's step "
	  "limit." },
	{ .method = "GET", .path = "/api/v1/messages", .fn = api_messages_list,
	  .operation_id = "listMessages", .scopes = S(MESSAGES_READ),
	  .params = p_list_messages, .status = 200,
	  .resp_schema = "MessageListOut",
	  .summary = "List messages, newest first." },
	{ .method = "POST", .path = "/api/v1/messages",
	  .fn = api_messages_create, .operation_id = "createMessage",
	  .scopes = S(MESSAGES_WRITE), .flags = R_WRITE, .params = p_none,
	  .body_schema = "MessageIn", .status = 201,
	  .resp_schema = "MessageOut",
	  .summary = "Create a message; body_html is for the admin UI only "
	  "(403 session_required)." },
	{ .method = "POST", .path = "/api/v1/messages/estimate",
	  .fn = api_messages_estimate, .operation_id = "estimateSmsSegments",
	  .scopes = S(MESSAGES_READ), .params = p_none,
	  .body_schema = "SmsEstimateIn", .status = 200,
	  .resp_schema = "SmsEstimateOut",
	  .summary = "Characters and billed segments of an SMS body "
	  "(worst-case carrier)." },
	{ .method = "GET", .path = "/api/v1/messages/{message_id}",
	  .fn = api_messages_get, .operation_id = "getMessage",
	  .scopes = S(MESSAGES_READ), .params = p_message, .status = 200,
	  .resp_schema = "MessageOut",
	  .summary = "Get a message." },
	{ .method = "PATCH", .path = "/api/v1/messages/{message_id}",
	  .fn = api_messages_update, .operation_id = "updateMessage",
	  .scopes = S(MESSAGES_WRITE), .flags = R_WRITE, .params = p_message,
	  .body_schema = "MessagePatch", .status = 200,
	  .resp_schema = "MessageOut",
	  .summary = "Update a message." },
	{ .method = "DELETE", .path = "/api/v1/messages/{message_id}",
	  .fn = api_messages_delete, .operation_id = "deleteMessage",
	  .scopes = S(MESSAGES_WRITE), .flags = R_WRITE, .params = p_message,
	  .status = 204,
	  .summary = "Delete a message (409 message_in_use when a step uses "
	  "it)." },
	{ .method = "POST", .path = "/api/v1/messages/{message_id}/duplicate",
	  .fn = api_messages_duplicate, .operation_id = "duplicateMessage",
	  .scopes = S(MESSAGES_WRITE), .flags = R_WRITE, .params = p_message,
	  .status = 201, .resp_schema = "MessageOut",
	  .summary = "Copy a message." },
	{ .method = "GET", .path = "/api/v1/message_variables",
	  .fn = api_message_variables, .operation_id = "listMessageVariables",
	  .scopes = S(MESSAGES_READ), .params = p_variables, .status = 200,
	  .resp_schema = "MessageVariablesOut",
	  .summary = "The variables a message may use, with the campaign's "
	  "values." },
	{ .method = "GET", .path = "/api/v1/message_examples",
	  .fn = api_message_examples, .operation_id = "listMessageExamples",
	  .scopes = S(MESSAGES_READ), .params = p_examples, .status = 200,
	  .resp_schema = "MessageExampleListOut",
	  .summary = "Example texts of the recommended scenario, in full." },
	{ .method = "POST", .path = "/api/v1/message_previews",
	  .fn = api_message_previews, .operation_id = "previewMessage",
	  .scopes = S(MESSAGES_READ), .params = p_none,
	  .body_schema = "MessagePreviewIn", .status = 200,
	  .resp_schema = "MessagePreviewOut",
	  .summary = "Render email blocks to HTML, every value escaped." },
	{ .method = "POST", .path = "/api/v1/test_sends",
	  .fn = api_test_sends_create, .operation_id = "createTestSend",
	  .scopes = S(MESSAGES_WRITE), .flags = R_SESSION | R_WRITE,
	  .params = p_none, .body_schema = "TestSendIn", .status = 202,
	  .resp_schema = "TestSendListOut",
	  .summary = "Send a message, rendered with sample values, to the "
	  "confirmed test recipients of its channel (a session only)." },
	{ .method = "GET", .path = "/api/v1/deliveries",
	  .fn = api_deliveries_list, .operation_id = "listDeliveries",
	  .scopes = S(DELIVERIES_READ), .params = p_list_deliveries,
	  .status = 200, .resp_schema = "DeliveryListOut",
	  .summary = "List deliveries, newest first." },
	{ .method = "GET", .path = "/api/v1/deliveries/{delivery_id}",
	  .fn = api_deliveries_get, .operation_id = "getDelivery",
	  .scopes = S(DELIVERIES_READ), .params = p_delivery, .status = 200,
	  .resp_schema = "DeliveryOut",
	  .summary = "Get a delivery (destination masked)." },
	{ .method = "GET", .path = "/api/v1/suppressions",
	  .fn = api_suppressions_list, .operation_id = "listSuppressions",
	  .scopes = S(SUPPRESSIONS_READ), .params = p_list_suppressions,
	  .status = 200, .resp_schema = "SuppressionListOut",
	  .summary = "List suppressions, newest first, masked." },
	{ .method = "POST", .path = "/api/v1/suppressions",
	  .fn = api_suppressions_create, .operation_id = "createSuppression",
	  .scopes = S(SUPPRESSIONS_WRITE), .flags = R_WRITE, .params = p_none,
	  .body_schema = "SuppressionIn", .status = 201,
	  .resp_schema = "SuppressionCreatedOut",
	  .summary = "Add one entry; 409 suppression_exists when an active one "
	  "of the same scope exists." },
	{ .method = "DELETE", .path = "/api/v1/suppressions/{suppression_id}",
	  .fn = api_suppressions_delete, .operation_id = "deleteSuppression",
	  .scopes = S(SUPPRESSIONS_WRITE), .flags = R_WRITE,
	  .params = p_suppression, .status = 204,
	  .summary = "Delete an entry; opt-outs and complaints cannot be "
	  "(409)." },
	{ .method = "GET", .path = "/api/v1/reports/funnel",
	  .fn = api_reports_funnel, .operation_id = "getFunnelReport",
	  .scopes = S(REPORTS_READ), .params = p_funnel, .status = 200,
	  .resp_schema = "FunnelReportOut",
	  .summary = "The funnel of a range, counted from the raw rows, each "
	  "count by its own time." },
	{ .method = "GET", .path = "/api/v1/reports/daily",
	  .fn = api_reports_daily, .operation_id = "getDailyReport",
	  .scopes = S(REPORTS_READ), .params = p_daily, .status = 200,
	  .resp_schema = "DailyReportOut",
	  .summary = "Counts per JST day, from the raw rows, each on the day "
	  "of its own time." },
	{ .method = "GET", .path = "/api/v1/webhook_endpoints",
	  .fn = api_webhooks_list, .operation_id = "listWebhookEndpoints",
	  .scopes = S(WEBHOOKS_WRITE), .params = p_list_webhooks, .status = 200,
	  .resp_schema = "WebhookEndpointListOut",
	  .summary = "List webhook endpoints, newest first; never their "
	  "secrets." },
	{ .method = "POST", .path = "/api/v1/webhook_endpoints",
	  .fn = api_webhooks_create, .operation_id = "createWebhookEndpoint",
	  .scopes = S(WEBHOOKS_WRITE), .flags = R_WRITE, .params = p_none,
	  .body_schema = "WebhookEndpointIn", .status = 201,
	  .resp_schema = "WebhookEndpointCreatedOut",
	  .summary = "Register an https endpoint for some event types; the "
	  "response alone carries its secret." },
	{ .method = "GET", .path = "/api/v1/webhook_endpoints/{endpoint_id}",
	  .fn = api_webhooks_get, .operation_id = "getWebhookEndpoint",
	  .scopes = S(WEBHOOKS_WRITE), .params = p_webhook_endpoint,
	  .status = 200, .resp_schema = "WebhookEndpointOut",
	  .summary = "Get an endpoint (never its secret)." },
	{ .method = "DELETE", .path = "/api/v1/webhook_endpoints/{endpoint_id}",
	  .fn = api_webhooks_delete, .operation_id = "deleteWebhookEndpoint",
	  .scopes = S(WEBHOOKS_WRITE), .flags = R_WRITE,
	  .params = p_webhook_endpoint, .status = 204,
	  .summary = "Delete an endpoint; nothing more is sent to it." },
	{ .method = "GET",
	  .path = "/api/v1/webhook_endpoints/{endpoint_id}/deliveries",
	  .fn = api_webhook_deliveries_list,
	  .operation_id = "listWebhookEndpointDeliveries",
	  .scopes = S(WEBHOOKS_WRITE), .params = p_list_webhook_deliveries,
	  .status = 200, .resp_schema = "WebhookDeliveryListOut",
	  .summary = "The endpoint's delivery log, newest first." },
	{ .method = "POST",
	  .path = "/api/v1/webhook_deliveries/{delivery_id}/redeliver",
	  .fn = api_webhook_redeliver,
	  .operation_id = "redeliverWebhookDelivery",
	  .scopes = S(WEBHOOKS_WRITE), .flags = R_WRITE,
	  .params = p_webhook_delivery, .status = 202,
	  .resp_schema = "WebhookDeliveryOut",
	  .summary = "Queue the same event again (same payload and event id) "
	  "as a new pending record." },
	/* session only (issue 40): an owner's or admin's, in the admin UI */
	{ .method = "POST",
	  .path = "/api/v1/webhook_endpoints/{endpoint_id}/enable",
	  .fn = api_webhooks_enable, .operation_id = "enableWebhookEndpoint",
	  .scopes = S(WEBHOOKS_WRITE), .flags = R_SESSION | R_WRITE,
	  .params = p_webhook_endpoint, .status = 200,
	  .resp_schema = "WebhookEndpointOut",
	  .summary = "Send to a stopped endpoint again, its failures and pause "
	  "forgotten (a session only)." },
	{ .method = "POST",
	  .path = "/api/v1/webhook_endpoints/{endpoint_id}/recover",
	  .fn = api_webhooks_recover, .operation_id = "recoverWebhookEndpoint",
	  .scopes = S(WEBHOOKS_WRITE), .flags = R_SESSION | R_WRITE,
	  .params = p_webhook_recover, .status = 202,
	  .resp_schema = "WebhookRecoveryOut",
	  .summary = "Queue again the endpoint's records that ended \"endpoint "
	  "stopped\" (a session only; 409 while it is stopped)." },
	{ .method = "POST",
	  .path = "/api/v1/webhook_endpoints/{endpoint_id}/test",
	  .fn = api_webhooks_test, .operation_id = "testWebhookEndpoint",
	  .scopes = S(WEBHOOKS_WRITE), .flags = R_SESSION | R_WRITE,
	  .params = p_webhook_test, .status = 202,
	  .resp_schema = "WebhookDeliveryOut",
	  .summary = "Queue a test event for this endpoint alone, every id of "
	  "its data the nil UUID (a session only)." },
	{ .method = "GET", .path = "/api/v1/leads", .fn = api_leads_list,
	  .operation_id = "listLeads", .scopes = S(LEADS_READ),
	  .params = p_list_leads, .status = 200, .resp_schema = "LeadListOut",
	  .summary = "List leads, newest first." },
	{ .method = "GET", .path = "/api/v1/leads/{lead_id}",
	  .fn = api_leads_get, .operation_id = "getLead",
	  .scopes = S(LEADS_READ), .params = p_get_lead, .status = 200,
	  .resp_schema = "LeadDetailOut",
	  .summary = "Get a lead with its landing page, UTM and timeline; "
	  "contacts masked." },

	/*
	 * The admin API (outside the contract, Conventions 6; issue 16): the
	 * same dispatcher, a member's session in place of a key; ROLE_ADMIN
	 * and ROLE_OWNER are the roles' bits (openapi.md, Sessions and roles).
	 */
	{ .method = "POST", .path = "/api/v1/admin/session",
	  .fn = api_session_create, .operation_id = "createAdminSession",
	  .flags = R_PUBLIC | R_TX | R_KEEP, .params = p_none,
	  .body_schema = "SignInIn", .status = 200, .resp_schema = "SignInOut",
	  .summary = "Sign in: sets the session cookie, or answers a "
	  "challenge when the member has a second factor; throttled per "
	  "account and address (429 signin_throttled)." },
	{ .method = "POST", .path = "/api/v1/admin/session/two_factor",
	  .fn = api_session_two_factor, .operation_id = "completeAdminSignIn",
	  .flags = R_PUBLIC | R_TX | R_KEEP, .params = p_none,
	  .body_schema = "SignInTwoFactorIn", .status = 200,
	  .resp_schema = "SessionOut",
	  .summary = "Sign in, second step: the challenge and a TOTP code or "
	  "a recovery code; sets the session cookie." },
	{ .method = "GET", .path = "/api/v1/admin/session",
	  .fn = api_session_get, .operation_id = "getAdminSession",
	  .flags = ADMIN | R_ENROL, .params = p_none, .status = 200,
	  .resp_schema = "SessionOut",
	  .summary = "The signed-in member and the CSRF token unsafe requests "
	  "send in X-CSRF-Token." },
	{ .method = "DELETE", .path = "/api/v1/admin/session",
	  .fn = api_session_delete, .operation_id = "deleteAdminSession",
	  .flags = ADMIN_W | R_ENROL, .params = p_none, .status = 204,
	  .summary = "Sign out: ends the session, clears the cookie." },
	/* a member's own second factor (issue 43, item 4) */
	{ .method = "GET", .path = "/api/v1/admin/me/totp",
	  .fn = api_totp_get, .operation_id = "getOwnTotp",
	  .flags = ADMIN | R_ENROL, .params = p_none, .status = 200,
	  .resp_schema = "TotpOut",
	  .summary = "The signed-in member's TOTP: disabled, pending or "
	  "enabled, and the recovery codes left." },
	{ .method = "POST", .path = "/api/v1/admin/me/totp",
	  .fn = api_totp_begin, .operation_id = "beginTotpEnrolment",
	  .flags = ADMIN_W | R_ENROL, .params = p_none, .status = 201,
	  .resp_schema = "TotpEnrolmentOut",
	  .summary = "Begin the enrolment: a new secret, shown in this "
	  "response alone (base32 and otpauth:// URI)." },
	{ .method = "POST", .path = "/api/v1/admin/me/totp/confirm",
	  .fn = api_totp_confirm, .operation_id = "confirmTotpEnrolment",
	  .flags = ADMIN_W | R_ENROL, .params = p_none,
	  .body_schema = "TotpCodeIn", .status = 200,
	  .resp_schema = "TotpOut",
	  .summary = "Activate TOTP with a first code; the response alone "
	  "carries the 10 recovery codes." },
	{ .method = "POST", .path = "/api/v1/admin/me/totp/disable",
	  .fn = api_totp_disable, .operation_id = "disableTotp",
	  .flags = ADMIN_W | R_KEEP | R_ENROL, .params = p_none,
	  .body_schema = "TotpDisableIn", .status = 204,
	  .summary = "Turn TOTP off with the password or a current code "
	  "(failures throttled as sign-ins)." },
	{ .method = "POST", .path = "/api/v1/admin/me/totp/recovery_codes",
	  .fn = api_recovery_codes_create,
	  .operation_id = "createRecoveryCodes",
	  .flags = ADMIN_W | R_KEEP, .params = p_none,
	  .body_schema = "TotpCodeIn", .status = 201,
	  .resp_schema = "TotpOut",
	  .summary = "Ten new recovery codes for a current code, shown once; "
	  "the earlier ones stop working." },
	{ .method = "GET", .path = "/api/v1/admin/two_factor_policy",
	  .fn = api_two_factor_policy_get, .operation_id = "getTwoFactorPolicy",
	  .flags = ADMIN | R_ENROL, .params = p_none, .status = 200,
	  .resp_schema = "TwoFactorPolicyOut",
	  .summary = "Whether the tenant requires a second factor of every "
	  "member, and how many active members have none." },
	{ .method = "PUT", .path = "/api/v1/admin/two_factor_policy",
	  .fn = api_two_factor_policy_set,
	  .operation_id = "setTwoFactorPolicy", .scopes = ROLE_OWNER,
	  .flags = ADMIN_W, .params = p_none,
	  .body_schema = "TwoFactorPolicyIn", .status = 200,
	  .resp_schema = "TwoFactorPolicyOut",
	  .summary = "Require a second factor of every member, or no longer "
	  "(owners; 409 two_factor_enrol_first without one's own)." },
	{ .method = "POST", .path = "/api/v1/admin/password_resets",
	  .fn = api_password_reset, .operation_id = "createPasswordReset",
	  .flags = R_PUBLIC | R_TX, .params = p_none,
	  .body_schema = "PasswordResetIn", .status = 202,
	  .resp_schema = "PasswordResetOut",
	  .summary = "Mail a one-hour reset link to the active members with "
	  "this address; the same 202 for any address." },
	{ .method = "POST", .path = "/api/v1/admin/invitations/accept",
	  .fn = api_invitation_accept, .operation_id = "acceptInvitation",
	  .flags = R_PUBLIC | R_TX, .params = p_none,
	  .body_schema = "InvitationAcceptIn", .status = 200,
	  .resp_schema = "MemberOut",
	  .summary = "Set the password with a one-time invitation or reset "
	  "token; ends the member's sessions." },
	{ .method = "GET", .path = "/api/v1/admin/members",
	  .fn = api_members_list, .operation_id = "listMembers",
	  .scopes = ROLE_ADMIN, .flags = ADMIN, .params = p_list, .status = 200,
	  .resp_schema = "MemberListOut",
	  .summary = "The tenant's members, newest first (owners and "
	  "admins)." },
	{ .method = "POST", .path = "/api/v1/admin/members",
	  .fn = api_members_invite, .operation_id = "inviteMember",
	  .scopes = ROLE_OWNER, .flags = ADMIN_W, .params = p_none,
	  .body_schema = "MemberInviteIn", .status = 201,
	  .resp_schema = "MemberOut",
	  .summary = "Invite a member by email (owners): created without a "
	  "password, mailed a 72-hour link." },
	{ .method = "PATCH", .path = "/api/v1/admin/members/{member_id}",
	  .fn = api_members_update, .operation_id = "updateMember",
	  .scopes = ROLE_OWNER, .flags = ADMIN_W, .params = p_member,
	  .body_schema = "MemberPatch", .status = 200,
	  .resp_schema = "MemberOut",
	  .summary = "Change a member's role or status (owners); the last "
	  "owner stays (409 last_owner)." },
	{ .method = "GET", .path = "/api/v1/admin/api_keys",
	  .fn = api_keys_list, .operation_id = "listApiKeys",
	  .scopes = ROLE_ADMIN, .flags = ADMIN, .params = p_list, .status = 200,
	  .resp_schema = "ApiKeyListOut",
	  .summary = "API keys with prefix, scopes and last use; never the "
	  "key." },
	{ .method = "POST", .path = "/api/v1/admin/api_keys",
	  .fn = api_keys_create, .operation_id = "createApiKey",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_none,
	  .body_schema = "ApiKeyIn", .status = 201,
	  .resp_schema = "ApiKeyCreatedOut",
	  .summary = "Issue a key (owners and admins); the response alone "
	  "carries it." },
	{ .method = "DELETE", .path = "/api/v1/admin/api_keys/{key_id}",
	  .fn = api_keys_revoke, .operation_id = "revokeApiKey",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_key,
	  .status = 204,
	  .summary = "Revoke a key at once, on every web host." },
	{ .method = "POST", .path = "/api/v1/admin/suppressions/import",
	  .fn = api_suppressions_import, .operation_id = "importSuppressions",
	  .scopes = S(SUPPRESSIONS_WRITE), .flags = ADMIN_W | R_RAW,
	  .params = p_import, .status = 200,
	  .resp_schema = "SuppressionImportOut",
	  .summary = "Add suppressions from a CSV (text/csv: "
	  "value[,memo[,expires_at]]; UTF-8 or Shift_JIS; at most 10,000 "
	  "rows), all or nothing for a broken file." },
	{ .method = "GET", .path = "/api/v1/admin/test_recipients",
	  .fn = api_test_recipients_list, .operation_id = "listTestRecipients",
	  .scopes = ROLE_ADMIN, .flags = ADMIN, .params = p_none, .status = 200,
	  .resp_schema = "TestRecipientListOut",
	  .summary = "The tenant's test recipients, masked, with their "
	  "state." },
	{ .method = "POST", .path = "/api/v1/admin/test_recipients",
	  .fn = api_test_recipients_add, .operation_id = "addTestRecipient",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_none,
	  .body_schema = "TestRecipientIn", .status = 201,
	  .resp_schema = "TestRecipientOut",
	  .summary = "Add a phone number or address: sent a 6-digit code, it "
	  "counts once confirmed." },
	{ .method = "POST",
	  .path = "/api/v1/admin/test_recipients/{recipient_id}/confirm",
	  .fn = api_test_recipients_confirm,
	  .operation_id = "confirmTestRecipient", .scopes = ROLE_ADMIN,
	  .flags = ADMIN_W | R_KEEP, .params = p_recipient,
	  .body_schema = "TestRecipientConfirmIn", .status = 200,
	  .resp_schema = "TestRecipientOut",
	  .summary = "Type back the code (30 minutes, 5 tries)." },
	{ .method = "DELETE",
	  .path = "/api/v1/admin/test_recipients/{recipient_id}",
	  .fn = api_test_recipients_delete,
	  .operation_id = "deleteTestRecipient", .scopes = ROLE_ADMIN,
	  .flags = ADMIN_W, .params = p_recipient, .status = 204,
	  .summary = "Remove a test recipient." },
	{ .method = "GET",
	  .path = "/api/v1/admin/messages/{message_id}/preview",
	  .fn = api_messages_preview_html, .operation_id = "previewMessageHtml",
	  .scopes = S(MESSAGES_READ), .flags = ADMIN, .params = p_message,
	  .status = 200,
	  .summary = "An email as it is sent, text/html under a CSP sandbox, "
	  "for a sandboxed frame." },
	{ .method = "POST", .path = "/api/v1/admin/leads/search",
	  .fn = api_leads_search, .operation_id = "searchLeads",
	  .scopes = S(LEADS_READ), .flags = ADMIN, .params = p_none,
	  .body_schema = "LeadSearchIn", .status = 200,
	  .resp_schema = "LeadListOut",
	  .summary = "The leads of one email address or phone number (in the "
	  "body, never a URL), newest first, 100 at most, by its blind "
	  "index; no cursor." },
	{ .method = "POST", .path = "/api/v1/admin/leads/{lead_id}/convert",
	  .fn = api_leads_convert, .operation_id = "convertLead",
	  .scopes = S(LEADS_READ) | S(SCENARIOS_WRITE), .flags = ADMIN_W,
	  .params = p_get_lead, .status = 200, .resp_schema = "LeadDetailOut",
	  .summary = "Mark the lead converted by hand (conversion_source "
	  "manual): its pending deliveries are cancelled and "
	  "conversion.detected is sent; a finished lead stays as it is." },
	{ .method = "GET", .path = "/api/v1/admin/leads/{lead_id}/deliveries",
	  .fn = api_lead_deliveries, .operation_id = "listLeadDeliveries",
	  .scopes = S(LEADS_READ) | S(DELIVERIES_READ), .flags = ADMIN,
	  .params = p_get_lead, .status = 200,
	  .resp_schema = "DeliveryListOut",
	  .summary = "The lead's deliveries, newest first, 100 at most; no "
	  "cursor." },
	{ .method = "GET", .path = "/api/v1/admin/leads/export",
	  .fn = api_leads_export, .operation_id = "exportLeads",
	  .scopes = S(LEADS_READ), .flags = ADMIN, .params = p_export_leads,
	  .status = 200, .media = "text/csv",
	  .summary = "The leads of listLeads' filters as CSV (UTF-8 with a "
	  "byte-order mark; contacts masked; a cell a spreadsheet would "
	  "read as a formula begins with ')." },
	{ .method = "GET", .path = "/api/v1/admin/deliveries/export",
	  .fn = api_deliveries_export, .operation_id = "exportDeliveries",
	  .scopes = S(DELIVERIES_READ), .flags = ADMIN,
	  .params = p_export_deliveries, .status = 200, .media = "text/csv",
	  .summary = "The deliveries of listDeliveries' filters as CSV, as "
	  "exportLeads writes it." },
	{ .method = "GET", .path = "/api/v1/admin/suppressions/export",
	  .fn = api_suppressions_export, .operation_id = "exportSuppressions",
	  .scopes = S(SUPPRESSIONS_READ), .flags = ADMIN,
	  .params = p_export_suppressions, .status = 200,
	  .media = "text/csv",
	  .summary = "The suppressions of listSuppressions' filters as CSV, "
	  "as exportLeads writes it." },
	{ .method = "GET", .path = "/api/v1/admin/test_sends",
	  .fn = api_test_sends_list, .operation_id = "listTestSends",
	  .scopes = S(MESSAGES_READ), .flags = ADMIN, .params = p_list,
	  .status = 200, .resp_schema = "TestSendListOut",
	  .summary = "Test sends, newest first, with their outcome." },
	{ .method = "POST", .path = "/api/v1/admin/sites",
	  .fn = api_sites_create, .operation_id = "createSite",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_none,
	  .body_schema = "SiteIn", .status = 201, .resp_schema = "SiteOut",
	  .summary = "Add a site (owners and admins); its public key is new." },
	{ .method = "PATCH", .path = "/api/v1/admin/sites/{site_id}",
	  .fn = api_sites_update, .operation_id = "updateSite",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_site,
	  .body_schema = "SitePatch", .status = 200, .resp_schema = "SiteOut",
	  .summary = "Rename a site or set its privacy-policy URL (checked by "
	  "formback-webhooks)." },
	{ .method = "GET", .path = "/api/v1/admin/usage", .fn = api_usage_get,
	  .operation_id = "getUsage", .flags = ADMIN, .params = p_none,
	  .status = 200, .resp_schema = "UsageOut",
	  .summary = "This JST month's sends against the tenant's quota." },
	{ .method = "PATCH", .path = "/api/v1/admin/consent_settings",
	  .fn = api_consent_update, .operation_id = "updateConsentSettings",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_none,
	  .body_schema = "ConsentSettingsPatch", .status = 200,
	  .resp_schema = "ConsentSettingsOut",
	  .summary = "Change the consent settings; every site's tag "
	  "configuration is published again." },
	{ .method = "PUT", .path = "/api/v1/admin/delivery_status",
	  .fn = api_delivery_status_set, .operation_id = "setDeliveryStatus",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_none,
	  .body_schema = "DeliveryStatusIn", .status = 200,
	  .resp_schema = "DeliveryStatusOut",
	  .summary = "Turn sending off, to test recipients only, or live." },
	{ .method = "GET", .path = "/api/v1/admin/audit_log",
	  .fn = api_audit_list, .operation_id = "listAuditLog",
	  .scopes = ROLE_ADMIN, .flags = ADMIN, .params = p_list, .status = 200,
	  .resp_schema = "AuditEntryListOut",
	  .summary = "Every write with who made it (key or member), newest "
	  "first." },
	{ .method = "GET", .path = "/api/v1/admin/quarantines",
	  .fn = api_quarantines_list, .operation_id = "listQuarantines",
	  .scopes = ROLE_ADMIN, .flags = ADMIN, .params = p_list_quarantines,
	  .status = 200, .resp_schema = "QuarantineListOut",
	  .summary = "A flood's leads held per source and hour, newest first: "
	  "nothing is sent to them until released." },
	{ .method = "POST",
	  .path = "/api/v1/admin/quarantines/{quarantine_id}/release",
	  .fn = api_quarantine_release, .operation_id = "releaseQuarantine",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_quarantine,
	  .status = 200, .resp_schema = "QuarantineOut",
	  .summary = "Send to the batch's leads as if never held (409 "
	  "quarantine_decided once decided)." },
	{ .method = "POST",
	  .path = "/api/v1/admin/quarantines/{quarantine_id}/discard",
	  .fn = api_quarantine_discard, .operation_id = "discardQuarantine",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_quarantine,
	  .status = 200, .resp_schema = "QuarantineOut",
	  .summary = "Suppress the batch's leads (lead_ineligible): nothing is "
	  "sent to them." },

	{ .method = "POST", .path = "/api/v1/admin/personal_data/export",
	  .fn = api_personal_export, .operation_id = "exportPersonalData",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_none,
	  .body_schema = "PersonalDataIn", .status = 200,
	  .resp_schema = "PersonalDataExportOut",
	  .summary = "Everything held about one email address or phone number "
	  "(in the body, never a URL), its contacts opened: the person's copy "
	  "(APPI art. 33, GDPR art. 15; owners and admins)." },
	{ .method = "POST", .path = "/api/v1/admin/personal_data/erase",
	  .fn = api_personal_erase, .operation_id = "erasePersonalData",
	  .scopes = ROLE_ADMIN, .flags = ADMIN_W, .params = p_none,
	  .body_schema = "PersonalDataEraseIn", .status = 200,
	  .resp_schema = "PersonalDataErasureOut",
	  .summary = "Erase what is held about one contact, report counts "
	  "unchanged (APPI art. 35, GDPR art. 17; owners and admins)." },

	/* for load balancers and monitors (issue 18): no key, no tenant */
	{ .method = "GET", .path = "/api/v1/health", .fn = api_health,
	  .operation_id = "getHealth", .flags = OUTSIDE, .params = p_none,
	  .status = 200,
	  .summary = "The database answers, and the schema version." },
	{ .method = "GET", .path = "/api/v1/metrics", .fn = api_metrics,
	  .operation_id = "getMetrics", .flags = OUTSIDE, .params = p_none,
	  .status = 200,
	  .summary = "Queues and cron jobs, Prometheus text (metrics = yes)." },

	/* the page tag's collector (design 3), filed in batches (main loop) */
	{ .method = "POST", .path = "/tag/v1/events",
	  .operation_id = "collectTagEvent", .flags = OUTSIDE | R_COLLECT,
	  .params = p_none, .status = 204,
	  .summary = "An event of the page tag." },
	{ .method = "OPTIONS", .path = "/tag/v1/events", .fn = tag_preflight,
	  .operation_id = "preflightTagEvent", .flags = OUTSIDE,
	  .params = p_none, .status = 204,
	  .summary = "The CORS preflight of the collector." },
	/* the short links of sent messages (design 2) */
	{ .method = "GET", .path = "/r/{token}", .fn = links_click,
	  .operation_id = "followLink", .flags = OUTSIDE, .params = p_token,
	  .status = 302,
	  .summary = "A message's click link." },
	{ .method = "GET", .path = "/o/{token}", .fn = links_open,
	  .operation_id = "openPixel", .flags = OUTSIDE, .params = p_token,
	  .status = 200,
	  .summary = "An email's open pixel." },
	{ .method = "GET", .path = "/u/{token}", .fn = links_optout_page,
	  .operation_id = "optOutPage", .flags = OUTSIDE, .params = p_token,
	  .status = 200,
	  .summary = "A recipient's opt-out page." },
	{ .method = "POST", .path = "/u/{token}", .fn = links_optout,
	  .operation_id = "optOut", .flags = OUTSIDE | R_TX, .params = p_token,
	  .status = 200,
	  .summary = "Opt out (the page's button, RFC 8058 one-click)." },
	/* providers' receipts (design 2) */
	{ .method = "POST", .path = "/hooks/sms/{provider}",
	  .fn = hooks_receipt, .operation_id = "smsReceipt",
	  /* raw: a driver's receipt may be a form (Twilio's; hooks.c) */
	  .flags = OUTSIDE | R_TX | R_RAW, .params = p_provider,
	  .body_schema = "ReceiptIn", .status = 204,
	  .summary = "An SMS provider's receipt." },
	{ .method = "POST", .path = "/hooks/email/{provider}",
	  .fn = hooks_receipt, .operation_id = "emailReceipt",
	  .flags = OUTSIDE | R_TX, .params = p_provider,
	  .body_schema = "ReceiptIn", .status = 204,
	  .summary = "An email provider's receipt." },
};

const size_t routes_len = NELEM(routes);
