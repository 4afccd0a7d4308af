/*
 * formbackctl member create | invite | set-password | suspend | delete |
 * totp-reset:
 * a tenant's people (formbackctl(8); contract: Authentication 4, 5).
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "ctl/ctl.h"
#include "ops/member.h"
#include "session.h"
#include "db/store.h"

/*
 * The member of `tenant` at `email` for member create or invite: a new
 * one, or with invite an active one again (a new link; the old ones
 * expire).  Its id into `id`.
 */
static void
member_for(struct ctl *c, const char *tenant, const char *email,
    const char *role, bool invite, char id[UUID_STRLEN + 1])
{
	const struct member_row *m;
	struct dbrows	 r;
	enum fb_err	 e;

	e = db_member_by_email(&c->db, tenant, email, &r);
	m = e == FB_OK ? r.row : NULL;
	if (m != NULL && invite && strcmp(m->status, "active") == 0) {
		snprintf(id, UUID_STRLEN + 1, "%s", m->id);
		dbrows_free(&r);
	} else if (e == FB_OK) {
		dbrows_free(&r);
		ctl_die(c, 1, "member '%s' already exists in this tenant",
		    email);
	} else if (e != FB_ENOTFOUND) {
		ctl_check(c, e, "look the member up");
	} else {
		e = member_create(&c->db, tenant, email, role, id);
		if (e == FB_EDUP)
			ctl_die(c, 1, "member '%s' already exists in this "
			    "tenant", email);
		ctl_check(c, e, "create the member");
	}
}

/* member create | invite --tenant T --email E [--role R] */
static void
member_create_invite(struct ctl *c)
{
	static const char *const roles[] = { "owner", "admin", "member",
	    "viewer", NULL };
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 email[MEMBER_EMAIL_MAX + 1];
	const char	*in, *role;
	bool		 invite = strcmp(c->verb, "invite") == 0;

	ctl_opt_uuid(c, "tenant", tenant);
	in = ctl_opt(c, "email", true);
	if ((role = ctl_opt(c, "role", false)) == NULL)
		role = "member";
	if (!one_of(role, roles))
		ctl_die(c, 2, "option '--role': expected owner, admin, member "
		    "or viewer");
	if (!member_email(in, email))
		ctl_die(c, 2, "option '--email': '%s' is not an email address",
		    in);
	ctl_connect(c);
	ctl_need_tenant(c, tenant);
	member_for(c, tenant, email, role, invite, id);
	if (invite)
		ctl_check(c, member_invite(&c->db, tenant, id),
		    "queue the invitation");
	ctl_audit_commit(c, tenant, invite ? "member.invite" :
	    "member.create", "member", id);
	ctl_print_id(id);
}

/* Wipe the password read, then die. */
static void
die_wiped(struct ctl *c, char *pw, size_t n, int code, const char *msg)
{
	sodium_memzero(pw, n);
	ctl_die(c, code, "%s", msg);
}

/*
 * member set-password --id M: the first line of standard input, checked
 * by the same rule as the admin API (session.h); every session of the
 * member ends.  The password is never echoed, logged or audited.
 */
static void
member_set_password(struct ctl *c)
{
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 pw[PASSWORD_MAX_BYTES + 2], ph[PASSWORD_HASH_MAX];
	char		 mrole[16], mstatus[16], msg[160];
	struct dbrows	 m;
	size_t		 n;
	bool		 ok;
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	if (fgets(pw, sizeof(pw), stdin) == NULL)
		ctl_die(c, 2, "no password on standard input");
	n = strcspn(pw, "\r\n");
	if (pw[n] == '\0' && n > PASSWORD_MAX_BYTES) {
		snprintf(msg, sizeof(msg), "the password is longer than %d "
		    "bytes", PASSWORD_MAX_BYTES);
		die_wiped(c, pw, sizeof(pw), 2, msg);
	}
	pw[n] = '\0';
	ctl_connect(c);
	e = db_member_tenant(&c->db, id, tenant, mrole, sizeof(mrole),
	    mstatus, sizeof(mstatus));
	if (e == FB_OK)
		e = db_member_get(&c->db, tenant, id, &m);
	if (e == FB_ENOTFOUND ||
	    (e == FB_OK && strcmp(mstatus, "deleted") == 0)) {
		snprintf(msg, sizeof(msg), "member '%s' not found", id);
		die_wiped(c, pw, sizeof(pw), 1, msg);
	}
	ctl_check(c, e, "look the member up");
	ok = password_acceptable(pw, ((const struct member_row *)m.row)->email);
	dbrows_free(&m);
	if (!ok) {
		snprintf(msg, sizeof(msg), "the password must have %d "
		    "characters or more, no control characters, and not be "
		    "the member's email address", PASSWORD_MIN_CHARS);
		die_wiped(c, pw, sizeof(pw), 2, msg);
	}
	e = password_hash(pw, ph);
	sodium_memzero(pw, sizeof(pw));
	ctl_check(c, e, "hash the password");
	ctl_check(c, db_member_set_password(&c->db, id, ph),
	    "set the password");
	ctl_check(c, db_member_sessions_end(&c->db, id, NULL),
	    "end the member's sessions");
	ctl_audit_commit(c, tenant, "member.set_password", "member", id);
	ctl_print_id(id);
}

