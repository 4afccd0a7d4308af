/*
 * Typed database functions, one header per src/db/<resource>.c beside
 * it, all of them included here: the only way the rest of the tree
 * reaches MariaDB.  Every function on tenant
 * data takes the tenant id and filters on it (design 6); the few that
 * name a row by its id alone are the system paths' and say why (a claim
 * or link token, a provider's receipt, an operator's command).  Reads
 * fill a struct dbrows of the row struct beside each function, made from
 * one column list (db.h, "Typed rows"), that the caller frees with
 * dbrows_free(); a look-up of one row is FB_ENOTFOUND when there is none.
 * Writes take their values as arguments or a named struct, never a
 * position.  Datetimes are "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC), as
 * jadd_time() writes them for the API.
 */
#ifndef FORMBACK_STORE_H
#define FORMBACK_STORE_H

#include "db.h"

/* one header per src/db/<resource>.c, in the order each builds on */
#include "core.h"
#include "rate.h"
#include "member.h"
#include "tenant.h"
#include "campaign.h"
#include "capture.h"
#include "lead.h"
#include "scenario.h"
#include "sending.h"
#include "testsend.h"
#include "ops.h"
#include "migrate.h"
#include "flood.h"
#include "webhook.h"
#include "ppcheck.h"
#include "report.h"
#include "twofactor.h"
#include "rotation.h"
#include "personal.h"

#endif
