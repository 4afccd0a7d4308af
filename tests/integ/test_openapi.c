/*
 * openapi.json against the route table and the contract: every route is
 * one operation with the contract's operationId and scopes, and the
 * document lists nothing else (contract: conventions 7; Authentication 7).
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/api.h"
#include "harness.h"

/* The contract's scope table (Authentication 7), operation by operation. */
static const struct {
	const char	*op;
	const char	*scopes;	/* sorted, comma-separated */
} contract[] = {
	{ "testSiteUrlRules", "campaigns:read" },
	{ "listCampaigns", "campaigns:read" },
	{ "getCampaign", "campaigns:read" },
	{ "createCampaign", "campaigns:write" },
	{ "updateCampaign", "campaigns:write" },
	{ "replaceCampaignUrlRules", "campaigns:write" },
	{ "replaceCampaignFormProfile", "campaigns:write" },
	{ "duplicateCampaign",
	    "campaigns:write,messages:write,scenarios:write" },
	{ "listDeliveries", "deliveries:read" },
	{ "getDelivery", "deliveries:read" },
	{ "listLeads", "leads:read" },
	{ "getLead", "leads:read" },
	{ "listMessages", "messages:read" },
	{ "getMessage", "messages:read" },
	{ "listMessageVariables", "messages:read" },
	{ "listMessageExamples", "messages:read" },
	{ "previewMessage", "messages:read" },
	{ "estimateSmsSegments", "messages:read" },
	{ "createCampaignScenarioFromPreset",
	    "messages:write,scenarios:write" },
	{ "duplicateScenario", "messages:write,scenarios:write" },
	{ "createMessage", "messages:write" },
	{ "updateMessage", "messages:write" },
	{ "deleteMessage", "messages:write" },
	{ "duplicateMessage", "messages:write" },
	{ "getFunnelReport", "reports:read" },
	{ "getDailyReport", "reports:read" },
	{ "listCampaignScenarios", "scenarios:read" },
	{ "getScenario", "scenarios:read" },
	{ "listScenarioPresets", "scenarios:read" },
	{ "getDeliveryStatus", "scenarios:read" },
	{ "createCampaignScenario", "scenarios:write" },
	{ "updateScenario", "scenarios:write" },
	{ "deleteScenario", "scenarios:write" },
	{ "replaceScenarioSteps", "scenarios:write" },
	{ "listSites", "sites:read" },
	{ "getSite", "sites:read" },
	{ "getSiteTagConfig", "sites:read" },
	{ "listSitePpChecks", "sites:read" },
	{ "getSitePpCheck", "sites:read" },
	{ "getConsentSettings", "sites:read" },
	{ "listSuppressions", "suppressions:read" },
	{ "createSuppression", "suppressions:write" },
	{ "deleteSuppression", "suppressions:write" },
	{ "listWebhookEndpoints", "webhooks:write" },
	{ "createWebhookEndpoint", "webhooks:write" },
	{ "getWebhookEndpoint", "webhooks:write" },
	{ "deleteWebhookEndpoint", "webhooks:write" },
	{ "listWebhookEndpointDeliveries", "webhooks:write" },
	{ "redeliverWebhookDelivery", "webhooks:write" },
};

static void
scopes_of(json_object *op, char *out, size_t n)
{
	json_object	*sc = jobj(op, "x-service-scopes");
	const char	*names[16];
	size_t		 i, j, k, len, o = 0;

	cr_assert_not_null(sc, "operation without x-service-scopes");
	len = json_object_array_length(sc);
	for (i = 0; i < len && i < 16; i++)
		names[i] = json_object_get_string(json_object_array_get_idx(sc,
		    i));
	for (i = 0; i < len; i++)	/* sort */
		for (j = i + 1; j < len; j++)
			if (strcmp(names[j], names[i]) < 0) {
				const char *t = names[i];
				names[i] = names[j];
				names[j] = t;
			}
	out[0] = '\0';
	for (k = 0; k < len; k++)
		o += (size_t)snprintf(out + o, n - o, "%s%s", k ? "," : "",
		    names[k]);
}