/*
 * member suspend | delete --id M: the member's keys stop and its
 * sessions end (contract: Authentication 5); a deleted member stays so.
 */
static void
member_stop(struct ctl *c)
{
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 mrole[16], mstatus[16];
	bool		 del = strcmp(c->verb, "delete") == 0;
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	ctl_connect(c);
	e = db_member_tenant(&c->db, id, tenant, mrole, sizeof(mrole),
	    mstatus, sizeof(mstatus));
	if (e == FB_ENOTFOUND)
		ctl_die(c, 1, "member '%s' not found", id);
	ctl_check(c, e, "look the member up");
	if (strcmp(mstatus, "deleted") == 0)
		ctl_die(c, 1, "member '%s' is deleted: there is no way back",
		    id);
	e = db_member_set_status(&c->db, id, del ? "deleted" : "suspended",
	    tenant);
	if (e == FB_ENOTFOUND)
		ctl_die(c, 1, "member '%s' not found", id);
	ctl_check(c, e, "update the member");
	ctl_check(c, db_auth_epoch_bump(&c->db, tenant),
	    "invalidate cached keys");
	ctl_check(c, db_member_sessions_end(&c->db, id, NULL),
	    "end the member's sessions");
	ctl_audit_commit(c, tenant, del ? "member.delete" : "member.suspend",
	    "member", id);
	ctl_print_id(id);
}

/*
 * member totp-reset --tenant T --email E: the operator's recovery path
 * of last resort (issue 43, item 4), for a member who lost both the
 * authenticator and the recovery codes: the second factor is removed
 * (member_totp_reset()), the member's sessions end, audited as
 * member.totp_reset.  The member then signs in with the password alone
 * and, in a tenant that requires it, enrols again first.
 */
static void
member_totp_reset_cmd(struct ctl *c)
{
	char		 tenant[UUID_STRLEN + 1], id[UUID_STRLEN + 1];
	char		 email[MEMBER_EMAIL_MAX + 1];
	const char	*in;
	struct dbrows	 m;
	enum fb_err	 e;

	ctl_opt_uuid(c, "tenant", tenant);
	in = ctl_opt(c, "email", true);
	if (!member_email(in, email))
		ctl_die(c, 2, "option '--email': '%s' is not an email address",
		    in);
	ctl_connect(c);
	ctl_need_tenant(c, tenant);
	e = db_member_by_email(&c->db, tenant, email, &m);
	if (e == FB_ENOTFOUND)
		ctl_die(c, 1, "member '%s' not found in this tenant", email);
	ctl_check(c, e, "look the member up");
	snprintf(id, sizeof(id), "%s", ((const struct member_row *)m.row)->id);
	dbrows_free(&m);
	ctl_check(c, member_totp_reset(&c->db, tenant, id),
	    "remove the second factor");
	ctl_check(c, db_member_sessions_end(&c->db, id, NULL),
	    "end the member's sessions");
	ctl_audit_commit(c, tenant, "member.totp_reset", "member", id);
	ctl_print_id(id);
}

const struct ctl_cmd ctl_member_totp_reset_cmd = {
	"member", "totp-reset", "--tenant T --email E", 0,
	member_totp_reset_cmd
};
const struct ctl_cmd ctl_member_create_cmd = {
	"member", "create",
	"--tenant T --email E [--role owner|admin|member|viewer]",
	0, member_create_invite
};
const struct ctl_cmd ctl_member_invite_cmd = {
	"member", "invite",
	"--tenant T --email E [--role owner|admin|member|viewer]",
	0, member_create_invite
};
const struct ctl_cmd ctl_member_password_cmd = {
	"member", "set-password",
	"--id M   (the password on standard input)", 0, member_set_password
};
const struct ctl_cmd ctl_member_stop_cmd = {
	"member", "suspend|delete", "--id M", 0, member_stop
};
