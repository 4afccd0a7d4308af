/*
 * formbackctl migrate [--dir DIR]: the schema migrations the database
 * does not have yet, in the order of their names (formbackctl(8)).
 */
#include <stdlib.h>

#include "ctl/ctl.h"
#include "db/store.h"

#ifndef MIGRATIONSDIR
#define MIGRATIONSDIR "/usr/local/share/formback/migrations"
#endif

static void
migrate(struct ctl *c)
{
	json_object	*out, *applied;
	char		 current[16];
	const char	*dir;
	enum fb_err	 e;

	if ((dir = ctl_opt(c, "dir", false)) == NULL &&
	    (dir = getenv("FORMBACK_MIGRATIONS")) == NULL)
		dir = MIGRATIONSDIR;
	ctl_connect(c);
	applied = json_object_new_array();
	if ((e = db_migrate(&c->db, dir, applied, current)) != FB_OK)
		ctl_die(c, 1, "migration failed: %s", fb_strerror(e));
	out = json_object_new_object();
	json_object_object_add(out, "applied", applied);
	jadd_str(out, "current", current[0] != '\0' ? current : NULL);
	ctl_print(out);
}

const struct ctl_cmd ctl_migrate_cmd = {
	"migrate", NULL, "[--dir DIR]", 0, migrate
};
