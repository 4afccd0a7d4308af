/*
 * src/db/flood.c: the collector's abuse limits and the quarantine of
 * floods; store.h includes every such header.
 */
#ifndef FORMBACK_DB_FLOOD_H
#define FORMBACK_DB_FLOOD_H

#include "db.h"

/*
 * db/flood.c: the public collector's abuse limits (issue 11; migrations
 * 0014, 0034; formback.fcgi(8) "Abuse limits") and the quarantine of a
 * flood's leads (issue 40).
 *
 * One pooled counter of the hour (UTC) of a source on `site` (key: a
 * client address, the IPv4 address or the /64 of an IPv6 one; or its
 * network, the /24 or /48): the batch adds `events` and `captures`
 * (with a contact, taken far from the limit: tag/collect.c).
 */
struct flood_row {
	const char		*site;
	const char		*hour;		/* "YYYY-MM-DD HH:00:00" */
	const unsigned char	*key;
	size_t			 keylen;	/* at most 16 */
	int			 events, captures;
	long long		 events_total;	/* out: after */
	/* out: pooled shards' */
	long long		 captures_total;
};
#define FLOOD_ROWS_MAX	INGEST_ADD_MAX
/*
 * Add n counts (1 .. FLOOD_ROWS_MAX, each key once) to shard `shard`
 * (mod FLOOD_SHARDS: one per worker, so that workers do not queue on one
 * row lock), autocommitted, then read each counter's hour over every
 * shard, every worker's and host's, into events_total and
 * captures_total (the exact count's shard left out of the latter).
 */
#define FLOOD_SHARDS	32
enum fb_err db_tag_flood_count(struct db *, unsigned shard, struct flood_row *,
	    size_t n) FB_WUR;
/*
 * The exact count of captures with a contact of a source (a client
 * address, or its /24 or /48 network: keys of 4, 8, 3 and 6 bytes) on a
 * site in the current UTC hour of the database's clock, one counter row
 * for every worker and host: n counters (1 .. FLOOD_EXACT_MAX, each key
 * once, in the order of flood_exact_cmp(), so that two transactions lock
 * them in the same order) add `add` in one statement of the caller's
 * transaction, whose end releases their row locks; `total` is each one's
 * count after, *hour ("YYYY-MM-DD HH:00:00") the hour counted.
 */
struct flood_exact {
	const char		*site;
	const unsigned char	*key;
	size_t			 keylen;	/* at most 16 */
	long long		 add;
	long long		 total;		/* out */
};
#define FLOOD_EXACT_MAX	16
int	flood_exact_cmp(const void *, const void *);
enum fb_err db_tag_flood_exact(struct db *, struct flood_exact *, size_t n,
	    char hour[20]) FB_WUR;
/*
 * Drop the counters of hours before the last and the flood_sources rows
 * a day old (formback-abandon).
 */
enum fb_err db_tag_flood_prune(struct db *, unsigned long long *removed) FB_WUR;
/*
 * n more new leads of `site` in the UTC hour `hour` ("YYYY-MM-DD
 * HH:00:00"), n < 0 for fewer (never under 0): that hour's count after
 * them in *leads.  The row stays locked until the caller's transaction
 * ends.
 */
enum fb_err db_site_leads_add(struct db *, const char *site, const char *hour,
	    long long n, long long *leads) FB_WUR;
/* The busiest hour of `site` in the 7 days before `hour`, in *busiest. */
enum fb_err db_site_leads_busiest(struct db *, const char *site,
    const char *hour, long long *busiest) FB_WUR;
/*
 * Release a site of `tenant` whose sending 0014's hold stopped (nothing
 * holds a site since 0034); with `discard`, first suppress the
 * unfinished leads captured from the hour before the hold on
 * (suppress_reason lead_ineligible) and their scheduled deliveries, their
 * count in *discarded.  *released false when the site was not held.
 */
enum fb_err db_site_release(struct db *, const char *tenant, const char *site,
	    bool discard, bool *released, unsigned long long *discarded) FB_WUR;
/* Is `host` (lower case) or one of its parent domains a site's domain? */
enum fb_err db_site_domain_known(struct db *, const char *host,
    bool *known) FB_WUR;

/*
 * A source of an hour's leads on a site (migration 0034): its kind
 * ("address", "network", "visitor", "site") and key (src: a keyed hash
 * of the address or network, PII_BIDXBYTES; a visitor's id; nothing for
 * the site).  Borrowed.
 */
