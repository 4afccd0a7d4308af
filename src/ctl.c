/*
 * formbackctl: the operator CLI (design 4).  Every command prints exactly
 * one JSON object on stdout on success (ids as lower-case UUIDs), or one
 * error line on stderr with a non-zero exit: 1 when the command failed,
 * 2 for bad usage or configuration.  Each write runs in one transaction
 * with its audit-log row (actor "cli").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "hookrules.h"
#include "ingest.h"
#include "netguard.h"
#include "ops/apikey.h"
#include "ops/member.h"
#include "ops/quarantine.h"
#include "ops/scenario.h"
#include "ops/site.h"
#include "ops/status.h"
#include "ops/usage.h"
#include "pii.h"
#include "publish.h"
#include "session.h"
#include "db/store.h"

#ifndef MIGRATIONSDIR
#define MIGRATIONSDIR "/usr/local/share/formback/migrations"
#endif

#define MAX_OPTS 8

struct opts {
	const char	*name[MAX_OPTS];
	const char	*value[MAX_OPTS];
	size_t		 n;
};

static struct db	 db;
static struct conf	 conf;
static char		 command[128];	/* the words given, for errors */

static void
usage(void)
{
	/* an error line first for a command that is not one (design 4) */
	if (command[0] != '\0')
		fprintf(stderr, "formbackctl: unknown or incomplete command "
		    "'%s'\n", command);
	fprintf(stderr,
	    "usage: formbackctl [-c file] command [options]\n"
	    "  migrate [--dir DIR]\n"
	    "  tenant create --name N [--plan free|starter|growth|pro] [--rate-limit N]\n"
	    "  member create --tenant T --email E [--role owner|admin|member|viewer]\n"
	    "  member invite --tenant T --email E [--role owner|admin|member|viewer]\n"
	    "  member set-password --id M   (the password on standard input)\n"
	    "  member suspend --id M | member delete --id M\n"
	    "  site create --tenant T --name N --domain D\n"
	    "  site release --id S [--leads keep|discard]\n"
	    "  quarantine list --tenant T [--status quarantined|released|"
	    "discarded]\n"
	    "  quarantine release|discard --id Q\n"
	    "  site set --id S --privacy-policy-url U\n"
	    "  webhook enable --id E\n"
	    "  apikey create --tenant T --member M --kind live|test --scopes all|a:b,c:d\n"
	    "  apikey revoke --id K\n"
	    "  campaign set-status --id C --status active|paused|archived\n"
	    "  scenario set-status --id S --status draft|active|paused\n"
	    "  delivery-switch --tenant T --mode off|test_only|live\n"
	    "  publish [--site S]\n"
	    "  lead convert --id L [--source manual|cart_api]\n"
	    "  tenant set-quiet-hours --tenant T --start HH:MM --end HH:MM\n"
	    "  tenant set-quota --tenant T --sends N|plan\n"
	    "  usage --tenant T [--month YYYY-MM]\n"
	    "  test-recipient add|remove --tenant T --contact PHONE|EMAIL\n"
	    "  test-recipient list --tenant T\n"
	    "  tag-queue [retry-parked]\n"
	    "  status\n"
	    "  check-db\n");
	exit(2);
}

static void
die(int code, const char *fmt, ...) FB_PRINTF(2, 3);

static void
die(int code, const char *fmt, ...)
{
	va_list	 ap;

	fputs("formbackctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (db.my != NULL)
		db_rollback(&db);
	exit(code);
}

/* Parse "--name value" pairs; only names in `allowed` ("name|tenant"). */
static void
parse_opts(int argc, char *argv[], const char *allowed, struct opts *o)
{
	int	 i;
	size_t	 n;
	const char *p, *e;
	bool	 ok;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) != 0 || i + 1 >= argc ||
		    o->n == MAX_OPTS)
			die(2, "bad argument '%s'", argv[i]);
		n = strlen(argv[i] + 2);
		for (ok = false, p = allowed; ; p = e + 1) {
			e = strchr(p, '|');
			if ((size_t)((e != NULL ? e : p + strlen(p)) - p) == n &&
			    strncmp(p, argv[i] + 2, n) == 0)
				ok = true;
			if (e == NULL)
				break;
		}
		if (!ok)
			die(2, "unknown option '%s'", argv[i]);
		o->name[o->n] = argv[i] + 2;
		o->value[o->n++] = argv[++i];
	}
}

static const char *
opt(const struct opts *o, const char *name, bool required)
{
	size_t	 i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->name[i], name) == 0)
			return o->value[i];
	if (required)
		die(2, "missing option '--%s'", name);
	return NULL;
}

/* A UUID option, lower-cased into out. */
static void
opt_uuid(const struct opts *o, const char *name, char out[UUID_STRLEN + 1])
{
	const char	*v = opt(o, name, true);

	if (!uuid_valid(v))
		die(2, "option '--%s': '%s' is not a UUID", name, v);
	snprintf(out, UUID_STRLEN + 1, "%s", v);
	uuid_lower(out);
}

static void
connect_db(void)
{
	if (db_open(&db, &conf) != FB_OK)
		die(1, "cannot connect to the database (see above)");
	/* every command is one transaction, committed with its audit row */
	if (db_begin(&db) != FB_OK)
		die(1, "cannot start a transaction (see above)");
}

static void
check(enum fb_err e, const char *what)
{
	if (e != FB_OK)
		die(1, "cannot %s: %s", what, fb_strerror(e));
}

static void
audit_commit(const char *tenant, const char *action, const char *type,
    const char *id)
{
	check(db_audit_add(&db, tenant, "cli", NULL, NULL, action, type, id,
	    NULL), "write the audit row");
	check(db_commit(&db), "commit");
}

