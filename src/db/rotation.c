/*
 * SQL of a master key rotation (issue 43 item 7; migration 0038;
 * formback.conf(5) "KEY ROTATION"): the rows with something sealed
 * under another key than the newest, table by table in id order, each
 * re-sealed only when it still holds what was read, and the rotation's
 * progress in key_rotations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

/* ? the last id done, ? the key, ? how many; the rows by column id */
#define SEALED_BY(id, tenant, key, a, b, table, has) \
	"SELECT " id ", " tenant ", COALESCE(" key ", -1), " a ", " b \
	" FROM " table " WHERE " id " > COALESCE(?, '" DB_MIN_ID "') " \
	"AND (" has ") AND NOT (" key " <=> ?) ORDER BY " id " LIMIT ?"
#define SEALED(tenant, key, a, b, table, has) \
	SEALED_BY("id", tenant, key, a, b, table, has)
#define COUNTS_BY(id, key, table, has) \
	"SELECT COALESCE(" key ", -1), COUNT(*), MIN(" id ") FROM " table \
	" WHERE " has " GROUP BY 1 ORDER BY 1"
#define COUNTS(key, table, has) COUNTS_BY("id", key, table, has)
#define LEAD_HAS	"tel_sealed IS NOT NULL OR email_sealed IS NOT NULL"
/* a rotation done, its indexes' re-key too */
#define FINISHED	"phase = 'done' AND bidx_phase = 'switched'"
/* just set going again with the old slot kept for what was left */
#define RETRY	"bidx_phase = 'switched' AND phase = 'leads' AND " \
	"after_id IS NULL AND EXISTS (SELECT 1 FROM index_keys WHERE " \
	"slot1_key IS NOT NULL AND slot2_key IS NOT NULL)"

enum {
	RT_SEALED_LEADS,
	RT_SEALED_INGEST,
	RT_SEALED_RCPT,
	RT_SEALED_HOOKS,
	RT_SEALED_TOTP,
	RT_SEALED_RECOVERY,
	RT_RESEAL_LEADS,
	RT_RESEAL_INGEST,
	RT_RESEAL_RCPT,
	RT_RESEAL_HOOKS,
	RT_RESEAL_TOTP,
	RT_RESEAL_RECOVERY,
	RT_COUNT_LEADS,
	RT_COUNT_INGEST,
	RT_COUNT_RCPT,
	RT_COUNT_HOOKS,
	RT_COUNT_TOTP,
	RT_COUNT_RECOVERY,
	RT_BEGIN,
	RT_LOCK,
	RT_ADVANCE,
	RT_LIST,
	RT_IDX_GET,
	RT_IDX_LOCK,
	RT_IDX_SET,
	RT_PEND_LEADS1,		/* RT_PEND_*: (table, slot) in order */
	RT_PEND_LEADS2,
	RT_PEND_RCPT1,
	RT_PEND_RCPT2,
	RT_PEND_SUP1,
	RT_PEND_SUP2,
	RT_SET_LEADS1,		/* RT_SET_*: the same order */
	RT_SET_LEADS2,
	RT_SET_RCPT1,
	RT_SET_RCPT2,
	RT_SET_SUP1,
	RT_SET_SUP2,
	RT_BIDX_ADVANCE,
	RT_UNREKEYED1,
	RT_UNREKEYED2,
	RT__MAX
};

/*
 * The index re-key's statements, by the slot filled (to: "" for slot 1,
 * "2" for slot 2) and the other (from).  ? the last id done, ? the key,
 * ? how many.
 */
#define PEND_AFTER " id > COALESCE(?, '" DB_MIN_ID "') "
#define PEND_LEADS(to) \
	"SELECT id, tenant_id, COALESCE(pii_key_id, -1), NULL, tel_sealed, " \
	"email_sealed FROM leads WHERE" PEND_AFTER "AND (" LEAD_HAS ") " \
	"AND NOT (bidx" to "_key <=> ?) ORDER BY id LIMIT ?"
#define PEND_RCPT(to) \
	"SELECT id, tenant_id, COALESCE(pii_key_id, -1), kind, " \
	"contact_sealed, NULL FROM test_recipients WHERE" PEND_AFTER \
	"AND contact_sealed IS NOT NULL AND NOT (bidx" to "_key <=> ?) " \
	"ORDER BY id LIMIT ?"
