/* Contacts sealed and indexed (see pii.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <idn2.h>
#include <sodium.h>

#include "pii.h"

static void
subkey(const unsigned char *mk, uint64_t id, const char ctx[8],
    unsigned char k[32])
{
	crypto_kdf_derive_from_key(k, 32, id, ctx, mk);
}

static size_t
ad_build(unsigned char *ad, size_t adsz, const char *tenant, const char *row,
    const char *field)
{
	int	 n = snprintf((char *)ad, adsz, "%s%c%s%c%s", tenant, 0, row, 0,
	    field);

	return n < 0 ? 0 : (size_t)n < adsz ? (size_t)n : adsz - 1;
}

size_t
pii_seal(const unsigned char *mk, const char *tenant, const char *row,
    const char *field, const char *plain, unsigned char *out)
{
	unsigned char		 k[32], ad[256];
	unsigned long long	 clen;
	size_t			 adlen = ad_build(ad, sizeof(ad), tenant, row,
	    field);

	subkey(mk, 2, "fbpiiEnc", k);
	out[0] = 1;
	randombytes_buf(out + 1, 24);
	crypto_aead_xchacha20poly1305_ietf_encrypt(out + 25, &clen,
	    (const unsigned char *)plain, strlen(plain), ad, adlen, NULL,
	    out + 1, k);
	sodium_memzero(k, sizeof(k));
	return 25 + (size_t)clen;
}

bool
pii_open(const unsigned char *mk, const char *tenant, const char *row,
    const char *field, const unsigned char *in, size_t n, char *out,
    size_t outsz)
{
	unsigned char		 k[32], ad[256];
	unsigned long long	 mlen;
	size_t			 adlen = ad_build(ad, sizeof(ad), tenant, row,
	    field);
	int			 rc;

	if (n < 25 + 16 || in[0] != 1 || n - 25 - 16 + 1 > outsz)
		return false;
	subkey(mk, 2, "fbpiiEnc", k);
	rc = crypto_aead_xchacha20poly1305_ietf_decrypt((unsigned char *)out,
	    &mlen, NULL, in + 25, n - 25, ad, adlen, in + 1, k);
	sodium_memzero(k, sizeof(k));
	if (rc != 0)
		return false;
	out[mlen] = '\0';
	return true;
}

bool
pii_open_any(const struct conf *c, long long key_id, const char *tenant,
    const char *row, const char *field, const unsigned char *sealed,
    size_t n, char *out, size_t outsz, unsigned *by)
{
	const unsigned char *k;
	size_t		 i;

	if (sealed == NULL)
		return false;
	k = key_id >= 0 ? conf_master_key(c, (unsigned)key_id) : NULL;
	if (k != NULL && pii_open(k, tenant, row, field, sealed, n, out,
	    outsz)) {
		if (by != NULL)
			*by = (unsigned)key_id;
		return true;
	}
	for (i = 0; i <= c->nold_keys; i++) {
		unsigned id = i == 0 ? c->master_key_id : c->old_key_ids[i - 1];

		if (key_id >= 0 && id == (unsigned)key_id)
			continue;
		k = i == 0 ? c->master_key : c->old_keys[i - 1];
		if (pii_open(k, tenant, row, field, sealed, n, out, outsz)) {
			if (by != NULL)
				*by = id;
			return true;
		}
	}
	return false;
}

void
pii_blind_index(const unsigned char *mk, const char *tenant, const char *kind,
    const char *norm, unsigned char out[PII_BIDXBYTES])
{
	unsigned char			 k[32];
	crypto_generichash_state	 st;
	char				 v[256];
	size_t				 i;

	/* emails match whatever the case of the local part */
	snprintf(v, sizeof(v), "%s", norm);
	if (strcmp(kind, "email") == 0)
		for (i = 0; v[i] != '\0'; i++)
			v[i] = (char)tolower((unsigned char)v[i]);
	subkey(mk, 3, "fbpiiIdx", k);
	crypto_generichash_init(&st, k, sizeof(k), PII_BIDXBYTES);
	crypto_generichash_update(&st, (const unsigned char *)tenant,
	    strlen(tenant) + 1);
	crypto_generichash_update(&st, (const unsigned char *)kind,
	    strlen(kind) + 1);
	crypto_generichash_update(&st, (const unsigned char *)v, strlen(v));
	sodium_memzero(v, sizeof(v));
	crypto_generichash_final(&st, out, PII_BIDXBYTES);
	sodium_memzero(k, sizeof(k));
}

bool
contact_key(const unsigned char *mk, const char *tenant, const char *value,
    const char **kind, unsigned char bidx[PII_BIDXBYTES], char masked[300])
{
	char		 norm[256];
	enum tel_kind	 k;

	if (contact_tel_normalize(value, norm, &k)) {
		*kind = "tel";
		contact_tel_mask(norm, masked);
	} else if (contact_email_normalize(value, norm)) {
		*kind = "email";
		contact_email_mask(norm, masked);
	} else
		return false;
	pii_blind_index(mk, tenant, *kind, norm, bidx);
	sodium_memzero(norm, sizeof(norm));
	return true;
}

const unsigned char *
bidx_signing_key(const struct bidx_keys *k)
{
	return k->k[k->in_force] != NULL ? k->k[k->in_force] :
	    k->k[1 - k->in_force];
}

void
bidx_of(const struct bidx_keys *k, const char *tenant, const char *kind,
    const char *norm, struct bidx *out)
{
	int	 s;

	for (s = 0; s < 2; s++) {
		out->has[s] = k->k[s] != NULL;
		out->key[s] = out->has[s] ? k->id[s] : -1;
		if (out->has[s])
			pii_blind_index(k->k[s], tenant, kind, norm, out->v[s]);
		else
			memset(out->v[s], 0, PII_BIDXBYTES);
	}
}

bool
contact_bidx(const struct bidx_keys *k, const char *tenant,
    const char *value, const char **kind, struct bidx *out, char masked[300])
{
	char		 norm[256];
	enum tel_kind	 t;

	if (contact_tel_normalize(value, norm, &t)) {
		*kind = "tel";
		contact_tel_mask(norm, masked);
	} else if (contact_email_normalize(value, norm)) {
		*kind = "email";
		contact_email_mask(norm, masked);
	} else
		return false;
	bidx_of(k, tenant, *kind, norm, out);
	sodium_memzero(norm, sizeof(norm));
	return true;
}
