/*
 * src/db/report.c: reports, their rollups and formback-aggregate's marks;
 * store.h includes every such header.
 */
#ifndef FORMBACK_DB_REPORT_H
#define FORMBACK_DB_REPORT_H

#include "db.h"

/*
 * The funnel report (db/report.c; contract: Reports, FunnelReportOut),
 * counted exactly over a half-open range [from, to) (SQL datetimes, UTC),
 * each count by its own reference time: events by received_at, abandonment
 * and conversion by the lead's abandoned_at and converted_at, messages by
 * sent_at.  site and campaign (may be NULL) narrow every count.  One row
 * per campaign (campaign_id NULL: pages under no campaign) with the
 * group's counts, and one row of totals.  A visit (visits, form_visits,
 * capture_visits) counts in the range that holds its session's first
 * event of the stage (db/migrations/0026), so visits add up over ranges;
 * events come from the hourly rollups where the tenant has them and from
 * the raw rows at the edges.
 */
#define FUNNEL_EVENT_COLS(F, N) F(campaign_id, TEXT, \
	    "NULLIF(NULLIF(MIN(t.ck), '-'), '*')") \
	N(page_view, INT, "COALESCE(SUM(t.page_view), 0)") \
	N(form_start, INT, "COALESCE(SUM(t.form_start), 0)") \
	N(capture, INT, "COALESCE(SUM(t.capture), 0)") \
	N(consent, INT, "COALESCE(SUM(t.consent), 0)") \
	N(conversion, INT, "COALESCE(SUM(t.conversion), 0)") \
	N(visits, INT, "COALESCE(SUM(t.visits), 0)") \
	N(form_visits, INT, "COALESCE(SUM(t.form_visits), 0)") \
	N(capture_visits, INT, "COALESCE(SUM(t.capture_visits), 0)") \
	N(no_session, INT, "COALESCE(SUM(t.no_session), 0)") \
	N(by_visitor, INT, "COALESCE(SUM(t.by_visitor), 0)") \
	N(unassigned_views, INT, "COALESCE(SUM(t.unassigned_views), 0)")
struct funnel_event_row { DB_FIELDS(FUNNEL_EVENT_COLS) };
#define FUNNEL_LEAD_COLS(F, N) F(campaign_id, TEXT, "l.campaign_id") \
	N(abandoned, INT, "SUM(l.abandoned_at >= ? AND l.abandoned_at < ?)") \
	N(converted, INT, \
	    "SUM(l.converted_at >= ? AND l.converted_at < ? AND " \
	    "l.conversion_source = 'tag')") \
	N(spillover, INT, \
	    "SUM(l.converted_at >= ? AND l.converted_at < ? AND " \
	    "l.conversion_source = 'tag_visitor')") \
	N(hash_match, INT, \
	    "SUM(l.converted_at >= ? AND l.converted_at < ? AND " \
	    "l.conversion_source = 'hash_match')") \
	N(recovered, INT, \
	    "SUM(l.converted_at >= ? AND l.converted_at < ? AND " \
	    "l.conversion_source = 'tag' AND l.abandoned_at IS NOT NULL AND " \
	    "l.abandoned_at <= l.converted_at)")
struct funnel_lead_row { DB_FIELDS(FUNNEL_LEAD_COLS) };
#define FUNNEL_DELIVERY_COLS(F, N) F(messaged, INT, \
    "COUNT(DISTINCT d.lead_id)") \
	N(sent, INT, "COUNT(*)") \
	N(delivered, INT, "SUM(d.status = 'delivered')") \
	N(inferred, INT, \
	    "SUM(d.status = 'sent' AND EXISTS (SELECT 1 FROM links k " \
	    "WHERE k.tenant_id = d.tenant_id AND k.delivery_id = d.id AND " \
	    "k.kind IN ('click', 'open') AND k.first_hit_at IS NOT NULL))") \
	N(after_conversion, INT, \
	    "COALESCE(SUM(l.converted_at IS NOT NULL AND " \
	    "d.sent_at > l.converted_at), 0)")
struct funnel_delivery_row { DB_FIELDS(FUNNEL_DELIVERY_COLS) };
struct funnel_filter {
	/* SQL datetimes, UTC, whole seconds, half-open */
	const char	*from, *to;
	const char	*site, *campaign;	/* or NULL */
	/* db_funnel_parts(): the rolled hours of the range, as SQL datetimes */
	char		 hours_from[32], hours_to[32];
};
/*
 * Split f's range [from, to) once for every count of one report: the
 * whole hours [hours_from, hours_to) the tenant has rolled (read from the
 * rollups), and the raw edges [from, hours_from) and [hours_to, to); with
 * no rolled hour in it, hours_from = hours_to = to (all raw).
 */
enum fb_err db_funnel_parts(struct db *, const char *tenant,
	    struct funnel_filter *) FB_WUR;
/* Events of the range split by db_funnel_parts(): one row of totals
 * (by_campaign false) or per campaign. */
enum fb_err db_funnel_events(struct db *, const char *tenant,
	    const struct funnel_filter *, bool by_campaign,
	    struct dbrows *) FB_WUR;
/* Leads abandoned or converted in the range: totals or per campaign. */
enum fb_err db_funnel_leads(struct db *, const char *tenant,
	    const struct funnel_filter *, bool by_campaign,
	    struct dbrows *) FB_WUR;
/* Messages sent in the range: one row. */
enum fb_err db_funnel_deliveries(struct db *, const char *tenant,
	    const struct funnel_filter *, struct dbrows *) FB_WUR;

