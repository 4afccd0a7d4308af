/*
 * SQL of members' second factor: TOTP enrolments, recovery codes, the
 * sign-in's challenges and the tenant's requirement (twofactor.h;
 * migration 0040).
 */
#include <stdio.h>
#include <string.h>

#include "store.h"

enum {
	TF_GET, TF_BEGIN, TF_CONFIRM, TF_STEP, TF_REMOVE, TF_CODES_REMOVE,
	TF_CHALLENGES_END, TF_CODE_ADD, TF_CODES, TF_CODE_USE,
	TF_CH_ADD, TF_CH_TOKEN, TF_CH_FAIL, TF_CH_USE,
	TF_POLICY, TF_REQUIRE, TF_PURGE,
	TF__MAX
};
_Static_assert(TF__MAX <= DBSET_STMT_MAX, "raise DBSET_STMT_MAX");

static const struct dbstmt tf_sql[TF__MAX] = {
	{ "totp_get",
	  "SELECT " DB_SELECT(TOTP_COLS) " FROM member_totp x "
	  "WHERE x.tenant_id = ? AND x.member_id = ? FOR UPDATE" },
	{ "totp_begin",
	  "INSERT INTO member_totp (member_id, tenant_id, secret_sealed, "
	  "secret_key_id) VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE "
	  "secret_sealed = VALUES(secret_sealed), "
	  "secret_key_id = VALUES(secret_key_id), confirmed_at = NULL, "
	  "last_step = -1, created_at = NOW(6)" },
	{ "totp_confirm",
	  "UPDATE member_totp SET confirmed_at = NOW(6), last_step = ? "
	  "WHERE tenant_id = ? AND member_id = ? AND confirmed_at IS NULL" },
	/* never backwards: two requests with one code cannot both pass */
	{ "totp_step",
	  "UPDATE member_totp SET last_step = ? WHERE tenant_id = ? "
	  "AND member_id = ? AND confirmed_at IS NOT NULL AND last_step < ?" },
	{ "totp_remove",
	  "DELETE FROM member_totp WHERE tenant_id = ? AND member_id = ?" },
	{ "recovery_codes_remove",
	  "DELETE FROM member_recovery_codes WHERE tenant_id = ? "
	  "AND member_id = ?" },
	{ "challenges_end",
	  "UPDATE signin_challenges SET used_at = NOW(6) WHERE tenant_id = ? "
	  "AND member_id = ? AND used_at IS NULL" },
	{ "recovery_code_add",
	  "INSERT INTO member_recovery_codes (id, member_id, tenant_id, "
	  "code_sealed, code_key_id) VALUES (?, ?, ?, ?, ?)" },
	{ "recovery_codes",
	  "SELECT " DB_SELECT(RECOVERY_CODE_COLS) " FROM member_recovery_codes "
	  "c WHERE c.tenant_id = ? AND c.member_id = ? AND c.used_at IS NULL "
	  "ORDER BY c.id LIMIT 20 FOR UPDATE" },
	{ "recovery_code_use",
	  "UPDATE member_recovery_codes SET used_at = NOW(6) WHERE "
	  "id = ? AND tenant_id = ? AND used_at IS NULL" },
	{ "challenge_add",
	  "INSERT INTO signin_challenges (id, tenant_id, member_id, "
	  "token_hash, expires_at) VALUES (?, ?, ?, ?, NOW(6) + INTERVAL ? "
	  "SECOND)" },
	{ "challenge_by_token",
	  "SELECT " DB_SELECT(CHALLENGE_COLS) " FROM signin_challenges c "
	  "JOIN members m ON m.id = c.member_id WHERE c.token_hash = ? "
	  "FOR UPDATE" },
	/* the assignments run left to right: used_at sees the new count */
	{ "challenge_fail",
	  "UPDATE signin_challenges SET tries = tries + 1, "
	  "used_at = IF(tries >= ?, NOW(6), used_at) WHERE id = ?" },
	{ "challenge_use",
	  "UPDATE signin_challenges SET used_at = NOW(6) WHERE id = ?" },
	{ "two_factor_policy",
	  "SELECT " DB_SELECT(TWO_FACTOR_POLICY_COLS) " FROM tenants t "
	  "WHERE t.id = ?" },
	{ "two_factor_require",
	  "UPDATE tenants SET two_factor_required = ?, updated_at = NOW(6) "
	  "WHERE id = ?" },
	{ "challenge_purge",
	  "DELETE FROM signin_challenges WHERE expires_at < NOW(6) - "
	  "INTERVAL 1 DAY LIMIT 10000" },
};

#define COLS(name, COLSET) \
	static const struct dbcol name[] = { DB_COLUMNS(COLSET) }
#define DB_ROW struct totp_row
COLS(totp_cols, TOTP_COLS);
#undef DB_ROW
#define DB_ROW struct recovery_code_row
COLS(recovery_code_cols, RECOVERY_CODE_COLS);
#undef DB_ROW
#define DB_ROW struct challenge_row
COLS(challenge_cols, CHALLENGE_COLS);
#undef DB_ROW
#define DB_ROW struct two_factor_policy_row
COLS(policy_cols, TWO_FACTOR_POLICY_COLS);
#undef DB_ROW
#undef COLS

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n)
{
	return db_run(db, DBSET_TWOFACTOR, id, &tf_sql[id], p, n, NULL);
}

