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
	ROT_TOTP,		/* member_totp.secret_sealed, by member_id */
	ROT_RECOVERY,		/* member_recovery_codes.code_sealed */
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

/*
 * A rotation's progress (key_rotations), by the key it seals under; the
 * blind indexes' re-key (migration 0041) beside it: the table in hand
 * (bidx_phase: leads, test_recipients, suppressions, then switched),
 * the rows re-keyed in all and in the pass in hand, the suppressions
 * nothing re-keyed in the last pass, and whether the pass in hand began
 * BIDX_TTL seconds and more after the re-key (settled: every worker
 * had read the new slot's key by then).
 */
#define KEY_ROTATION_COLS(F, N) F(to_key_id, INT, "to_key_id") \
	N(phase, TEXT, "phase") N(after_id, TEXT, "after_id") \
	N(resealed, INT, "resealed") N(unopened, INT, "unopened") \
	N(batches, INT, "batches") N(started_at, TIME, "started_at") \
	N(updated_at, TIME, "updated_at") N(finished_at, TIME, "finished_at") \
	N(bidx_phase, TEXT, "bidx_phase") \
	N(bidx_after_id, TEXT, "bidx_after_id") N(rekeyed, INT, "rekeyed") \
	N(pass_rekeyed, INT, "pass_rekeyed") N(unrekeyed, INT, "unrekeyed") \
	N(bidx_started_at, TIME, "bidx_started_at") \
	N(switched_at, TIME, "switched_at") \
	N(settled, BOOL, "COALESCE(pass_started_at > bidx_started_at + " \
	    "INTERVAL 6 SECOND, FALSE)")
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

/*
 * The blind index keys (index_keys, migration 0041; pii.h struct
 * bidx_keys): each slot's key id (-1: none) and the slot in force (1 or
 * 2).  `lock` locks the row until the caller's transaction ends.  With
 * no row, slot 1 without a recorded key (-1) in force.  Neither slot
 * with a key is the state before any re-key: slot 1 under the lowest id
 * of the key file; after one, the slot in force always has a key.
 */
#define INDEX_KEYS_COLS(F, N) F(slot1_key, INT, "COALESCE(slot1_key, -1)") \
	N(slot2_key, INT, "COALESCE(slot2_key, -1)") \
	N(in_force, INT, "in_force")
struct index_keys_row { DB_FIELDS(INDEX_KEYS_COLS) };
enum fb_err	db_index_keys_get(struct db *, bool lock,
		    struct index_keys_row *out) FB_WUR;
/* index_keys set: -1 for a slot without a key; in_force 1 or 2. */
enum fb_err	db_index_keys_set(struct db *, long long slot1,
		    long long slot2, int in_force) FB_WUR;

/*
 * The tables with blind indexes, in the order a re-key takes them
 * (key_rotations.bidx_phase names them by bidx_table_name()):
 * suppressions last, re-keyed from the others.
 */
enum bidx_table {
	BIDX_LEADS = 0,		/* tel_bidx, email_bidx, from sealed */
	BIDX_TEST_RECIPIENTS,	/* bidx from contact_sealed */
	BIDX_SUPPRESSIONS,	/* bidx from a lead's or recipient's */
	BIDX__MAX
};
/* "leads", ...; "switched" for BIDX__MAX.  Static. */
const char	*bidx_table_name(enum bidx_table);
enum bidx_table	 bidx_table_of(const char *);

/*
 * A row whose slot `to` (1 or 2) is not under key `key`: leads and test
 * recipients with their sealed contacts (a, b: tel and email; a only for
 * a recipient, of kind `kind`) opened to index them again; a suppression
 * with its kind, its other slot's index (a) and (b) the index under
 * `key` of a lead or test recipient of the same tenant whose other slot
 * holds the same (NULL: nothing to re-key it from).
 */
#define REKEY_ROW_COLS(F, N) F(id, TEXT, "id") N(tenant, TEXT, "tenant_id") \
	N(key_id, INT, "pii_key_id") N(kind, TEXT, "kind") \
	N(a, BIN, "a") N(b, BIN, "b")
struct rekey_row { DB_FIELDS(REKEY_ROW_COLS) };
/*
 * Up to n rows (1 .. 1000) of table t after id `after` (NULL: from the
 * first), in id order, whose slot `to` is not under `key`.  Outside any
 * lock: db_bidx_set() checks each row again.
 */
enum fb_err	db_bidx_pending(struct db *, enum bidx_table t, int to,
		    const char *after, unsigned key, int n,
		    struct dbrows *out) FB_WUR;
/*
 * Row r's slot `to` set to va (a lead: tel) and vb (a lead: email), NULL
 * a value that is, under key `key`, only when the row still holds what
 * r read (its sealed contacts; a suppression: its other slot's index).
 * *done whether it changed.
 */
enum fb_err	db_bidx_set(struct db *, enum bidx_table t, int to,
		    const struct rekey_row *r, const struct dbbin *va,
		    const struct dbbin *vb, unsigned key, bool *done) FB_WUR;
/*
 * A batch of the index re-key done, in its transaction: the table in
 * hand and the last id done (NULL: its first), `rekeyed` more rows, and
 * `unrekeyed` more suppressions in this pass; `new_pass` starts a pass
 * (counts of the pass set to zero) at the first table, `start` (with
 * new_pass) records the re-key's start, phase "switched" the switch.
 */
enum fb_err	db_bidx_advance(struct db *, unsigned key, const char *phase,
		    const char *after, long long rekeyed, long long unrekeyed,
		    bool new_pass, bool start) FB_WUR;
/*
 * Suppressions and test recipients indexed in the other slot whose slot
 * `to` is not under key `key`: what nothing re-keyed (a suppression
 * with no lead or recipient of its contact, a recipient the operator
 * added before its contact was sealed).  While there are any, the other
 * slot keeps its key (keys status: suppressions_unrekeyed).
 */
#define UNREKEYED_COLS(F, N) F(suppressions, INT, "suppressions") \
	N(test_recipients, INT, "test_recipients")
struct unrekeyed_row { DB_FIELDS(UNREKEYED_COLS) };
enum fb_err	db_bidx_unrekeyed(struct db *, int to, unsigned key,
		    struct unrekeyed_row *out) FB_WUR;

#endif
