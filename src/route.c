/*
 * The one route table.  Each row carries its policy: scopes (all are
 * required), flags, the parameters the dispatcher checks, and the schema
 * names openapi.json shows.  To add a route: write the handler in
 * src/api/<resource>.c, declare it in api.h, add its row here (the
 * operationId from the contract's scope table), and its schemas to
 * openapi-schemas.json; tests/integ/openapi.c checks the rest.
 */
#include "api.h"

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

#define S(x)	SCOPE_BIT(SC_##x)

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
	{ "GET", "/api/v1/sites/{site_id}/tag-config", api_sites_tag_config,
	  "getSiteTagConfig", S(SITES_READ), 0, p_site, NULL, 200, "TagConfigOut",
	  "The site's live tag configuration (free-form, outside the contract)." },
	{ "GET", "/api/v1/leads", api_leads_list, "listLeads", S(LEADS_READ), 0,
	  p_list_leads, NULL, 200, "LeadListOut", "List leads, newest first." },
	{ "GET", "/api/v1/leads/{lead_id}", api_leads_get, "getLead", S(LEADS_READ),
	  0, p_get_lead, NULL, 200, "LeadDetailOut",
	  "Get a lead with its landing page, UTM and timeline; contacts masked." },
};

const size_t routes_len = NELEM(routes);
