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

/*
 * The newest `runs` receipts of each lane (the default policy's, as the store
 * keeps them) among `receipts`, from the store at `db`: a gate's history
 * (mcpp_gate_run_with_history). Returns 0 or an exit code, the error printed.
 */
int cli_store_lane_history(mcpp_receipt_set **out, const char *db, const mcpp_receipt *const *receipts, size_t n,
                           size_t runs);

/*
 * The frontier of every receipt in the store at `db` (mcpp_store_frontier:
 * from the store's lane summaries under the default policy, `policy` NULL).
 * Opens the store for writing when it can, so stale summaries are saved once
 * rebuilt, else read-only. Returns 0 or an exit code, the error printed.
 */
int cli_store_frontier(mcpp_frontier **out, const char *db, const mcpp_policy *policy);

#endif /* MCPP_CLI_CMD_STORE_H */
