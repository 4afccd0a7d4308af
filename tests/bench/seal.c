/*
 * tests/bench/seal: leads with real sealed contacts, for scripts/bench -S
 * (its noisy tenant's deliveries must be sent, not stopped for a missing
 * contact).  Reads formback.conf ($FORMBACK_CONF) for the master key and
 * prints N lines of tab-separated columns for LOAD DATA: the lead's id
 * (UUIDv7), its phone number sealed and its blind index (hex), the mask
 * and the key id; the numbers are 0901 + 7 digits from START on.
 *
 *   seal TENANT N START
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "formback.h"
#include "pii.h"

int
main(int argc, char *argv[])
{
	struct conf	 c;
	char		 err[512], id[UUID_STRLEN + 1], typed[32], tel[16];
	char		 mask[32], hex[2 * PII_SEALED_MAX(16) + 1];
	char		 bhex[2 * PII_BIDXBYTES + 1];
	unsigned char	 sealed[PII_SEALED_MAX(16)], bidx[PII_BIDXBYTES];
	enum tel_kind	 kind;
	long		 i, n, start;
	size_t		 len;

	if (argc != 4 || !uuid_valid(argv[1]) || (n = atol(argv[2])) < 1 ||
	    (start = atol(argv[3])) < 0) {
		fprintf(stderr, "usage: seal TENANT N START\n");
		return 2;
	}
	if (sodium_init() < 0 ||
	    conf_load(&c, NULL, err, sizeof(err)) != FB_OK) {
		fprintf(stderr, "seal: %s\n", err);
		return 1;
	}
	for (i = 0; i < n; i++) {
		snprintf(typed, sizeof(typed), "0901%07ld",
		    (start + i) % 10000000);
		if (!contact_tel_normalize(typed, tel, &kind))
			return 1;
		uuid_v7(id);
		len = pii_seal(c.master_key, argv[1], id, "tel", tel, sealed);
		pii_blind_index(c.index_key, argv[1], "tel", tel, bidx);
		contact_tel_mask(tel, mask);
		sodium_bin2hex(hex, sizeof(hex), sealed, len);
		sodium_bin2hex(bhex, sizeof(bhex), bidx, sizeof(bidx));
		printf("%s\t%s\t%s\t%s\t%u\n", id, hex, bhex, mask,
		    c.master_key_id);
	}
	conf_free(&c);
	return 0;
}