Test(openapi, document_matches_route_table_and_contract)
{
	struct resp	*r = http("GET", "/api/v1/openapi.json", NULL, NULL,
	    NULL);
	json_object	*paths, *item, *op;
	char		 m[16], got[256];
	size_t		 i, j, nops = 0;
	bool		 found;

	cr_assert_eq(r->status, 200);
	cr_assert_str_eq(jget(r->json, "openapi"), "3.1.0");
	paths = jobj(r->json, "paths");
	cr_assert_not_null(paths);
	for (i = 0; i < routes_len; i++) {
		if (routes[i].flags & R_INTERNAL) {
			cr_assert(!json_object_object_get_ex(paths,
			    routes[i].path, &item),
			    "%s is outside the contract", routes[i].path);
			continue;
		}
		cr_assert(json_object_object_get_ex(paths, routes[i].path,
		    &item),
		    "%s missing from openapi.json", routes[i].path);
		for (j = 0; routes[i].method[j] != '\0'; j++)
			m[j] = (char)(routes[i].method[j] | 0x20);
		m[j] = '\0';
		cr_assert(json_object_object_get_ex(item, m, &op),
		    "%s %s missing", routes[i].method, routes[i].path);
		cr_assert_str_eq(jget(op, "operationId"),
		    routes[i].operation_id);
		scopes_of(op, got, sizeof(got));
		/*
		 * the admin API: its own tag, outside the contract's scope
		 * table
		 */
		cr_assert_str_eq(jget(op, "tags.0"),
		    strncmp(routes[i].path, "/api/v1/admin/",
		    14) == 0 ? "admin" :
		    "public", "%s", routes[i].path);
		if (routes[i].flags & R_PUBLIC) {
			cr_assert_str_eq(got, "");
			continue;
		}
		if (routes[i].flags & R_SESSION) {
			cr_assert_not_null(jobj(op, "security.0.sessionCookie"),
			    "%s: no session security", routes[i].operation_id);
			cr_assert_not_null(jget(op, "x-service-roles.0"),
			    "%s: no roles", routes[i].operation_id);
			cr_assert_str_eq(jget(op, "x-service-roles.0"),
			    "owner");
			continue;
		}
		for (found = false,
		    j = 0; j < sizeof(contract) / sizeof(contract[0]); j++)
			if (strcmp(contract[j].op,
			    routes[i].operation_id) == 0) {
				found = true;
				cr_assert_str_eq(got, contract[j].scopes,
				    "%s: scopes %s, contract says %s",
				    routes[i].operation_id, got,
				    contract[j].scopes);
			}
		cr_assert(found, "%s is not in the contract's scope table",
		    routes[i].operation_id);
		/* every $ref names a schema that exists */
		if (routes[i].resp_schema != NULL)
			cr_assert_not_null(jobj(r->json,
			    "components.schemas") != NULL ?
			    jobj(jobj(r->json, "components.schemas"),
			    routes[i].resp_schema) : NULL,
			    "schema %s missing", routes[i].resp_schema);
	}
	/* and nothing that the table does not have */
	json_object_object_foreach(paths, path, ops) {
		json_object_object_foreach(ops, method, o) {
			(void)o;
			for (found = false, i = 0; i < routes_len; i++) {
				for (j = 0; routes[i].method[j] != '\0'; j++)
					m[j] = (char)(routes[i].method[j] |
					    0x20);
				m[j] = '\0';
				if (strcmp(routes[i].path, path) == 0 &&
				    strcmp(m, method) == 0)
					found = true;
			}
			cr_assert(found, "%s %s is documented but not routed",
			    method, path);
			nops++;
		}
	}
	for (i = j = 0; i < routes_len; i++)
		j += (routes[i].flags & R_INTERNAL) == 0;
	cr_assert_eq(nops, j, "the contract's routes, no more");
	resp_free(r);
}

/*
 * The contract's events (Events), each a webhook of the document: its
 * body the envelope with `type` fixed and `data` of the contract's data
 * type, its headers the contract's three.  The bodies really sent are
 * checked against these by tests/integ/validate.mjs.
 */
Test(openapi, webhooks_are_the_contracts_events)
{
	static const struct {
		const char	*type, *data;
	} events[] = {
		{ "lead.captured", "LeadCapturedData" },
		{ "lead.abandoned", "LeadAbandonedData" },
		{ "delivery.sent", "DeliveryEventData" },
		{ "delivery.failed", "DeliveryEventData" },
		{ "conversion.detected", "ConversionDetectedData" },
		{ "usage.threshold_reached", "UsageThresholdReachedData" },
	};
	struct resp	*r = http("GET", "/api/v1/openapi.json", NULL, NULL,
	    NULL);
	json_object	*hooks, *op, *sc, *schemas;
	char		 ref[128];
	size_t		 i;

	cr_assert_eq(r->status, 200);
	cr_assert_not_null(hooks = jobj(r->json, "webhooks"));
	cr_assert_not_null(schemas = jobj(r->json, "components.schemas"));
	cr_assert_eq(json_object_object_length(hooks),
	    sizeof(events) / sizeof(events[0]));
	cr_assert_not_null(jobj(schemas, "WebhookEvent"));
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		cr_assert(json_object_object_get_ex(hooks, events[i].type, &op),
		    "%s: no webhook", events[i].type);
		cr_assert_not_null(op = jobj(op, "post"), "%s", events[i].type);
		cr_assert_not_null(jget(op, "operationId"));
		sc = jobj(op, "requestBody.content.application/json.schema");
		cr_assert_not_null(sc, "%s: no body", events[i].type);
		cr_assert_str_eq(jget(sc, "allOf.0.$ref"),
		    "#/components/schemas/WebhookEvent");
		cr_assert_str_eq(jget(sc, "allOf.1.properties.type.const"),
		    events[i].type);
		snprintf(ref, sizeof(ref), "#/components/schemas/%s",
		    events[i].data);
		cr_assert_str_eq(jget(sc, "allOf.1.properties.data.$ref"), ref);
		cr_assert_not_null(jobj(schemas, events[i].data), "%s",
		    events[i].data);
		cr_assert_str_eq(jget(op, "parameters.0.name"),
		    "X-Formback-Event");
		cr_assert_str_eq(jget(op, "parameters.0.schema.const"),
		    events[i].type);
		cr_assert_str_eq(jget(op, "parameters.1.name"),
		    "X-Formback-Delivery");
		cr_assert_str_eq(jget(op, "parameters.2.name"),
		    "X-Formback-Signature");
		cr_assert_not_null(jobj(op, "responses.2XX"));
	}
	resp_free(r);
}