static void
print(json_object *o)
{
	puts(json_text(o));
	json_object_put(o);
}

static void
print_id(const char *id)
{
	json_object	*o = json_object_new_object();

	jadd_str(o, "id", id);
	print(o);
}

static void
need_tenant(const char *t)
{
	enum fb_err	 e = db_tenant_exists(&db, t);

	if (e == FB_ENOTFOUND)
		die(1, "tenant '%s' not found", t);
	check(e, "look the tenant up");
}

static void
cmd_migrate(int argc, char *argv[])
{
	struct opts	 o;
	json_object	*out, *applied;
	char		 current[16];
	const char	*dir;
	enum fb_err	 e;

	parse_opts(argc, argv, "dir", &o);
	if ((dir = opt(&o, "dir", false)) == NULL &&
	    (dir = getenv("FORMBACK_MIGRATIONS")) == NULL)
		dir = MIGRATIONSDIR;
	connect_db();
	applied = json_object_new_array();
	if ((e = db_migrate(&db, dir, applied, current)) != FB_OK)
		die(1, "migration failed: %s", fb_strerror(e));
	out = json_object_new_object();
	json_object_object_add(out, "applied", applied);
	jadd_str(out, "current", current[0] != '\0' ? current : NULL);
	print(out);
}

/* "HH:MM" as minutes after midnight, or -1. */
static int
hhmm(const char *s)
{
	int	 h, m;
	char	 tail;

	if (sscanf(s, "%2d:%2d%c", &h, &m, &tail) != 2 || h < 0 || h > 23 ||
	    m < 0 || m > 59 || strlen(s) != 5)
		return -1;
	return h * 60 + m;
}

/* SMS quiet hours (JST) of a tenant; equal start and end: none. */
static void
cmd_quiet_hours(int argc, char *argv[])
{
	struct opts	 o;
	char		 tenant[UUID_STRLEN + 1];
	int		 start, end;
	json_object	*out;

	parse_opts(argc, argv, "tenant|start|end", &o);
	opt_uuid(&o, "tenant", tenant);
	if ((start = hhmm(opt(&o, "start", true))) < 0 ||
	    (end = hhmm(opt(&o, "end", true))) < 0)
		die(2, "options '--start' and '--end': expected HH:MM (JST)");
	connect_db();
	need_tenant(tenant);
	check(db_tenant_quiet_hours(&db, tenant, start, end), "set the quiet hours");
	audit_commit(tenant, "tenant.quiet_hours", "tenant", tenant);
	out = json_object_new_object();
	jadd_str(out, "tenant_id", tenant);
	jadd_str(out, "start", opt(&o, "start", true));
	jadd_str(out, "end", opt(&o, "end", true));
	print(out);
}

/* The monthly sending quota of a tenant: a number, or "plan" for its plan's. */
static void
cmd_quota(int argc, char *argv[])
{
	struct opts	 o;
	char		 tenant[UUID_STRLEN + 1], *end;
	const char	*v;
	long		 n = -1;
	json_object	*out;

	parse_opts(argc, argv, "tenant|sends", &o);
	opt_uuid(&o, "tenant", tenant);
	v = opt(&o, "sends", true);
	if (strcmp(v, "plan") != 0) {
		n = strtol(v, &end, 10);
		if (*v == '\0' || *end != '\0' || n < 1 || n > 100000000)
			die(2, "option '--sends': expected 1 to 100000000, or 'plan'");
	}
	connect_db();
	need_tenant(tenant);
	check(db_tenant_quota(&db, tenant, n), "set the quota");
	audit_commit(tenant, "tenant.send_quota", "tenant", tenant);
	out = json_object_new_object();
	jadd_str(out, "tenant_id", tenant);
	if (n < 0)
		jadd_str(out, "send_quota", NULL);
	else
		jadd_int(out, "send_quota", n);
	print(out);
}

/* A tenant's sends in a JST month against its quota. */
static void
cmd_usage(int argc, char *argv[])
{
	struct opts	 o;
	char		 tenant[UUID_STRLEN + 1], month[8], tail;
	const char	*m;
	struct usage	 u;
	json_object	*out;
	int		 y, mo;
	enum fb_err	 e;

	parse_opts(argc, argv, "tenant|month", &o);
	opt_uuid(&o, "tenant", tenant);
	if ((m = opt(&o, "month", false)) != NULL) {
		if (strlen(m) != 7 || sscanf(m, "%4d-%2d%c", &y, &mo, &tail) != 2 ||
		    mo < 1 || mo > 12 || m[4] != '-')
			die(2, "option '--month': expected YYYY-MM (JST)");
		snprintf(month, sizeof(month), "%s", m);
	} else
		time_jst_month((int64_t)time(NULL), month);
	connect_db();
	if ((e = usage_month(&db, tenant, month, &u)) == FB_ENOTFOUND)
		die(1, "tenant '%s' not found", tenant);
	check(e, "read the usage");
	out = json_object_new_object();
	jadd_str(out, "tenant_id", tenant);
	jadd_str(out, "month", month);
	jadd_str(out, "plan", plans[u.plan].name);
	jadd_int(out, "sends", u.sends);
	jadd_int(out, "quota", u.quota);
	jadd_int(out, "notified_percent", u.notified_pct);
	db_rollback(&db);
	print(out);
}

/* status: the queues and the cron jobs, one JSON object (formbackctl(8), STATUS). */
static void
cmd_status(int argc, char *argv[])
{
	json_object	*out;

	if (argc != 0)
		usage();
	connect_db();
	check(ops_status(&db, &out), "read the status");
	db_rollback(&db);
	print(out);
}

