/*
 * src/db/member.c: members, sessions, sign-in throttling, invitation and
 * reset links, API keys, the audit log as the admin API shows them;
 * store.h includes every such header.
 */
#ifndef FORMBACK_DB_MEMBER_H
#define FORMBACK_DB_MEMBER_H

#include "db.h"

/*
 * db/member.c: members' sign-in, sessions, invitations and the audit log
 * (migration 0020; issue 16).
 */

/* Whether member m has TOTP active (migration 0040; db/twofactor.c). */
#define MEMBER_TOTP_SQL "EXISTS (SELECT 1 FROM member_totp x WHERE " \
	"x.member_id = m.id AND x.confirmed_at IS NOT NULL)"

/*
 * A member who may be signing in with an address, with the tenant's
 * name, and whether a second factor follows the password.
 */
#define SIGNIN_COLS(F, N) F(id, TEXT, "m.id") N(tenant_id, TEXT, \
    "m.tenant_id") \
	N(tenant_name, TEXT, "t.name") N(role, TEXT, "m.role") \
	N(status, TEXT, "m.status") N(password_hash, TEXT, "m.password_hash") \
	N(totp, BOOL, MEMBER_TOTP_SQL)
struct signin_row { DB_FIELDS(SIGNIN_COLS) };
/*
 * Up to 10 members with this address (lower-cased), of tenant `tenant`
 * when not NULL, oldest first.
 */
enum fb_err db_signin_members(struct db *, const char *email,
    const char *tenant, struct dbrows *out) FB_WUR;
/*
 * The sign-in throttle of two subjects (hashes of "account:<address>"
 * and "address:<client>"): *wait the seconds until the later of their
 * blocks ends, 0 when neither is blocked.
 */
enum fb_err db_throttle_wait(struct db *, const unsigned char *account,
	    const unsigned char *address, long long *wait) FB_WUR;
/*
 * Count a failure of subject `hash`; from the `free`-th failure within a
 * day it is blocked for 30 s, doubling with each further failure, 15 min
 * at most.  Autocommit: a failure is counted even as the answer is 401.
 */
enum fb_err db_throttle_fail(struct db *, const unsigned char *hash,
    int free) FB_WUR;
/* Forget subject `hash`'s failures (a sign-in that succeeded). */
enum fb_err db_throttle_clear(struct db *, const unsigned char *hash) FB_WUR;

/* A session as it authenticates a request, with its member and tenant. */
#define SESSION_AUTH_COLS(F, N) F(id, TEXT, "s.id") \
	N(tenant_id, TEXT, "s.tenant_id") N(member_id, TEXT, "s.member_id") \
	N(email, TEXT, "m.email") N(role, TEXT, "m.role") \
	N(member_status, TEXT, "m.status") N(plan, TEXT, "t.plan") \
	N(rate_limit, INT, "COALESCE(t.rate_limit, -1)") \
	N(auth_epoch, INT, "t.auth_epoch") \
	N(dead, BOOL, "s.ended_at IS NOT NULL OR s.expires_at <= NOW(6) " \
	    "OR s.last_seen_at <= NOW(6) - INTERVAL ? SECOND") \
	N(stale, BOOL, "s.last_seen_at <= NOW(6) - INTERVAL 60 SECOND") \
	N(expires_at, TIME, "s.expires_at") N(tenant_name, TEXT, "t.name") \
	N(two_factor_required, BOOL, "t.two_factor_required") \
	N(totp, BOOL, MEMBER_TOTP_SQL)
struct session_auth_row { DB_FIELDS(SESSION_AUTH_COLS) };
/*
 * One struct session_auth_row by token hash, dead after `idle` seconds
 * without a request; FB_ENOTFOUND when none.
 */
enum fb_err db_session_lookup(struct db *, const unsigned char *hash, int idle,
	    struct dbrows *out) FB_WUR;
