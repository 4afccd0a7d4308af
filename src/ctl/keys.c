/*
 * formbackctl keys rotate | status: a master key rotation that ends
 * (issue 43 item 7; ops/rotation.h; formback.conf(5) "KEY ROTATION";
 * formbackctl(8)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "ops/rotation.h"
#include "db/store.h"

/* A --name N option of 1 .. max, or def when not given; exits 2. */
static long
opt_count(struct ctl *c, const char *name, long def, long max)
{
	const char	*v = ctl_opt(c, name, false);
	char		*end;
	long		 n;

	if (v == NULL)
		return def;
	n = strtol(v, &end, 10);
	if (*v == '\0' || *end != '\0' || n < 1 || n > max)
		ctl_die(c, 2, "option '--%s': expected 1 to %ld", name, max);
	return n;
}

/*
 * The audit row of a run (actor "cli", the service's own rows under the
 * nil tenant id): what it did, no key material, no contact.
 */
static void
rotate_audit(struct ctl *c, json_object *out)
{
	ctl_check(c, db_audit_add(&c->db, DB_MIN_ID, "cli", NULL, NULL,
	    "keys.rotate", "key_rotation", NULL, json_text(out)),
	    "write the audit row");
	ctl_check(c, db_commit(&c->db), "commit");
}

/*
 * keys rotate [--batch N] [--batches N]: re-seal every sealed column
 * under the newest key, then index every blind index again under it and
 * switch the slot in force, N rows a batch, each batch its own
 * transaction, until done (or --batches batches were run); run again,
 * it goes on where it stopped.  One audit row a run.
 */
static void
keys_rotate(struct ctl *c)
{
	struct rot_batch b;
	long		 size, most, n;
	long long	 resealed = 0, unopened = 0, skipped = 0, rekeyed = 0;
	bool		 switched = false;
	json_object	*out;

	size = opt_count(c, "batch", ROT_BATCH_DEFAULT, ROT_BATCH_MAX);
	most = opt_count(c, "batches", 0, 1000000000L);
	ctl_connect(c);
	db_rollback(&c->db);	/* each batch is a transaction of its own */
	memset(&b, 0, sizeof(b));
	for (n = 0; most == 0 || n < most; n++) {
		ctl_check(c, rot_step(&c->db, &c->conf, (int)size, n == 0, &b),
		    "re-seal a batch");
		resealed += b.resealed;
		unopened += b.unopened;
		skipped += b.skipped;
		rekeyed += b.rekeyed;
		switched = switched || b.switched;
		if (b.finished)
			break;
		/* every worker reads the new slot's key within BIDX_TTL */
		if (b.wait)
			sleep(1);
	}
	out = json_object_new_object();
	jadd_int(out, "to_key_id", c->conf.master_key_id);
	jadd_bool(out, "finished", b.finished);
	jadd_int(out, "batches", n + (b.finished ? 1 : 0));
	jadd_int(out, "resealed", resealed);
	jadd_int(out, "unopened", unopened);
	jadd_int(out, "skipped", skipped);
	jadd_int(out, "rekeyed", rekeyed);
	jadd_bool(out, "switched", switched);
	rotate_audit(c, out);
	ctl_print(out);
}

/* The rows of each table under one key: {"leads": n, ...}. */
static json_object *
rows_json(const long long rows[ROT__MAX])
{
	json_object	*o = json_object_new_object();
	int		 t;

	for (t = 0; t < ROT__MAX; t++)
		jadd_int(o, rot_table_name((enum rot_table)t), rows[t]);
	return o;
}

/* One key of the file: whether it is needed, and by what. */
static json_object *
key_json(const struct rot_status *st, const struct conf *cf, unsigned id,
    bool *needed)
{
	json_object	*o = json_object_new_object();
	long long	 rows[ROT__MAX];
	bool		 index;

	*needed = rot_key_needed(st, cf, id, rows, &index);
	jadd_int(o, "id", id);
	jadd_bool(o, "current", id == cf->master_key_id);
	jadd_bool(o, "index_key", index);
	jadd_bool(o, "needed", *needed);
	json_object_object_add(o, "rows", rows_json(rows));
	return o;
}