/*
 * check-db: the database settings Formback needs (db_check_settings(),
 * issue 19), each with the value seen and its fix; exit 1 and an error
 * line naming the settings when one is not fine.
 */
static void
cmd_check_db(int argc, char *argv[])
{
	struct dbrows	 r;
	const struct db_check_row *c;
	json_object	*out, *list, *x;
	char		 bad[512] = "";
	size_t		 i;

	if (argc != 0)
		usage();
	connect_db();
	check(db_check_settings(&db, &r), "read the database settings");
	db_rollback(&db);
	list = json_object_new_array();
	for (i = 0, c = r.row; i < r.n; i++) {
		x = json_object_new_object();
		jadd_str(x, "name", c[i].name);
		jadd_str(x, "value", c[i].value);
		json_object_object_add(x, "ok", json_object_new_boolean(c[i].ok));
		jadd_str(x, "fix", c[i].ok ? NULL : c[i].fix);
		json_object_array_add(list, x);
		if (!c[i].ok)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), "%s%s",
			    bad[0] != '\0' ? ", " : "", c[i].name);
	}
	dbrows_free(&r);
	out = json_object_new_object();
	json_object_object_add(out, "ok", json_object_new_boolean(bad[0] == '\0'));
	json_object_object_add(out, "checks", list);
	print(out);
	if (bad[0] != '\0')
		die(1, "database settings to fix: %s", bad);
}

/*
 * The collector's intake queue (formback.fcgi(8), Event collector): how
 * many events wait, how many are parked after three failed applications,
 * and the oldest one's receive time; `retry-parked` gives the parked
 * ones three more tries.
 */
static void
cmd_tag_queue(int argc, char *argv[])
{
	struct dbrows	 r;
	const struct ingest_status_row *q;
	json_object	*out;
	long long	 n = 0;
	bool		 retry = argc == 1 && strcmp(argv[0], "retry-parked") == 0;

	if (argc > 1 || (argc == 1 && !retry))
		usage();
	connect_db();
	if (retry)
		check(db_ingest_retry(&db, &n), "retry the parked events");
	check(db_ingest_status(&db, &r), "read the queue");
	out = json_object_new_object();
	q = r.row;
	jadd_int(out, "queued", q->queued);
	jadd_int(out, "parked", q->parked);
	jadd_time(out, "oldest_received_at", q->oldest_received_at);
	if (retry)
		jadd_int(out, "retried", n);
	dbrows_free(&r);
	if (db_commit(&db) != FB_OK)
		die(1, "cannot commit (see above)");
	print(out);
}

/*
 * Test recipients: the contacts delivery mode test_only sends to, kept
 * as blind indexes and masks like suppressions (design 6).
 */
static void
cmd_test_recipient(int argc, char *argv[])
{
	struct opts	 o;
	char		 tenant[UUID_STRLEN + 1], id[UUID_STRLEN + 1], masked[300];
	const char	*kind;
	unsigned char	 bidx[PII_BIDXBYTES];
	struct dbbin	 b = { bidx, sizeof(bidx) };
	struct dbrows	 r;
	const struct test_recipient_row *t;
	json_object	*out, *list, *x;
	size_t		 i;
	enum fb_err	 e;

	if (argc < 1)
		usage();
	if (strcmp(argv[0], "list") == 0) {
		parse_opts(argc - 1, argv + 1, "tenant", &o);
		opt_uuid(&o, "tenant", tenant);
		connect_db();
		need_tenant(tenant);
		check(db_test_recipient_list(&db, tenant, &r),
		    "list the test recipients");
		list = json_object_new_array();
		for (i = 0, t = r.row; i < r.n; i++) {
			x = json_object_new_object();
			jadd_str(x, "id", t[i].id);
			jadd_str(x, "kind", t[i].kind);
			jadd_str(x, "masked", t[i].masked);
			jadd_time(x, "created_at", t[i].created_at);
			json_object_array_add(list, x);
		}
		dbrows_free(&r);
		db_rollback(&db);
		out = json_object_new_object();
		jadd_str(out, "tenant_id", tenant);
		json_object_object_add(out, "data", list);
		print(out);
		return;
	}
	if (strcmp(argv[0], "add") != 0 && strcmp(argv[0], "remove") != 0)
		usage();
	parse_opts(argc - 1, argv + 1, "tenant|contact", &o);
	opt_uuid(&o, "tenant", tenant);
	if (!contact_key(conf.index_key, tenant, opt(&o, "contact", true), &kind,
	    bidx, masked))
		die(2, "option '--contact': not a Japanese phone number or an "
		    "email address");
	connect_db();
	need_tenant(tenant);
	if (strcmp(argv[0], "add") == 0) {
		uuid_v7(id);
		/* the operator's own: counts at once, no test send reaches it */
		e = db_test_recipient_add(&db, id, tenant, kind, &b, masked, NULL, 0,
		    true);
		if (e == FB_EDUP)
			die(1, "%s is already a test recipient", masked);
		check(e, "add the test recipient");
		audit_commit(tenant, "test_recipient.add", "test_recipient", id);
	} else {
		check(db_test_recipient_delete(&db, tenant, kind, &b, &r),
		    "remove the test recipient");
		if (r.n == 0)
			die(1, "%s is not a test recipient", masked);
		snprintf(id, sizeof(id), "%s", ((const struct test_recipient_row *)
		    r.row)->id);
		dbrows_free(&r);
		audit_commit(tenant, "test_recipient.remove", "test_recipient", id);
	}
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "kind", kind);
	jadd_str(out, "masked", masked);
	print(out);
}

