/*
 * The sliding 60-second log behind the rate limit (contract: Limits;
 * design 6), driven through fb_auth_admit with explicit clocks.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "../../src/db/store.h"
#include "harness.h"

static struct db db;
static struct conf conf;

/* "admitted remaining reset retry_after" for one admission at `now`. */
static const char *
admit_row(const char *tenant, int limit, long long now)
{
	static char		 out[128];
	struct rate_result	 rr;
	long long		 epoch;

	cr_assert_eq(db_rate_admit(&db, tenant, limit, now, 1, false, &rr,
	    &epoch), FB_OK);
	snprintf(out, sizeof(out), "%d %d %lld %lld", rr.admitted, rr.remaining,
	    rr.reset, rr.retry_after);
	return out;
}

Test(rate, sliding_log_to_the_second)
{
	struct fx	 f;
	long long	 t = 2000000000;
	int		 i;
	char		 err[256];

	cr_assert_eq(conf_load(&conf, NULL, err, sizeof(err)), FB_OK, "%s",
	    err);
	cr_assert_eq(db_open(&db, &conf), FB_OK);
	fx_new(&f, "free", 3);
	/* 2 at t, 1 at t+30: full until t+60 */
	cr_assert_str_eq(admit_row(f.tenant, 3, t), "1 2 2000000060 0");
	cr_assert_str_eq(admit_row(f.tenant, 3, t), "1 1 2000000060 0");
	cr_assert_str_eq(admit_row(f.tenant, 3, t + 30), "1 0 2000000060 0");
	cr_assert_str_eq(admit_row(f.tenant, 3, t + 45), "0 0 2000000060 15");
	cr_assert_str_eq(admit_row(f.tenant, 3, t + 59), "0 0 2000000060 1");
	/* at t+60 the two of second t have left the window: 2 free */
	cr_assert_str_eq(admit_row(f.tenant, 3, t + 60), "1 1 2000000090 0");
	cr_assert_str_eq(admit_row(f.tenant, 3, t + 60), "1 0 2000000090 0");
	cr_assert_str_eq(admit_row(f.tenant, 3, t + 61), "0 0 2000000090 29");
	/* refused requests were not counted */
	for (i = 0; i < 5; i++)
		(void)admit_row(f.tenant, 3, t + 62);
	cr_assert_str_eq(admit_row(f.tenant, 3, t + 90), "1 0 2000000120 0");
	/* a long pause empties the window */
	cr_assert_str_eq(admit_row(f.tenant, 3, t + 1000), "1 2 2000001060 0");
	/* other tenants are counted apart */
	{
		struct fx	 g;

		fx_new(&g, "free", 3);
		cr_assert_str_eq(admit_row(g.tenant, 3, t + 1000),
		    "1 2 2000001060 0");
	}
	db_close(&db);
	conf_free(&conf);
}

/*
 * Requests that arrived together are admitted by one statement
 * (db_rate_admit_n): the first of them as far as the window has room,
 * each with the remaining count it would have had alone.
 */
Test(rate, requests_that_arrived_together)
{
	struct fx		 f;
	struct rate_result	 rr[RATE_ADMIT_MAX];
	long long		 t = 2000000000, epoch;
	char			 err[256];
	int			 i;

	cr_assert_eq(conf_load(&conf, NULL, err, sizeof(err)), FB_OK, "%s",
	    err);
	cr_assert_eq(db_open(&db, &conf), FB_OK);
	fx_new(&f, "free", 0);
	cr_assert_str_eq(admit_row(f.tenant, 5, t), "1 4 2000000060 0");
	cr_assert_eq(db_rate_admit_n(&db, f.tenant, 5, t + 1, 1, true, 6, rr,
	    &epoch), FB_OK);
	cr_assert_eq(epoch, 1);
	for (i = 0; i < 4; i++) {
		cr_assert(rr[i].admitted, "request %d", i);
		cr_assert_eq(rr[i].remaining, 3 - i);
		cr_assert_eq(rr[i].reset, t + 60);
	}
	for (i = 4; i < 6; i++) {
		cr_assert(!rr[i].admitted, "request %d", i);
		cr_assert_eq(rr[i].remaining, 0);
		cr_assert_eq(rr[i].retry_after, 59);
	}
	/* at t+60 the request of second t has left: one place for two */
	cr_assert_eq(db_rate_admit_n(&db, f.tenant, 5, t + 60, 1, true, 2, rr,
	    &epoch), FB_OK);
	cr_assert(rr[0].admitted);
	cr_assert_eq(rr[0].remaining, 0);
	cr_assert(!rr[1].admitted);
	cr_assert_eq(rr[1].retry_after, 1);
	/* a stale look-up admits none of them; more than the cap is refused */
	cr_assert_eq(db_rate_admit_n(&db, f.tenant, 100, t + 200, 7, true, 3,
	    rr,
	    &epoch), FB_OK);
	cr_assert(!rr[0].admitted && !rr[1].admitted && !rr[2].admitted);
	cr_assert_eq(epoch, 1);
	cr_assert_eq(db_rate_admit_n(&db, f.tenant, 100, t + 200, 1, true,
	    RATE_ADMIT_MAX + 1, rr, &epoch), FB_EINVAL);
	cr_assert_eq(db_rate_admit_n(&db, f.tenant, 100, t + 200, 1, false, 2,
	    rr, &epoch), FB_EINVAL);
	db_close(&db);
	conf_free(&conf);
}

/* A cached look-up is only honoured while the tenant's auth epoch holds. */
Test(rate, cached_lookup_needs_the_current_epoch)
{
	struct fx		 f;
	struct rate_result	 rr;
	long long		 epoch;
	char			 err[256], kid[40], key[80];
	struct resp		*r;

	cr_assert_eq(conf_load(&conf, NULL, err, sizeof(err)), FB_OK, "%s",
	    err);
	cr_assert_eq(db_open(&db, &conf), FB_OK);
	fx_new(&f, "pro", 0);
	/* no ring yet: a cached admission makes it but admits nothing */
	cr_assert_eq(db_rate_admit(&db, f.tenant, 10, 2000000000, 1, true, &rr,
	    &epoch), FB_OK);
	cr_assert(!rr.admitted);
	cr_assert_neq(epoch, 1);
	cr_assert_eq(db_rate_admit(&db, f.tenant, 10, 2000000000, 1, false, &rr,
	    &epoch), FB_OK);
	cr_assert(rr.admitted);
	cr_assert_eq(epoch, 1);
	cr_assert_eq(db_rate_admit(&db, f.tenant, 10, 2000000000, 1, true, &rr,
	    &epoch), FB_OK);
	cr_assert(rr.admitted);
	cr_assert_eq(rr.remaining, 8);
	/* revoking any key of the tenant moves the epoch on at once */
	fx_key(&f, "live", "all", key, kid);
	cr_assert_eq(ctl(NULL, "apikey revoke --id %s", kid), 0);
	cr_assert_eq(db_rate_admit(&db, f.tenant, 10, 2000000000, 1, true, &rr,
	    &epoch), FB_OK);
	cr_assert(!rr.admitted);
	cr_assert_eq(epoch, 2);
	cr_assert_str_eq(sql("SELECT auth_epoch FROM tenants WHERE id = '%s'",
	    f.tenant), "2");
	/* and the other keys still work, through a fresh look-up */
	r = http("GET", "/api/v1/sites", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	resp_free(r);
	r = http("GET", "/api/v1/sites", key, NULL, NULL);
	expect_error(r, 401, "authentication_error", "api_key_revoked", NULL);
	resp_free(r);
	db_close(&db);
	conf_free(&conf);
}
