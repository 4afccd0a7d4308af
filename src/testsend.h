/*
 * Test recipients' codes and test sends as formback-deliver sends them
 * (issue 16; migration 0021).  The API side is api/testsends.c.
 */
#ifndef FORMBACK_TESTSEND_H
#define FORMBACK_TESTSEND_H

#include <stdio.h>

#include "formback.h"

struct db;

#define TESTSEND_CODE_TRIES	5	/* wrong codes before one is useless */
/* {{product_name}} of a test send */
#define TESTSEND_PRODUCT	"サンプル商品"

/* What is stored of recipient `id`'s code: BLAKE2b-256 of "id:code". */
static inline void
testsend_code_hash(const char *id, const char *code,
    unsigned char out[SECRET_HASH_LEN])
{
	char	 s[UUID_STRLEN + 16];

	snprintf(s, sizeof(s), "%s:%s", id, code);
	secret_hash(s, out);
}

/*
 * One pass of formback-deliver: a 6-digit code to each recipient waiting
 * for one (SMS or email, valid 30 minutes; only its hash kept), then the
 * pending test sends, each its message rendered with TESTSEND_PRODUCT,
 * base_url as the link and no opt-out or open tracking, the subject
 * marked "[テスト]".  A send that fails ends failed with the provider's
 * short reason.  *codes and *sends count what left.
 */
enum fb_err	testsend_pass(struct db *, const struct conf *, int *codes,
		    int *sends) FB_WUR;

#endif