static void
cmd_tenant(int argc, char *argv[])
{
	struct opts	 o;
	const char	*name, *plan, *rl;
	char		 id[UUID_STRLEN + 1], *end;
	long		 rate = -1;
	enum plan	 p;

	if (argc >= 1 && strcmp(argv[0], "set-quiet-hours") == 0) {
		cmd_quiet_hours(argc - 1, argv + 1);
		return;
	}
	if (argc >= 1 && strcmp(argv[0], "set-quota") == 0) {
		cmd_quota(argc - 1, argv + 1);
		return;
	}
	if (argc < 1 || strcmp(argv[0], "create") != 0)
		usage();
	parse_opts(argc - 1, argv + 1, "name|plan|rate-limit", &o);
	name = opt(&o, "name", true);
	if ((plan = opt(&o, "plan", false)) == NULL)
		plan = "free";
	if (!plan_parse(plan, &p))
		die(2, "option '--plan': unknown plan '%s'", plan);
	if ((rl = opt(&o, "rate-limit", false)) != NULL) {
		rate = strtol(rl, &end, 10);
		if (*rl == '\0' || *end != '\0' || rate < 1 || rate > 1000000)
			die(2, "option '--rate-limit': expected 1 to 1000000");
	}
	if (!site_name_ok(name))
		die(2, "option '--name': 1 to 200 characters of UTF-8 on one line, "
		    "not all spaces");
	connect_db();
	uuid_v7(id);
	check(db_tenant_create(&db, id, name, plan, (int)rate), "create the tenant");
	audit_commit(id, "tenant.create", "tenant", id);
	print_id(id);
}

/*
 * member set-password --id M: the first line of standard input, checked
 * by the same rule as the admin API (session.h); every session of the
 * member ends.  The password is never echoed, logged or audited.
 */
static void
member_set_password(int argc, char *argv[])
{
	struct opts	 o;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 pw[PASSWORD_MAX_BYTES + 2], ph[PASSWORD_HASH_MAX];
	char		 mrole[16], mstatus[16];
	struct dbrows	 m;
	size_t		 n;
	bool		 ok;
	enum fb_err	 e;

	parse_opts(argc - 1, argv + 1, "id", &o);
	opt_uuid(&o, "id", id);
	if (fgets(pw, sizeof(pw), stdin) == NULL)
		die(2, "no password on standard input");
	n = strcspn(pw, "\r\n");
	if (pw[n] == '\0' && n > PASSWORD_MAX_BYTES) {
		sodium_memzero(pw, sizeof(pw));
		die(2, "the password is longer than %d bytes", PASSWORD_MAX_BYTES);
	}
	pw[n] = '\0';
	connect_db();
	e = db_member_tenant(&db, id, tenant, mrole, sizeof(mrole), mstatus,
	    sizeof(mstatus));
	if (e == FB_OK)
		e = db_member_get(&db, tenant, id, &m);
	if (e == FB_ENOTFOUND || (e == FB_OK && strcmp(mstatus, "deleted") == 0)) {
		sodium_memzero(pw, sizeof(pw));
		die(1, "member '%s' not found", id);
	}
	check(e, "look the member up");
	ok = password_acceptable(pw, ((const struct member_row *)m.row)->email);
	dbrows_free(&m);
	if (!ok) {
		sodium_memzero(pw, sizeof(pw));
		die(2, "the password must have %d characters or more, no control "
		    "characters, and not be the member's email address",
		    PASSWORD_MIN_CHARS);
	}
	e = password_hash(pw, ph);
	sodium_memzero(pw, sizeof(pw));
	check(e, "hash the password");
	check(db_member_set_password(&db, id, ph), "set the password");
	check(db_member_sessions_end(&db, id, NULL), "end the member's sessions");
	audit_commit(tenant, "member.set_password", "member", id);
	print_id(id);
}

static void
cmd_member(int argc, char *argv[])
{
	static const char *const roles[] = { "owner", "admin", "member", "viewer",
	    NULL };
	struct opts	 o;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 mrole[16], mstatus[16], email[MEMBER_EMAIL_MAX + 1];
	const char	*in, *role, *status;
	struct dbrows	 m;
	bool		 invite;
	enum fb_err	 e;

	if (argc < 1)
		usage();
	if (strcmp(argv[0], "set-password") == 0) {
		member_set_password(argc, argv);
		return;
	}
	invite = strcmp(argv[0], "invite") == 0;
	if (invite || strcmp(argv[0], "create") == 0) {
		parse_opts(argc - 1, argv + 1, "tenant|email|role", &o);
		opt_uuid(&o, "tenant", tenant);
		in = opt(&o, "email", true);
		if ((role = opt(&o, "role", false)) == NULL)
			role = "member";
		if (!one_of(role, roles))
			die(2, "option '--role': expected owner, admin, member or viewer");
		if (!member_email(in, email))
			die(2, "option '--email': '%s' is not an email address", in);
		connect_db();
		need_tenant(tenant);
		e = db_member_by_email(&db, tenant, email, &m);
		if (e == FB_OK && invite &&
		    strcmp(((const struct member_row *)m.row)->status, "active") == 0) {
			/* an invitation again: a new link, the old ones expire */
			snprintf(id, sizeof(id), "%s",
			    ((const struct member_row *)m.row)->id);
			dbrows_free(&m);
		} else if (e == FB_OK) {
			dbrows_free(&m);
			die(1, "member '%s' already exists in this tenant", email);
		} else if (e != FB_ENOTFOUND) {
			check(e, "look the member up");
		} else {
			uuid_v7(id);
			e = db_member_create(&db, id, tenant, email, role);
			if (e == FB_EDUP)
				die(1, "member '%s' already exists in this tenant", email);
			check(e, "create the member");
		}
		if (invite)
			check(member_invite(&db, tenant, id), "queue the invitation");
		audit_commit(tenant, invite ? "member.invite" : "member.create",
		    "member", id);
		print_id(id);
		return;
	}
	if (strcmp(argv[0], "suspend") == 0)
		status = "suspended";
	else if (strcmp(argv[0], "delete") == 0)
		status = "deleted";
	else
		usage();
	parse_opts(argc - 1, argv + 1, "id", &o);
	opt_uuid(&o, "id", id);
	connect_db();
	/* a deleted member stays deleted */
	e = db_member_tenant(&db, id, tenant, mrole, sizeof(mrole), mstatus,
	    sizeof(mstatus));
	if (e == FB_ENOTFOUND)
		die(1, "member '%s' not found", id);
	check(e, "look the member up");
	if (strcmp(mstatus, "deleted") == 0)
		die(1, "member '%s' is deleted: there is no way back", id);
	e = db_member_set_status(&db, id, status, tenant);
	if (e == FB_ENOTFOUND)
		die(1, "member '%s' not found", id);
	check(e, "update the member");
	check(db_auth_epoch_bump(&db, tenant), "invalidate cached keys");
	check(db_member_sessions_end(&db, id, NULL), "end the member's sessions");
	audit_commit(tenant, strcmp(status, "deleted") == 0 ? "member.delete" :
	    "member.suspend", "member", id);
	print_id(id);
}

