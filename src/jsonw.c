/* Small json-c helpers shared by every resource writer. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "formback.h"

/*
 * Keys are string literals (api.h): json-c keeps the pointer instead of
 * a copy of each key of each row.
 */
static void
add(json_object *o, const char *k, json_object *v)
{
	json_object_object_add_ex(o, k, v, JSON_C_OBJECT_KEY_IS_CONSTANT);
}

void
jadd_str(json_object *o, const char *k, const char *v)
{
	add(o, k, v != NULL ? json_object_new_string(v) : NULL);
}

void
jadd_int(json_object *o, const char *k, long long v)
{
	add(o, k, json_object_new_int64(v));
}

void
jadd_bool(json_object *o, const char *k, bool v)
{
	add(o, k, json_object_new_boolean(v));
}

void
jadd_time(json_object *o, const char *k, const char *v)
{
	char	 t[32];

	/* a DATETIME as the client library writes it: "YYYY-MM-DD HH:MM:SS[.f]" */
	if (v != NULL && strlen(v) >= 19 && v[10] == ' ') {
		snprintf(t, sizeof(t), "%.10sT%.8sZ", v, v + 11);
		v = t;
	}
	jadd_str(o, k, v);
}

const char *
json_text(json_object *o)
{
	return json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

json_object *
json_parse_object(const char *s, size_t n, int depth)
{
	struct json_tokener	*tok;
	json_object		*o;
	size_t			 i;

	if (n > INT32_MAX || (tok = json_tokener_new_ex(depth)) == NULL)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = n > 0 ? json_tokener_parse_ex(tok, s, (int)n) : NULL;
	if (o != NULL && json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		o = NULL;
	}
	/* only white space after the value */
	for (i = o != NULL ? json_tokener_get_parse_end(tok) : n; i < n &&
	    isspace((unsigned char)s[i]); i++)
		continue;
	json_tokener_free(tok);
	if (o != NULL && (i < n || !json_object_is_type(o, json_type_object))) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}
