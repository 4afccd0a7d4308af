/*
 * Schema migrations (design 6): numbered files db/migrations/NNNN_*.sql,
 * applied in order by `formbackctl migrate`, each recorded in
 * schema_migrations.  A named lock keeps two hosts from migrating at once.
 * MariaDB commits DDL implicitly, so a failing file stops the run with
 * its version unrecorded and its earlier statements done; every statement
 * of every file can run again over what it made (IF NOT EXISTS, OR
 * REPLACE, INSERT IGNORE; tests/integ/test_ctl.c runs them all twice),
 * so after fixing the cause the next run finishes the file (issue 19).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

enum {
	MIG_LIST,
	MIG_RECORD,
	MIG_LOCK,
	MIG_CURRENT,
	MIG__MAX
};

static const struct dbstmt mig_sql[MIG__MAX] = {
	/* MIG_LIST */
	{ "migration_list",
	    "SELECT version FROM schema_migrations ORDER BY version" },
	/* MIG_RECORD */
	{ "migration_record",
	    "INSERT INTO schema_migrations (version) VALUES (?)" },
	/* MIG_LOCK */
	{ "migration_lock", "SELECT GET_LOCK('formback_migrate', 60)" },
	/* MIG_CURRENT */
	{ "migration_current", "SELECT MAX(version) FROM schema_migrations" },
};

static void
release_lock(struct db *db)
{
	if (db_exec_raw(db, "DO RELEASE_LOCK('formback_migrate')") != FB_OK)
		logx(LOG_WARN, "cannot release the migration lock");
}

static int
namecmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
is_migration(const char *n)
{
	size_t	 len = strlen(n);

	return len > 9 && n[0] >= '0' && n[0] <= '9' && n[1] >= '0' &&
	    n[1] <= '9' && n[2] >= '0' && n[2] <= '9' && n[3] >= '0' &&
	    n[3] <= '9' && n[4] == '_' && strcmp(n + len - 4, ".sql") == 0;
}

static enum fb_err
read_file(const char *path, struct buf *b)
{
	FILE	*f;
	char	 chunk[8192];
	size_t	 n;

	if ((f = fopen(path, "r")) == NULL) {
		logx(LOG_ERR, "cannot open '%s': %s", path, strerror(errno));
		return FB_EIO;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_add(b, chunk, n) != FB_OK) {
			fclose(f);
			return FB_ENOMEM;
		}
	fclose(f);
	return FB_OK;
}

enum fb_err
db_migrate(struct db *db, const char *dir, json_object *applied,
    char current[16])
{
	DIR		*d;
	struct dirent	*de;
	char		*names[1024], path[4096], ver[5];
	size_t		 n = 0, i, j;
	struct dbres	 done;
	struct buf	 sql;
	enum fb_err	 e;
	bool		 have;

	current[0] = '\0';
	if ((e = db_exec_raw(db,
	    "CREATE TABLE IF NOT EXISTS schema_migrations ("
	    "version CHAR(4) CHARACTER SET ascii NOT NULL PRIMARY KEY, "
	    "applied_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) "
	    "ENGINE=InnoDB")) != FB_OK)
		return e;
	if ((e = db_run(db, DBSET_MIGRATE, MIG_LOCK, &mig_sql[MIG_LOCK],
	    DBNOPARAMS, &done)) != FB_OK)
		return e;
	if (dbres_int(&done, 0, 0) != 1) {
		dbres_free(&done);
		logx(LOG_ERR,
		    "another migration has held the lock for 60 seconds");
		return FB_ERETRY;
	}
	dbres_free(&done);
	if ((d = opendir(dir)) == NULL) {
		logx(LOG_ERR, "cannot open migrations folder '%s': %s", dir,
		    strerror(errno));
		release_lock(db);
		return FB_EIO;
	}
	while ((de = readdir(d)) != NULL && n < NELEM(names))
		if (is_migration(de->d_name) &&
		    (names[n] = strdup(de->d_name)) != NULL)
			n++;
	closedir(d);
	qsort(names, n, sizeof(names[0]), namecmp);
	if ((e = db_run(db, DBSET_MIGRATE, MIG_LIST, &mig_sql[MIG_LIST],
	    DBNOPARAMS, &done)) != FB_OK)
		goto out;
	mysql_set_server_option(db->my, MYSQL_OPTION_MULTI_STATEMENTS_ON);
	for (i = 0; i < n; i++) {
		memcpy(ver, names[i], 4);
		ver[4] = '\0';
		for (have = false, j = 0; j < done.nrows; j++)
			if (strcmp(dbres_get(&done, j, 0), ver) == 0)
				have = true;
		if (!have) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			buf_init(&sql, 16u << 20);
			e = read_file(path, &sql);
			if (e == FB_OK)
				e = db_exec_raw(db, sql.data);
			buf_release(&sql);
			if (e == FB_OK)
				e = db_run(db, DBSET_MIGRATE, MIG_RECORD,
				    &mig_sql[MIG_RECORD], DBPARAMS(P_STR(ver)),
				    NULL);
			if (e == FB_OK)
				e = db_commit(db);
			if (e != FB_OK) {
				logx(LOG_ERR, "migration '%s' failed",
				    names[i]);
				break;
			}
			json_object_array_add(applied,
			    json_object_new_string(ver));
		}
		snprintf(current, 16, "%s", ver);
	}
	mysql_set_server_option(db->my, MYSQL_OPTION_MULTI_STATEMENTS_OFF);
	dbres_free(&done);
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	release_lock(db);
	return e;
}

enum fb_err
db_schema_version(struct db *db, char out[16])
{
	struct dbres	 r;
	const char	*v;
	enum fb_err	 e;

	out[0] = '\0';
	if ((e = db_run(db, DBSET_MIGRATE, MIG_CURRENT, &mig_sql[MIG_CURRENT],
	    DBNOPARAMS, &r)) != FB_OK)
		return e;
	if ((v = dbres_get(&r, 0, 0)) != NULL)
		snprintf(out, 16, "%s", v);
	dbres_free(&r);
	return FB_OK;
}