/*
 * site release --id S [--leads keep|discard]: sending resumes for a site a
 * flood of new leads held before migration 0034 (since, a flood's leads
 * are quarantined per batch instead: quarantine release|discard); with
 * discard, the unfinished leads captured from the hour before the hold
 * on are suppressed (lead_ineligible) with what was to be sent to them.
 */
static void
site_release(int argc, char *argv[])
{
	static const char *const how[] = { "keep", "discard", NULL };
	struct opts	 o;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	const char	*leads;
	unsigned long long n;
	bool		 released;
	json_object	*out;
	enum fb_err	 e;

	parse_opts(argc, argv, "id|leads", &o);
	opt_uuid(&o, "id", id);
	if ((leads = opt(&o, "leads", false)) == NULL)
		leads = "keep";
	if (!one_of(leads, how))
		die(2, "option '--leads': expected keep or discard");
	connect_db();
	if ((e = db_site_tenant(&db, id, tenant)) == FB_ENOTFOUND)
		die(1, "site '%s' not found", id);
	check(e, "find the site");
	check(db_site_release(&db, tenant, id, strcmp(leads, "discard") == 0,
	    &released, &n), "release the site");
	if (!released)
		die(1, "site '%s': its sending is not held", id);
	audit_commit(tenant, "site.sending_released", "site", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_int(out, "discarded_leads", (long long)n);
	print(out);
}

/* Print batches rows[0 .. n) (struct flood_batch_row), one or a list. */
static void
print_batches(const struct dbrows *rows, bool list)
{
	const struct flood_batch_row *q = rows->row;
	struct buf	 b;
	struct jgen	 j;
	size_t		 i;

	buf_init(&b, 1u << 20);
	jgen_begin(&j, &b);
	jg_obj(&j, NULL);
	if (list)
		jg_arr(&j, "data");
	for (i = 0; i < rows->n; i++) {
		if (list)
			jg_obj(&j, NULL);
		quarantine_gen(&j, &q[i]);
		if (list)
			jg_obj_end(&j);
	}
	if (list)
		jg_arr_end(&j);
	jg_obj_end(&j);
	check(jgen_end(&j), "write the answer");
	puts(b.data);
	buf_release(&b);
}

/*
 * quarantine list --tenant T [--status S]: the tenant's 200 newest
 * batches of a flood's leads (formback.fcgi(8) "Abuse limits");
 * quarantine release|discard --id Q: as the admin API's, audited.
 */
static void
cmd_quarantine(int argc, char *argv[])
{
	static const char *const states[] = { "quarantined", "released",
	    "discarded", NULL };
	struct opts	 o;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	const char	*status;
	unsigned long long n;
	struct dbrows	 rows;
	bool		 release, decided;
	enum fb_err	 e;

	if (argc >= 1 && strcmp(argv[0], "list") == 0) {
		parse_opts(argc - 1, argv + 1, "tenant|status", &o);
		opt_uuid(&o, "tenant", tenant);
		if ((status = opt(&o, "status", false)) != NULL &&
		    !one_of(status, states))
			die(2, "option '--status': expected quarantined, "
			    "released or discarded");
		connect_db();
		need_tenant(tenant);
		check(db_flood_batch_list(&db, tenant, status, NULL, 200,
		    &rows), "list the batches");
		print_batches(&rows, true);
		dbrows_free(&rows);
		return;
	}
	if (argc < 1 || (strcmp(argv[0], "release") != 0 &&
	    strcmp(argv[0], "discard") != 0))
		usage();
	release = strcmp(argv[0], "release") == 0;
	parse_opts(argc - 1, argv + 1, "id", &o);
	opt_uuid(&o, "id", id);
	connect_db();
	if ((e = db_flood_batch_tenant(&db, id, tenant)) == FB_ENOTFOUND)
		die(1, "quarantine '%s' not found", id);
	check(e, "find the batch");
	check(db_flood_batch_decide(&db, tenant, id, release, &decided, &n),
	    release ? "release the batch" : "discard the batch");
	if (!decided)
		die(1, "quarantine '%s' is released or discarded already", id);
	check(db_flood_batch_get(&db, tenant, id, &rows), "read the batch");
	audit_commit(tenant, release ? "quarantine.release" :
	    "quarantine.discard", "quarantine", id);
	print_batches(&rows, false);
	dbrows_free(&rows);
}

/*
 * site set --id S --privacy-policy-url U: the page formback-webhooks
 * checks (formback.fcgi(8) "Privacy-policy checks"); an empty U clears it.
 * http or https, kept as the URL parser serializes it, on a public
 * address (the rule of webhook URLs).
 */
static void
site_set(int argc, char *argv[])
{
	struct opts	 o;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1], url[URL_MAX + 1];
	const char	*in, *why;
	json_object	*out;
	enum fb_err	 e;

	parse_opts(argc, argv, "id|privacy-policy-url", &o);
	opt_uuid(&o, "id", id);
	in = opt(&o, "privacy-policy-url", true);
	connect_db();
	if (*in != '\0' && !net_url_ok(&conf, in, false, url, &why))
		die(2, "option '--privacy-policy-url': %s", why);
	if ((e = db_site_tenant(&db, id, tenant)) == FB_ENOTFOUND)
		die(1, "site '%s' not found", id);
	check(e, "find the site");
	check(db_site_set_pp_url(&db, tenant, id, *in != '\0' ? url : NULL),
	    "set the privacy-policy URL");
	audit_commit(tenant, "site.privacy_policy_url", "site", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "privacy_policy_url", *in != '\0' ? url : NULL);
	print(out);
}