/* ? ? ? the key (the recipient's, the leads'), then as above */
#define PEND_SUP(to, from) \
	"SELECT s.id, s.tenant_id, -1, s.kind, s.bidx" from ", " \
	"COALESCE((SELECT r.bidx" to " FROM test_recipients r " \
	"WHERE r.tenant_id = s.tenant_id AND r.kind = s.kind AND r.bidx" \
	from " = s.bidx" from " AND r.bidx" to "_key <=> ? AND r.bidx" to \
	" IS NOT NULL LIMIT 1), " \
	"IF(s.kind = 'tel', (SELECT l.tel_bidx" to " FROM leads l " \
	"WHERE l.tenant_id = s.tenant_id AND l.tel_bidx" from " = s.bidx" \
	from " AND l.bidx" to "_key <=> ? AND l.tel_bidx" to " IS NOT NULL " \
	"LIMIT 1), (SELECT l.email_bidx" to " FROM leads l " \
	"WHERE l.tenant_id = s.tenant_id AND l.email_bidx" from " = s.bidx" \
	from " AND l.bidx" to "_key <=> ? AND l.email_bidx" to " IS NOT NULL " \
	"LIMIT 1))) FROM suppressions s WHERE s." PEND_AFTER_S \
	"AND s.bidx" from " IS NOT NULL AND NOT (s.bidx" to "_key <=> ?) " \
	"ORDER BY s.id LIMIT ?"
#define PEND_AFTER_S "id > COALESCE(?, '" DB_MIN_ID "') "
/*
 * SET_*: ? ? the values, ? the key; ? the id, then what was read: ? the
 * key id (-1: NULL) and ? ? the sealed columns, or ? the other slot's
 */
#define SET_LEADS(to) \
	"UPDATE leads SET tel_bidx" to " = ?, email_bidx" to " = ?, " \
	"bidx" to "_key = ? WHERE id = ? AND COALESCE(pii_key_id, -1) = ? " \
	"AND tel_sealed <=> ? AND email_sealed <=> ?"
#define SET_RCPT(to) \
	"UPDATE test_recipients SET bidx" to " = ?, bidx" to "_key = ? " \
	"WHERE id = ? AND COALESCE(pii_key_id, -1) = ? " \
	"AND contact_sealed <=> ?"
#define SET_SUP(to, from) \
	"UPDATE suppressions SET bidx" to " = ?, bidx" to "_key = ? " \
	"WHERE id = ? AND bidx" from " <=> ?"
/* ? ? the key */
#define UNREKEYED(to, from) \
	"SELECT (SELECT COUNT(*) FROM suppressions WHERE bidx" from \
	" IS NOT NULL AND NOT (bidx" to "_key <=> ?)), " \
	"(SELECT COUNT(*) FROM test_recipients WHERE bidx" from \
	" IS NOT NULL AND NOT (bidx" to "_key <=> ?))"