/*
 * Another tenant where the address is an active member with a password,
 * as the session's answer lists it (SessionOut `tenants`; issue 42).
 */
#define MEMBER_TENANT_COLS(F, N) F(id, TEXT, "t.id") N(name, TEXT, "t.name") \
	N(role, TEXT, "m.role")
struct member_tenant_row { DB_FIELDS(MEMBER_TENANT_COLS) };
/*
 * Up to 50 struct member_tenant_row: the tenants but `tenant` where
 * `email` (as stored, lower-cased) is an active member who has a
 * password, by name; none is not an error.
 */
enum fb_err db_member_tenants(struct db *, const char *email,
	    const char *tenant, struct dbrows *out) FB_WUR;
/* A new session of SESSION_MAX_SECONDS, in the caller's transaction. */
enum fb_err db_session_create(struct db *, const char *id, const char *tenant,
	    const char *member, const unsigned char *hash,
	    const char *client_addr, int max_seconds) FB_WUR;
/* Stamp the session's last request (the idle expiry starts again). */
enum fb_err db_session_touch(struct db *, const char *id) FB_WUR;
/* End one session (sign-out, or found dead). */
enum fb_err db_session_end(struct db *, const char *id) FB_WUR;
/*
 * End every session of a member (suspended, deleted, password changed)
 * but `keep` when not NULL.
 */
enum fb_err db_member_sessions_end(struct db *, const char *member,
	    const char *keep) FB_WUR;

/* A member as the admin API shows it (MemberOut). */
#define MEMBER_COLS(F, N) F(id, TEXT, "m.id") N(email, TEXT, "m.email") \
	N(role, TEXT, "m.role") N(status, TEXT, "m.status") \
	N(has_password, BOOL, "m.password_hash IS NOT NULL") \
	N(two_factor_enabled, BOOL, MEMBER_TOTP_SQL) \
	N(last_seen_at, TIME, "(SELECT MAX(s.last_seen_at) FROM sessions s " \
	    "WHERE s.member_id = m.id)") \
	N(created_at, TIME, "m.created_at")
struct member_row { DB_FIELDS(MEMBER_COLS) };
/*
 * Members not deleted, newest first, ids below `before` (NULL: from the top).
 */
enum fb_err db_member_list(struct db *, const char *tenant, const char *before,
	    int n, struct dbrows *out) FB_WUR;
/* One struct member_row (deleted ones too); FB_ENOTFOUND when none. */
enum fb_err db_member_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *out) FB_WUR;
/* A member of `tenant` by address; FB_ENOTFOUND when none. */
enum fb_err db_member_by_email(struct db *, const char *tenant,
    const char *email, struct dbrows *out) FB_WUR;
enum fb_err db_member_set_role(struct db *, const char *tenant, const char *id,
	    const char *role) FB_WUR;
/* Set the password (an Argon2id string); FB_ENOTFOUND when no such member. */
enum fb_err db_member_set_password(struct db *, const char *id,
	    const char *hash) FB_WUR;
/*
 * The tenant's active owners, counted under the tenant's row lock (two
 * demotions cannot both leave one).
 */
enum fb_err db_owners_locked(struct db *, const char *tenant,
    long long *n) FB_WUR;

/*
 * A one-time link (purpose invite|reset) for a member, valid `seconds`;
 * the member's earlier unused links expire.  formback-deliver mails it.
 */
enum fb_err db_invitation_add(struct db *, const char *id, const char *tenant,
	    const char *member, const char *purpose, int seconds) FB_WUR;
/* Whether the member has a link of `purpose` made in the last 5 minutes. */
enum fb_err db_invitation_recent(struct db *, const char *member,
	    const char *purpose, bool *recent) FB_WUR;
/* A link to mail, with the member's address and the tenant's name. */
#define INVITE_SEND_COLS(F, N) F(id, TEXT, "i.id") \
	N(tenant_id, TEXT, "i.tenant_id") N(purpose, TEXT, "i.purpose") \
	N(email, TEXT, "m.email") N(tenant_name, TEXT, "t.name") \
	N(expires_at, TIME, "i.expires_at")
