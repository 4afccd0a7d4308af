/* Small json-c helpers shared by every resource writer. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_gen.h>

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

/*
 * A DATETIME as the client library writes it, "YYYY-MM-DD HH:MM:SS[.f]",
 * as the contract writes it, "YYYY-MM-DDTHH:MM:SSZ", into t; anything
 * else as it is.
 */
static const char *
time_out(const char *v, char t[32])
{
	if (v != NULL && strnlen(v, 19) == 19 && v[10] == ' ') {
		memcpy(t, v, 10);
		t[10] = 'T';
		memcpy(t + 11, v + 11, 8);
		t[19] = 'Z';
		t[20] = '\0';
		return t;
	}
	return v;
}

void
jadd_time(json_object *o, const char *k, const char *v)
{
	char	 t[32];

	jadd_str(o, k, time_out(v, t));
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

static void
jg_print(void *ctx, const char *s, size_t n)
{
	struct jgen	*j = ctx;

	if (j->err == FB_OK && buf_add(j->out, s, n) != FB_OK)
		j->err = FB_ENOMEM;
}

void
jgen_begin(struct jgen *j, struct buf *out)
{
	j->out = out;
	j->err = FB_OK;
	if ((j->g = yajl_gen_alloc(NULL)) == NULL ||
	    !yajl_gen_config(j->g, yajl_gen_print_callback, jg_print, j))
		j->err = FB_ENOMEM;
}

enum fb_err
jgen_end(struct jgen *j)
{
	if (j->g != NULL)
		yajl_gen_free(j->g);
	j->g = NULL;
	return j->err;
}

/* The generator's answer to one call; the first failure sticks. */
static void
jg_check(struct jgen *j, yajl_gen_status st)
{
	if (st != yajl_gen_status_ok && j->err == FB_OK)
		j->err = FB_EINVAL;
}

/* The key of a member, in an object; none in an array. */
static bool
jg_key(struct jgen *j, const char *key)
{
	if (j->err != FB_OK)
		return false;
	if (key != NULL)
		jg_check(j, yajl_gen_string(j->g, (const unsigned char *)key,
		    strlen(key)));
	return j->err == FB_OK;
}

void
jg_obj(struct jgen *j, const char *key)
{
	if (jg_key(j, key))
		jg_check(j, yajl_gen_map_open(j->g));
}

void
jg_obj_end(struct jgen *j)
{
	if (j->err == FB_OK)
		jg_check(j, yajl_gen_map_close(j->g));
}

void
jg_arr(struct jgen *j, const char *key)
{
	if (jg_key(j, key))
		jg_check(j, yajl_gen_array_open(j->g));
}

void
jg_arr_end(struct jgen *j)
{
	if (j->err == FB_OK)
		jg_check(j, yajl_gen_array_close(j->g));
}

void
jg_str(struct jgen *j, const char *key, const char *v)
{
	if (!jg_key(j, key))
		return;
	jg_check(j, v != NULL ? yajl_gen_string(j->g, (const unsigned char *)v,
	    strlen(v)) : yajl_gen_null(j->g));
}

void
jg_int(struct jgen *j, const char *key, long long v)
{
	if (jg_key(j, key))
		jg_check(j, yajl_gen_integer(j->g, v));
}

void
jg_number(struct jgen *j, const char *key, const char *text)
{
	if (jg_key(j, key))
		jg_check(j, yajl_gen_number(j->g, text, strlen(text)));
}

void
jg_bool(struct jgen *j, const char *key, bool v)
{
	if (jg_key(j, key))
		jg_check(j, yajl_gen_bool(j->g, v));
}

void
jg_time(struct jgen *j, const char *key, const char *v)
{
	char	 t[32];

	jg_str(j, key, time_out(v, t));
}

void
jg_json(struct jgen *j, const char *key, json_object *v)
{
	size_t		 i, n;

	switch (json_object_get_type(v)) {
	case json_type_null:
		jg_str(j, key, NULL);
		break;
	case json_type_boolean:
		jg_bool(j, key, json_object_get_boolean(v));
		break;
	case json_type_int:
		jg_int(j, key, json_object_get_int64(v));
		break;
	case json_type_double:
		/* as json-c writes it: the text is the value */
		jg_number(j, key, json_object_to_json_string(v));
		break;
	case json_type_string:
		if (jg_key(j, key))
			jg_check(j, yajl_gen_string(j->g, (const unsigned char *)
			    json_object_get_string(v), (size_t)json_object_get_string_len(v)));
		break;
	case json_type_array:
		jg_arr(j, key);
		for (i = 0, n = json_object_array_length(v); i < n; i++)
			jg_json(j, NULL, json_object_array_get_idx(v, i));
		jg_arr_end(j);
		break;
	case json_type_object:
		jg_obj(j, key);
		json_object_object_foreach(v, k, m)
			jg_json(j, k, m);
		jg_obj_end(j);
		break;
	}
}
