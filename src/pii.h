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

struct db;

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
	    const char *kind, const char *norm,
	    unsigned char out[PII_BIDXBYTES]);

/*
 * A contact as typed (a phone number when it normalises as one, else an
 * email address) into its kind ("tel" or "email", static), the tenant's
 * blind index and the contract's mask (conventions 4).  Returns false
 * when it is neither; nothing is written then.
 */
bool	contact_key(const unsigned char *mk, const char *tenant,
    const char *value, const char **kind, unsigned char bidx[PII_BIDXBYTES],
	    char masked[300]);

/*
 * The blind index keys (migration 0041, docs/internals/key-rotation.md
 * "The blind indexes"): every blind index has two slots, slot 1 (the
 * column it always had: bidx, email_bidx, tel_bidx) and slot 2 (bidx2,
 * ...).  Each slot is under a key of the file, or none; the slot in
 * force is complete in every row and keys cursors and device cookies.
 * Writers fill every slot with a key; look-ups match either.
 */
struct bidx_keys {
	const unsigned char *k[2];	/* slot 1, slot 2; the conf's */
	long long	 id[2];		/* their key ids; -1: no key */
	int		 in_force;	/* 0 or 1 */
};
/* A contact's blind indexes, one per slot with a key. */
struct bidx {
	unsigned char	 v[2][PII_BIDXBYTES];
	bool		 has[2];	/* v[s] set: slot s has a key */
	long long	 key[2];	/* the slot's key id, -1 when none */
};
#define BIDX_TTL	5	/* seconds a process keeps what it read */
/*
 * Read index_keys again when what this process holds is BIDX_TTL
 * seconds old (db/rotation.c, db_index_keys_get()): a request, a queue
 * batch and a cron pass call it before they index a contact, so every
 * worker of every host agrees within BIDX_TTL seconds.  A slot whose
 * key id the file no longer holds has no key here (logged).  Errors: the
 * database's; what was held stays.
 */
enum fb_err	bidx_refresh(struct db *, const struct conf *) FB_WUR;
/*
 * What the process holds: as last read, or before any read (or with no
 * row), slot 1 under c's key of the lowest id, in force.  Borrowed:
 * valid until the next bidx_refresh().
 */
const struct bidx_keys *bidx_cur(const struct conf *c);
/* The key of the slot in force (signs cursors, device cookies). */
const unsigned char *bidx_signing_key(const struct bidx_keys *);
/*
 * pii_blind_index() of (kind, normalised value) under each slot's key
 * into out; a slot without a key is left out (has false).
 */
void	bidx_of(const struct bidx_keys *, const char *tenant,
	    const char *kind, const char *norm, struct bidx *out);
/* contact_key() with both slots: false when value is no contact. */
bool	contact_bidx(const struct bidx_keys *, const char *tenant,
	    const char *value, const char **kind, struct bidx *out,
	    char masked[300]);

#endif
