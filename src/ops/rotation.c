/* A master key rotation (ops/rotation.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "ops/rotation.h"
#include "db/store.h"
#include "pii.h"

/* The associated data's field names of columns a and b, by table. */
static const char *const fields[ROT__MAX][2] = {
	{ "tel", "email" },		/* ROT_LEADS */
	{ "tel", "email" },		/* ROT_INGEST */
	{ "test_recipient", NULL },	/* ROT_TEST_RECIPIENTS */
	{ "webhook_secret", NULL },	/* ROT_WEBHOOKS */
};

#define PLAIN_MAX	600	/* the widest sealed column (leads.email) */

struct step {
	const struct conf *c;
	int		 batch;
	bool		 restart;
	struct rot_batch *out;
};

/*
 * One sealed column of row r opened with any key of the file and sealed
 * again under the newest into out (PII_SEALED_MAX(PLAIN_MAX) bytes);
 * false when no key opens it.  NULL stays NULL.
 */
static bool
reseal(const struct conf *c, const struct sealed_row *r, const char *field,
    const struct dbbin *in, unsigned char *out, struct dbbin *to)
{
	char	 plain[PLAIN_MAX + 1];
	bool	 ok;

	to->p = NULL;
	to->n = 0;
	if (in->p == NULL)
		return true;
	ok = pii_open_any(c, r->key_id, r->tenant, r->id, field, in->p, in->n,
	    plain, sizeof(plain), NULL);
	if (ok) {
		to->n = pii_seal(c->master_key, r->tenant, r->id, field, plain,
		    out);
		to->p = out;
	}
	sodium_memzero(plain, sizeof(plain));
	return ok;
}

/* Re-seal rows[0 .. n) of table t, counting into o. */
static enum fb_err
reseal_rows(struct db *db, const struct conf *c, enum rot_table t,
    const struct sealed_row *rows, size_t n, struct rot_batch *o)
{
	unsigned char	 sa[PII_SEALED_MAX(PLAIN_MAX)];
	unsigned char	 sb[PII_SEALED_MAX(PLAIN_MAX)];
	struct dbbin	 na, nb;
	enum fb_err	 e;
	bool		 done;
	size_t		 i;

	for (i = 0; i < n; i++) {
		if (!reseal(c, &rows[i], fields[t][0], &rows[i].a, sa, &na) ||
		    (fields[t][1] != NULL && !reseal(c, &rows[i],
		    fields[t][1], &rows[i].b, sb, &nb))) {
			logx(LOG_WARN, "key rotation: %s %s: no key of the "
			    "file opens it; left as it is", rot_table_name(t),
			    rows[i].id);
			o->unopened++;
			continue;
		}
		if (fields[t][1] == NULL)
			nb.p = NULL, nb.n = 0;
		if ((e = db_rot_reseal(db, t, &rows[i], &na, &nb,
		    c->master_key_id, &done)) != FB_OK)
			return e;
		if (done)
			o->resealed++;
		else
			o->skipped++;
	}
	return FB_OK;
}

#ifdef FB_FAULT_POINTS
/*
 * FB_FAULT_KEYS_KILL=N: killed (SIGKILL) inside batch N + 1 (counting
 * from the rotation's first), after its writes and before its commit:
 * the integration tests' kill midway.
 */
static void
fault_kill(long long batches)
{
	const char	*v = getenv("FB_FAULT_KEYS_KILL");

	if (v != NULL && atoll(v) == batches)
		raise(SIGKILL);
}
#else
#define fault_kill(n)	((void)(n))
#endif

static enum fb_err
step_tx(struct db *db, void *arg)
{
	struct step		*s = arg;
	struct rot_batch	*o = s->out;
	const struct key_rotation_row *k;
	struct dbrows		 rot, rows;
	const struct sealed_row	*last;
	enum rot_table		 t;
	enum fb_err		 e;

	memset(o, 0, sizeof(*o));
	memset(&rows, 0, sizeof(rows));
	if ((e = db_rot_lock(db, s->c->master_key_id, s->restart,
	    &rot)) != FB_OK)
		return e;
	k = rot.row;
	if ((t = o->table = rot_table_of(k->phase)) == ROT__MAX) {
		o->finished = true;
		dbrows_free(&rot);
		return FB_OK;
	}
	e = db_rot_sealed(db, t, k->after_id, s->c->master_key_id, s->batch,
	    &rows);
	if (e == FB_OK)
		e = reseal_rows(db, s->c, t, rows.row, rows.n, o);
	if (e == FB_OK) {
		fault_kill(k->batches);
		last = rows.n > 0 ? (const struct sealed_row *)rows.row +
		    rows.n - 1 : NULL;
		/*
		 * a short batch ends the table: on to the next, from its first
		 */
		if (rows.n < (size_t)s->batch) {
			o->finished = t + 1 == ROT__MAX;
			e = db_rot_advance(db, s->c->master_key_id,
			    rot_table_name(t + 1), NULL, o->resealed,
			    o->unopened);
		} else
			e = db_rot_advance(db, s->c->master_key_id,
			    rot_table_name(t), last->id, o->resealed,
			    o->unopened);
	}
	dbrows_free(&rows);
	dbrows_free(&rot);
	return e;
}

enum fb_err
rot_step(struct db *db, const struct conf *c, int batch, bool restart,
    struct rot_batch *out)
{
	struct step	 s = { c, batch, restart, out };

	if (batch < 1 || batch > ROT_BATCH_MAX)
		return FB_EINVAL;
	return db_tx(db, step_tx, &s);
}

enum fb_err
rot_status_read(struct db *db, struct rot_status *st)
{
	enum fb_err	 e;
	int		 t;

	memset(st, 0, sizeof(*st));
	for (t = 0; t < ROT__MAX; t++)
		if ((e = db_rot_counts(db, (enum rot_table)t,
		    &st->counts[t])) != FB_OK)
			goto fail;
	if ((e = db_rot_list(db, &st->rotations)) == FB_OK)
		return FB_OK;
fail:
	rot_status_free(st);
	return e;
}

void
rot_status_free(struct rot_status *st)
{
	int	 t;

	/* a struct dbrows zeroed frees as one */
	for (t = 0; t < ROT__MAX; t++)
		dbrows_free(&st->counts[t]);
	dbrows_free(&st->rotations);
}

bool
rot_key_needed(const struct rot_status *st, const struct conf *c,
    unsigned id, long long rows[ROT__MAX], bool *index)
{
	const struct key_count_row *k;
	bool		 needed = id == c->master_key_id;
	size_t		 i;
	int		 t;

	*index = conf_master_key(c, id) == c->index_key;
	needed = needed || *index;
	for (t = 0; t < ROT__MAX; t++) {
		rows[t] = 0;
		k = st->counts[t].row;
		for (i = 0; i < st->counts[t].n; i++)
			/* no recorded key: it may be any of the file's */
			if (k[i].key_id == (long long)id || k[i].key_id < 0)
				rows[t] += k[i].rows;
		needed = needed || rows[t] > 0;
	}
	return needed;
}
