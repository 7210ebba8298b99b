/*
 * store.c — opening and closing a receipt store, counting, removing with a
 * tombstone, listing tombstones, and the integrity check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/strbuf.h"
#include "store/store_internal.h"
#include "store/store_pg.h"

enum {
    BUSY_RETRY_MS = 10,
};

/* Read-only media cannot hold the -shm file WAL readers need: SQLite can
 * still read such a file when told that nothing will change it. */
static int open_immutable(mcpp_store *s)
{
    sqlite3_close(s->db);
    s->db = NULL;
    mcpp_strbuf uri;
    mcpp_sb_init(&uri, NULL, 0);
    mcpp_sb_puts(&uri, "file:");
    for (const char *p = s->path; *p; p++) {
        if (*p == '?' || *p == '#' || *p == '%') mcpp_sb_printf(&uri, "%%%02X", (unsigned char)*p);
        else mcpp_sb_putc(&uri, *p);
    }
    mcpp_sb_puts(&uri, "?immutable=1");
    if (uri.failed) return mcpp_error_nomem();
    int rc = sqlite3_open_v2(uri.data, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    mcpp_sb_free(&uri);
    return rc == SQLITE_OK ? MCPP_OK : mcpp_store_sqlite_error(s, rc, "opening the store");
}

/* 1 when the file and its directory can be written (errno set otherwise). */
static int writable(const mcpp_store *s)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", s->path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
    else snprintf(dir, sizeof dir, ".");
    return access(dir, W_OK) == 0 && access(s->path, W_OK) == 0;
}

/* SQLite reports a read-only file or directory as "unable to open", or opens
 * the file read-only without saying so: say what it is. */
static int read_only_error(const mcpp_store *s)
{
    const char *why = writable(s) ? "SQLite opened it read-only" : strerror(errno);
    return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, s->path, NULL, 0, 0,
                          "cannot write: the file or its directory is read-only (%s); "
                          "open the store read-only to read it",
                          why);
}

/* Steps st, retrying while the file is busy, for as long as the busy timeout.
 * Switching a new file to WAL needs an exclusive lock, and SQLite does not
 * call the busy handler for it when this connection already reads (it could
 * deadlock): two processes opening one new store at once would otherwise
 * see "database is locked" instead of waiting for each other. */
static int step_retrying_busy(sqlite3_stmt *st)
{
    int step = sqlite3_step(st);
    for (int waited_ms = 0; (step == SQLITE_BUSY || step == SQLITE_LOCKED) && waited_ms < MCPP_STORE_BUSY_TIMEOUT_MS;
         waited_ms += BUSY_RETRY_MS) {
        sqlite3_reset(st);
        sqlite3_sleep(BUSY_RETRY_MS);
        step = sqlite3_step(st);
    }
    return step;
}

