/* The suppression import: encodings and RFC 4180 records. */
#include "csv.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct csv c;
	struct buf	 text;
	const char	*enc;
	size_t		 i;
	int		 k, guard = 0;

	buf_init(&text, 4 * n + 16);
	if (csv_text((const char *)data, n, &text, &enc) == FB_OK) {
		if (utf8_len(text.data) < 0)
			abort();
		csv_init(&c, text.data, text.len);
		while ((k = csv_next(&c)) == 1) {
			for (i = 0; i < c.nfields; i++)
				if (strlen(c.field[i]) > CSV_MAX_FIELD)
					abort();
			if (++guard > (int)n + 1)
				/* every record eats a byte or more */
				abort();
		}
	}
	buf_release(&text);
	return 0;
}