struct invite_send_row { DB_FIELDS(INVITE_SEND_COLS) };
/* Up to 20 links not mailed and not expired, locked, no other pass's. */
enum fb_err db_invitation_claim(struct db *, struct dbrows *out) FB_WUR;
/* Record the mailed token's hash. */
enum fb_err db_invitation_sent(struct db *, const char *id,
	    const unsigned char *hash) FB_WUR;
/* A link by its token's hash, locked. */
#define INVITE_COLS(F, N) F(id, TEXT, "i.id") N(tenant_id, TEXT, \
    "i.tenant_id") \
	N(member_id, TEXT, "i.member_id") N(purpose, TEXT, "i.purpose") \
	N(email, TEXT, "m.email") N(member_status, TEXT, "m.status") \
	N(usable, BOOL, "i.used_at IS NULL AND i.expires_at > NOW(6)")
struct invite_row { DB_FIELDS(INVITE_COLS) };
/* One struct invite_row; FB_ENOTFOUND when no link has this hash. */
enum fb_err db_invitation_by_token(struct db *, const unsigned char *hash,
	    struct dbrows *out) FB_WUR;
enum fb_err db_invitation_use(struct db *, const char *id) FB_WUR;

/*
 * Retention (formback-deliver): sessions and one-time links 30 days past
 * their expiry, sign-in failures a day old and no longer blocking,
 * two-factor challenges a day past their expiry (db_challenge_purge());
 * 10,000 rows of each at most, autocommit.
 */
enum fb_err db_member_purge(struct db *) FB_WUR;

/* An API key as the admin API lists it (never its hash). */
#define APIKEY_COLS(F, N) F(id, TEXT, "k.id") N(kind, TEXT, "k.kind") \
	N(name, TEXT, "k.name") N(prefix, TEXT, "k.key_prefix") \
	N(scopes, TEXT, "k.scopes") N(member_id, TEXT, "k.member_id") \
	N(created_at, TIME, "k.created_at") \
	N(revoked_at, TIME, "k.revoked_at") \
	N(last_used_at, TIME, "k.last_used_at")
struct apikey_row { DB_FIELDS(APIKEY_COLS) };
enum fb_err db_apikey_list(struct db *, const char *tenant, const char *before,
	    int n, struct dbrows *out) FB_WUR;
/* One struct apikey_row; FB_ENOTFOUND when none. */
enum fb_err db_apikey_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *out) FB_WUR;
enum fb_err db_apikey_name(struct db *, const char *id,
    const char *name) FB_WUR;
/*
 * The keys member `member` of `tenant` issued that are not revoked,
 * oldest first, locked for update (apikey_follow_role()).
 */
enum fb_err db_apikey_of_member(struct db *, const char *tenant,
	    const char *member, struct dbrows *out) FB_WUR;
/* Set key `id`'s scopes (as scope_format() writes them). */
enum fb_err db_apikey_scopes(struct db *, const char *id,
	    const char *scopes) FB_WUR;
/* Stamp a key's last use, at most once a minute. */
enum fb_err db_apikey_used(struct db *, const char *id) FB_WUR;

/* An audit-log row as the admin API shows it. */
#define AUDIT_COLS(F, N) F(id, TEXT, "id") N(actor_type, TEXT, "actor_type") \
	N(actor_id, TEXT, "actor_id") N(request_id, TEXT, "request_id") \
	N(action, TEXT, "action") N(target_type, TEXT, "target_type") \
	N(target_id, TEXT, "target_id") N(detail, JSON, "detail") \
	N(created_at, TIME, "created_at")
struct audit_row { DB_FIELDS(AUDIT_COLS) };
enum fb_err db_audit_list(struct db *, const char *tenant, const char *before,
	    int n, struct dbrows *out) FB_WUR;

#endif