static const struct dbstmt rot_sql[RT__MAX] = {
	/* RT_SEALED_*: a batch's rows, by table (enum rot_table's order) */
	{ "rot_sealed_leads",
	  SEALED("tenant_id", "pii_key_id", "tel_sealed", "email_sealed",
	  "leads", LEAD_HAS) },
	{ "rot_sealed_ingest",
	  SEALED("'ingest'", "pii_key_id", "tel_sealed", "email_sealed",
	  "tag_ingest", LEAD_HAS) },
	{ "rot_sealed_rcpt",
	  SEALED("tenant_id", "pii_key_id", "contact_sealed", "NULL",
	  "test_recipients", "contact_sealed IS NOT NULL") },
	{ "rot_sealed_hooks",
	  SEALED("tenant_id", "secret_key_id", "secret_sealed", "NULL",
	  "webhook_endpoints", "TRUE") },
	{ "rot_sealed_totp",
	  SEALED_BY("member_id", "tenant_id", "secret_key_id",
	  "secret_sealed", "NULL", "member_totp", "TRUE") },
	{ "rot_sealed_recovery",
	  SEALED("tenant_id", "code_key_id", "code_sealed", "NULL",
	  "member_recovery_codes", "TRUE") },
	/*
	 * RT_RESEAL_*: ? ? the new columns, ? the key; ? the id, ? the key
	 * id read (-1: NULL), ? ? the columns read
	 */
	{ "rot_reseal_leads",
	  "UPDATE leads SET tel_sealed = ?, email_sealed = ?, pii_key_id = ? "
	  "WHERE id = ? AND COALESCE(pii_key_id, -1) = ? "
	  "AND tel_sealed <=> ? AND email_sealed <=> ?" },
	{ "rot_reseal_ingest",
	  "UPDATE tag_ingest SET tel_sealed = ?, email_sealed = ?, "
	  "pii_key_id = ? WHERE id = ? AND pii_key_id = ? "
	  "AND tel_sealed <=> ? AND email_sealed <=> ?" },
	{ "rot_reseal_rcpt",
	  "UPDATE test_recipients SET contact_sealed = ?, pii_key_id = ? "
	  "WHERE id = ? AND COALESCE(pii_key_id, -1) = ? "
	  "AND contact_sealed <=> ?" },
	{ "rot_reseal_hooks",
	  "UPDATE webhook_endpoints SET secret_sealed = ?, secret_key_id = ? "
	  "WHERE id = ? AND secret_key_id = ? AND secret_sealed = ?" },
	{ "rot_reseal_totp",
	  "UPDATE member_totp SET secret_sealed = ?, secret_key_id = ? "
	  "WHERE member_id = ? AND secret_key_id = ? AND secret_sealed = ?" },
	{ "rot_reseal_recovery",
	  "UPDATE member_recovery_codes SET code_sealed = ?, code_key_id = ? "
	  "WHERE id = ? AND code_key_id = ? AND code_sealed = ?" },
	/* RT_COUNT_*: rows with something sealed, by key id */
	{ "rot_count_leads", COUNTS("pii_key_id", "leads", LEAD_HAS) },
	{ "rot_count_ingest", COUNTS("pii_key_id", "tag_ingest", LEAD_HAS) },
	{ "rot_count_rcpt", COUNTS("pii_key_id", "test_recipients",
	  "contact_sealed IS NOT NULL") },
	{ "rot_count_hooks", COUNTS("secret_key_id", "webhook_endpoints",
	  "TRUE") },
	{ "rot_count_totp", COUNTS_BY("member_id", "secret_key_id",
	  "member_totp", "TRUE") },
	{ "rot_count_recovery", COUNTS("code_key_id",
	  "member_recovery_codes", "TRUE") },
	/*
	 * RT_BEGIN: the rotation to ? begun, or (? ? ? restart) one
	 * finished, indexes and all, set going again; phase after the
	 * columns that test it, as MariaDB assigns in order.  (? ? restart)
	 * its re-key then takes again the suppressions and recipients an
	 * earlier pass left (both slots still keyed).
	 */
	{ "rot_begin",
	  "INSERT INTO key_rotations (to_key_id) VALUES (?) "
	  "ON DUPLICATE KEY UPDATE "
	  "after_id = IF(? AND " FINISHED ", NULL, after_id), "
	  "finished_at = IF(? AND " FINISHED ", NULL, finished_at), "
	  "phase = IF(? AND " FINISHED ", 'leads', phase), "
	  "bidx_after_id = IF(? AND " RETRY ", NULL, bidx_after_id), "
	  "bidx_phase = IF(? AND " RETRY ", 'suppressions', bidx_phase)" },
	/* RT_LOCK */
	{ "rot_lock",
	  "SELECT " DB_SELECT(KEY_ROTATION_COLS) " FROM key_rotations "
	  "WHERE to_key_id = ? FOR UPDATE" },
	/* RT_ADVANCE: ? phase, ? after, ? ? counts, ? phase; ? the key */
	{ "rot_advance",
	  "UPDATE key_rotations SET phase = ?, after_id = ?, "
	  "resealed = resealed + ?, unopened = unopened + ?, "
	  "batches = batches + 1, updated_at = NOW(6), "
	  "finished_at = IF(? = 'done', NOW(6), NULL) WHERE to_key_id = ?" },
	/* RT_LIST */
	{ "rot_list",
	  "SELECT " DB_SELECT(KEY_ROTATION_COLS) " FROM key_rotations "
	  "ORDER BY started_at DESC LIMIT 20" },
	/* RT_IDX_GET, RT_IDX_LOCK */
	{ "index_keys_get",
	  "SELECT " DB_SELECT(INDEX_KEYS_COLS) " FROM index_keys "
	  "WHERE id = 1" },
	{ "index_keys_lock",
	  "SELECT " DB_SELECT(INDEX_KEYS_COLS) " FROM index_keys WHERE id = 1 "
	  "FOR UPDATE" },
	/* RT_IDX_SET: ? ? the slots' keys, ? the slot in force */
	{ "index_keys_set",
	  "INSERT INTO index_keys (id, slot1_key, slot2_key, in_force) "
	  "VALUES (1, ?, ?, ?) ON DUPLICATE KEY UPDATE "
	  "slot1_key = VALUES(slot1_key), slot2_key = VALUES(slot2_key), "
	  "in_force = VALUES(in_force), updated_at = NOW(6)" },
	/* RT_PEND_* */
	{ "bidx_pending_leads1", PEND_LEADS("") },
	{ "bidx_pending_leads2", PEND_LEADS("2") },
	{ "bidx_pending_rcpt1", PEND_RCPT("") },
	{ "bidx_pending_rcpt2", PEND_RCPT("2") },
	{ "bidx_pending_sup1", PEND_SUP("", "2") },
	{ "bidx_pending_sup2", PEND_SUP("2", "") },
	/* RT_SET_* */
	{ "bidx_set_leads1", SET_LEADS("") },
	{ "bidx_set_leads2", SET_LEADS("2") },
	{ "bidx_set_rcpt1", SET_RCPT("") },
	{ "bidx_set_rcpt2", SET_RCPT("2") },
	{ "bidx_set_sup1", SET_SUP("", "2") },
	{ "bidx_set_sup2", SET_SUP("2", "") },
	/*
	 * RT_BIDX_ADVANCE: ? phase, ? after, ? rekeyed, ? ? ? new pass,
	 * ? unrekeyed, ? ? start, ? phase; ? the key (assigned in order:
	 * the pass's counts after their reset)
	 */
	{ "bidx_advance",
	  "UPDATE key_rotations SET bidx_phase = ?, bidx_after_id = ?, "
	  "rekeyed = rekeyed + ?, "
	  "pass_rekeyed = IF(?, 0, pass_rekeyed), "
	  "pass_started_at = IF(?, NOW(6), pass_started_at), "
	  "unrekeyed = IF(?, 0, unrekeyed) + ?, "
	  "pass_rekeyed = pass_rekeyed + ?, "
	  "bidx_started_at = IF(?, NOW(6), bidx_started_at), "
	  "batches = batches + 1, updated_at = NOW(6), "
	  "switched_at = IF(? = 'switched', COALESCE(switched_at, NOW(6)), "
	  "NULL) WHERE to_key_id = ?" },
	/* RT_UNREKEYED* */
	{ "bidx_unrekeyed1", UNREKEYED("", "2") },
	{ "bidx_unrekeyed2", UNREKEYED("2", "") },
};

