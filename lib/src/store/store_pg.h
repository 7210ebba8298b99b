/*
 * store_pg.h — the store's PostgreSQL backend. A store location that is a
 * postgresql:// (or postgres://) URL, a libpq conninfo, opens here instead of
 * in SQLite; every public call of store.h then takes the branch of its file
 * that calls the functions below (one store API, two backends behind it).
 *
 * Two layers, so that libpq stays in one file as SQLite stays in store/:
 *   store_pg_conn.c  the adapter: connection, statements with text
 *                    parameters, results, a cursor, SQLSTATEs mapped to the
 *                    library's errors (the only file that includes libpq-fe.h)
 *   store_pg.c       the store on it: schema and migrations, add (one
 *                    transaction under an advisory lock), remove, count,
 *                    tombstones, the lane summaries, queries
 *   store_pg_check.c `check` and `--repair`
 *   store_pg_lane_keys.c  the lane columns in this build's lane key format
 */
#ifndef MCPP_STORE_PG_H
#define MCPP_STORE_PG_H

#include <stddef.h>

#include "mcpp_receipts/store.h"

struct mcpp_strbuf;

/* The PostgreSQL schema version this library writes (its own numbering: the
 * tables of SQLite schema 6 without the compression and image columns). */
#define MCPP_STORE_PG_SCHEMA_VERSION 2

/* 1 when `location` names a PostgreSQL store. */
int mcpp_store_is_pg_location(const char *location);

/* ---- the adapter (store_pg_conn.c) -------------------------------------------------- */

typedef struct mcpp_pg mcpp_pg;
typedef struct mcpp_pg_rows mcpp_pg_rows;

/* Connects; `name` is what errors call the store (the URL without its password). */
int mcpp_pg_connect(mcpp_pg **out, const char *conninfo, const char *name);
void mcpp_pg_disconnect(mcpp_pg *pg);

/* Runs `sql` with `n` text parameters ($1..$n; NULL is SQL NULL). *out (may be
 * NULL) gets the rows; free with mcpp_pg_rows_free. Failures name the store and
 * `what`: a lost connection or a server that refuses is MCPP_EIO, a unique
 * violation or a missing table MCPP_EINVALID. */
int mcpp_pg_run(mcpp_pg_rows **out, mcpp_pg *pg, const char *sql, int n, const char *const *params, const char *what);
/* Runs several statements without parameters (a migration). */
int mcpp_pg_script(mcpp_pg *pg, const char *sql, const char *what);
size_t mcpp_pg_rows_count(const mcpp_pg_rows *rows);
size_t mcpp_pg_rows_affected(const mcpp_pg_rows *rows); /* rows an INSERT/UPDATE/DELETE changed */
/* The text of a value; NULL for SQL NULL. */
const char *mcpp_pg_value(const mcpp_pg_rows *rows, size_t row, int col);
size_t mcpp_pg_length(const mcpp_pg_rows *rows, size_t row, int col);
void mcpp_pg_rows_free(mcpp_pg_rows *rows);

/* ROLLBACK, keeping the thread's last error (the failure that caused it). */
void mcpp_pg_rollback(mcpp_pg *pg);

/* Whether the last failed statement's SQLSTATE is `state` ("23505": unique
 * violation, "40001": serialization failure, "40P01": deadlock). */
int mcpp_pg_failed_with(const mcpp_pg *pg, const char *state);

/* Runs `sql` (with its parameters) through a cursor inside the current
 * transaction, handing `each` every batch of rows; a non-zero return stops. */
int mcpp_pg_each_batch(mcpp_pg *pg, const char *sql, int n, const char *const *params, const char *what,
                       int (*each)(void *ctx, const mcpp_pg_rows *rows), void *ctx);

/* ---- the store (store_pg.c) ------------------------------------------------------------ */

/* Opens the store at `url` into the handle (its backend becomes PostgreSQL):
 * connects, creates the tables with MCPP_STORE_CREATE when the database has
 * none, migrates forward unless read-only, refuses a newer schema. */
int mcpp_store_pg_open(mcpp_store *s, const char *url, unsigned flags);
void mcpp_store_pg_close(mcpp_store *s);

int mcpp_store_pg_add(mcpp_store_add_result *res, mcpp_store *s, const mcpp_receipt *const *receipts, size_t n);
int mcpp_store_pg_remove(mcpp_store *s, const char *id, const char *reason);
int mcpp_store_pg_count(size_t *live, size_t *removed, mcpp_store *s);
int mcpp_store_pg_removed_render(char **out, mcpp_store *s);
int mcpp_store_pg_frontier(mcpp_frontier **out, mcpp_store *s, const mcpp_policy *policy);
int mcpp_store_pg_check(char **out, mcpp_store *s, int repair);

/* Loads the receipts the query `sql` ($1..$n) selects (columns: id, body),
 * in its order, handing each to `fn` (which owns it). */
int mcpp_store_pg_load(mcpp_store *s, const char *sql, int n, const char *const *params, mcpp_store_receipt_fn fn,
                       void *ctx);

/* The same inside the caller's transaction. */
int mcpp_store_pg_load_in_transaction(mcpp_store *s, const char *sql, int n, const char *const *params,
                                      mcpp_store_receipt_fn fn, void *ctx);

/* Shared by store_pg.c and store_pg_check.c: a write transaction (BEGIN and
 * the write lock), its end (COMMIT when rc is MCPP_OK, else ROLLBACK keeping
 * the error; returns the outcome), and the lane summaries: their validity
 * mark, one saved, all rebuilt from the bodies (inside a transaction) and
 * all replaced with the mark set. */
int mcpp_store_pg_begin_write(mcpp_store *s);
int mcpp_store_pg_end(mcpp_store *s, int rc);
int mcpp_store_pg_summaries_valid(int *valid, mcpp_store *s);
int mcpp_store_pg_mark_summaries_valid(mcpp_store *s);
int mcpp_store_pg_write_summary(mcpp_store *s, const mcpp_lane_summary *summary);
int mcpp_store_pg_summaries_from_bodies(mcpp_lane_summary ***out, size_t *n, mcpp_store *s, const mcpp_policy *p);
int mcpp_store_pg_save_summaries(mcpp_store *s, mcpp_lane_summary *const *lanes, size_t n);

/* The lane columns in this build's lane key format (store_pg_lane_keys.c):
 * on open, re-derived from the verified receipts when the store records
 * another format or none (in place under the write lock when read-write,
 * else into a temporary view of the session); recording the format (inside
 * the caller's write transaction). */
int mcpp_store_pg_lane_keys_refresh(mcpp_store *s);
int mcpp_store_pg_record_lane_key_format(mcpp_store *s);

#endif /* MCPP_STORE_PG_H */
