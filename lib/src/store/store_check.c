/*
 * store_check.c — `store check`: SQLite's own integrity check of every page
 * and index, then every stored body loaded back as a receipt with its id.
 */
#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"
#include "receipt/receipt_internal.h"
#include "store/store_internal.h"

static int integrity(mcpp_strbuf *report, size_t *problems, mcpp_store *s)
{
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, "PRAGMA integrity_check", "checking integrity");
    if (rc) return rc;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (line && strcmp(line, "ok") == 0) continue;
        mcpp_sb_printf(report, "integrity: %s\n", line ? line : "(null)");
        (*problems)++;
    }
    if (step != SQLITE_DONE) rc = mcpp_store_sqlite_error(s, step, "checking integrity");
    sqlite3_finalize(st);
    return rc;
}

/* Loads every body; the first that fails is reported (load_rows stops there). */
static int bodies(mcpp_strbuf *report, size_t *problems, mcpp_store *s)
{
    sqlite3_stmt *st = NULL;
    mcpp_receipt_set *set = NULL;
    int rc = mcpp_store_prepare(&st, s, "SELECT id, body FROM receipts ORDER BY rowid", "checking bodies");
    if (!rc) rc = mcpp_receipt_set_new(&set);
    if (!rc) {
        int loaded = mcpp_store_load_rows(set, s, st);
        if (loaded == MCPP_EINVALID) {
            mcpp_sb_printf(report, "body: %s\n", mcpp_error_last()->message);
            (*problems)++;
        } else {
            rc = loaded;
        }
    }
    sqlite3_finalize(st);
    mcpp_receipt_set_free(set);
    return rc;
}

int mcpp_store_check(char **out, mcpp_store *store)
{
    if (!out || !store) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_check: NULL argument");
    *out = NULL;
    mcpp_strbuf report;
    mcpp_sb_init(&report, NULL, 0);
    size_t problems = 0;
    int rc = integrity(&report, &problems, store);
    if (!rc && !problems) rc = bodies(&report, &problems, store);
    if (rc) {
        mcpp_sb_free(&report);
        return rc;
    }
    if (!problems) mcpp_sb_puts(&report, "ok\n");
    if ((rc = mcpp_store_take_text(out, &report))) return rc;
    if (!problems) return MCPP_OK;
    return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, store->path, NULL, 0, 0,
                          "the store is damaged (%zu problem%s; see the check report)", problems,
                          problems == 1 ? "" : "s");
}
