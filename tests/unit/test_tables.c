/* Every enum-sized table has no empty slot (STYLE 3). */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/api.h"
#include "../../src/db/store.h"

Test(tables, error_catalog_is_complete)
{
	size_t	 i, j;

	for (i = 0; i < API_CODE__MAX; i++) {
		cr_assert_not_null(api_codes[i].type, "api_codes[%zu]", i);
		cr_assert_not_null(api_codes[i].code, "api_codes[%zu]", i);
		cr_assert_not_null(api_codes[i].message_ja, "api_codes[%zu]",
		    i);
		cr_assert_geq(api_codes[i].status, 400);
		/* the contract's type for each status (Errors, Types) */
		switch (api_codes[i].status) {
		case 401:
			cr_assert_str_eq(api_codes[i].type,
			    "authentication_error");
			break;
		case 403:
			cr_assert_str_eq(api_codes[i].type, "permission_error");
			break;
		case 404:
			cr_assert_str_eq(api_codes[i].type, "not_found");
			break;
		case 429:
			cr_assert_str_eq(api_codes[i].type, "rate_limit_error");
			break;
		default:
			if (api_codes[i].status >= 500)
				cr_assert_str_eq(api_codes[i].type,
				    "api_error");
			else
				cr_assert_str_eq(api_codes[i].type,
				    "invalid_request");
		}
		/* messages are Japanese: at least one multibyte character */
		for (j = 0; api_codes[i].message_ja[j] != '\0'; j++)
			if ((unsigned char)api_codes[i].message_ja[j] >= 0x80)
				break;
		cr_assert_neq(api_codes[i].message_ja[j], '\0', "%s",
		    api_codes[i].code);
	}
}

Test(tables, internal_errors_have_texts)
{
	int	 i;

	for (i = 0; i < FB_ERR__MAX; i++)
		cr_assert_str_neq(fb_strerror((enum fb_err)i), "unknown error");
	cr_assert_str_eq(fb_strerror(FB_ERR__MAX), "unknown error");
}

Test(tables, scopes_and_plans)
{
	size_t	 i;

	for (i = 0; i < SCOPE__MAX; i++) {
		cr_assert_not_null(scope_names[i]);
		cr_assert_not_null(strchr(scope_names[i], ':'));
	}
	for (i = 0; i < PLAN__MAX; i++) {
		cr_assert_not_null(plans[i].name);
		cr_assert_gt(plans[i].rate_limit, 0);
		cr_assert_gt(plans[i].steps_per_scenario, 0);
	}
	/* contract: Limits */
	cr_assert_eq(plans[PLAN_FREE].rate_limit, 60);
	cr_assert_eq(plans[PLAN_STARTER].rate_limit, 60);
	cr_assert_eq(plans[PLAN_GROWTH].rate_limit, 300);
	cr_assert_eq(plans[PLAN_PRO].rate_limit, 1000);
	cr_assert_eq(plans[PLAN_FREE].webhook_endpoints, 0);
}

Test(tables, routes_are_well_formed)
{
	size_t			 i, j;
	const struct param_def	*p;

	for (i = 0; i < routes_len; i++) {
		/*
		 * the collector alone is taken by the main loop, not a handler
		 */
		cr_assert((routes[i].fn == NULL) ==
		    ((routes[i].flags & R_COLLECT) != 0),
		    "%s %s", routes[i].method, routes[i].path);
		cr_assert_not_null(routes[i].operation_id);
		cr_assert_not_null(routes[i].params);
		/* the contract's paths, and the rest outside it */
		cr_assert(strncmp(routes[i].path, "/api/v1/", 8) == 0 ||
		    (routes[i].flags & R_INTERNAL) != 0, "%s", routes[i].path);
		/*
		 * a key's route needs a scope; a session's own routes need none
		 */
		cr_assert(routes[i].scopes != 0 ||
		    (routes[i].flags & (R_PUBLIC | R_SESSION)) != 0);
		/* the roles' bits are for routes no key may call */
		cr_assert((routes[i].scopes & (ROLE_ADMIN | ROLE_OWNER)) == 0 ||
		    (routes[i].flags & R_SESSION) != 0, "%s", routes[i].path);
		for (j = 0; j < i; j++) {
			cr_assert_str_neq(routes[i].operation_id,
			    routes[j].operation_id);
			cr_assert(strcmp(routes[i].path, routes[j].path) != 0 ||
			    strcmp(routes[i].method, routes[j].method) != 0);
		}
		/* every {var} of the path is a declared path parameter */
		for (p = routes[i].params; p->name != NULL; p++)
			if (p->in == IN_PATH) {
				char	 v[80];

				snprintf(v, sizeof(v), "{%s}", p->name);
				cr_assert_not_null(strstr(routes[i].path, v));
			}
	}
}

/* Typed rows (db.h): one column list gives the SELECT text and the struct. */
Test(tables, typed_rows_from_one_column_list)
{
#define DB_ROW struct site_row
	static const struct dbcol cols[] = { DB_COLUMNS(SITE_COLS) };
#undef DB_ROW

	cr_assert_str_eq(DB_SELECT(SITE_COLS), "id, name, domain, public_key, "
	    "created_at, updated_at, sending_held_at");
	cr_assert_eq(sizeof(cols) / sizeof(cols[0]), 7);
	cr_assert_str_eq(cols[0].name, "id");
	cr_assert_eq(cols[0].off, offsetof(struct site_row, id));
	cr_assert_eq(cols[6].type, DBT_TIME);
	cr_assert_eq(cols[6].off, offsetof(struct site_row, sending_held_at));
}
