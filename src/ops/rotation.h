/*
 * ops/rotation.c: a master key rotation that ends (issue 43 item 7;
 * formback.conf(5) "KEY ROTATION"; formbackctl(8) "keys rotate" and
 * "keys status"; docs/internals/key-rotation.md).
 *
 * The newest key of pii_key_file (its first line) is the one every
 * sealed column should be under.  A rotation re-seals, table by table in
 * id order (db/rotation.h), each row with something sealed under
 * another key, in batches each of its own short transaction that also
 * records where it got to (key_rotations), so a rotation killed at any
 * point goes on from its last batch.  Rows written meanwhile by
 * formback.fcgi and the cron jobs are under the newest key already and
 * are left alone; a row changed between a batch's read and its write is
 * left too (the writer sealed it under the newest key).
 */
#ifndef OPS_ROTATION_H
#define OPS_ROTATION_H

#include "formback.h"
#include "db/db.h"
#include "db/rotation.h"

#define ROT_BATCH_DEFAULT	200	/* rows a batch re-seals at most */
#define ROT_BATCH_MAX		1000

/* What one batch did. */
struct rot_batch {
	enum rot_table	 table;		/* the table it worked on */
	long long	 resealed;	/* rows now under the newest key */
	long long	 unopened;	/* rows no key of the file opens */
	long long	 skipped;	/* rows a writer changed meanwhile */
	/* every table done: the rotation ended */
	bool		 finished;
};

/*
 * One batch of at most `batch` rows (1 .. ROT_BATCH_MAX) of the rotation
 * to c's newest key, in a transaction of its own (db_tx()), begun when
 * there is none; `restart` sets a finished rotation going again from the
 * first table (to take rows an old writer left behind).  A batch called
 * once the rotation finished does nothing and says finished.  Errors:
 * the database's (the batch rolled back, nothing recorded).
 */
enum fb_err	rot_step(struct db *, const struct conf *c, int batch,
		    bool restart, struct rot_batch *out) FB_WUR;

/*
 * Where the sealed rows stand: per table, the rows with something
 * sealed by key id (struct key_count_row), and the rotations
 * (struct key_rotation_row), newest key first.  rot_status_free()
 * releases it.  Reads only.
 */
struct rot_status {
	struct dbrows	 counts[ROT__MAX];
	struct dbrows	 rotations;
};
enum fb_err	rot_status_read(struct db *, struct rot_status *) FB_WUR;
void		rot_status_free(struct rot_status *);

/*
 * Whether key `id` of the file is still needed, and why: the rows of
 * table t sealed under it (or under no recorded key) in *rows[t], and
 * *index when it keys the blind indexes (conf.index_key: the lowest id,
 * which no rotation re-keys yet).  The current key is always needed.
 * Pure: from st and c alone.
 */
bool		rot_key_needed(const struct rot_status *st,
		    const struct conf *c, unsigned id,
		    long long rows[ROT__MAX], bool *index);

#endif
