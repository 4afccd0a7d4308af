/*
 * formbackctl's command table (src/ctl/ctl.c): no empty slot, no command
 * twice, and the options a command accepts are the ones its usage names
 * (STYLE 3).  The files are included to reach their statics; main() is
 * renamed out of criterion's way.
 */
#include <criterion/criterion.h>

#define main formbackctl_main
#include "../../src/ctl/ctl.c"
#undef main
#include "../../src/ctl/common.c"

Test(ctl_table, table_has_no_empty_slot_and_no_command_twice)
{
	const struct ctl_cmd *const *t, *const *u;
	const char	*p, *e;
	char		 verb[64];

	for (t = ctl_table; *t != NULL; t++) {
		cr_assert_not_null((*t)->name);
		cr_assert_not_null((*t)->args, "%s", (*t)->name);
		cr_assert_not_null((*t)->exec, "%s", (*t)->name);
		/* a command without options reads its arguments itself */
		if ((*t)->flags & CTL_RAW)
			cr_assert_null(strstr((*t)->args, "--"), "%s",
			    (*t)->name);
		for (u = ctl_table; u < t; u++) {
			if (strcmp((*t)->name, (*u)->name) != 0)
				continue;
			/* one word names one command, or only commands of
			 * a second word */
			cr_assert((*t)->verbs != NULL && (*u)->verbs != NULL,
			    "%s", (*t)->name);
			for (p = (*t)->verbs; ; p = e + 1) {
				e = p + strcspn(p, "|");
				snprintf(verb, sizeof(verb), "%.*s",
				    (int)(e - p), p);
				cr_assert(!verb_is((*u)->verbs, verb),
				    "%s %s twice", (*t)->name, verb);
				if (*e == '\0')
					break;
			}
		}
	}
}

Test(ctl_table, options_are_those_the_usage_names)
{
	static const char args[] =
	    "--name N [--plan free|starter|growth|pro] [--rate-limit N]";

	cr_assert(usage_names(args, "name", 4));
	cr_assert(usage_names(args, "plan", 4));
	cr_assert(usage_names(args, "rate-limit", 10));
	cr_assert(!usage_names(args, "rate", 4));
	cr_assert(!usage_names(args, "nam", 3));
	cr_assert(!usage_names(args, "limit", 5));
	cr_assert(!usage_names(args, "", 0));
	cr_assert(!usage_names(args, "NAME", 4));
	cr_assert(!usage_names("--id M   (the password on standard input)",
	    "id M", 4));
	cr_assert(usage_names("--id M   (the password on standard input)",
	    "id", 2));
}

Test(ctl_table, an_option_alone_in_brackets_is_a_flag)
{
	static const char args[] = "--tenant T --contact C [--stop]";

	cr_assert(usage_names(args, "stop", 4));
	cr_assert(usage_flag(args, "stop", 4));
	cr_assert(!usage_flag(args, "contact", 7));
	cr_assert(!usage_flag(args, "sto", 3));
	cr_assert(!usage_flag("[--plan free|pro]", "plan", 4));
}

Test(ctl_table, words_find_their_command)
{
	struct ctl	 c;
	char		*a[] = { "member", "delete", "--id", "x" };
	char		*b[] = { "member", "frob" };
	char		*s[] = { "tag-queue", "retry-parked" };
	char		*m[] = { "member" };

	memset(&c, 0, sizeof(c));
	cr_assert_eq(lookup(&c, 4, a), &ctl_member_stop_cmd);
	cr_assert_str_eq(c.verb, "delete");
	cr_assert_null(lookup(&c, 2, b));
	cr_assert_null(lookup(&c, 1, m));
	cr_assert_eq(lookup(&c, 2, s), &ctl_tag_queue_cmd);
	cr_assert_null(c.verb);
}