#define COLS(name, COLSET) \
	static const struct dbcol name[] = { DB_COLUMNS(COLSET) }
#define DB_ROW struct sealed_row
COLS(sealed_cols, SEALED_ROW_COLS);
#undef DB_ROW
#define DB_ROW struct key_count_row
COLS(count_cols, KEY_COUNT_COLS);
#undef DB_ROW
#define DB_ROW struct key_rotation_row
COLS(rotation_cols, KEY_ROTATION_COLS);
#undef DB_ROW
#define DB_ROW struct index_keys_row
COLS(index_keys_cols, INDEX_KEYS_COLS);
#undef DB_ROW
#define DB_ROW struct rekey_row
COLS(rekey_cols, REKEY_ROW_COLS);
#undef DB_ROW
#undef COLS

static const char *const table_names[ROT__MAX + 1] = {
	"leads", "tag_ingest", "test_recipients", "webhook_endpoints",
	"member_totp", "member_recovery_codes", "done"
};

const char *
rot_table_name(enum rot_table t)
{
	return table_names[t <= ROT__MAX ? t : ROT__MAX];
}

enum rot_table
rot_table_of(const char *name)
{
	int	 t;

	for (t = 0; t < ROT__MAX; t++)
		if (strcmp(name, table_names[t]) == 0)
			break;
	return (enum rot_table)t;
}

enum fb_err
db_rot_sealed(struct db *db, enum rot_table t, const char *after,
    unsigned key, int n, struct dbrows *out)
{
	int	 id = RT_SEALED_LEADS + (int)t;

	if (t >= ROT__MAX || n < 1 || n > 1000)
		return FB_EINVAL;
	return db_rows(db, DBSET_ROTATION, id, &rot_sql[id],
	    DBPARAMS(P_STR(after), P_INT(key), P_INT(n)), sealed_cols,
	    NELEM(sealed_cols), sizeof(struct sealed_row), false, out);
}