/* Rows sealed under a key id the file does not hold: they open no more. */
static json_object *
missing_json(const struct rot_status *st, const struct conf *cf)
{
	json_object	*a = json_object_new_array(), *o;
	const struct key_count_row *k;
	size_t		 i;
	int		 t;

	for (t = 0; t < ROT__MAX; t++) {
		k = st->counts[t].row;
		for (i = 0; i < st->counts[t].n; i++) {
			if (k[i].key_id < 0 ||
			    conf_master_key(cf, (unsigned)k[i].key_id) != NULL)
				continue;
			o = json_object_new_object();
			jadd_str(o, "table", rot_table_name((enum rot_table)t));
			jadd_int(o, "key_id", k[i].key_id);
			jadd_int(o, "rows", k[i].rows);
			jadd_str(o, "first_id", k[i].first_id);
			json_object_array_add(a, o);
		}
	}
	return a;
}

/* The rotation to the current key, or null. */
static json_object *
rotation_json(const struct rot_status *st, unsigned key)
{
	const struct key_rotation_row *r = st->rotations.row;
	json_object	*o;
	size_t		 i;

	for (i = 0; i < st->rotations.n; i++)
		if (r[i].to_key_id == (long long)key)
			break;
	if (i == st->rotations.n)
		return NULL;
	o = json_object_new_object();
	jadd_int(o, "to_key_id", r[i].to_key_id);
	jadd_str(o, "phase", r[i].phase);
	jadd_str(o, "after_id", r[i].after_id);
	jadd_int(o, "resealed", r[i].resealed);
	jadd_int(o, "unopened", r[i].unopened);
	jadd_int(o, "batches", r[i].batches);
	jadd_time(o, "started_at", r[i].started_at);
	jadd_time(o, "updated_at", r[i].updated_at);
	jadd_time(o, "finished_at", r[i].finished_at);
	jadd_str(o, "index_phase", r[i].bidx_phase);
	jadd_str(o, "index_after_id", r[i].bidx_after_id);
	jadd_int(o, "rekeyed", r[i].rekeyed);
	jadd_time(o, "index_started_at", r[i].bidx_started_at);
	jadd_time(o, "switched_at", r[i].switched_at);
	return o;
}

/*
 * The blind indexes: each slot's key id (null: none), the slot in
 * force, and the suppressions and test recipients not indexed under its
 * key (they keep the other slot's key needed).
 */
static json_object *
index_json(const struct rot_status *st)
{
	json_object	*o = json_object_new_object();

	if (st->index.slot1_key >= 0)
		jadd_int(o, "slot1_key_id", st->index.slot1_key);
	else
		json_object_object_add(o, "slot1_key_id", NULL);
	if (st->index.slot2_key >= 0)
		jadd_int(o, "slot2_key_id", st->index.slot2_key);
	else
		json_object_object_add(o, "slot2_key_id", NULL);
	jadd_int(o, "in_force", st->index.in_force);
	jadd_int(o, "suppressions_unrekeyed", st->unrekeyed.suppressions);
	jadd_int(o, "test_recipients_unrekeyed", st->unrekeyed.test_recipients);
	return o;
}

/*
 * keys status: how far the rotation to the current key is, and for each
 * key of the file whether it is still needed and by which rows; a key
 * is removable only when no row needs it.
 */
static void
keys_status(struct ctl *c)
{
	const struct conf *cf = &c->conf;
	struct rot_status st;
	json_object	*out, *keys, *gone;
	bool		 needed;
	size_t		 i;

	if (c->argc != 0)
		ctl_usage(c);
	ctl_connect(c);
	ctl_check(c, rot_status_read(&c->db, cf, &st),
	    "read the sealed rows");
	db_rollback(&c->db);
	out = json_object_new_object();
	keys = json_object_new_array();
	gone = json_object_new_array();
	jadd_int(out, "current_key_id", cf->master_key_id);
	json_object_array_add(keys, key_json(&st, cf, cf->master_key_id,
	    &needed));
	for (i = 0; i < cf->nold_keys; i++) {
		json_object_array_add(keys, key_json(&st, cf,
		    cf->old_key_ids[i], &needed));
		if (!needed)
			json_object_array_add(gone,
			    json_object_new_int64(cf->old_key_ids[i]));
	}
	json_object_object_add(out, "rotation",
	    rotation_json(&st, cf->master_key_id));
	json_object_object_add(out, "keys", keys);
	json_object_object_add(out, "removable_key_ids", gone);
	json_object_object_add(out, "rows_without_key", missing_json(&st, cf));
	json_object_object_add(out, "index", index_json(&st));
	rot_status_free(&st);
	ctl_print(out);
}

const struct ctl_cmd ctl_keys_rotate_cmd = {
	"keys", "rotate", "[--batch N] [--batches N]", 0, keys_rotate
};
const struct ctl_cmd ctl_keys_status_cmd = {
	"keys", "status", "", CTL_RAW, keys_status
};