static int configure(mcpp_store *s)
{
    sqlite3_busy_timeout(s->db, MCPP_STORE_BUSY_TIMEOUT_MS);
    int rc;
    if (s->read_only)
        return (rc = mcpp_store_migrate(s)) ? rc : mcpp_store_lane_keys_refresh(s);
    /* SQLite opens a file it cannot write read-only without saying so */
    if (sqlite3_db_readonly(s->db, "main") == 1) return read_only_error(s);
    /* journal_mode answers with the mode it is in; anything but wal means the
     * file could not be switched (read-only media, for one). */
    /* A new file gets 32 KiB pages. A row (canonical body, image, lane key)
     * is ~6 KiB: 16 KiB pages held two and left a quarter of each empty,
     * 32 KiB pages hold five. For 10^5 receipts the file shrank from 820 to
     * 678 MB, an add ran at 1.15x the receipts/s and stepping a query over
     * every row took 0.11 s instead of 0.15 s; 64 KiB pages were no faster
     * and double the WAL bytes of a small add; 4 KiB pages spill every row
     * to overflow pages. It must be set before the switch to WAL; an
     * existing file keeps its page size. */
    rc = mcpp_store_exec(s, "PRAGMA page_size=32768", "setting the page size");
    if (rc) return rc;
    sqlite3_stmt *st = NULL;
    rc = mcpp_store_prepare(&st, s, "PRAGMA journal_mode=WAL", "switching to WAL");
    if (rc) return rc;
    int step = step_retrying_busy(st);
    const unsigned char *mode = step == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
    if (step != SQLITE_ROW) rc = mcpp_store_sqlite_error(s, step, "switching to WAL");
    else if (!mode || strcmp((const char *)mode, "wal") != 0)
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, s->path, NULL, 0, 0,
                            "cannot switch the store to WAL mode (read-only media?)");
    sqlite3_finalize(st);
    if (!rc) rc = mcpp_store_exec(s, "PRAGMA synchronous=FULL", "setting synchronous=FULL");
    /* A page cache of up to 32 MiB (taken only as used): a large add spills
     * its dirty pages beyond that to the WAL while other threads still fill
     * rows, instead of writing them all at commit with the other core idle.
     * 128 MiB made adds of 10^5 receipts ~10% slower and those of 10^6 no
     * faster (bench_store, 2026-11-26); queries read the same either way. */
    if (!rc) rc = mcpp_store_exec(s, "PRAGMA cache_size=-32768", "sizing the page cache");
    /* After a checkpoint, a WAL grown by a large add is cut back to 64 MiB. */
    if (!rc) rc = mcpp_store_exec(s, "PRAGMA journal_size_limit=67108864", "limiting the WAL");
    if (!rc) rc = mcpp_store_migrate(s);
    if (!rc)
        rc = mcpp_store_lane_keys_refresh(s);
    return rc ? rc : mcpp_store_summaries_init_if_empty(s);
}

size_t mcpp_store_images_refused(const mcpp_store *store)
{
    return store ? atomic_load(&((mcpp_store *)store)->images_refused) : 0;
}

const char *mcpp_store_image_column(const mcpp_store *s)
{
    return s->version >= 4 ? "image" : "NULL";
}

int mcpp_store_open(mcpp_store **out, const char *path, unsigned flags)
{
    if (!out || !path || !*path)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_open: NULL out or path");
    *out = NULL;
    mcpp_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = mcpp_strdup(path, NULL))) {
        free(s);
        return mcpp_error_nomem();
    }
    s->read_only = (flags & MCPP_STORE_READ_ONLY) != 0;
    if (mcpp_store_is_pg_location(path)) { /* the PostgreSQL backend (store_pg.c) */
        int rc = mcpp_store_pg_open(s, path, flags);
        if (rc)
            mcpp_store_close(s);
        else
            *out = s;
        return rc;
    }
    int open_flags = s->read_only ? SQLITE_OPEN_READONLY
                                  : SQLITE_OPEN_READWRITE | ((flags & MCPP_STORE_CREATE) ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &s->db, open_flags | SQLITE_OPEN_NOMUTEX, NULL);
    rc = rc == SQLITE_OK ? configure(s) : mcpp_store_sqlite_error(s, rc, "opening the store");
    if (rc == MCPP_EIO && s->read_only) {
        if (!(rc = open_immutable(s))) rc = configure(s);
    } else if (rc == MCPP_EIO && !writable(s)) {
        rc = read_only_error(s);
    }
    if (rc) {
        mcpp_store_close(s);
        return rc;
    }
    *out = s;
    return MCPP_OK;
}

void mcpp_store_close(mcpp_store *store)
{
    if (!store) return;
    if (store->pg)
        mcpp_store_pg_close(store);
    sqlite3_close(store->db);
    mcpp_store_codec_forget(store);
    mcpp_store_zctx_free(store->zctx);
    free(store->path);
    free(store);
}

int mcpp_store_schema_version(const mcpp_store *store)
{
    return store ? store->version : 0;
}

static int count_rows(size_t *out, mcpp_store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, sql, "counting");
    if (rc) return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) *out = (size_t)sqlite3_column_int64(st, 0);
    else rc = mcpp_store_sqlite_error(s, step, "counting");
    sqlite3_finalize(st);
    return rc;
}

