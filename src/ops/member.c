/*
 * Members: create and invite, shared by formbackctl member and the admin
 * API (api/admin.c).  In the caller's transaction (member.h).
 */
#include "ops/member.h"
#include "session.h"
#include "db/store.h"

enum fb_err
member_create(struct db *db, const char *tenant, const char *email,
    const char *role, char id[UUID_STRLEN + 1])
{
	uuid_v7(id);
	return db_member_create(db, id, tenant, email, role);
}

enum fb_err
member_invite(struct db *db, const char *tenant, const char *member)
{
	char	 id[UUID_STRLEN + 1];

	uuid_v7(id);
	return db_invitation_add(db, id, tenant, member, "invite",
	    INVITE_SECONDS);
}

enum fb_err
member_totp_reset(struct db *db, const char *tenant, const char *member)
{
	return db_totp_remove(db, tenant, member);
}
