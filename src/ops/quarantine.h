/*
 * ops/quarantine.c: a batch of a flood's quarantined leads (issue 40;
 * formback.fcgi(8) "Abuse limits") as the admin API answers it and
 * formbackctl quarantine prints it: one writer for both (STYLE 11).
 */
#ifndef OPS_QUARANTINE_H
#define OPS_QUARANTINE_H

#include "formback.h"

/*
 * Write the members of batch `row` (a struct flood_batch_row, db/store.h)
 * into the open object of j: id, object "quarantine", site_id, domain,
 * kind, source, hour, threshold, leads, status, decided_at, created_at.
 * Borrows row; errors stay in j (jgen_end()).
 */
void		quarantine_gen(struct jgen *j, const void *row);

#endif
