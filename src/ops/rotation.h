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
	/* the blind indexes' re-key, once every sealed column is done */
	bool		 bidx;		/* it worked on the indexes */
	enum bidx_table	 btable;	/* on that table */
	long long	 rekeyed;	/* rows indexed under the key */
	bool		 wait;		/* a clean pass must come later */
	bool		 switched;	/* the new slot is in force now */
	/* every table done: the rotation ended */
	bool		 finished;
};

/*
 * One batch of at most `batch` rows (1 .. ROT_BATCH_MAX) of the rotation
 * to c's newest key, in a transaction of its own (db_tx()), begun when
 * there is none; `restart` sets a finished rotation going again from the
 * first table (to take rows an old writer left behind), and a re-key
 * that left suppressions behind takes them again.  Once every sealed
 * column is done, the batches re-key the blind indexes (the slot not in
 * force filled under the newest key: leads, test recipients, then
 * suppressions from those), pass after pass until one that began
 * BIDX_TTL seconds after the re-key finds nothing to fill (out->wait
 * when the caller should wait a second first), then switch the slot in
 * force (out->switched).  A batch called once the rotation finished does
 * nothing and says finished.  Errors: the database's (the batch rolled
 * back, nothing recorded); FB_EINVAL when the other slot is still under
 * a key an earlier re-key could not retire (logged).
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
	struct index_keys_row index;	/* slot keys, -1 resolved */
	struct unrekeyed_row unrekeyed;	/* not under the slot in force */
};
enum fb_err	rot_status_read(struct db *, const struct conf *,
		    struct rot_status *) FB_WUR;
void		rot_status_free(struct rot_status *);

/*
 * Whether key `id` of the file is still needed, and why: the rows of
 * table t sealed under it (or under no recorded key) in *rows[t], and
 * *index when a slot of the blind indexes is under it (st->index: the
 * slot in force, or the other while a re-key runs or while suppressions
 * nothing re-keyed keep it).  The current key is always needed.  Pure:
 * from st and c alone.
 */
bool		rot_key_needed(const struct rot_status *st,
		    const struct conf *c, unsigned id,
		    long long rows[ROT__MAX], bool *index);

#endif
