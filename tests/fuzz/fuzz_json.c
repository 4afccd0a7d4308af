/* Request bodies and the tag's events: the capped JSON reader. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	json_object	*o = json_parse_object((const char *)data, n, 32);

	if (o != NULL && !json_object_is_type(o, json_type_object))
		abort();
	json_object_put(o);
	return 0;
}
