/*
 * openapi.json's prose (src/openapi.md, issue 41): every section names
 * something the document has (the introduction, a tag, a security
 * scheme, an operation of the route table), once, and lands there; the
 * document points to the reference page rendered from it and to the
 * operator's man pages.  tests/integ/test_openapi.c holds the document
 * against the route table and the contract.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/api.h"

/* The route of operationId id in the document, or NULL. */
static const struct route *
route_of(const char *id)
{
	size_t	 i;

	for (i = 0; i < routes_len; i++)
		if (strcmp(routes[i].operation_id, id) == 0 &&
		    (routes[i].flags & R_INTERNAL) == 0)
			return &routes[i];
	return NULL;
}

/* doc's operation of route rt. */
static json_object *
operation_of(json_object *doc, const struct route *rt)
{
	json_object	*paths, *item, *op;
	char		 m[16];
	size_t		 j;

	cr_assert(json_object_object_get_ex(doc, "paths", &paths));
	cr_assert(json_object_object_get_ex(paths, rt->path, &item), "%s",
	    rt->path);
	for (j = 0; rt->method[j] != '\0' && j < sizeof(m) - 1; j++)
		m[j] = (char)(rt->method[j] | 0x20);
	m[j] = '\0';
	cr_assert(json_object_object_get_ex(item, m, &op), "%s %s", m,
	    rt->path);
	return op;
}

/* The string at dotted path `path` of o (no array steps), or NULL. */
static const char *
str_at(json_object *o, const char *path)
{
	char		 key[64];
	const char	*p = path, *e;

	for (;;) {
		e = p + strcspn(p, ".");
		snprintf(key, sizeof(key), "%.*s", (int)(e - p), p);
		if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		if (*e == '\0')
			return json_object_get_string(o);
		p = e + 1;
	}
}

Test(openapi_text, every_section_names_what_the_document_has)
{
	static const char *const fixed[] = { "info", "tag public",
	    "tag admin", "tag webhooks", "scheme bearerAuth",
	    "scheme sessionCookie" };
	json_object	*doc = openapi_document("/");
	const char	*p = NULL, *body, *got;
	char		 name[128], seen[256][128];
	size_t		 len, n = 0, i, j, ops = 0;
	bool		 ok;

	while ((p = openapi_text_next(p, name, sizeof(name), &body, &len)) !=
	    NULL) {
		cr_assert_gt(len, 0, "section '%s' is empty", name);
		for (i = 0; i < n; i++)
			cr_assert_str_neq(seen[i], name, "section '%s' twice",
			    name);
		cr_assert_lt(n, 256);
		snprintf(seen[n++], sizeof(seen[0]), "%s", name);
		if (strncmp(name, "op ", 3) == 0) {
			const struct route *rt = route_of(name + 3);

			cr_assert_not_null(rt, "section '%s': no operation of "
			    "openapi.json has that operationId", name);
			got = str_at(operation_of(doc, rt), "description");
			cr_assert_not_null(got, "%s: no description", name);
			cr_assert_eq(strlen(got), len, "%s", name);
			cr_assert(strncmp(got, body, len) == 0, "%s", name);
			ops++;
			continue;
		}
		for (ok = false,
		    i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			ok |= strcmp(name, fixed[i]) == 0;
		cr_assert(ok, "section '%s' names nothing of openapi.json",
		    name);
	}
	cr_assert_gt(ops, 0);
	/* the introduction, the tags and the schemes all have theirs */
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		for (ok = false, j = 0; j < n; j++)
			ok |= strcmp(seen[j], fixed[i]) == 0;
		cr_assert(ok, "openapi.md has no section '%s'", fixed[i]);
	}
	cr_assert_not_null(str_at(doc, "info.description"));
	cr_assert_not_null(str_at(doc,
	    "components.securitySchemes.bearerAuth.description"));
	cr_assert_not_null(str_at(doc,
	    "components.securitySchemes.sessionCookie.description"));
	json_object_put(doc);
}

/* The reference and the man pages point to each other (issue 41, item 6). */
Test(openapi_text, the_document_points_to_its_reference_and_the_man_pages)
{
	json_object	*doc = openapi_document("/");
	const char	*d;

	cr_assert_str_eq(str_at(doc, "externalDocs.url"), "/docs/api");
	cr_assert_not_null(d = str_at(doc, "info.description"));
	cr_assert_not_null(strstr(d, "{base_url}/docs/api"));
	cr_assert_not_null(strstr(d, "{base_url}/api/v1/openapi.json"));
	cr_assert_not_null(strstr(d, "formback.fcgi(8)"));
	cr_assert_not_null(strstr(d, "formback.conf(5)"));
	json_object_put(doc);
	doc = openapi_document("https://fb.example.jp");
	cr_assert_str_eq(str_at(doc, "externalDocs.url"),
	    "https://fb.example.jp/docs/api");
	json_object_put(doc);
}

/* Headings in a fenced code block are text; blank lines around a body go. */
Test(openapi_text, sections_end_at_headings_outside_fences)
{
	static const char text[] =
	    "<!-- preamble -->\n"
	    "# op one\n"
	    "\n"
	    "    indented\n"
	    "```sh\n"
	    "# a shell comment\n"
	    "```\n"
	    "## a heading of the body\n"
	    "\n\n"
	    "# op two\n"
	    "# op three\n"
	    "last\n";
	const char	*p, *body;
	char		 name[8];
	size_t		 len;

	p = openapi_text_next(text, name, sizeof(name), &body, &len);
	cr_assert_not_null(p);
	cr_assert_str_eq(name, "op one");
	cr_assert_eq(len, strlen("    indented\n```sh\n# a shell comment\n"
	    "```\n## a heading of the body"));
	cr_assert(strncmp(body, "    indented\n", 13) == 0);
	p = openapi_text_next(p, name, sizeof(name), &body, &len);
	cr_assert_str_eq(name, "op two");
	cr_assert_eq(len, 0);
	p = openapi_text_next(p, name, sizeof(name), &body, &len);
	cr_assert_str_eq(name, "op thre", "a name cut to its buffer");
	cr_assert_eq(len, 4);
	cr_assert(strncmp(body, "last", 4) == 0);
	cr_assert_null(openapi_text_next(p, name, sizeof(name), &body, &len));
	/* a last heading without a body or a newline */
	p = openapi_text_next("# op four", name, sizeof(name), &body, &len);
	cr_assert_not_null(p);
	cr_assert_str_eq(name, "op four");
	cr_assert_eq(len, 0);
	cr_assert_null(openapi_text_next(p, name, sizeof(name), &body, &len));
}
