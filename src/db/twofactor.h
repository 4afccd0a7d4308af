/*
 * src/db/twofactor.c: members' second factor (issue 43, item 4;
 * migration 0040): the TOTP secret sealed and its last accepted step,
 * recovery codes sealed, the sign-in's challenges, and
 * the tenant's requirement.  store.h includes it.
 */
#ifndef FORMBACK_DB_TWOFACTOR_H
#define FORMBACK_DB_TWOFACTOR_H

#include "db.h"

/* A member's TOTP enrolment, pending or active. */
#define TOTP_COLS(F, N) F(secret_sealed, BIN, "x.secret_sealed") \
	N(secret_key_id, XINT, "x.secret_key_id") \
	N(enabled, BOOL, "x.confirmed_at IS NOT NULL") \
	N(enabled_at, TIME, "x.confirmed_at") \
	N(last_step, XINT, "x.last_step") \
	N(recovery_codes_left, INT, "(SELECT COUNT(*) FROM " \
	    "member_recovery_codes c WHERE c.member_id = x.member_id " \
	    "AND c.used_at IS NULL)")
struct totp_row { DB_FIELDS(TOTP_COLS) };
/*
 * Member `member`'s struct totp_row, locked for update in the caller's
 * transaction; FB_ENOTFOUND when the member has none.
 */
enum fb_err db_totp_get(struct db *, const char *tenant, const char *member,
	    struct dbrows *out) FB_WUR;
/*
 * Begin an enrolment: the sealed secret (under master key `key_id`),
 * pending, its last step forgotten; replaces a pending one.  The caller
 * checked under db_totp_get()'s lock that none is active.
 */
enum fb_err db_totp_begin(struct db *, const char *tenant, const char *member,
	    const unsigned char *sealed, size_t n, unsigned key_id) FB_WUR;
/* Activate a pending enrolment, its first code of TOTP step `step`. */
enum fb_err db_totp_confirm(struct db *, const char *tenant,
	    const char *member, long long step) FB_WUR;
/*
 * Record TOTP step `step` as the last accepted, when it is after the
 * stored one; *fresh false when it is not (a replay racing another).
 */
enum fb_err db_totp_step(struct db *, const char *tenant, const char *member,
	    long long step, bool *fresh) FB_WUR;
/*
 * Remove the member's second factor: the secret, the recovery codes and
 * every open sign-in challenge.
 */
enum fb_err db_totp_remove(struct db *, const char *tenant,
	    const char *member) FB_WUR;

/*
 * A recovery code to store: its id, its normalised code sealed under
 * master key `key_id` (pii_seal(): the tenant, the id, "recovery_code").
 */
struct recovery_code_in {
	char		 id[UUID_STRLEN + 1];
	unsigned char	 sealed[64];	/* code_sealed: VARBINARY(64) */
	size_t		 n;
	unsigned	 key_id;
};
/* Replace the member's recovery codes with the n codes of `c`. */
enum fb_err db_recovery_codes_set(struct db *, const char *tenant,
	    const char *member, const struct recovery_code_in *c,
	    size_t n) FB_WUR;
/* A member's unused recovery code, sealed. */
#define RECOVERY_CODE_COLS(F, N) F(id, TEXT, "c.id") \
	N(code_sealed, BIN, "c.code_sealed") \
	N(code_key_id, XINT, "c.code_key_id")
struct recovery_code_row { DB_FIELDS(RECOVERY_CODE_COLS) };
/*
 * The member's unused recovery codes (struct recovery_code_row, 20 at
 * most), locked for update in the caller's transaction.
 */
enum fb_err db_recovery_codes(struct db *, const char *tenant,
	    const char *member, struct dbrows *out) FB_WUR;
/*
 * Use recovery code `id` once: *used true when it was unused (a race
 * with another request using it loses).
 */
enum fb_err db_recovery_code_use(struct db *, const char *tenant,
	    const char *id, bool *used) FB_WUR;

/* A sign-in challenge (the second step), with its member. */
#define CHALLENGE_COLS(F, N) F(id, TEXT, "c.id") \
	N(tenant_id, TEXT, "c.tenant_id") N(member_id, TEXT, "c.member_id") \
	N(email, TEXT, "m.email") N(member_status, TEXT, "m.status") \
	N(usable, BOOL, "c.used_at IS NULL AND c.expires_at > NOW(6)")
struct challenge_row { DB_FIELDS(CHALLENGE_COLS) };
/* A new challenge of member `member`, valid `seconds`. */
enum fb_err db_challenge_add(struct db *, const char *id, const char *tenant,
	    const char *member, const unsigned char *hash, int seconds) FB_WUR;
/*
 * One struct challenge_row by its token's hash, locked; FB_ENOTFOUND
 * when none has it.
 */
enum fb_err db_challenge_by_token(struct db *, const unsigned char *hash,
	    struct dbrows *out) FB_WUR;
/* Count a wrong code; the `tries`-th uses the challenge up. */
enum fb_err db_challenge_fail(struct db *, const char *id, int tries) FB_WUR;
/* Use the challenge up (the sign-in completed). */
enum fb_err db_challenge_use(struct db *, const char *id) FB_WUR;

/* The tenant's requirement, and its active members without TOTP. */
#define TWO_FACTOR_POLICY_COLS(F, N) \
	F(two_factor_required, BOOL, "t.two_factor_required") \
	N(members_without_two_factor, INT, "(SELECT COUNT(*) FROM members m " \
	    "WHERE m.tenant_id = t.id AND m.status = 'active' AND NOT EXISTS " \
	    "(SELECT 1 FROM member_totp x WHERE x.member_id = m.id " \
	    "AND x.confirmed_at IS NOT NULL))")
struct two_factor_policy_row { DB_FIELDS(TWO_FACTOR_POLICY_COLS) };
/* One struct two_factor_policy_row; FB_ENOTFOUND when no such tenant. */
enum fb_err db_two_factor_policy(struct db *, const char *tenant,
	    struct dbrows *out) FB_WUR;
enum fb_err db_two_factor_require(struct db *, const char *tenant,
	    bool required) FB_WUR;

/* Retention: challenges a day past their expiry, 10,000 at most. */
enum fb_err db_challenge_purge(struct db *) FB_WUR;

#endif
