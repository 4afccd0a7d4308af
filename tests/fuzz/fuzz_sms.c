/* SMS bodies: the segment counter and the variable expansion. */
#include "fuzz.h"
#include "message.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char		*s = fuzz_str(data, n);
	struct sms_count c;
	struct buf	 b;

	if (s == NULL)
		return 0;
	if (sms_count(s, "https://fb.example.jp", &c) && c.segments < 0)
		abort();
	buf_init(&b, 1u << 22);
	(void)vars_expand(&b, s, "商品<&>", "https://fb.example.jp/r/abc",
	    "https://fb.example.jp/u/x");
	buf_release(&b);
	free(s);
	return 0;
}
