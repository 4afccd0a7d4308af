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

/* ? the last id done, ? the key, ? how many */
#define SEALED(tenant, key, a, b, table, has) \
	"SELECT id, " tenant ", COALESCE(" key ", -1), " a ", " b " FROM " \
	table " WHERE id > COALESCE(?, '" DB_MIN_ID "') AND (" has ") " \
	"AND NOT (" key " <=> ?) ORDER BY id LIMIT ?"
#define COUNTS(key, table, has) \
	"SELECT COALESCE(" key ", -1), COUNT(*), MIN(id) FROM " table \
	" WHERE " has " GROUP BY 1 ORDER BY 1"
#define LEAD_HAS	"tel_sealed IS NOT NULL OR email_sealed IS NOT NULL"

enum {
	RT_SEALED_LEADS,
	RT_SEALED_INGEST,
	RT_SEALED_RCPT,
	RT_SEALED_HOOKS,
	RT_RESEAL_LEADS,
	RT_RESEAL_INGEST,
	RT_RESEAL_RCPT,
	RT_RESEAL_HOOKS,
	RT_COUNT_LEADS,
	RT_COUNT_INGEST,
	RT_COUNT_RCPT,
	RT_COUNT_HOOKS,
	RT_BEGIN,
	RT_LOCK,
	RT_ADVANCE,
	RT_LIST,
	RT__MAX
};

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
	/* RT_COUNT_*: rows with something sealed, by key id */
	{ "rot_count_leads", COUNTS("pii_key_id", "leads", LEAD_HAS) },
	{ "rot_count_ingest", COUNTS("pii_key_id", "tag_ingest", LEAD_HAS) },
	{ "rot_count_rcpt", COUNTS("pii_key_id", "test_recipients",
	  "contact_sealed IS NOT NULL") },
	{ "rot_count_hooks", COUNTS("secret_key_id", "webhook_endpoints",
	  "TRUE") },
	/*
	 * RT_BEGIN: the rotation to ? begun, or (? ? ? restart) a finished
	 * one set going again; phase last, as MariaDB assigns in order
	 */
	{ "rot_begin",
	  "INSERT INTO key_rotations (to_key_id) VALUES (?) "
	  "ON DUPLICATE KEY UPDATE "
	  "after_id = IF(? AND phase = 'done', NULL, after_id), "
	  "finished_at = IF(? AND phase = 'done', NULL, finished_at), "
	  "phase = IF(? AND phase = 'done', 'leads', phase)" },
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
#undef COLS

static const char *const table_names[ROT__MAX + 1] = {
	"leads", "tag_ingest", "test_recipients", "webhook_endpoints", "done"
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
	    P_INT(restart)), NULL)) != FB_OK)
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
