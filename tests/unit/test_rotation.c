/* ops/rotation.c: which keys of the file a rotation still needs. */
#include <string.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "../../src/ops/rotation.h"

static struct key_count_row	 leads[2], hooks[1];
static unsigned char		 keys[3][32];

/* Keys 7 (current), 5 and 0 (the index key); counts as given. */
static void
setup(struct conf *c, struct rot_status *st)
{
	memset(c, 0, sizeof(*c));
	memset(st, 0, sizeof(*st));
	c->master_key = keys[0];
	c->master_key_id = 7;
	c->old_keys[0] = keys[1];
	c->old_key_ids[0] = 5;
	c->old_keys[1] = keys[2];
	c->old_key_ids[1] = 0;
	c->nold_keys = 2;
	c->index_key = keys[2];
	c->index_key_id = 0;
	/* the blind indexes: slot 1 under key 0, in force, slot 2 none */
	st->index.slot1_key = 0;
	st->index.slot2_key = -1;
	st->index.in_force = 1;
	st->counts[ROT_LEADS].row = leads;
	st->counts[ROT_WEBHOOKS].row = hooks;
}

Test(rotation, key_needed_while_a_row_is_under_it)
{
	struct conf		 c;
	struct rot_status	 st;
	long long		 rows[ROT__MAX];
	bool			 index;

	setup(&c, &st);
	leads[0] = (struct key_count_row){ 5, 3, "a" };
	leads[1] = (struct key_count_row){ 7, 10, "b" };
	st.counts[ROT_LEADS].n = 2;
	hooks[0] = (struct key_count_row){ 5, 1, "c" };
	st.counts[ROT_WEBHOOKS].n = 1;
	cr_assert(rot_key_needed(&st, &c, 5, rows, &index));
	cr_assert_not(index);
	cr_assert_eq(rows[ROT_LEADS], 3);
	cr_assert_eq(rows[ROT_WEBHOOKS], 1);
	cr_assert_eq(rows[ROT_INGEST], 0);
	/* the current key always; the index key for the blind indexes */
	cr_assert(rot_key_needed(&st, &c, 7, rows, &index));
	cr_assert(rot_key_needed(&st, &c, 0, rows, &index));
	cr_assert(index);
	cr_assert_eq(rows[ROT_LEADS], 0);
	/* the rotation done: 5 holds nothing and may go */
	st.counts[ROT_LEADS].n = 0;
	st.counts[ROT_WEBHOOKS].n = 0;
	cr_assert_not(rot_key_needed(&st, &c, 5, rows, &index));
	/* a row whose key is not recorded may be under any key: kept */
	leads[0] = (struct key_count_row){ -1, 2, "d" };
	st.counts[ROT_LEADS].n = 1;
	cr_assert(rot_key_needed(&st, &c, 5, rows, &index));
	cr_assert_eq(rows[ROT_LEADS], 2);
}

Test(rotation, table_names)
{
	int	 t;

	for (t = 0; t <= ROT__MAX; t++)
		cr_assert_eq(rot_table_of(rot_table_name((enum rot_table)t)),
		    (enum rot_table)t);
	cr_assert_str_eq(rot_table_name(ROT__MAX), "done");
	cr_assert_eq(rot_table_of("sessions"), ROT__MAX);
}

/*
 * The blind indexes' slots: a key in either slot is needed (during a
 * re-key, or while suppressions nothing re-keyed keep the old slot);
 * once the switch dropped it from its slot, nothing holds key 0 back.
 */
Test(rotation, key_needed_while_a_slot_is_under_it)
{
	struct conf		 c;
	struct rot_status	 st;
	long long		 rows[ROT__MAX];
	bool			 index;

	setup(&c, &st);
	st.counts[ROT_LEADS].n = 0;
	st.counts[ROT_WEBHOOKS].n = 0;
	/* re-key to 7 under way: both slots */
	st.index.slot2_key = 7;
	cr_assert(rot_key_needed(&st, &c, 0, rows, &index));
	cr_assert(index);
	cr_assert(rot_key_needed(&st, &c, 7, rows, &index));
	cr_assert(index);
	cr_assert_not(rot_key_needed(&st, &c, 5, rows, &index));
	cr_assert_not(index);
	/* switched, the old slot kept for what nothing re-keyed */
	st.index.in_force = 2;
	cr_assert(rot_key_needed(&st, &c, 0, rows, &index));
	cr_assert(index);
	/* the old slot's key dropped: key 0 may go */
	st.index.slot1_key = -1;
	cr_assert_not(rot_key_needed(&st, &c, 0, rows, &index));
	cr_assert_not(index);
}

Test(rotation, bidx_table_names)
{
	int	 t;

	for (t = 0; t <= BIDX__MAX; t++)
		cr_assert_eq(bidx_table_of(bidx_table_name((enum bidx_table)t)),
		    (enum bidx_table)t);
	cr_assert_str_eq(bidx_table_name(BIDX__MAX), "switched");
	cr_assert_str_eq(bidx_table_name(BIDX_SUPPRESSIONS), "suppressions");
}
