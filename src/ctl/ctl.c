/*
 * formbackctl: the operator CLI (design 4; ctl.h).  main() reads the
 * configuration, finds the command in ctl_table[], parses its options and
 * runs it; the usage is printed from the same table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl.h"

/* The commands, in the order of the usage. */
static const struct ctl_cmd *const ctl_table[] = {
	&ctl_migrate_cmd,
	&ctl_tenant_create_cmd,
	&ctl_member_create_cmd,
	&ctl_member_invite_cmd,
	&ctl_member_password_cmd,
	&ctl_member_stop_cmd,
	&ctl_member_totp_reset_cmd,
	&ctl_site_create_cmd,
	&ctl_site_release_cmd,
	&ctl_quarantine_list_cmd,
	&ctl_quarantine_decide_cmd,
	&ctl_site_set_cmd,
	&ctl_webhook_enable_cmd,
	&ctl_apikey_create_cmd,
	&ctl_apikey_revoke_cmd,
	&ctl_campaign_status_cmd,
	&ctl_scenario_status_cmd,
	&ctl_delivery_switch_cmd,
	&ctl_publish_cmd,
	&ctl_lead_convert_cmd,
	&ctl_personal_data_cmd,
	&ctl_tenant_quiet_hours_cmd,
	&ctl_tenant_quota_cmd,
	&ctl_usage_cmd,
	&ctl_test_recipient_cmd,
	&ctl_test_recipient_list_cmd,
	&ctl_tag_queue_cmd,
	&ctl_status_cmd,
	&ctl_check_db_cmd,
	&ctl_keys_rotate_cmd,
	&ctl_keys_status_cmd,
	&ctl_openapi_cmd,
	NULL
};

void
ctl_usage(struct ctl *c)
{
	const struct ctl_cmd *const *t;

	/* an error line first for a command that is not one (design 4) */
	if (c->words[0] != '\0')
		fprintf(stderr, "formbackctl: unknown or incomplete command "
		    "'%s'\n", c->words);
	fputs("usage: formbackctl [-c file] command [options]\n", stderr);
	for (t = ctl_table; *t != NULL; t++)
		fprintf(stderr, "  %s%s%s%s%s\n", (*t)->name,
		    (*t)->verbs != NULL ? " " : "",
		    (*t)->verbs != NULL ? (*t)->verbs : "",
		    (*t)->args[0] != '\0' ? " " : "", (*t)->args);
	exit(2);
}

/* Whether `word` is one of the alternatives "a|b|c" of `verbs`. */
static bool
verb_is(const char *verbs, const char *word)
{
	size_t		 n = strlen(word);
	const char	*p, *e;

	for (p = verbs; ; p = e + 1) {
		e = p + strcspn(p, "|");
		if ((size_t)(e - p) == n && strncmp(p, word, n) == 0)
			return true;
		if (*e == '\0')
			return false;
	}
}

/* The command argv[0 ..] names, or NULL; its second word into c->verb. */
static const struct ctl_cmd *
lookup(struct ctl *c, int argc, char *argv[])
{
	const struct ctl_cmd *const *t;

	for (t = ctl_table; *t != NULL; t++) {
		if (strcmp((*t)->name, argv[0]) != 0)
			continue;
		if ((*t)->verbs == NULL) {
			c->verb = NULL;
			return *t;
		}
		if (argc >= 2 && verb_is((*t)->verbs, argv[1])) {
			c->verb = argv[1];
			return *t;
		}
	}
	return NULL;
}

int
main(int argc, char *argv[])
{
	struct ctl	 c;
	char		 err[512];
	const char	*cpath = NULL;
	int		 skip;

	memset(&c, 0, sizeof(c));
	log_init("formbackctl", LOG_WARN);
	argc--, argv++;
	if (argc >= 2 && strcmp(argv[0], "-c") == 0) {
		cpath = argv[1];
		argc -= 2, argv += 2;
	}
	if (argc < 1 || strcmp(argv[0], "-h") == 0 ||
	    strcmp(argv[0], "--help") == 0)
		ctl_usage(&c);
	snprintf(c.words, sizeof(c.words), "%s%s%s", argv[0], argc > 1 &&
	    argv[1][0] != '-' ? " " : "", argc > 1 && argv[1][0] != '-' ?
	    argv[1] : "");
	c.cpath = cpath;
	/* the configuration first, unless the command reads its own */
	if (((c.cmd = lookup(&c, argc, argv)) == NULL ||
	    !(c.cmd->flags & CTL_NOCONF)) &&
	    conf_load(&c.conf, cpath, err, sizeof(err)) != FB_OK)
		ctl_die(&c, 2, "%s", err);
	if (c.cmd == NULL)
		ctl_usage(&c);
	skip = c.verb != NULL ? 2 : 1;
	c.argc = argc - skip;
	c.argv = argv + skip;
	if (!(c.cmd->flags & CTL_RAW))
		ctl_parse_opts(&c, c.argc, c.argv);
	c.cmd->exec(&c);
	db_close(&c.db);
	conf_free(&c.conf);
	return 0;
}
