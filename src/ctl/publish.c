/*
 * formbackctl publish [--site S]: rebuild the published tag
 * configurations from the database (design 2); exit 1 when a site's
 * failed, after the object naming it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl.h"
#include "publish.h"
#include "db/store.h"

static void
publish(struct ctl *c)
{
	struct dbrows	 sites;
	const struct site_ref_row *s;
	json_object	*out, *ok, *failed;
	char		 site[UUID_STRLEN + 1], err[512];
	size_t		 i;
	bool		 one;

	one = ctl_opt(c, "site", false) != NULL;
	if (one)
		ctl_opt_uuid(c, "site", site);
	ctl_connect(c);
	ctl_check(c, db_sites_all(&c->db, &sites), "list the sites");
	db_rollback(&c->db);
	ok = json_object_new_array();
	failed = json_object_new_array();
	for (i = 0, s = sites.row; i < sites.n; i++) {
		if (one && strcmp(s[i].id, site) != 0)
			continue;
		if (publish_now(&c->db, &c->conf, s[i].tenant_id, s[i].id, err,
		    sizeof(err)) == FB_OK)
			json_object_array_add(ok,
			    json_object_new_string(s[i].id));
		else {
			fprintf(stderr, "formbackctl: site '%s': %s\n",
			    s[i].id, err);
			json_object_array_add(failed,
			    json_object_new_string(s[i].id));
		}
	}
	dbrows_free(&sites);
	if (one && json_object_array_length(ok) +
	    json_object_array_length(failed) == 0)
		ctl_die(c, 1, "site '%s' not found", site);
	out = json_object_new_object();
	json_object_object_add(out, "published", ok);
	json_object_object_add(out, "failed", failed);
	if (json_object_array_length(failed) > 0) {
		ctl_print(out);
		exit(1);
	}
	ctl_print(out);
}

const struct ctl_cmd ctl_publish_cmd = {
	"publish", NULL, "[--site S]", 0, publish
};
