/* Reading JSON body fields, with the contract's 422 on each failure. */
#include <string.h>

#include "req.h"

static json_object *
field(struct req *r, const char *name, bool *present)
{
	json_object	*v = NULL;

	*present = r->json != NULL &&
	    json_object_object_get_ex(r->json, name, &v);
	return v;
}

bool
body_has(struct req *r, const char *name)
{
	bool	 present;

	(void)field(r, name, &present);
	return present;
}

static int
absent(struct req *r, const char *name, bool required)
{
	if (required) {
		(void)api_error(r, AC_PARAMETER_MISSING, name);
		return -1;
	}
	return 0;
}

int
body_str(struct req *r, const char *name, bool required, size_t maxchars,
    const char **out)
{
	json_object	*v;
	bool		 present;
	long		 n;

	*out = NULL;
	v = field(r, name, &present);
	if (!present || v == NULL)
		return absent(r, name, required);
	if (!json_object_is_type(v, json_type_string)) {
		(void)api_error(r, AC_PARAMETER_INVALID, name);
		return -1;
	}
	*out = json_object_get_string(v);
	n = utf8_len(*out);
	if (n < 0 || (size_t)n > maxchars ||
	    strlen(*out) != (size_t)json_object_get_string_len(v)) {
		(void)api_error(r, AC_PARAMETER_INVALID, name);
		return -1;
	}
	return 1;
}

int
body_line(struct req *r, const char *name, bool required, size_t maxchars,
    const char **out)
{
	int	 rc;

	if ((rc = body_str(r, name, required, maxchars, out)) != 1 ||
	    text_line(*out))
		return rc;
	*out = NULL;
	(void)api_error(r, AC_PARAMETER_INVALID, name);
	return -1;
}

int
body_bool(struct req *r, const char *name, bool required, bool *out)
{
	json_object	*v;
	bool		 present;

	v = field(r, name, &present);
	if (!present || v == NULL)
		return absent(r, name, required);
	if (!json_object_is_type(v, json_type_boolean)) {
		(void)api_error(r, AC_PARAMETER_INVALID, name);
		return -1;
	}
	*out = json_object_get_boolean(v);
	return 1;
}

int
body_int(struct req *r, const char *name, bool required, long long min,
    long long max, long long *out)
{
	json_object	*v;
	bool		 present;
	long long	 n;

	v = field(r, name, &present);
	if (!present || v == NULL)
		return absent(r, name, required);
	if (!json_object_is_type(v, json_type_int)) {
		(void)api_error(r, AC_PARAMETER_INVALID, name);
		return -1;
	}
	n = json_object_get_int64(v);
	if (n < min || n > max) {
		(void)api_error(r, AC_PARAMETER_INVALID, name);
		return -1;
	}
	*out = n;
	return 1;
}