int mcpp_store_count(size_t *out_live, size_t *out_removed, mcpp_store *store)
{
    if (!store) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_count: NULL store");
    size_t live = 0, removed = 0;
    int rc = store->pg ? mcpp_store_pg_count(&live, &removed, store) : MCPP_OK;
    if (!rc && !store->pg)
        rc = count_rows(&live, store, "SELECT count(*) FROM receipts");
    if (!rc && !store->pg)
        rc = count_rows(&removed, store, "SELECT count(*) FROM tombstones");
    if (out_live) *out_live = live;
    if (out_removed) *out_removed = removed;
    return rc;
}

int mcpp_store_remove(mcpp_store *store, const char *id, const char *reason)
{
    if (!store || !id || !reason || !*reason)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "mcpp_store_remove: a store, an id and a non-empty reason are needed");
    if (store->pg)
        return mcpp_store_pg_remove(store, id, reason);
    int rc = mcpp_store_begin_write(store);
    if (rc) return rc;
    sqlite3_stmt *st = NULL;
    rc = mcpp_store_prepare(&st, store,
                            "INSERT INTO tombstones SELECT id, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), body"
                            " FROM receipts WHERE id = ?1",
                            "removing");
    if (!rc) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, reason, -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step != SQLITE_DONE) rc = mcpp_store_sqlite_error(store, step, "removing");
        else if (sqlite3_changes(store->db) == 0)
            rc = mcpp_error_at(MCPP_ENOTFOUND, MCPP_ERROR_KIND_MISSING, store->path, "id", 0, 0, "no stored receipt has id '%s'", id);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (!rc && !(rc = mcpp_store_prepare(&st, store, "DELETE FROM receipts WHERE id = ?1", "removing"))) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step != SQLITE_DONE) rc = mcpp_store_sqlite_error(store, step, "removing");
    }
    sqlite3_finalize(st);
    if (!rc) rc = mcpp_store_summaries_invalidate(store); /* the lane lost a run */
    if (rc) {
        mcpp_store_rollback(store);
        return rc;
    }
    return mcpp_store_commit(store);
}

int mcpp_store_take_text(char **out, struct mcpp_strbuf *b)
{
    if (b->failed) {
        mcpp_sb_free(b);
        return mcpp_error_nomem();
    }
    *out = b->data ? b->data : mcpp_strdup("", NULL);
    b->data = NULL;
    b->owned = 0;
    return *out ? MCPP_OK : mcpp_error_nomem();
}

void mcpp_store_tombstone_line(mcpp_strbuf *b, const char *id, const char *reason, const char *removed_at)
{
    mcpp_sb_json_key_string(b, "{\"id\": ", id);
    mcpp_sb_json_key_string(b, ", \"reason\": ", reason);
    mcpp_sb_json_key_string(b, ", \"removed_at\": ", removed_at);
    mcpp_sb_puts(b, "}\n");
}

int mcpp_store_removed_render(char **out, mcpp_store *store)
{
    if (!out || !store) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_removed_render: NULL argument");
    *out = NULL;
    if (store->pg)
        return mcpp_store_pg_removed_render(out, store);
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, store, "SELECT id, reason, removed_at FROM tombstones ORDER BY removed_at, id",
                                "listing tombstones");
    if (rc) return rc;
    mcpp_strbuf b;
    mcpp_sb_init(&b, NULL, 0);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        mcpp_store_tombstone_line(&b, (const char *)sqlite3_column_text(st, 0),
                                  (const char *)sqlite3_column_text(st, 1), (const char *)sqlite3_column_text(st, 2));
    if (step != SQLITE_DONE) rc = mcpp_store_sqlite_error(store, step, "listing tombstones");
    sqlite3_finalize(st);
    if (rc) {
        mcpp_sb_free(&b);
        return rc;
    }
    return mcpp_store_take_text(out, &b);
}