static void
cmd_site(int argc, char *argv[])
{
	struct opts	 o;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1], pk[32];
	char		 host[SITE_DOMAIN_MAX + 1];
	const char	*name, *domain;
	json_object	*out;

	if (argc >= 1 && strcmp(argv[0], "release") == 0) {
		site_release(argc - 1, argv + 1);
		return;
	}
	if (argc >= 1 && strcmp(argv[0], "set") == 0) {
		site_set(argc - 1, argv + 1);
		return;
	}
	if (argc < 1 || strcmp(argv[0], "create") != 0)
		usage();
	parse_opts(argc - 1, argv + 1, "tenant|name|domain", &o);
	opt_uuid(&o, "tenant", tenant);
	name = opt(&o, "name", true);
	domain = opt(&o, "domain", true);
	if (!site_name_ok(name))
		die(2, "option '--name': 1 to 200 characters of UTF-8 on one line, "
		    "not all spaces");
	if (!site_domain(domain, host))
		die(2, "option '--domain': '%s' is not a host name", domain);
	connect_db();
	need_tenant(tenant);
	uuid_v7(id);
	site_public_key(pk);
	check(db_site_create(&db, id, tenant, name, host, pk), "create the site");
	audit_commit(tenant, "site.create", "site", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "public_key", pk);
	print(out);
}

static void
cmd_apikey(int argc, char *argv[])
{
	static const char *const kinds[] = { "live", "test", NULL };
	struct opts	 o;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 member[UUID_STRLEN + 1], owner[UUID_STRLEN + 1];
	char		 key[APIKEY_MAX_LEN + 1], role[16], mstatus[16];
	const char	*kind, *scopes;
	uint32_t	 bits;
	json_object	*out;
	enum fb_err	 e;

	if (argc < 1)
		usage();
	if (strcmp(argv[0], "revoke") == 0) {
		parse_opts(argc - 1, argv + 1, "id", &o);
		opt_uuid(&o, "id", id);
		connect_db();
		e = db_apikey_revoke(&db, id, tenant);
		if (e == FB_ENOTFOUND)
			die(1, "API key '%s' not found", id);
		check(e, "revoke the API key");
		check(db_auth_epoch_bump(&db, tenant), "invalidate cached keys");
		audit_commit(tenant, "apikey.revoke", "api_key", id);
		print_id(id);
		return;
	}
	if (strcmp(argv[0], "create") != 0)
		usage();
	parse_opts(argc - 1, argv + 1, "tenant|member|kind|scopes", &o);
	opt_uuid(&o, "tenant", tenant);
	opt_uuid(&o, "member", member);
	kind = opt(&o, "kind", true);
	scopes = opt(&o, "scopes", true);
	if (!one_of(kind, kinds))
		die(2, "option '--kind': expected live or test");
	if (!scope_parse(scopes, &bits) || bits == 0)
		die(2, "option '--scopes': expected all or a comma-separated "
		    "list of scopes such as sites:read,campaigns:write");
	connect_db();
	need_tenant(tenant);
	e = db_member_tenant(&db, member, owner, role, sizeof(role), mstatus,
	    sizeof(mstatus));
	if (e == FB_ENOTFOUND || (e == FB_OK && strcmp(owner, tenant) != 0))
		die(1, "member '%s' not found in tenant '%s'", member, tenant);
	check(e, "look the member up");
	/* contract: Authentication 4 */
	if (strcmp(role, "owner") != 0 && strcmp(role, "admin") != 0)
		die(1, "member '%s' is a %s: only an owner or an admin may "
		    "issue API keys", member, role);
	/* its keys would never work (contract: Authentication 5) */
	if (strcmp(mstatus, "active") != 0)
		die(1, "member '%s' is %s: only an active member may issue API "
		    "keys", member, mstatus);
	check(apikey_issue(&db, tenant, member, strcmp(kind, "test") == 0, bits,
	    id, key), "create the API key");
	audit_commit(tenant, "apikey.create", "api_key", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "key", key);
	print(out);
	sodium_memzero(key, sizeof(key));
}

