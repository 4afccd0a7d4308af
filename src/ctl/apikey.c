/*
 * formbackctl apikey create | revoke: a member's API keys
 * (formbackctl(8); contract: Authentication), issued and revoked as the
 * admin API does (ops/apikey.h).
 */
#include <string.h>

#include <sodium.h>

#include "ctl/ctl.h"
#include "ops/apikey.h"
#include "db/store.h"

/*
 * The member who issues a key: of `tenant`, an owner or an admin
 * (contract: Authentication 4), active, else its keys would never work
 * (Authentication 5).
 */
static void
need_issuer(struct ctl *c, const char *tenant, const char *member)
{
	char		 owner[UUID_STRLEN + 1], role[16], mstatus[16];
	enum fb_err	 e;

	e = db_member_tenant(&c->db, member, owner, role, sizeof(role),
	    mstatus, sizeof(mstatus));
	if (e == FB_ENOTFOUND || (e == FB_OK && strcmp(owner, tenant) != 0))
		ctl_die(c, 1, "member '%s' not found in tenant '%s'", member,
		    tenant);
	ctl_check(c, e, "look the member up");
	if (strcmp(role, "owner") != 0 && strcmp(role, "admin") != 0)
		ctl_die(c, 1, "member '%s' is a %s: only an owner or an admin "
		    "may issue API keys", member, role);
	if (strcmp(mstatus, "active") != 0)
		ctl_die(c, 1, "member '%s' is %s: only an active member may "
		    "issue API keys", member, mstatus);
}

static void
apikey_create(struct ctl *c)
{
	static const char *const kinds[] = { "live", "test", NULL };
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char		 member[UUID_STRLEN + 1], key[APIKEY_MAX_LEN + 1];
	const char	*kind, *scopes;
	uint32_t	 bits;
	json_object	*out;

	ctl_opt_uuid(c, "tenant", tenant);
	ctl_opt_uuid(c, "member", member);
	kind = ctl_opt(c, "kind", true);
	scopes = ctl_opt(c, "scopes", true);
	if (!one_of(kind, kinds))
		ctl_die(c, 2, "option '--kind': expected live or test");
	if (!scope_parse(scopes, &bits) || bits == 0)
		ctl_die(c, 2, "option '--scopes': expected all or a "
		    "comma-separated list of scopes such as "
		    "sites:read,campaigns:write");
	ctl_connect(c);
	ctl_need_tenant(c, tenant);
	need_issuer(c, tenant, member);
	ctl_check(c, apikey_issue(&c->db, tenant, member,
	    strcmp(kind, "test") == 0, bits, id, key), "create the API key");
	ctl_audit_commit(c, tenant, "apikey.create", "api_key", id);
	out = json_object_new_object();
	jadd_str(out, "id", id);
	jadd_str(out, "key", key);
	ctl_print(out);
	sodium_memzero(key, sizeof(key));
}

/* apikey revoke --id K: revoked at once on every host (ops/apikey.h). */
static void
apikey_revoke_cmd(struct ctl *c)
{
	char		 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	enum fb_err	 e;

	ctl_opt_uuid(c, "id", id);
	ctl_connect(c);
	e = apikey_revoke(&c->db, id, tenant);
	if (e == FB_ENOTFOUND)
		ctl_die(c, 1, "API key '%s' not found", id);
	ctl_check(c, e, "revoke the API key");
	ctl_audit_commit(c, tenant, "apikey.revoke", "api_key", id);
	ctl_print_id(id);
}

const struct ctl_cmd ctl_apikey_create_cmd = {
	"apikey", "create",
	"--tenant T --member M --kind live|test --scopes all|a:b,c:d",
	0, apikey_create
};
const struct ctl_cmd ctl_apikey_revoke_cmd = {
	"apikey", "revoke", "--id K", 0, apikey_revoke_cmd
};
