/*
 * cmd_store.h — what the store commands share with the analysis commands:
 * opening a store named by --store and loading a selection of it.
 */
#ifndef MCPP_CLI_CMD_STORE_H
#define MCPP_CLI_CMD_STORE_H

#include "mcpp_receipts.h"

/*
 * A new set with the receipts of the store at `db` that `where` selects
 * (comma-separated COLUMN=VALUE terms as `store ls --where`; NULL: all).
 * Returns 0 or an exit code, the error printed.
 */
int cli_store_load(mcpp_receipt_set **out, const char *db, const char *where);

#endif /* MCPP_CLI_CMD_STORE_H */