/* A status change changes what the site publishes (design 2). */
static void
republish_campaign_site(const char *tenant, const char *campaign)
{
	struct dbrows	 c;
	char		 err[512];

	if (db_campaign_get(&db, tenant, campaign, &c) != FB_OK)
		return;
	if (publish_now(&db, &conf, tenant,
	    ((const struct campaign_row *)c.row)->site_id, err, sizeof(err)) != FB_OK)
		fprintf(stderr, "formbackctl: warning: publishing failed: %s "
		    "(run formbackctl publish)\n", err);
	dbrows_free(&c);
}

/* Rebuild the published tag configurations from the database. */
static void
cmd_publish(int argc, char *argv[])
{
	struct opts	 o;
	struct dbrows	 sites;
	const struct site_ref_row *s;
	json_object	*out, *ok, *failed;
	char		 site[UUID_STRLEN + 1], err[512];
	size_t		 i;
	bool		 one;

	parse_opts(argc, argv, "site", &o);
	one = opt(&o, "site", false) != NULL;
	if (one)
		opt_uuid(&o, "site", site);
	connect_db();
	check(db_sites_all(&db, &sites), "list the sites");
	db_rollback(&db);
	ok = json_object_new_array();
	failed = json_object_new_array();
	for (i = 0, s = sites.row; i < sites.n; i++) {
		if (one && strcmp(s[i].id, site) != 0)
			continue;
		if (publish_now(&db, &conf, s[i].tenant_id, s[i].id, err,
		    sizeof(err)) == FB_OK)
			json_object_array_add(ok, json_object_new_string(s[i].id));
		else {
			fprintf(stderr, "formbackctl: site '%s': %s\n", s[i].id, err);
			json_object_array_add(failed, json_object_new_string(s[i].id));
		}
	}
	dbrows_free(&sites);
	if (one && json_object_array_length(ok) + json_object_array_length(failed) == 0)
		die(1, "site '%s' not found", site);
	out = json_object_new_object();
	json_object_object_add(out, "published", ok);
	json_object_object_add(out, "failed", failed);
	if (json_object_array_length(failed) > 0) {
		print(out);
		exit(1);
	}
	print(out);
}

static void
cmd_campaign(int argc, char *argv[])
{
	static const char *const st[] = { "active", "paused", "archived", NULL };
	struct opts	 o;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	const char	*status;
	json_object	*out;
	enum fb_err	 e;

	if (argc < 1 || strcmp(argv[0], "set-status") != 0)
		usage();
	parse_opts(argc - 1, argv + 1, "id|status", &o);
	opt_uuid(&o, "id", id);
	status = opt(&o, "status", true);
	if (!one_of(status, st))
		die(2, "option '--status': expected active, paused or archived");
	connect_db();
	e = db_campaign_set_status(&db, id, status, tenant);
	if (e == FB_ENOTFOUND)
		die(1, "campaign '%s' not found", id);
	check(e, "update the campaign");
	audit_commit(tenant, "campaign.set_status", "campaign", id);
	republish_campaign_site(tenant, id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "status", status);
	print(out);
}

/*
 * The session-only transition of a scenario (design 4): activation runs
 * the same checks a session would (scenario_ready) and is refused with the
 * reason and the first offending field.
 */
static void
cmd_scenario(int argc, char *argv[])
{
	static const char *const st[] = { "draft", "active", "paused", NULL };
	struct opts	 o;
	struct dbrows	 r;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 campaign[UUID_STRLEN + 1], why[256], param[64];
	const char	*status;
	json_object	*out;
	bool		 ok;
	enum fb_err	 e;

	if (argc < 1 || strcmp(argv[0], "set-status") != 0)
		usage();
	parse_opts(argc - 1, argv + 1, "id|status", &o);
	opt_uuid(&o, "id", id);
	status = opt(&o, "status", true);
	if (!one_of(status, st))
		die(2, "option '--status': expected draft, active or paused");
	connect_db();
	if ((e = db_scenario_tenant(&db, id, tenant)) == FB_ENOTFOUND)
		die(1, "scenario '%s' not found", id);
	check(e, "look the scenario up");
	check(db_scenario_get(&db, tenant, id, &r), "read the scenario");
	snprintf(campaign, sizeof(campaign), "%s",
	    ((const struct scenario_row *)r.row)->campaign_id);
	dbrows_free(&r);
	if (strcmp(status, "active") == 0) {
		check(scenario_ready(&db, &conf, tenant, id, campaign, &ok, why,
		    sizeof(why), param, sizeof(param)), "check the scenario");
		if (!ok)
			die(1, "cannot activate scenario '%s': %s (field '%s')", id,
			    why, param);
	}
	check(db_scenario_set_status(&db, tenant, id, status), "update the scenario");
	audit_commit(tenant, "scenario.set_status", "scenario", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "status", status);
	print(out);
}

/*
 * A conversion reported from outside the tag (contract: Lead
 * conversion_source cart_api, manual): converts the lead, cancels its
 * pending deliveries, writes conversion.detected to the outbox.
 */
static void
cmd_lead(int argc, char *argv[])
{
	struct opts	 o;
	struct dbrows	 r;
	const struct lead_owner_row *l;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1], at[32];
	const char	*source;
	json_object	*out;
	bool		 changed;
	enum fb_err	 e;

	if (argc < 1 || strcmp(argv[0], "convert") != 0)
		usage();
	parse_opts(argc - 1, argv + 1, "id|source", &o);
	opt_uuid(&o, "id", id);
	if ((source = opt(&o, "source", false)) == NULL)
		source = "manual";
	if (strcmp(source, "manual") != 0 && strcmp(source, "cart_api") != 0)
		die(2, "option '--source': expected manual or cart_api");
	connect_db();
	if ((e = db_lead_owner(&db, id, &r)) == FB_ENOTFOUND)
		die(1, "lead '%s' not found", id);
	check(e, "look the lead up");
	l = r.row;
	snprintf(tenant, sizeof(tenant), "%s", l->tenant_id);
	time_sql((int64_t)time(NULL), at);
	check(lead_convert(&db, l, source, at, &changed), "convert the lead");
	if (!changed)
		die(1, "lead '%s' is already converted or suppressed", id);
	dbrows_free(&r);
	audit_commit(tenant, "lead.convert", "lead", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "status", "converted");
	jadd_str(out, "conversion_source", source);
	print(out);
}

