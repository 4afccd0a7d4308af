/*
 * ops/member.c: members as formbackctl member and the admin API both
 * create and invite them (contract: Authentication 4; issue 16).
 *
 * In the caller's transaction: the caller began it, writes the audit
 * row and commits or rolls back; nothing here begins, commits or prints.
 */
#ifndef OPS_MEMBER_H
#define OPS_MEMBER_H

#include "formback.h"

struct db;

/*
 * A new member of `tenant` with the address `email` (as member_email()
 * writes it) and the role `role` (owner, admin, member or viewer: the
 * caller checks), without a password; its new id into `id`.  FB_EDUP
 * when the tenant has a member of that address (deleted ones included),
 * else the database's errors.
 */
enum fb_err	member_create(struct db *, const char *tenant,
		    const char *email, const char *role,
		    char id[UUID_STRLEN + 1]) FB_WUR;

/*
 * Queue the invitation link of member `member` of `tenant`, valid for
 * INVITE_SECONDS (session.h); formback-deliver mails it.  Earlier unused
 * links of the member expire.  Errors: the database's.
 */
enum fb_err	member_invite(struct db *, const char *tenant,
		    const char *member) FB_WUR;

/*
 * Remove member `member`'s second factor (issue 43, item 4): its TOTP
 * secret, active or pending, its recovery codes and its open sign-in
 * challenges; the member signs in with the password alone again (and,
 * in a tenant that requires a second factor, can only enrol).  The
 * member disabling it (api/twofactor.c) and the operator's reset
 * (formbackctl member totp-reset) share it.  Errors: the database's.
 */
enum fb_err	member_totp_reset(struct db *, const char *tenant,
		    const char *member) FB_WUR;

#endif
