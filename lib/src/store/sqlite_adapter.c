/*
 * sqlite_adapter.c — the store's adapter to SQLite: statuses mapped to the
 * library's errors (naming the database file), plain execution, prepared
 * statements and write transactions that wait for other writers.
 */
#include <errno.h>
#include <time.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "store/store_internal.h"

/* Attempts at BEGIN IMMEDIATE after the busy timeout gave up; with the 5 s
 * busy timeout set at open and the sleeps below this waits about a minute. */
#define BEGIN_ATTEMPTS 12

static int status_for(int sqlite_rc, const char **kind)
{
    switch (sqlite_rc & 0xFF) {
    case SQLITE_NOMEM: *kind = "memory"; return mcpp_error_nomem();
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_FORMAT:
    case SQLITE_SCHEMA:
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_ERROR: /* the store's own SQL is fixed: "no such table/column", "unsupported file format" come from the file */
        *kind = "consistency";
        return MCPP_EINVALID;
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_PERM:
    case SQLITE_AUTH:
    case SQLITE_TOOBIG:
        *kind = "io";
        return MCPP_EIO;
    default:
        *kind = "internal";
        return MCPP_EINTERNAL;
    }
}

/* A hint for the failures people can fix themselves. */
static const char *hint_for(int sqlite_rc)
{
    switch (sqlite_rc & 0xFF) {
    case SQLITE_FULL: return " (the file system is full; the store keeps what was committed before)";
    case SQLITE_READONLY: return " (the file or its directory is read-only; open the store read-only to read it)";
    case SQLITE_NOTADB: return " (not a receipt store, or its header is damaged)";
    case SQLITE_CORRUPT: return " (the database is damaged; run 'mcpp-receipts store check')";
    case SQLITE_ERROR: return " (the file's tables are not those of its schema version: damaged or edited by hand)";
    case SQLITE_BUSY: return " (another process kept the store locked)";
    default: return "";
    }
}

int mcpp_store_sqlite_error(const mcpp_store *s, int sqlite_rc, const char *what)
{
    const char *kind;
    int code = status_for(sqlite_rc, &kind);
    const char *text = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(sqlite_rc);
    if (code == MCPP_ENOMEM) return mcpp_error_nomem();
    return mcpp_error_set(code, kind, s ? s->path : NULL, NULL, 0, 0, "%s: %s%s", what, text,
                          hint_for(sqlite_rc));
}

int mcpp_store_exec(mcpp_store *s, const char *sql, const char *what)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? MCPP_OK : mcpp_store_sqlite_error(s, rc, what);
}

int mcpp_store_prepare(sqlite3_stmt **out, mcpp_store *s, const char *sql, const char *what)
{
    int rc = sqlite3_prepare_v2(s->db, sql, -1, out, NULL);
    return rc == SQLITE_OK ? MCPP_OK : mcpp_store_sqlite_error(s, rc, what);
}

int mcpp_store_meta_text(char **out, mcpp_store *s, const char *name, const char *what)
{
    *out = NULL;
    if (s->version < 3)
        return MCPP_OK; /* no store_meta: an older store, opened read-only */
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, "SELECT value FROM main.store_meta WHERE name = ?1", what);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int step = sqlite3_step(st), failed = 0;
    if (step == SQLITE_ROW)
        *out = mcpp_strdup((const char *)sqlite3_column_text(st, 0), &failed);
    else if (step != SQLITE_DONE)
        rc = mcpp_store_sqlite_error(s, step, what);
    sqlite3_finalize(st);
    return failed ? mcpp_error_nomem() : rc;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int mcpp_store_begin_write(mcpp_store *s)
{
    if (s->read_only)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, s->path, NULL, 0, 0,
                              "the store was opened read-only");
    int rc = SQLITE_BUSY;
    for (int attempt = 0; attempt < BEGIN_ATTEMPTS; attempt++) {
        rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if ((rc & 0xFF) != SQLITE_BUSY && (rc & 0xFF) != SQLITE_LOCKED) break;
        sleep_ms(10L << (attempt < 6 ? attempt : 6));
    }
    return rc == SQLITE_OK ? MCPP_OK : mcpp_store_sqlite_error(s, rc, "starting a write");
}

int mcpp_store_commit(mcpp_store *s)
{
    int rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK) return MCPP_OK;
    int status = mcpp_store_sqlite_error(s, rc, "committing");
    mcpp_store_rollback(s);
    return status;
}

void mcpp_store_rollback(mcpp_store *s)
{
    if (!sqlite3_get_autocommit(s->db)) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}
