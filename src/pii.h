/*
 * Contacts sealed and indexed (design 6; contract: conventions 4):
 * sealing, blind indexes, and a contact's key (contact.h normalises and
 * masks).  Clear contacts exist only in memory, only between the
 * collector or a sender and these functions.
 */
#ifndef FORMBACK_PII_H
#define FORMBACK_PII_H

#include "formback.h"
#include "contact.h"

#define PII_KEYBYTES	32
#define PII_BIDXBYTES	32
/* version, 24-byte nonce, ciphertext, 16-byte tag */
#define PII_SEALED_MAX(n) (1 + 24 + (n) + 16)

/*
 * Seal `plain` for the row (tenant, row id, field) with XChaCha20-Poly1305
 * under a subkey of the master key; the three names are the associated
 * data, so a sealed value cannot be moved to another row or field.
 * `out` needs PII_SEALED_MAX(strlen(plain)) bytes.  Returns the length.
 */
size_t	pii_seal(const unsigned char *mk, const char *tenant, const char *row,
	    const char *field, const char *plain, unsigned char *out);
/*
 * Open what pii_seal() made into `out` (NUL-terminated, outsz bytes).
 * Returns false when the value was tampered with, moved, or sealed under
 * another key.
 */
bool	pii_open(const unsigned char *mk, const char *tenant, const char *row,
	    const char *field, const unsigned char *sealed, size_t n,
	    char *out, size_t outsz) FB_WUR;
/*
 * pii_open() under the key of the file with id `key_id` (the row's key
 * id column; -1 for none) first, then under each other key of the file
 * (formback.conf(5), "KEY ROTATION"): a lead recaptured with one contact
 * while a rotation was under way keeps the other sealed under the older
 * key, and the row's id names that older key (db/lead.c, LEAD_CAPTURE).
 * *by, unless NULL, gets the id of the key that opened it.  Returns
 * false when no key of the file opens it.
 */
bool	pii_open_any(const struct conf *c, long long key_id, const char *tenant,
	    const char *row, const char *field, const unsigned char *sealed,
	    size_t n, char *out, size_t outsz, unsigned *by) FB_WUR;
/*
 * Keyed BLAKE2b of (tenant, kind, normalised value; emails lower-cased
 * whole): equal contacts of one tenant have equal indexes; nothing links
 * tenants.
 */
void	pii_blind_index(const unsigned char *mk, const char *tenant,
	    const char *kind, const char *norm, unsigned char out[PII_BIDXBYTES]);

/*
 * A contact as typed (a phone number when it normalises as one, else an
 * email address) into its kind ("tel" or "email", static), the tenant's
 * blind index and the contract's mask (conventions 4).  Returns false
 * when it is neither; nothing is written then.
 */
bool	contact_key(const unsigned char *mk, const char *tenant,
    const char *value,
	    const char **kind, unsigned char bidx[PII_BIDXBYTES], char masked[300]);

#endif
