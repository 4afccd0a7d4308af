/* Contacts typed by visitors: phone and address normalisation, masks. */
#include "fuzz.h"
#include "pii.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static const unsigned char key[32] = { 1, 2, 3 };
	char		*s = fuzz_str(data, n), tel[16], mail[256], masked[300];
	unsigned char	 bidx[PII_BIDXBYTES];
	const char	*kind;
	enum tel_kind	 k;

	if (s == NULL)
		return 0;
	if (contact_tel_normalize(s, tel, &k) &&
	    strspn(tel, "0123456789") != strlen(tel))
		abort();
	(void)contact_email_normalize(s, mail);
	(void)contact_key(key, "00000000-0000-0000-0000-000000000000", s, &kind,
	    bidx,
	    masked);
	free(s);
	return 0;
}