static enum fb_err
changed(struct db *db, int id, const struct dbp *p, size_t n,
    unsigned long long *rows)
{
	return db_changed(db, DBSET_TWOFACTOR, id, &tf_sql[id], p, n, rows);
}

#define H(p)	P_BIN(p, 32)

enum fb_err
db_totp_get(struct db *db, const char *tenant, const char *member,
    struct dbrows *out)
{
	return db_rows(db, DBSET_TWOFACTOR, TF_GET, &tf_sql[TF_GET],
	    DBPARAMS(P_STR(tenant), P_STR(member)), totp_cols,
	    NELEM(totp_cols), sizeof(struct totp_row), true, out);
}

enum fb_err
db_totp_begin(struct db *db, const char *tenant, const char *member,
    const unsigned char *sealed, size_t n, unsigned key_id)
{
	return run(db, TF_BEGIN, DBPARAMS(P_STR(member), P_STR(tenant),
	    P_BIN(sealed, n), P_INT(key_id)));
}

enum fb_err
db_totp_confirm(struct db *db, const char *tenant, const char *member,
    long long step)
{
	return run(db, TF_CONFIRM, DBPARAMS(P_INT(step), P_STR(tenant),
	    P_STR(member)));
}

enum fb_err
db_totp_step(struct db *db, const char *tenant, const char *member,
    long long step, bool *fresh)
{
	unsigned long long n = 0;
	enum fb_err	 e;

	e = changed(db, TF_STEP, DBPARAMS(P_INT(step), P_STR(tenant),
	    P_STR(member), P_INT(step)), &n);
	*fresh = e == FB_OK && n == 1;
	return e;
}

enum fb_err
db_totp_remove(struct db *db, const char *tenant, const char *member)
{
	enum fb_err	 e;

	if ((e = run(db, TF_REMOVE, DBPARAMS(P_STR(tenant),
	    P_STR(member)))) == FB_OK &&
	    (e = run(db, TF_CODES_REMOVE, DBPARAMS(P_STR(tenant),
	    P_STR(member)))) == FB_OK)
		e = run(db, TF_CHALLENGES_END, DBPARAMS(P_STR(tenant),
		    P_STR(member)));
	return e;
}

enum fb_err
db_recovery_codes_set(struct db *db, const char *tenant, const char *member,
    const struct recovery_code_in *c, size_t n)
{
	size_t		 i;
	enum fb_err	 e;

	e = run(db, TF_CODES_REMOVE, DBPARAMS(P_STR(tenant), P_STR(member)));
	for (i = 0; e == FB_OK && i < n; i++)
		e = run(db, TF_CODE_ADD, DBPARAMS(P_STR(c[i].id),
		    P_STR(member), P_STR(tenant), P_BIN(c[i].sealed, c[i].n),
		    P_INT(c[i].key_id)));
	return e;
}

enum fb_err
db_recovery_codes(struct db *db, const char *tenant, const char *member,
    struct dbrows *out)
{
	return db_rows(db, DBSET_TWOFACTOR, TF_CODES, &tf_sql[TF_CODES],
	    DBPARAMS(P_STR(tenant), P_STR(member)), recovery_code_cols,
	    NELEM(recovery_code_cols), sizeof(struct recovery_code_row),
	    false, out);
}

enum fb_err
db_recovery_code_use(struct db *db, const char *tenant, const char *id,
    bool *used)
{
	unsigned long long n = 0;
	enum fb_err	 e;

	e = changed(db, TF_CODE_USE, DBPARAMS(P_STR(id), P_STR(tenant)), &n);
	*used = e == FB_OK && n == 1;
	return e;
}

enum fb_err
db_challenge_add(struct db *db, const char *id, const char *tenant,
    const char *member, const unsigned char *hash, int seconds)
{
	return run(db, TF_CH_ADD, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(member), H(hash), P_INT(seconds)));
}

enum fb_err
db_challenge_by_token(struct db *db, const unsigned char *hash,
    struct dbrows *out)
{
	return db_rows(db, DBSET_TWOFACTOR, TF_CH_TOKEN, &tf_sql[TF_CH_TOKEN],
	    DBPARAMS(H(hash)), challenge_cols, NELEM(challenge_cols),
	    sizeof(struct challenge_row), true, out);
}

enum fb_err
db_challenge_fail(struct db *db, const char *id, int tries)
{
	return run(db, TF_CH_FAIL, DBPARAMS(P_INT(tries), P_STR(id)));
}

enum fb_err
db_challenge_use(struct db *db, const char *id)
{
	return run(db, TF_CH_USE, DBPARAMS(P_STR(id)));
}

enum fb_err
db_two_factor_policy(struct db *db, const char *tenant, struct dbrows *out)
{
	return db_rows(db, DBSET_TWOFACTOR, TF_POLICY, &tf_sql[TF_POLICY],
	    DBPARAMS(P_STR(tenant)), policy_cols, NELEM(policy_cols),
	    sizeof(struct two_factor_policy_row), true, out);
}

enum fb_err
db_two_factor_require(struct db *db, const char *tenant, bool required)
{
	return run(db, TF_REQUIRE, DBPARAMS(P_INT(required ? 1 : 0),
	    P_STR(tenant)));
}

enum fb_err
db_challenge_purge(struct db *db)
{
	return run(db, TF_PURGE, DBNOPARAMS);
}
