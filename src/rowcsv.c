/*
 * The CSV writers of the exports, each generated from its column list
 * (see rowcsv.h).
 */
#include "rowcsv.h"

ROWCSV(lead_csv, struct lead_row, LEAD_OWN_COLS)
ROWCSV(delivery_csv, struct delivery_row, DELIVERY_COLS)
ROWCSV(suppression_csv, struct suppression_row, SUPPRESSION_COLS)