static struct dbp
bin_p(const struct dbbin *b)
{
	return b != NULL && b->p != NULL ? P_BIN(b->p, b->n) : P_NULL;
}

enum fb_err
db_rot_reseal(struct db *db, enum rot_table t, const struct sealed_row *r,
    const struct dbbin *na, const struct dbbin *nb, unsigned key, bool *done)
{
	int			 id = RT_RESEAL_LEADS + (int)t;
	unsigned long long	 n = 0;
	enum fb_err		 e;

	*done = false;
	if (t >= ROT__MAX)
		return FB_EINVAL;
	if (t == ROT_LEADS || t == ROT_INGEST)
		e = db_changed(db, DBSET_ROTATION, id, &rot_sql[id],
		    DBPARAMS(bin_p(na), bin_p(nb), P_INT(key), P_STR(r->id),
		    P_INT(r->key_id), bin_p(&r->a), bin_p(&r->b)), &n);
	else
		e = db_changed(db, DBSET_ROTATION, id, &rot_sql[id],
		    DBPARAMS(bin_p(na), P_INT(key), P_STR(r->id),
		    P_INT(r->key_id), bin_p(&r->a)), &n);
	*done = e == FB_OK && n > 0;
	return e;
}

enum fb_err
db_rot_counts(struct db *db, enum rot_table t, struct dbrows *out)
{
	int	 id = RT_COUNT_LEADS + (int)t;

	if (t >= ROT__MAX)
		return FB_EINVAL;
	return db_rows(db, DBSET_ROTATION, id, &rot_sql[id], DBNOPARAMS,
	    count_cols, NELEM(count_cols), sizeof(struct key_count_row), false,
	    out);
}

enum fb_err
db_rot_lock(struct db *db, unsigned key, bool restart, struct dbrows *out)
{
	enum fb_err	 e;

	if ((e = db_run(db, DBSET_ROTATION, RT_BEGIN, &rot_sql[RT_BEGIN],
	    DBPARAMS(P_INT(key), P_INT(restart), P_INT(restart),
	    P_INT(restart), P_INT(restart), P_INT(restart)), NULL)) != FB_OK)
		return e;
	return db_rows(db, DBSET_ROTATION, RT_LOCK, &rot_sql[RT_LOCK],
	    DBPARAMS(P_INT(key)), rotation_cols, NELEM(rotation_cols),
	    sizeof(struct key_rotation_row), true, out);
}

enum fb_err
db_rot_advance(struct db *db, unsigned key, const char *phase,
    const char *after, long long resealed, long long unopened)
{
	return db_run(db, DBSET_ROTATION, RT_ADVANCE, &rot_sql[RT_ADVANCE],
	    DBPARAMS(P_STR(phase), P_STR(after), P_INT(resealed),
	    P_INT(unopened), P_STR(phase), P_INT(key)), NULL);
}

enum fb_err
db_rot_list(struct db *db, struct dbrows *out)
{
	return db_rows(db, DBSET_ROTATION, RT_LIST, &rot_sql[RT_LIST],
	    DBNOPARAMS, rotation_cols, NELEM(rotation_cols),
	    sizeof(struct key_rotation_row), false, out);
}

enum fb_err
db_index_keys_get(struct db *db, bool lock, struct index_keys_row *out)
{
	struct dbrows	 r;
	enum fb_err	 e;
	int		 id = lock ? RT_IDX_LOCK : RT_IDX_GET;

	out->slot1_key = out->slot2_key = -1;
	out->in_force = 1;
	if ((e = db_rows(db, DBSET_ROTATION, id, &rot_sql[id], DBNOPARAMS,
	    index_keys_cols, NELEM(index_keys_cols),
	    sizeof(struct index_keys_row), false, &r)) != FB_OK)
		return e;
	if (r.n > 0)
		*out = *(const struct index_keys_row *)r.row;
	dbrows_free(&r);
	return FB_OK;
}

static struct dbp
key_p(long long k)
{
	return k >= 0 ? P_INT(k) : P_NULL;
}

enum fb_err
db_index_keys_set(struct db *db, long long slot1, long long slot2, int in_force)
{
	if (in_force != 1 && in_force != 2)
		return FB_EINVAL;
	return db_run(db, DBSET_ROTATION, RT_IDX_SET, &rot_sql[RT_IDX_SET],
	    DBPARAMS(key_p(slot1), key_p(slot2), P_INT(in_force)), NULL);
}

static const char *const bidx_names[BIDX__MAX + 1] = {
	"leads", "test_recipients", "suppressions", "switched"
};

