/*
 * store_schema.c — the store's tables and their forward migrations. Each
 * migration runs in its own transaction together with the row that records
 * it in store_schema, so a crash leaves the store at the old version or the
 * new one. Migrations are only ever appended.
 */
#include <stdio.h>

#include "util/error_internal.h"
#include "store/store_internal.h"

/* Each step is one string; the parentheses mark where a step's literals join
 * (and keep clang's -Wstring-concatenation quiet). */
static const char *const MIGRATIONS[MCPP_STORE_SCHEMA_VERSION] = {
    /* 1: receipts with their filter columns, tombstones, the version table */
    ("CREATE TABLE store_schema(version INTEGER NOT NULL, applied_at TEXT NOT NULL);"
     "CREATE TABLE receipts("
     "  id TEXT PRIMARY KEY NOT NULL, created_at TEXT, git_commit TEXT, tool TEXT, name TEXT,"
     "  lane_key TEXT NOT NULL, lane_short TEXT NOT NULL, lane_label TEXT,"
     "  metric TEXT, metric_value REAL, body TEXT NOT NULL, added_at TEXT NOT NULL);"
     "CREATE TABLE tombstones(id TEXT PRIMARY KEY NOT NULL, reason TEXT NOT NULL,"
     "  removed_at TEXT NOT NULL, body TEXT NOT NULL);"),
    /* 2: indexes for lane history, time and commit queries; lanes are
     * indexed by their 17-byte short key (the full key, hundreds of bytes,
     * is checked on the rows found) */
    ("CREATE INDEX receipts_by_lane ON receipts(lane_short, created_at);"
     "CREATE INDEX receipts_by_time ON receipts(created_at);"
     "CREATE INDEX receipts_by_commit ON receipts(git_commit);"),
    /* 3: the default policy's lane summaries (a cache that frontier --store
     * reads instead of every receipt) and a name/value table saying whether
     * they are valid, and for which library version */
    ("CREATE TABLE lane_summaries(lane_key TEXT PRIMARY KEY NOT NULL, summary TEXT NOT NULL);"
     "CREATE TABLE store_meta(name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);"),
    /* 4: a relocatable image of each receipt (receipt/image.h), loaded by
     * memcpy instead of parsing the body; NULL for rows added before, or when
     * the receipt has none. The body stays the source of truth. */
    "ALTER TABLE receipts ADD COLUMN image BLOB;",
    /* 5: the time index ends with the id, so a query's order (created_at,
     * id) is read off it: with one created_at for many receipts (one import,
     * one generated batch), SQLite otherwise sorted every selected row,
     * bodies and images included, through temporary files (10^5 rows: 0.36 s
     * of a 0.5 s query). A lane's runs are few; they keep their index. */
    ("DROP INDEX receipts_by_time;"
     "CREATE INDEX receipts_by_time ON receipts(created_at, id);"),
    /* 6: bodies and images compressed with zstd against dictionaries the
     * store keeps (store_codec.c): a row went from ~6.2 KB to a tenth. Rows
     * written before keep their text body and plain image and read as
     * before; a library before version 6 refuses the file (it would take a
     * compressed body for text). IF NOT EXISTS: a file whose version rows
     * were rolled back by hand keeps its dictionaries (and can read with
     * them at any version). */
    "CREATE TABLE IF NOT EXISTS store_dicts(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, samples INTEGER NOT NULL,"
    "  checksum INTEGER NOT NULL, dict BLOB NOT NULL);",
    /* 7: the lane columns' key format is recorded in store_meta
     * (store_lane_keys.c re-derives them after this step, and whenever the
     * recorded format is not the build's); a library before version 7
     * refuses the file, so none adds rows keyed in a format it does not
     * record. Rows are not touched here. */
    "DELETE FROM store_meta WHERE name = 'lane_key_format';",
    /* 8: bodies are packed as LZ4 blocks ("MCLB", store_codec.c: the add's
     * compression took half the time); "MCZB" rows stay and read as before.
     * Nothing in the file changes here: the version is what a library before
     * 8 reads, and it refuses the file instead of failing on each new row. */
    "SELECT 1;",
};