/*
 * The daily report (db/report.c; contract: Reports, DailyReportOut) reads
 * the rollups formback-aggregate writes per JST day (migration 0017).
 * Every part answers rows of one shape: the day ("YYYY-MM-DD", JST), a
 * channel or step where it has one, and up to five counts.
 */
#define DAY_COUNT_COLS(F, N) F(day, TEXT, "day") N(channel, TEXT, "channel") \
	N(step_id, TEXT, "step_id") N(step_no, TEXT, "step_no") \
	N(deleted, BOOL, "deleted") N(n1, INT, "n1") N(n2, INT, "n2") \
	N(n3, INT, "n3") N(n4, INT, "n4") N(n5, INT, "n5") N(n6, INT, "n6")
struct day_count_row { DB_FIELDS(DAY_COUNT_COLS) };
struct daily_filter {
	const char	*from, *to;	/* JST dates "YYYY-MM-DD", half-open */
	const char	*site, *campaign, *scenario;	/* or NULL */
	/* the traffic row of these filters: ids, or "*" for all */
	const char	*site_key, *campaign_key;
};
enum daily_part {
	/* n1 page views, n2 visits, n3 form starts, n4 captures */
	DAILY_TRAFFIC,
	DAILY_CAPTURED,		/* n1 leads captured */
	DAILY_ABANDONED,	/* n1 leads abandoned */
	DAILY_CONVERTED,	/* n1 recovered, n2 spillover, n3 hash match */
	DAILY_DELIVERY,		/* per channel: n1 sent, n2 delivered,
				   n3 opened, n4 clicked,
				   n5 converted after it,
				   n6 sent after its lead converted */
	DAILY_STEPS,		/* per step (no day): the same five */
	DAILY__MAX
};
/* One part of the daily report as struct day_count_row rows. */
enum fb_err db_daily(struct db *, const char *tenant,
    const struct daily_filter *, enum daily_part, struct dbrows *) FB_WUR;
/*
 * A JST day "YYYY-MM-DD" of a tenant's range and when formback-aggregate
 * last counted it, "YYYY-MM-DD HH:MM:SS.ffffff" UTC (sorts as text).
 */
#define DAY_AGGREGATED_COLS(F, N) F(day, TEXT, "day") \
	N(aggregated_at, TEXT, "aggregated_at")
struct day_aggregated_row { DB_FIELDS(DAY_AGGREGATED_COLS) };
/* The days of [from, to) (JST dates) aggregated: struct day_aggregated_row. */
enum fb_err db_daily_aggregated(struct db *, const char *tenant,
	    const char *from, const char *to, struct dbrows *) FB_WUR;

/* formback-aggregate (cron-aggregate.c) */

/*
 * A JST day with rows not counted yet (report_dirty_days, migration
 * 0035: marked by triggers in each writer's transaction).
 */
#define REPORT_MARK_COLS(F, N) F(tenant_id, TEXT, "tenant_id") \
	N(day, TEXT, "day")
struct report_mark_row { DB_FIELDS(REPORT_MARK_COLS) };
/*
 * Up to `limit` struct report_mark_row, the oldest marks first, made
 * before `before` (db_aggregate_clock() at the pass's start) and of `tenant`
 * (NULL: every tenant's).
 */
enum fb_err db_aggregate_marks(struct db *, const char *before,
	    const char *tenant, int limit, struct dbrows *) FB_WUR;
/*
 * The database's UTC clock, which stamps the marks, as an SQL datetime
 * (microseconds): a pass's start, for db_aggregate_marks().
 */
enum fb_err db_aggregate_clock(struct db *, char out[32]) FB_WUR;
/* The days of [from, to) (JST dates) with a mark: struct report_mark_row. */
enum fb_err db_daily_marked(struct db *, const char *tenant, const char *from,
	    const char *to, struct dbrows *) FB_WUR;
/*
 * Recount a tenant's marked JST day (`day` "YYYY-MM-DD", its UTC bounds
 * `from` and `to` as SQL datetimes) from the raw rows into the rollups,
 * in one transaction that begins by deleting the day's mark: it waits
 * for the writers still holding the mark, so their rows are counted,
 * and a later write marks the day again.  *done false when the mark was
 * gone (another copy recounted it): nothing is written.  Reruns write
 * the same rows.
 */
enum fb_err db_aggregate_day(struct db *, const char *tenant, const char *day,
	    const char *from, const char *to, bool *done) FB_WUR;
/*
 * Up to `limit` tenants (struct key_row) with events not rolled into
 * hours yet in hours that can no longer change at `now` (SQL datetime,
 * UTC; see db_roll_hours()), of `tenant` only when not NULL: one index
 * dive a tenant.
 */
enum fb_err db_hours_tenants(struct db *, const char *now, const char *tenant,
	    int limit, struct dbrows *) FB_WUR;
/*
 * Roll the tenant's next whole UTC hours into report_event_hours
 * (migration 0026), at most `hours` of them, from the hour of its first
 * event after where the last roll stopped (the hours between have no
 * event, so they are rolled as they are): only hours that
 * can no longer change, ended five minutes before `now` (SQL datetime,
 * the caller's clock) and the database's clock and before every event
 * still queued (parked ones aside).  One transaction holding the tenant's
 * row of report_hour_state (another copy holding it: nothing done), so
 * copies take turns; *rolled: the hours rolled (0: none was due, or
 * another copy has the tenant).
 */
enum fb_err db_roll_hours(struct db *, const char *tenant, const char *now,
	    int hours, int *rolled) FB_WUR;
/*
 * Inside the caller's transaction, before parked events are queued
 * again: take back each tenant's rolled hours from its oldest parked
 * event's on, so that they are rolled again once it is applied.
 */
enum fb_err db_hours_take_back(struct db *) FB_WUR;

#endif