/*
 * webhook enable --id E (issue 40): a stopped endpoint sends again, its
 * failures and any pause forgotten, as the admin UI's "enable" does
 * (hookrules.h); its records that ended "endpoint stopped" stay so (the
 * admin UI recovers them).
 */
static void
cmd_webhook(int argc, char *argv[])
{
	struct opts	 o;
	struct hook_endpoint st;
	struct dbrows	 row;
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	json_object	*out;
	enum fb_err	 e;

	if (argc < 1 || strcmp(argv[0], "enable") != 0)
		usage();
	parse_opts(argc - 1, argv + 1, "id", &o);
	opt_uuid(&o, "id", id);
	connect_db();
	if ((e = db_webhook_owner(&db, id, tenant)) == FB_ENOTFOUND)
		die(1, "webhook endpoint '%s' not found", id);
	check(e, "look the endpoint up");
	check(db_webhook_state_lock(&db, tenant, id, &row, &st),
	    "lock the endpoint");
	dbrows_free(&row);
	hook_endpoint_enable(&st);
	check(db_webhook_state_set(&db, tenant, id, &st),
	    "enable the endpoint");
	audit_commit(tenant, "webhook_endpoint.enable", "webhook_endpoint", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "status", "enabled");
	print(out);
}

static void
cmd_delivery_switch(int argc, char *argv[])
{
	static const char *const modes[] = { "off", "test_only", "live", NULL };
	struct opts	 o;
	char		 tenant[UUID_STRLEN + 1];
	const char	*mode;
	json_object	*out;
	enum fb_err	 e;

	parse_opts(argc, argv, "tenant|mode", &o);
	opt_uuid(&o, "tenant", tenant);
	mode = opt(&o, "mode", true);
	if (!one_of(mode, modes))
		die(2, "option '--mode': expected off, test_only or live");
	connect_db();
	e = db_delivery_switch(&db, tenant, mode);
	if (e == FB_ENOTFOUND)
		die(1, "tenant '%s' not found", tenant);
	check(e, "set the delivery switch");
	audit_commit(tenant, "delivery_switch.set", "tenant", tenant);
	out = json_object_new_object();
	jadd_str(out, "tenant_id", tenant);
	jadd_str(out, "mode", mode);
	print(out);
}

int
main(int argc, char *argv[])
{
	char		 err[512];
	const char	*cpath = NULL;

	log_init("formbackctl", LOG_WARN);
	argc--, argv++;
	if (argc >= 2 && strcmp(argv[0], "-c") == 0) {
		cpath = argv[1];
		argc -= 2, argv += 2;
	}
	if (argc < 1 || strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0)
		usage();
	snprintf(command, sizeof(command), "%s%s%s", argv[0], argc > 1 &&
	    argv[1][0] != '-' ? " " : "", argc > 1 && argv[1][0] != '-' ? argv[1] : "");
	if (conf_load(&conf, cpath, err, sizeof(err)) != FB_OK)
		die(2, "%s", err);
	if (strcmp(argv[0], "migrate") == 0)
		cmd_migrate(argc - 1, argv + 1);
	else if (strcmp(argv[0], "tenant") == 0)
		cmd_tenant(argc - 1, argv + 1);
	else if (strcmp(argv[0], "member") == 0)
		cmd_member(argc - 1, argv + 1);
	else if (strcmp(argv[0], "site") == 0)
		cmd_site(argc - 1, argv + 1);
	else if (strcmp(argv[0], "quarantine") == 0)
		cmd_quarantine(argc - 1, argv + 1);
	else if (strcmp(argv[0], "apikey") == 0)
		cmd_apikey(argc - 1, argv + 1);
	else if (strcmp(argv[0], "campaign") == 0)
		cmd_campaign(argc - 1, argv + 1);
	else if (strcmp(argv[0], "delivery-switch") == 0)
		cmd_delivery_switch(argc - 1, argv + 1);
	else if (strcmp(argv[0], "lead") == 0)
		cmd_lead(argc - 1, argv + 1);
	else if (strcmp(argv[0], "webhook") == 0)
		cmd_webhook(argc - 1, argv + 1);
	else if (strcmp(argv[0], "scenario") == 0)
		cmd_scenario(argc - 1, argv + 1);
	else if (strcmp(argv[0], "publish") == 0)
		cmd_publish(argc - 1, argv + 1);
	else if (strcmp(argv[0], "usage") == 0)
		cmd_usage(argc - 1, argv + 1);
	else if (strcmp(argv[0], "test-recipient") == 0)
		cmd_test_recipient(argc - 1, argv + 1);
	else if (strcmp(argv[0], "status") == 0)
		cmd_status(argc - 1, argv + 1);
	else if (strcmp(argv[0], "tag-queue") == 0)
		cmd_tag_queue(argc - 1, argv + 1);
	else if (strcmp(argv[0], "check-db") == 0)
		cmd_check_db(argc - 1, argv + 1);
	else
		usage();
	db_close(&db);
	conf_free(&conf);
	return 0;
}