/* 1 when the file has no tables at all (a new store). */
static int table_count(int *out, mcpp_store *s, const char *where)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_master WHERE %s", where);
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, sql, "reading the schema");
    if (rc) return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) *out = sqlite3_column_int(st, 0);
    else rc = mcpp_store_sqlite_error(s, step, "reading the schema");
    sqlite3_finalize(st);
    return rc;
}

static int read_version(mcpp_store *s)
{
    int tables = 0, has_version = 0;
    int rc = table_count(&tables, s, "type = 'table'");
    if (!rc) rc = table_count(&has_version, s, "type = 'table' AND name = 'store_schema'");
    if (rc) return rc;
    if (tables == 0) {
        s->version = 0;
        return MCPP_OK;
    }
    if (!has_version)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, NULL, 0, 0,
                              "an SQLite database but not a receipt store (no store_schema table)");
    /* Each migration records one row, so a store at version N (up to this
     * library's) holds exactly the integers 1..N: anything else was damaged
     * or edited, and reading the file by a version it does not have would
     * misread it. A version beyond this library's is refused as newer. */
    sqlite3_stmt *st = NULL;
    if ((rc = mcpp_store_prepare(&st, s,
                                 "SELECT max(version), min(version), count(*), count(DISTINCT version),"
                                 " total(typeof(version) <> 'integer') FROM store_schema",
                                 "reading the version")))
        return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        sqlite3_int64 max = sqlite3_column_int64(st, 0), min = sqlite3_column_int64(st, 1);
        sqlite3_int64 rows = sqlite3_column_int64(st, 2), distinct = sqlite3_column_int64(st, 3);
        int typed = sqlite3_column_double(st, 4) == 0;
        int newer = typed && max > MCPP_STORE_SCHEMA_VERSION && max <= 1000000; /* a newer library's: refused below */
        if (!newer && (rows == 0 || !typed || min != 1 || max < 1 || distinct != rows || rows != max))
            rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, "store_schema", 0, 0,
                               "the store's schema table is damaged: it should record the versions 1..N once "
                               "each (%lld rows, %s, from %lld to %lld); restore a copy of the file",
                               (long long)rows, typed ? "integers" : "not all integers", (long long)min,
                               (long long)max);
        else s->version = (int)max;
    } else {
        rc = mcpp_store_sqlite_error(s, step, "reading the version");
    }
    sqlite3_finalize(st);
    return rc;
}

static int apply(mcpp_store *s, int version)
{
    int rc = mcpp_store_begin_write(s);
    if (rc) return rc;
    /* another process may have migrated while we waited for the lock */
    if ((rc = read_version(s)) || s->version >= version) goto done;
    char record[160];
    snprintf(record, sizeof record,
             "INSERT INTO store_schema VALUES (%d, strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', 'now'))", version);
    if ((rc = mcpp_store_exec(s, MIGRATIONS[version - 1], "migrating the store schema")) ||
        (rc = mcpp_store_exec(s, record, "recording the schema version")))
        goto done;
    rc = mcpp_store_commit(s);
    if (!rc) s->version = version;
    return rc;
done:
    if (rc) mcpp_store_rollback(s);
    else rc = mcpp_store_commit(s);
    return rc;
}

int mcpp_store_migrate(mcpp_store *s)
{
    int rc = read_version(s);
    if (rc) return rc;
    if (s->version > MCPP_STORE_SCHEMA_VERSION)
        return mcpp_error_at(MCPP_EUNSUPPORTED, MCPP_ERROR_KIND_UNSUPPORTED, s->path, NULL, 0, 0,
                              "store schema version %d is newer than this library's %d; upgrade mcpp_receipts",
                              s->version, MCPP_STORE_SCHEMA_VERSION);
    if (s->read_only) {
        if (s->version == 0)
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, NULL, 0, 0,
                                  "an empty file, not a receipt store");
        return MCPP_OK;
    }
    while (s->version < MCPP_STORE_SCHEMA_VERSION)
        if ((rc = apply(s, s->version + 1))) return rc;
    return MCPP_OK;
}
