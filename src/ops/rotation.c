/* A master key rotation (ops/rotation.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include <stdio.h>

#include "ops/rotation.h"
#include "db/store.h"
#include "contact.h"
#include "pii.h"

/* The associated data's field names of columns a and b, by table. */
static const char *const fields[ROT__MAX][2] = {
	{ "tel", "email" },		/* ROT_LEADS */
	{ "tel", "email" },		/* ROT_INGEST */
	{ "test_recipient", NULL },	/* ROT_TEST_RECIPIENTS */
	{ "webhook_secret", NULL },	/* ROT_WEBHOOKS */
	{ "totp_secret", NULL },	/* ROT_TOTP (api/twofactor.c) */
	{ "recovery_code", NULL },	/* ROT_RECOVERY (api/twofactor.c) */
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

/*
 * A contact opened with any key of the file, normalised again as its
 * kind is, and indexed under the newest key into v; false when no key
 * opens it.  NULL stays NULL (*has false).
 */
static bool
reindex(const struct conf *c, const struct rekey_row *r, const char *kind,
    const char *field, const struct dbbin *in, unsigned char v[PII_BIDXBYTES],
    bool *has)
{
	char		 plain[PLAIN_MAX + 1], norm[PLAIN_MAX + 1];
	enum tel_kind	 tk;
	bool		 ok;

	*has = false;
	if (in->p == NULL)
		return true;
	ok = pii_open_any(c, r->key_id, r->tenant, r->id, field, in->p, in->n,
	    plain, sizeof(plain), NULL);
	if (ok) {
		/* sealed normalised; an older row's as typed, perhaps */
		if (!(strcmp(kind, "tel") == 0 ?
		    contact_tel_normalize(plain, norm, &tk) :
		    contact_email_normalize(plain, norm)))
			memcpy(norm, plain, sizeof(norm));
		pii_blind_index(c->master_key, r->tenant, kind, norm, v);
		*has = true;
		sodium_memzero(norm, sizeof(norm));
	}
	sodium_memzero(plain, sizeof(plain));
	return ok;
}

/* Index rows[0 .. n) of table t again into slot `to`, counting into o. */
static enum fb_err
rekey_rows(struct db *db, const struct conf *c, enum bidx_table t, int to,
    const struct rekey_row *rows, size_t n, struct rot_batch *o)
{
	unsigned char	 va[PII_BIDXBYTES], vb[PII_BIDXBYTES];
	struct dbbin	 a, b;
	const struct rekey_row *r;
	bool		 ha = false, hb = false, ok, done;
	enum fb_err	 e;
	size_t		 i;

	for (i = 0; i < n; i++) {
		r = &rows[i];
		if (t == BIDX_LEADS)
			ok = reindex(c, r, "tel", "tel", &r->a, va, &ha) &&
			    reindex(c, r, "email", "email", &r->b, vb, &hb);
		else if (t == BIDX_TEST_RECIPIENTS)
			ok = reindex(c, r, r->kind, "test_recipient", &r->a, va,
			    &ha);
		else {
			/* b: the index a lead or recipient has under the key */
			ok = r->b.p != NULL && r->b.n == PII_BIDXBYTES;
			if (ok)
				memcpy(va, r->b.p, PII_BIDXBYTES);
			ha = ok;
		}
		if (!ok) {
			if (t != BIDX_SUPPRESSIONS)
				logx(LOG_WARN, "key rotation: %s %s: no key "
				    "of the file opens it; index left as is",
				    bidx_table_name(t), r->id);
			continue;
		}
		a = (struct dbbin){ ha ? va : NULL, ha ? PII_BIDXBYTES : 0 };
		b = (struct dbbin){ hb ? vb : NULL, hb ? PII_BIDXBYTES : 0 };
		if ((e = db_bidx_set(db, t, to, r, &a, &b, c->master_key_id,
		    &done)) != FB_OK)
			return e;
		if (done)
			o->rekeyed++;
		else
			o->skipped++;
	}
	sodium_memzero(va, sizeof(va));
	sodium_memzero(vb, sizeof(vb));
	return FB_OK;
}

/*
 * The slots' keys of ik; with none recorded (before any re-key), slot 1
 * under the lowest id of the file.
 */
static void
slots_of(const struct conf *c, const struct index_keys_row *ik,
    long long key[2], int *in_force)
{
	key[0] = ik->slot1_key < 0 && ik->slot2_key < 0 ? c->index_key_id :
	    ik->slot1_key;
	key[1] = ik->slot2_key;
	*in_force = ik->in_force == 2 ? 1 : 0;
}

/*
 * The re-key begun: the slot not in force set to the newest key (the
 * writers fill it within BIDX_TTL seconds), or, when the slot in force
 * is under it already, nothing to do.
 */
static enum fb_err
bidx_begin(struct db *db, const struct conf *c, long long key[2], int f,
    struct rot_batch *o)
{
	unsigned	 n = c->master_key_id;
	enum fb_err	 e;
	int		 t = 1 - f;

	if (key[f] == (long long)n) {
		o->switched = o->finished = true;
		return db_bidx_advance(db, n, "switched", NULL, 0, 0, true,
		    true);
	}
	if (key[t] >= 0 && key[t] != (long long)n) {
		logx(LOG_ERR, "key rotation: blind index slot %d is still "
		    "under key %lld, kept for suppressions nothing re-keyed "
		    "(formbackctl keys status); rotate to key %lld again, or "
		    "remove those suppressions, first", t + 1, key[t], key[t]);
		return FB_EINVAL;
	}
	key[t] = n;
	if ((e = db_index_keys_set(db, key[0], key[1], f + 1)) != FB_OK)
		return e;
	return db_bidx_advance(db, n, "leads", NULL, 0, 0, true, true);
}

/*
 * The end of a pass over the three tables: the switch when it filled
 * nothing and began once every worker wrote the new slot; the other
 * slot's key dropped when nothing is left under it alone; else another
 * pass.
 */
static enum fb_err
bidx_pass_end(struct db *db, const struct conf *c,
    const struct key_rotation_row *k, long long key[2], int to,
    struct rot_batch *o)
{
	struct unrekeyed_row	 u;
	unsigned		 n = c->master_key_id;
	enum fb_err		 e;

	if (k->pass_rekeyed + o->rekeyed > 0 || !k->settled) {
		o->wait = k->pass_rekeyed + o->rekeyed == 0;
		return db_bidx_advance(db, n, "leads", NULL, o->rekeyed, 0,
		    true, false);
	}
	if ((e = db_bidx_unrekeyed(db, to, n, &u)) != FB_OK)
		return e;
	/* the old slot's key goes once nothing is under it alone */
	if (u.suppressions == 0 && u.test_recipients == 0)
		key[to == 2 ? 0 : 1] = -1;
	o->switched = o->finished = true;
	if ((e = db_index_keys_set(db, key[0], key[1], to)) != FB_OK)
		return e;
	return db_bidx_advance(db, n, "switched", NULL, o->rekeyed,
	    u.suppressions + u.test_recipients, false, false);
}

/*
 * One batch of the blind indexes' re-key, in the rotation's
 * transaction (k: its row, locked): see rot_step().
 */
static enum fb_err
bidx_step(struct db *db, struct step *s, const struct key_rotation_row *k)
{
	const struct conf	*c = s->c;
	struct rot_batch	*o = s->out;
	struct index_keys_row	 ik;
	struct dbrows		 rows;
	const struct rekey_row	*last;
	long long		 key[2];
	enum bidx_table		 t;
	enum fb_err		 e;
	int			 f, to;

	o->bidx = true;
	if ((e = db_index_keys_get(db, true, &ik)) != FB_OK)
		return e;
	slots_of(c, &ik, key, &f);
	if (k->bidx_started_at == NULL)
		return bidx_begin(db, c, key, f, o);
	/* the slot under the newest key: not in force until the switch */
	to = key[1] == (long long)c->master_key_id ? 2 : 1;
	t = o->btable = bidx_table_of(k->bidx_phase);
	if (t == BIDX__MAX) {
		/* switched (a run again retries what was left: RT_BEGIN) */
		o->switched = o->finished = true;
		return FB_OK;
	}
	memset(&rows, 0, sizeof(rows));
	e = db_bidx_pending(db, t, to, k->bidx_after_id, c->master_key_id,
	    s->batch, &rows);
	if (e == FB_OK)
		e = rekey_rows(db, c, t, to, rows.row, rows.n, o);
	if (e == FB_OK) {
		fault_kill(k->batches);
		last = rows.n > 0 ? (const struct rekey_row *)rows.row +
		    rows.n - 1 : NULL;
		if (rows.n == (size_t)s->batch)
			e = db_bidx_advance(db, c->master_key_id,
			    bidx_table_name(t), last->id, o->rekeyed, 0, false,
			    false);
		else if (t + 1 < BIDX__MAX)
			e = db_bidx_advance(db, c->master_key_id,
			    bidx_table_name(t + 1), NULL, o->rekeyed, 0, false,
			    false);
		else
			e = bidx_pass_end(db, c, k, key, to, o);
	}
	dbrows_free(&rows);
	return e;
}

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
		/* every sealed column done: the blind indexes next */
		e = bidx_step(db, s, k);
		dbrows_free(&rot);
		return e;
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
rot_status_read(struct db *db, const struct conf *c, struct rot_status *st)
{
	long long	 key[2];
	enum fb_err	 e;
	int		 t, f;

	memset(st, 0, sizeof(*st));
	for (t = 0; t < ROT__MAX; t++)
		if ((e = db_rot_counts(db, (enum rot_table)t,
		    &st->counts[t])) != FB_OK)
			goto fail;
	if ((e = db_rot_list(db, &st->rotations)) != FB_OK ||
	    (e = db_index_keys_get(db, false, &st->index)) != FB_OK)
		goto fail;
	slots_of(c, &st->index, key, &f);
	st->index.slot1_key = key[0];
	st->index.slot2_key = key[1];
	if ((e = db_bidx_unrekeyed(db, f + 1, (unsigned)key[f],
	    &st->unrekeyed)) == FB_OK)
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

	*index = st->index.slot1_key == (long long)id ||
	    st->index.slot2_key == (long long)id;
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