struct flood_src {
	const char		*tenant, *site;
	const char		*hour;		/* "YYYY-MM-DD HH:00:00", UTC */
	const char		*kind;
	const unsigned char	*src;
	size_t			 srclen;	/* at most 40 */
};
/*
 * The batch of source s, made (quarantined) with id `id`, `shown` (NULL
 * for the site) and `threshold` unless there is one: *made says which;
 * *id_out the batch's id either way.  In the caller's transaction.
 */
enum fb_err db_flood_batch_make(struct db *, const struct flood_src *s,
	    const char *id, const char *shown, long long threshold, bool *made,
	    char id_out[UUID_STRLEN + 1]) FB_WUR;
/*
 * Is batch `id` still quarantined?  Its row share-locked until the
 * caller's transaction ends, so that no release or discard comes
 * between this answer and the leads it puts in the batch.
 */
enum fb_err db_flood_batch_open(struct db *, const char *id, bool *open) FB_WUR;
/* n more leads in batch `id`. */
enum fb_err db_flood_batch_count(struct db *, const char *id,
	    long long n) FB_WUR;
/*
 * flood_sources: source s's row (kind address, network or visitor)
 * points at batch `id` unless it points at one already; locked until the
 * caller's transaction ends.
 */
enum fb_err db_flood_source_mark(struct db *, const struct flood_src *s,
	    const char *id) FB_WUR;
/*
 * n rows of flood_sources (1 .. FLOOD_SOURCES_MAX, each once, in one
 * order for every transaction) with `captures` more each, locked until
 * the caller's transaction ends: quarantine_id the batch each row points
 * at, "" for none.
 */
#define FLOOD_SOURCES_MAX	16
struct flood_source_add {
	struct flood_src	 s;
	long long		 captures;
	/* out */
	char			 quarantine_id[UUID_STRLEN + 1];
};
enum fb_err db_flood_sources_add(struct db *, struct flood_source_add *,
	    size_t n) FB_WUR;
/*
 * Put source s's unfinished leads (captured, abandoned, queued, sent)
 * first captured in its hour that are in no batch into batch `id`
 * (kind address, network or visitor; *n how many).
 */
enum fb_err db_flood_source_leads(struct db *, const struct flood_src *s,
	    const char *id, unsigned long long *n) FB_WUR;
/*
 * Put leads ids[0 .. n) of `tenant` (1 .. FLOOD_LEADS_MAX, borrowed)
 * that are in no batch into batch `id`; *put how many.
 */
#define FLOOD_LEADS_MAX	16
enum fb_err db_flood_leads_put(struct db *, const char *tenant, const char *id,
	    const char *const *ids, size_t n, unsigned long long *put) FB_WUR;
/* A quarantine batch as the admin API and formbackctl show it. */
#define FLOOD_BATCH_COLS(F, N) F(id, TEXT, "q.id") \
	N(site_id, TEXT, "q.site_id") N(domain, TEXT, "s.domain") \
	N(kind, TEXT, "q.kind") N(source, TEXT, "q.source") \
	N(hour, TIME, "q.hour") N(threshold, INT, "q.threshold") \
	N(leads, INT, "q.leads") N(status, TEXT, "q.status") \
	N(decided_at, TIME, "q.decided_at") N(created_at, TIME, "q.created_at")
struct flood_batch_row { DB_FIELDS(FLOOD_BATCH_COLS) };
/*
 * Up to n of the tenant's batches with ids before `before` (NULL: from
 * the newest), newest first; only those of `status` unless NULL.
 */
enum fb_err db_flood_batch_list(struct db *, const char *tenant,
	    const char *status, const char *before, int n,
	    struct dbrows *) FB_WUR;
/* One struct flood_batch_row; FB_ENOTFOUND when none. */
enum fb_err db_flood_batch_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* The tenant of batch `id` (the operator's path); FB_ENOTFOUND when none. */
enum fb_err db_flood_batch_tenant(struct db *, const char *id,
	    char tenant[UUID_STRLEN + 1]) FB_WUR;
/*
 * Decide a quarantined batch of `tenant`, in the caller's transaction:
 * release puts its leads back in the normal flow (judged and sent as
 * their times say, counted in their site's hour again); discard
 * suppresses its unfinished leads (lead_ineligible) and their scheduled
 * deliveries.  *decided false when it is not quarantined (any more);
 * *n the leads released or suppressed.
 */
enum fb_err db_flood_batch_decide(struct db *, const char *tenant,
	    const char *id, bool release, bool *decided,
	    unsigned long long *n) FB_WUR;

#endif
