/* Scopes (contract: Authentication 7) and plans (contract: Limits). */
#include <string.h>

#include "formback.h"

const char *const scope_names[SCOPE__MAX] = {
	/* SC_CAMPAIGNS_READ */		"campaigns:read",
	/* SC_CAMPAIGNS_WRITE */	"campaigns:write",
	/* SC_DELIVERIES_READ */	"deliveries:read",
	/* SC_LEADS_READ */		"leads:read",
	/* SC_MESSAGES_READ */		"messages:read",
	/* SC_MESSAGES_WRITE */		"messages:write",
	/* SC_REPORTS_READ */		"reports:read",
	/* SC_SCENARIOS_READ */		"scenarios:read",
	/* SC_SCENARIOS_WRITE */	"scenarios:write",
	/* SC_SITES_READ */		"sites:read",
	/* SC_SUPPRESSIONS_READ */	"suppressions:read",
	/* SC_SUPPRESSIONS_WRITE */	"suppressions:write",
	/* SC_WEBHOOKS_WRITE */		"webhooks:write",
};

bool
scope_parse(const char *s, uint32_t *bits)
{
	const char	*p, *e;
	size_t		 n, i;

	*bits = 0;
	if (strcmp(s, "all") == 0) {
		*bits = SCOPES_ALL;
		return true;
	}
	for (p = s; ; p = e + 1) {
		e = strchr(p, ',');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		for (i = 0; i < SCOPE__MAX; i++)
			if (strlen(scope_names[i]) == n &&
			    strncmp(p, scope_names[i], n) == 0)
				break;
		if (i == SCOPE__MAX)
			return false;
		*bits |= SCOPE_BIT(i);
		if (e == NULL)
			break;
	}
	return true;
}

bool
scope_covers(uint32_t have, uint32_t need)
{
	return (have & need) == need;
}

uint32_t
role_scopes(const char *role)
{
	if (strcmp(role, "owner") == 0)
		return SCOPES_ALL | ROLE_ADMIN | ROLE_OWNER;
	if (strcmp(role, "admin") == 0)
		return SCOPES_ALL | ROLE_ADMIN;
	if (strcmp(role, "member") == 0)
		return SCOPES_ALL & ~SCOPE_BIT(SC_WEBHOOKS_WRITE);
	if (strcmp(role, "viewer") == 0)
		return SCOPES_READ;
	return 0;
}

enum fb_err
scope_format(uint32_t bits, struct buf *b)
{
	size_t	 i;
	bool	 first = true;

	for (i = 0; i < SCOPE__MAX; i++) {
		if (!(bits & SCOPE_BIT(i)))
			continue;
		if ((!first && buf_addstr(b, ",") != FB_OK) ||
		    buf_addstr(b, scope_names[i]) != FB_OK)
			return FB_ENOMEM;
		first = false;
	}
	return FB_OK;
}

/*
 * Plans.  Rate limits are the contract's (Limits); the other figures are
 * Formback's decisions, documented in the README.
 */
const struct plan_def plans[PLAN__MAX] = {
	/* PLAN_FREE */		{ "free", 60, 3, 0, 1000 },
	/* PLAN_STARTER */	{ "starter", 60, 5, 2, 10000 },
	/* PLAN_GROWTH */	{ "growth", 300, 10, 5, 50000 },
	/* PLAN_PRO */		{ "pro", 1000, 20, 20, 200000 },
};

bool
plan_parse(const char *s, enum plan *p)
{
	size_t	 i;

	for (i = 0; i < PLAN__MAX; i++)
		if (strcmp(s, plans[i].name) == 0) {
			*p = (enum plan)i;
			return true;
		}
	return false;
}
