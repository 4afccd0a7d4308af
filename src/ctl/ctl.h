/*
 * formbackctl, the operator CLI (design 4; formbackctl(8)): one file per
 * command family under src/ctl/, each exporting one descriptor per
 * command (struct ctl_cmd), and one table of them in ctl.c (tmux's
 * cmd_table).  main() looks the command up in the table, parses its
 * options, and runs it; the usage is printed from the same table, so a
 * command and its usage are written once.
 *
 * Every command prints exactly one JSON object on stdout on success (ids
 * as lower-case UUIDs), or one error line "formbackctl: ..." on stderr
 * with a non-zero exit: 1 when the command failed, 2 for bad usage or
 * configuration (ctl_die()).  Each write runs in one transaction with its
 * audit-log row (actor "cli"): the command begins it (ctl_connect()) and
 * commits it with that row (ctl_audit_commit()); what it shares with the
 * API it calls in src/ops/, inside that transaction.
 *
 * To add a command: write its function and descriptor in its family's
 * file, declare the descriptor below, and add it to ctl_table[] (ctl.c)
 * where its usage line belongs.
 */
#ifndef CTL_CTL_H
#define CTL_CTL_H

#include <stdbool.h>

#include "formback.h"
#include "db/db.h"

#define CTL_OPTS_MAX	8	/* --name value pairs a command takes */

struct ctl_cmd;

/* A command's run: what it was given and what it works on. */
struct ctl {
	struct conf	 conf;
	struct db	 db;		/* open after ctl_connect() */
	const struct ctl_cmd *cmd;	/* the command run */
	const char	*cpath;		/* -c file, or NULL */
	const char	*verb;		/* its second word as given, or NULL */
	int		 argc;		/* the arguments after the words */
	char		**argv;
	/* the --options parsed (unless CTL_RAW): names and values */
	const char	*opt_name[CTL_OPTS_MAX];
	const char	*opt_value[CTL_OPTS_MAX];
	size_t		 optn;
	char		 words[128];	/* the words given, for errors */
};

#define CTL_RAW	0x01	/* takes its arguments as given, no --options */
#define CTL_NOCONF 0x02	/* main() reads no configuration (the command may) */

/*
 * One command: `name` and, when it has one, a second word of `verbs`
 * ("release|discard": either, the run sees which in ctl->verb).  `args`
 * is its usage after the words; the --options it names are those the
 * command accepts, each as "--name value" (unless CTL_RAW).
 */
struct ctl_cmd {
	const char	*name;
	const char	*verbs;
	const char	*args;
	int		 flags;		/* CTL_RAW, CTL_NOCONF */
	void		(*exec)(struct ctl *);
};

/* ctl.c */

/*
 * Print the usage from the command table on stderr, after a line naming
 * the words given when they are no command, and exit 2.
 */
void	ctl_usage(struct ctl *) __attribute__((noreturn));

/* common.c: what every command shares */

/*
 * Print "formbackctl: <message>" on stderr, roll back the open
 * transaction, and exit with `code` (1 failed, 2 bad usage).
 */
void	ctl_die(struct ctl *, int code, const char *fmt, ...)
	    FB_PRINTF(3, 4) __attribute__((noreturn));
/*
 * Parse argv[0 .. argc) as "--name value" pairs into the run, allowing
 * the names of options that the command's usage names (ctl_cmd.args);
 * exits 2 on a bad argument or an unknown option.
 */
void	ctl_parse_opts(struct ctl *, int argc, char *argv[]);
/* An option's value (borrowed), or NULL; exits 2 when required and missing. */
const char *ctl_opt(struct ctl *, const char *name, bool required);
/* A required UUID option, lower-cased into out; exits 2 when no UUID. */
void	ctl_opt_uuid(struct ctl *, const char *name, char out[UUID_STRLEN + 1]);
/* Connect to the database and begin the command's transaction; exits 1. */
void	ctl_connect(struct ctl *);
/* Exit 1 with "cannot <what>: <error>" unless e is FB_OK. */
void	ctl_check(struct ctl *, enum fb_err e, const char *what);
/* Write the command's audit row (actor "cli") and commit; exits 1. */
void	ctl_audit_commit(struct ctl *, const char *tenant, const char *action,
	    const char *type, const char *id);
/* Print o on one line on stdout and put it. */
void	ctl_print(json_object *o);
/* Print {"id": id}. */
void	ctl_print_id(const char *id);
/* Exit 1 unless `tenant` exists ("tenant '...' not found"). */
void	ctl_need_tenant(struct ctl *, const char *tenant);

/* The commands, one descriptor each, by family (file). */
extern const struct ctl_cmd ctl_migrate_cmd;		/* migrate.c */
extern const struct ctl_cmd ctl_tenant_create_cmd;	/* tenant.c */
extern const struct ctl_cmd ctl_tenant_quiet_hours_cmd;
extern const struct ctl_cmd ctl_tenant_quota_cmd;
extern const struct ctl_cmd ctl_delivery_switch_cmd;
extern const struct ctl_cmd ctl_usage_cmd;
extern const struct ctl_cmd ctl_member_create_cmd;	/* member.c */
extern const struct ctl_cmd ctl_member_invite_cmd;
extern const struct ctl_cmd ctl_member_password_cmd;
extern const struct ctl_cmd ctl_member_stop_cmd;
extern const struct ctl_cmd ctl_member_totp_reset_cmd;
extern const struct ctl_cmd ctl_site_create_cmd;	/* site.c */
extern const struct ctl_cmd ctl_site_release_cmd;
extern const struct ctl_cmd ctl_site_set_cmd;
extern const struct ctl_cmd ctl_quarantine_list_cmd;	/* quarantine.c */
extern const struct ctl_cmd ctl_quarantine_decide_cmd;
extern const struct ctl_cmd ctl_webhook_enable_cmd;	/* webhook.c */
extern const struct ctl_cmd ctl_apikey_create_cmd;	/* apikey.c */
extern const struct ctl_cmd ctl_apikey_revoke_cmd;
extern const struct ctl_cmd ctl_campaign_status_cmd;	/* campaign.c */
extern const struct ctl_cmd ctl_scenario_status_cmd;	/* scenario.c */
extern const struct ctl_cmd ctl_publish_cmd;		/* publish.c */
extern const struct ctl_cmd ctl_lead_convert_cmd;	/* lead.c */
extern const struct ctl_cmd ctl_personal_data_cmd;	/* personal.c */
extern const struct ctl_cmd ctl_test_recipient_cmd;	/* test-recipient.c */
extern const struct ctl_cmd ctl_test_recipient_list_cmd;
extern const struct ctl_cmd ctl_tag_queue_cmd;		/* status.c */
extern const struct ctl_cmd ctl_status_cmd;
extern const struct ctl_cmd ctl_check_db_cmd;
extern const struct ctl_cmd ctl_openapi_cmd;		/* openapi.c */
extern const struct ctl_cmd ctl_keys_rotate_cmd;	/* keys.c */
extern const struct ctl_cmd ctl_keys_status_cmd;

#endif
