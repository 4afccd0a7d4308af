/*
 * src/db/rotation.c: a master key rotation's SQL (issue 43 item 7;
 * migration 0038; formback.conf(5) "KEY ROTATION"); store.h includes it.
 */
#ifndef FORMBACK_DB_ROTATION_H
#define FORMBACK_DB_ROTATION_H

#include "db.h"

/*
 * The tables with a sealed column (pii_seal()), in the order a rotation
 * takes them; key_rotations.phase names them as rot_table_name() does.
 * Each row of them carries the id of the key its columns are sealed
 * under.
 */
enum rot_table {
	ROT_LEADS = 0,		/* tel_sealed, email_sealed; pii_key_id */
	ROT_INGEST,		/* tag_ingest: the same, "ingest" as tenant */
	ROT_TEST_RECIPIENTS,	/* contact_sealed; pii_key_id */
	/* webhook_endpoints.secret_sealed; secret_key_id */
	ROT_WEBHOOKS,
	ROT__MAX
};
/* Its name ("leads", "tag_ingest", ...), static; "done" for ROT__MAX. */
const char	*rot_table_name(enum rot_table);
/* The table named `name`, or ROT__MAX for "done" or a name not one. */
enum rot_table	 rot_table_of(const char *name);

/*
 * One row with sealed columns, whatever its table: its id, the tenant of
 * its associated data (pii_seal(): "ingest" for the collector's queue),
 * the key id its columns are under (-1 when NULL) and up to two sealed
 * columns, a and b (b NULL where the table has one).
 */
#define SEALED_ROW_COLS(F, N) F(id, TEXT, "id") N(tenant, TEXT, "tenant_id") \
	N(key_id, INT, "COALESCE(pii_key_id, -1)") N(a, BIN, "tel_sealed") \
	N(b, BIN, "email_sealed")
struct sealed_row { DB_FIELDS(SEALED_ROW_COLS) };
/*
 * Up to n rows (1 .. 1000) of table t after id `after` (NULL: from the
 * first), in id order, with something sealed under a key other than
 * `key`.  A read outside any lock: rot_reseal() checks each row again.
 */
enum fb_err	db_rot_sealed(struct db *, enum rot_table t, const char *after,
		    unsigned key, int n, struct dbrows *out) FB_WUR;
/*
 * Row r of table t re-sealed: its columns a and b (NULL a column that
 * is) set to na and nb, under key `key`, only when the row still holds
 * what r read (its key id and sealed bytes): a writer that changed it
 * since wrote it under the newest key.  *done whether it was changed.
 */
enum fb_err	db_rot_reseal(struct db *, enum rot_table t,
		    const struct sealed_row *r, const struct dbbin *na,
		    const struct dbbin *nb, unsigned key, bool *done) FB_WUR;

/*
 * Where rows of table t stand: how many have something sealed, by key id
 * (-1 for none recorded), with the lowest row id of each key's.
 */
#define KEY_COUNT_COLS(F, N) F(key_id, INT, "COALESCE(pii_key_id, -1)") \
	N(rows, INT, "COUNT(*)") N(first_id, TEXT, "MIN(id)")
struct key_count_row { DB_FIELDS(KEY_COUNT_COLS) };
enum fb_err	db_rot_counts(struct db *, enum rot_table t,
		    struct dbrows *out) FB_WUR;

/* A rotation's progress (key_rotations), by the key it seals under. */
#define KEY_ROTATION_COLS(F, N) F(to_key_id, INT, "to_key_id") \
	N(phase, TEXT, "phase") N(after_id, TEXT, "after_id") \
	N(resealed, INT, "resealed") N(unopened, INT, "unopened") \
	N(batches, INT, "batches") N(started_at, TIME, "started_at") \
	N(updated_at, TIME, "updated_at") N(finished_at, TIME, "finished_at")
struct key_rotation_row { DB_FIELDS(KEY_ROTATION_COLS) };
/*
 * The rotation to `key`, begun when there is none, locked until the
 * caller's transaction ends (so that two runs take turns, batch by
 * batch).  `restart` sets a finished one going again from the first
 * table (rows an old writer left behind).
 */
enum fb_err	db_rot_lock(struct db *, unsigned key, bool restart,
		    struct dbrows *out) FB_WUR;
/*
 * A batch done, in its transaction: the table in hand and the last row
 * id done (NULL: the table's first), `resealed` and `unopened` more
 * rows; `phase` "done" finishes the rotation.
 */
enum fb_err	db_rot_advance(struct db *, unsigned key, const char *phase,
		    const char *after, long long resealed,
		    long long unopened) FB_WUR;
/* The rotations, newest key first (at most 20). */
enum fb_err	db_rot_list(struct db *, struct dbrows *out) FB_WUR;

#endif
