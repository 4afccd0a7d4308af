/*
 * What every formbackctl command shares (ctl.h): its error line and
 * exit, its "--name value" options, its transaction and audit row, and
 * its one JSON object on stdout.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl.h"
#include "db/store.h"

void
ctl_die(struct ctl *c, int code, const char *fmt, ...)
{
	va_list	 ap;

	fputs("formbackctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c->db.my != NULL)
		db_rollback(&c->db);
	exit(code);
}

/*
 * Whether the usage `args` names the option "--name" (n bytes of name):
 * a command accepts exactly the options its usage line shows.
 */
static bool
usage_names(const char *args, const char *name, size_t n)
{
	const char	*p;

	if (n == 0 || strspn(name, "abcdefghijklmnopqrstuvwxyz-") < n)
		return false;
	for (p = args; (p = strstr(p, "--")) != NULL; p += 2)
		/* the name ends at a space, a ']' or the end (strchr's NUL) */
		if (strncmp(p + 2, name, n) == 0 &&
		    strchr(" ]", p[2 + n]) != NULL)
			return true;
	return false;
}

/*
 * Whether the usage names "--name" as a flag, "[--name]": it takes no
 * value, and ctl_opt() gives "true" when it was given.
 */
static bool
usage_flag(const char *args, const char *name, size_t n)
{
	const char	*p;

	for (p = args; (p = strstr(p, "[--")) != NULL; p += 3)
		if (strncmp(p + 3, name, n) == 0 && p[3 + n] == ']')
			return true;
	return false;
}

void
ctl_parse_opts(struct ctl *c, int argc, char *argv[])
{
	const char	*name;
	size_t		 n;
	bool		 flag;
	int		 i;

	c->optn = 0;
	for (i = 0; i < argc; i++) {
		name = argv[i] + (strncmp(argv[i], "--", 2) == 0 ? 2 : 0);
		n = strlen(name);
		flag = usage_names(c->cmd->args, name, n) &&
		    usage_flag(c->cmd->args, name, n);
		if (name == argv[i] || (!flag && i + 1 >= argc) ||
		    c->optn == CTL_OPTS_MAX)
			ctl_die(c, 2, "bad argument '%s'", argv[i]);
		if (!usage_names(c->cmd->args, name, n))
			ctl_die(c, 2, "unknown option '%s'", argv[i]);
		c->opt_name[c->optn] = name;
		c->opt_value[c->optn++] = flag ? "true" : argv[++i];
	}
}

const char *
ctl_opt(struct ctl *c, const char *name, bool required)
{
	size_t	 i;

	for (i = 0; i < c->optn; i++)
		if (strcmp(c->opt_name[i], name) == 0)
			return c->opt_value[i];
	if (required)
		ctl_die(c, 2, "missing option '--%s'", name);
	return NULL;
}

void
ctl_opt_uuid(struct ctl *c, const char *name, char out[UUID_STRLEN + 1])
{
	const char	*v = ctl_opt(c, name, true);

	if (!uuid_valid(v))
		ctl_die(c, 2, "option '--%s': '%s' is not a UUID", name, v);
	snprintf(out, UUID_STRLEN + 1, "%s", v);
	uuid_lower(out);
}

void
ctl_connect(struct ctl *c)
{
	if (db_open(&c->db, &c->conf) != FB_OK)
		ctl_die(c, 1, "cannot connect to the database (see above)");
	/* every command is one transaction, committed with its audit row */
	if (db_begin(&c->db) != FB_OK)
		ctl_die(c, 1, "cannot start a transaction (see above)");
}

void
ctl_check(struct ctl *c, enum fb_err e, const char *what)
{
	if (e != FB_OK)
		ctl_die(c, 1, "cannot %s: %s", what, fb_strerror(e));
}

void
ctl_audit_commit(struct ctl *c, const char *tenant, const char *action,
    const char *type, const char *id)
{
	ctl_check(c, db_audit_add(&c->db, tenant, "cli", NULL, NULL, action,
	    type, id, NULL), "write the audit row");
	ctl_check(c, db_commit(&c->db), "commit");
}

void
ctl_print(json_object *o)
{
	puts(json_text(o));
	json_object_put(o);
}

void
ctl_print_id(const char *id)
{
	json_object	*o = json_object_new_object();

	jadd_str(o, "id", id);
	ctl_print(o);
}

void
ctl_need_tenant(struct ctl *c, const char *t)
{
	enum fb_err	 e = db_tenant_exists(&c->db, t);

	if (e == FB_ENOTFOUND)
		ctl_die(c, 1, "tenant '%s' not found", t);
	ctl_check(c, e, "look the tenant up");
}
