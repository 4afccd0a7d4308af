/*
 * libFuzzer harnesses (issue 18): one per parser a client or a visitor
 * reaches, each built by scripts/fuzz with clang, ASan and UBSan.  A
 * harness takes the bytes as a NUL-terminated string (what the server's
 * parsers get after reading a body or a header) and must not crash, leak,
 * hang or trip a sanitizer; it also checks the property the parser
 * promises where there is one (a sanitized text parses to itself, say).
 */
#ifndef FB_FUZZ_H
#define FB_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formback.h"

/* The input as a string of its own (freed by the caller). */
static inline char *
fuzz_str(const uint8_t *data, size_t n)
{
	char	*s = malloc(n + 1);

	if (s != NULL) {
		memcpy(s, data, n);
		s[n] = '\0';
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

#endif
