/*
 * src/db/migrate.c: migrations; store.h includes every such header.
 */
#ifndef FORMBACK_DB_MIGRATE_H
#define FORMBACK_DB_MIGRATE_H

#include "db.h"

/*
 * Apply every db/migrations/NNNN_*.sql in `dir` not yet recorded in
 * schema_migrations, in order, each in its own transaction with its
 * record.  `applied` receives a JSON array of the applied versions and
 * `current` the newest version.  Errors are logged and returned.
 */
/* The newest migration applied ("0021"), "" when none. */
enum fb_err db_schema_version(struct db *, char out[16]) FB_WUR;
enum fb_err db_migrate(struct db *, const char *dir, json_object *applied,
	    char current[16]) FB_WUR;

#endif
