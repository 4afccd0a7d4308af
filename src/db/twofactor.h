/*
 * src/db/twofactor.c: members' second factor (issue 43, item 4;
 * migration 0037): the TOTP secret sealed and its last accepted step,
 * recovery codes by their keyed hash, the sign-in's challenges, and
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
 * Replace the member's recovery codes with the n hashes of `hashes`
 * (32 bytes each, one after another).
 */
enum fb_err db_recovery_codes_set(struct db *, const char *tenant,
	    const char *member, const unsigned char *hashes, size_t n) FB_WUR;
/*
 * Use the recovery code of hash `hash` once: *used true when it was the
 * member's and not used before.
 */
enum fb_err db_recovery_code_use(struct db *, const char *tenant,
	    const char *member, const unsigned char *hash, bool *used) FB_WUR;

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