const char *
bidx_table_name(enum bidx_table t)
{
	return bidx_names[t <= BIDX__MAX ? t : BIDX__MAX];
}

enum bidx_table
bidx_table_of(const char *name)
{
	int	 t;

	for (t = 0; t < BIDX__MAX; t++)
		if (strcmp(name, bidx_names[t]) == 0)
			break;
	return (enum bidx_table)t;
}

enum fb_err
db_bidx_pending(struct db *db, enum bidx_table t, int to, const char *after,
    unsigned key, int n, struct dbrows *out)
{
	int	 id = RT_PEND_LEADS1 + 2 * (int)t + (to == 2);

	if (t >= BIDX__MAX || (to != 1 && to != 2) || n < 1 || n > 1000)
		return FB_EINVAL;
	if (t == BIDX_SUPPRESSIONS)
		return db_rows(db, DBSET_ROTATION, id, &rot_sql[id],
		    DBPARAMS(P_INT(key), P_INT(key), P_INT(key), P_STR(after),
		    P_INT(key), P_INT(n)), rekey_cols, NELEM(rekey_cols),
		    sizeof(struct rekey_row), false, out);
	return db_rows(db, DBSET_ROTATION, id, &rot_sql[id],
	    DBPARAMS(P_STR(after), P_INT(key), P_INT(n)), rekey_cols,
	    NELEM(rekey_cols), sizeof(struct rekey_row), false, out);
}

enum fb_err
db_bidx_set(struct db *db, enum bidx_table t, int to,
    const struct rekey_row *r, const struct dbbin *va,
    const struct dbbin *vb, unsigned key, bool *done)
{
	int			 id = RT_SET_LEADS1 + 2 * (int)t + (to == 2);
	unsigned long long	 n = 0;
	enum fb_err		 e;

	*done = false;
	if (t >= BIDX__MAX || (to != 1 && to != 2))
		return FB_EINVAL;
	if (t == BIDX_LEADS)
		e = db_changed(db, DBSET_ROTATION, id, &rot_sql[id],
		    DBPARAMS(bin_p(va), bin_p(vb), P_INT(key), P_STR(r->id),
		    P_INT(r->key_id), bin_p(&r->a), bin_p(&r->b)), &n);
	else if (t == BIDX_TEST_RECIPIENTS)
		e = db_changed(db, DBSET_ROTATION, id, &rot_sql[id],
		    DBPARAMS(bin_p(va), P_INT(key), P_STR(r->id),
		    P_INT(r->key_id), bin_p(&r->a)), &n);
	else
		e = db_changed(db, DBSET_ROTATION, id, &rot_sql[id],
		    DBPARAMS(bin_p(va), P_INT(key), P_STR(r->id),
		    bin_p(&r->a)), &n);
	*done = e == FB_OK && n > 0;
	return e;
}

enum fb_err
db_bidx_advance(struct db *db, unsigned key, const char *phase,
    const char *after, long long rekeyed, long long unrekeyed,
    bool new_pass, bool start)
{
	return db_run(db, DBSET_ROTATION, RT_BIDX_ADVANCE,
	    &rot_sql[RT_BIDX_ADVANCE], DBPARAMS(P_STR(phase), P_STR(after),
	    P_INT(rekeyed), P_INT(new_pass), P_INT(new_pass), P_INT(new_pass),
	    P_INT(unrekeyed), P_INT(rekeyed), P_INT(start), P_STR(phase),
	    P_INT(key)), NULL);
}

enum fb_err
db_bidx_unrekeyed(struct db *db, int to, unsigned key,
    struct unrekeyed_row *out)
{
#define DB_ROW struct unrekeyed_row
	static const struct dbcol cols[] = { DB_COLUMNS(UNREKEYED_COLS) };
#undef DB_ROW
	int		 id = to == 2 ? RT_UNREKEYED2 : RT_UNREKEYED1;
	struct dbrows	 r;
	enum fb_err	 e;

	memset(out, 0, sizeof(*out));
	if ((e = db_rows(db, DBSET_ROTATION, id, &rot_sql[id],
	    DBPARAMS(P_INT(key), P_INT(key)), cols, NELEM(cols),
	    sizeof(struct unrekeyed_row), false, &r)) != FB_OK)
		return e;
	if (r.n > 0)
		*out = *(const struct unrekeyed_row *)r.row;
	dbrows_free(&r);
	return FB_OK;
}
