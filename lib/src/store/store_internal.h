/*
 * store_internal.h — what the store's files share: the handle, the SQLite
 * adapter (the only code that talks to sqlite3.h) and the schema migrations.
 */
#ifndef MCPP_STORE_INTERNAL_H
#define MCPP_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>

#include "mcpp_receipts/frontier.h"
#include "mcpp_receipts/store.h"

typedef struct mcpp_store_codec mcpp_store_codec;
typedef struct mcpp_store_zctx mcpp_store_zctx;
typedef struct mcpp_pg mcpp_pg;

/* One handle, two backends: `pg` set means the store is in PostgreSQL
 * (store_pg.h) and every public call takes its PostgreSQL branch; else the
 * SQLite file `db`. */
struct mcpp_store {
    mcpp_pg *pg;
    sqlite3 *db;
    char *path;
    int version;
    int read_only;
    atomic_size_t images_refused; /* damaged or forged images read from their bodies instead */
    mcpp_store_codec *codec;      /* the compression dictionaries read so far (store_codec.c) */
    mcpp_store_zctx *zctx;        /* compression contexts of the caller's thread */
};

/*
 * Compressed bodies and images (store_codec.c, schema version 6). The codec
 * holds the store's dictionaries: _refresh reads those added since (no-op on
 * an older store opened read-only), _forget drops them (after a rollback:
 * a dictionary of the undone add is gone), _prepare_add makes new ones from
 * an add's receipts when the store has none (inside the add's transaction).
 * A zctx holds one thread's zstd contexts; pack/unpack may run on any thread
 * with the codec read-only. Packed blobs are malloc'ed; unpacked bytes end in
 * a NUL. Unpacking a damaged blob is MCPP_EINVALID with `why` filled and no
 * error set.
 */
int mcpp_store_codec_refresh(mcpp_store *s);
void mcpp_store_codec_forget(mcpp_store *s);
int mcpp_store_codec_prepare_add(mcpp_store *s, const mcpp_receipt *const *receipts, size_t n);
mcpp_store_zctx *mcpp_store_zctx_new(void);
void mcpp_store_zctx_free(mcpp_store_zctx *z);
/* The zctx's text buffer, emptied: a thread writes the body it packs next
 * there instead of in a buffer of its own per row. */
struct mcpp_strbuf *mcpp_store_zctx_text(mcpp_store_zctx *z);
int mcpp_store_pack_body(const mcpp_store_codec *c, mcpp_store_zctx *z, const char *text, size_t len,
                         unsigned char **out, size_t *out_len);
int mcpp_store_pack_image(const mcpp_store_codec *c, mcpp_store_zctx *z, const unsigned char *image, size_t len,
                          unsigned char **out, size_t *out_len);
int mcpp_store_body_is_packed(const void *blob, size_t len);
int mcpp_store_image_is_packed(const void *blob, size_t len);
int mcpp_store_unpack_body(const mcpp_store_codec *c, mcpp_store_zctx *z, const void *blob, size_t len, char **out,
                           size_t *out_len, char *why, size_t why_len);
int mcpp_store_unpack_image(const mcpp_store_codec *c, mcpp_store_zctx *z, const void *blob, size_t len,
                            unsigned char **out, size_t *out_len, char *why, size_t why_len);
/* The body in column `col` as JSON text (malloc'ed, NUL-terminated), whether
 * stored as text (before version 6) or packed; MCPP_EINVALID naming the
 * store when it is missing or does not decompress. */
int mcpp_store_column_body(mcpp_store *s, sqlite3_stmt *st, int col, char **out, size_t *out_len);
/* The lane columns in this build's lane key format (store_lane_keys.c): on
 * open, re-derived from the receipts when the store records another format
 * or none (in place when writable, else into a temporary view). */
int mcpp_store_lane_keys_refresh(mcpp_store *s);
/* The format of the lane columns this build writes ("lanes/N", N being
 * MCPP_LANE_KEY_FORMAT), recorded in store_meta under this name by both
 * backends. */
#define MCPP_STORE_LANE_KEY_FORMAT_NAME "lane_key_format"
const char *mcpp_store_lane_key_format(void);
/* A receipt's lane columns as this build writes them: its lane key under the
 * default policy (mcpp_free), short key, and label (malloc). */
typedef struct mcpp_store_lane_columns {
    char *key;
    char short_key[24];
    char *label;
} mcpp_store_lane_columns;
int mcpp_store_lane_columns_of(mcpp_store_lane_columns *out, const mcpp_receipt *r);
void mcpp_store_lane_columns_clear(mcpp_store_lane_columns *c);
/* A string field of r by path (receipt/fields.h), or NULL when absent or not
 * a string; borrowed from r. */
const char *mcpp_store_string_field(const mcpp_receipt *r, const char *path);
/* A row's lane_label: lane.name, else "family/pattern" ("-" for either
 * missing); malloc'ed, NULL when out of memory. */
char *mcpp_store_lane_label(const mcpp_receipt *r);

/* `store check`: one line per damaged dictionary, counted in *problems. */
struct mcpp_strbuf;
int mcpp_store_codec_check(struct mcpp_strbuf *report, size_t *problems, const mcpp_store *s);

/*
 * Maps a failed SQLite call to the thread's last error and returns the mcpp
 * status: SQLITE_FULL, a read-only file or directory and other I/O failures
 * are MCPP_EIO (kind "io"), a damaged or foreign file is MCPP_EINVALID (kind
 * "store"), SQLITE_NOMEM is MCPP_ENOMEM. `what` says what was being done.
 */
int mcpp_store_sqlite_error(const mcpp_store *s, int sqlite_rc, const char *what);

/* How long a call waits for another process's lock (the connection's busy timeout). */
#define MCPP_STORE_BUSY_TIMEOUT_MS 5000

/* Runs SQL without results; maps failures with mcpp_store_sqlite_error. */
int mcpp_store_exec(mcpp_store *s, const char *sql, const char *what);

/*
 * BEGIN IMMEDIATE, retried with growing sleeps while another writer holds the
 * lock beyond the busy timeout (about a minute in all), so concurrent adders
 * wait for each other instead of failing.
 */
int mcpp_store_begin_write(mcpp_store *s);
/* COMMIT; on failure the transaction is rolled back and the error kept. */
int mcpp_store_commit(mcpp_store *s);
/* ROLLBACK, keeping the current last error. */
void mcpp_store_rollback(mcpp_store *s);

/* Prepares `sql`; maps failures. */
int mcpp_store_prepare(sqlite3_stmt **out, mcpp_store *s, const char *sql, const char *what);

/* The value store_meta holds under `name`, a copy in *out (free it), or NULL
 * when there is none or the store predates store_meta (schema 3); `what`
 * names the reading in errors. MCPP_OK or an error code. */
int mcpp_store_meta_text(char **out, mcpp_store *s, const char *name, const char *what);

/* Reads the schema version and migrates forward (unless read-only). */
int mcpp_store_migrate(mcpp_store *s);

/* Hands a buffer's text to the caller as *out (mcpp_free), "" when empty;
 * MCPP_ENOMEM (and the buffer freed) when it failed to grow. */
int mcpp_store_take_text(char **out, struct mcpp_strbuf *b);

/* The column to select after id and body for the loaders: "image" from
 * schema version 4 on, "NULL" in an older store opened read-only. */
const char *mcpp_store_image_column(const mcpp_store *s);

/* Folds the writer's JSON onto one line, in place; returns the new length. */
size_t mcpp_store_fold_json(char *text, size_t len);

/* The stored columns of one receipt, computed through the public API. */
typedef struct mcpp_store_row {
    const mcpp_receipt *receipt; /* the receipt the row is of (borrowed) */
    const char *id;
    char *body; /* canonical JSON, mcpp_free; NULL when packed (an add writes it again for a conflict) */
    size_t body_len;
    const char *created_at;
    const char *git_commit;
    const char *tool;
    const char *name;
    char *lane_key; /* mcpp_free */
    size_t lane_key_len;
    char lane_short[24];
    char *lane_label; /* malloc */
    const char *metric;
    /* id, created_at, git_commit, tool and name point into `texts` (one
     * malloc, filled on the filling thread), their lengths in text_len
     * (-1: NULL); the lane label's, the metric's and the short key's too */
    char *texts;
    int text_len[8];
    int has_value;
    double value;
    unsigned char *image; /* receipt/image.h, packed (store_codec.c), malloc; NULL: none */
    size_t image_len;
    unsigned char *packed_body; /* the body packed, malloc; NULL: stored as text */
    size_t packed_body_len;
} mcpp_store_row;

/* The lane keys a filling thread made recently, by lane hash: receipts of
 * one lane share one key, and writing the key's text and hashing it for the
 * short key cost ~10% of an add's CPU. A hit is checked field by field
 * against the receipt that made the entry (which outlives the add). */
#define MCPP_STORE_LANE_MEMO 64
typedef struct mcpp_store_lane_entry {
    const mcpp_receipt *exemplar; /* NULL: empty */
    uint64_t hash;
    char *key; /* malloc */
    size_t key_len;
    char lane_short[24];
} mcpp_store_lane_entry;
typedef struct mcpp_store_lane_memo {
    mcpp_store_lane_entry at[MCPP_STORE_LANE_MEMO];
} mcpp_store_lane_memo;
void mcpp_store_lane_memo_clear(mcpp_store_lane_memo *memo);

/* Fills `row` for `r` (strings borrowed from r except those marked); `metric`
 * is the default gate metric path. With a zctx the body and image are
 * packed with the codec's dictionaries (the body's text is written in the
 * zctx's buffer and not kept); without, stored as before version 6. `memo`
 * (may be NULL) is the calling thread's. The image is made only `with_image` (store check
 * and its repair): an add stores none, the first read makes it
 * (store_load.c). Free with mcpp_store_row_clear. */
int mcpp_store_row_fill(mcpp_store_row *row, const mcpp_receipt *r, const char *metric, const mcpp_store_codec *codec,
                        mcpp_store_zctx *z, mcpp_store_lane_memo *memo, int with_image);
void mcpp_store_row_clear(mcpp_store_row *row);

/*
 * Calls `each` with the row of receipts[0..n) in input order, the rows being
 * filled ahead on worker threads (store_add_rows.c); stops at the first
 * non-zero status of a fill or of `each` and returns it.
 */
int mcpp_store_rows_each(const mcpp_receipt *const *receipts, size_t n, const char *metric,
                         const mcpp_store_codec *codec, int (*each)(void *ctx, const mcpp_store_row *row, size_t index), void *ctx);

/*
 * Images made by the first read (store_image_cache.c): an add stores none.
 * _make builds a receipt's image and packs it as the store keeps it
 * (MCPP_EUNSUPPORTED: the receipt gets none). The writer is a second,
 * read-write connection a reader opens lazily (_ready: 1 when it can write:
 * this build's schema, a writable file); _put writes one batch of images
 * (NULL entries skipped) in one transaction, without waiting for the lock,
 * and turns itself off for good on any failure. Nothing here fails a read.
 */
typedef struct mcpp_store_image_writer {
    sqlite3 *db;
    sqlite3_stmt *put;
    int state; /* 0 untried, 1 ready, -1 off */
} mcpp_store_image_writer;
int mcpp_store_image_make(unsigned char **out, size_t *out_len, const mcpp_store_codec *c, mcpp_store_zctx *z,
                          const mcpp_receipt *r);
int mcpp_store_image_writer_ready(mcpp_store_image_writer *w, const mcpp_store *s);
void mcpp_store_image_writer_put(mcpp_store_image_writer *w, char *const *ids, unsigned char *const *images,
                                 const size_t *lengths, size_t n);
void mcpp_store_image_writer_close(mcpp_store_image_writer *w);

/*
 * Loads the bodies a prepared statement yields (column 0 = id, 1 = body) into
 * `set`, parsing on several threads; a body that no longer loads is
 * MCPP_EINVALID naming the id.
 */
int mcpp_store_load_rows(mcpp_receipt_set *set, mcpp_store *s, sqlite3_stmt *stmt);
/* The same, handing each receipt (and its ownership) to `sink` in row order. */
int mcpp_store_load_rows_each(mcpp_store *s, sqlite3_stmt *stmt, mcpp_store_receipt_fn sink, void *ctx);

/* Lane keys (default policy) of the live lanes a selector names, as a
 * NULL-terminated array of malloc'ed strings; free with mcpp_store_keys_free. */
int mcpp_store_select_lanes(char ***out, mcpp_store *s, const char *selector);
/* The same, reading only bodies (never images) when `bodies_only`. */
int mcpp_store_select_lanes_from(char ***out, mcpp_store *s, const char *selector, int bodies_only);
/* mcpp_store_query_each, reading only bodies (never images) when
 * `bodies_only`: what export does, so that it writes the receipts' truth. */
int mcpp_store_query_from(mcpp_store *store, const mcpp_store_query *query, int bodies_only, mcpp_store_receipt_fn fn,
                          void *ctx);
void mcpp_store_keys_free(char **keys);
/* The texts of the first column `sql` selects (binding ?1 = arg when not
 * NULL), in SQLite or PostgreSQL, as a NULL-terminated array of malloc'ed
 * strings (mcpp_store_keys_free); NULL *out, and MCPP_OK, when `max` is not 0
 * and there are more. `what` names the work in errors. */
int mcpp_store_texts(char ***out, mcpp_store *s, const char *sql, const char *arg, size_t max, const char *what);
/* One receipt of each lane (the lane's first row), loaded into a new set. */
int mcpp_store_lane_exemplars(mcpp_receipt_set **out, mcpp_store *s);
/* MCPP_EARG naming the closest stated name when no stored receipt states
 * `metric`, or (policy not NULL) a metric the policy gates on
 * (store_metric_names.c); MCPP_OK for "primary" and schema paths. */
int mcpp_store_check_metric_stated(mcpp_store *s, const char *metric, const mcpp_policy *policy);

/*
 * The default policy's lane summaries (store_summaries.c): merged with the
 * receipts an add inserted (inside its transaction; nothing while they are
 * stale), marked stale by a remove, marked valid on a store with no receipts.
 * They are valid for a digest of the rows they summarize: the count and the
 * sum (mod 2^64) of mcpp_store_row_digest over every row.
 */
typedef struct mcpp_store_rows_digest {
    unsigned long long count;
    uint64_t sum;
} mcpp_store_rows_digest;
/* One row's part of the digest: its id and its body's bytes as stored. */
uint64_t mcpp_store_row_digest(const char *id, const void *body, size_t len);
/* The summaries' validity mark naming rows of digest `d` (store_meta's
 * 'lane_summaries' value, both backends), and back: 1 when `value` is this
 * build's mark, with the digest it names in *d; 0 for any other text. */
void mcpp_store_summaries_mark(char *buf, size_t cap, const mcpp_store_rows_digest *d);
int mcpp_store_summaries_mark_parse(mcpp_store_rows_digest *d, const char *value);
/*
 * An add does not build the summaries of its rows: the first frontier
 * after it reads those rows and merges theirs in (store_summaries.c).
 * _next_rowid (before the add's inserts) gives the rowid its first row will
 * get; _defer (after them, inside its transaction, when rows were inserted)
 * records it, when the summaries are this build's and no earlier add's rows
 * wait already.
 */
int mcpp_store_summaries_next_rowid(sqlite3_int64 *out, mcpp_store *s);
int mcpp_store_summaries_defer(mcpp_store *s, sqlite3_int64 from);
int mcpp_store_summaries_invalidate(mcpp_store *s);
/* `store check`: when marked valid, the stored summaries against those the
 * bodies make; one report line per difference, counted in *problems. */
int mcpp_store_summaries_check(struct mcpp_strbuf *report, size_t *problems, mcpp_store *s);
/* `store check --repair`: every summary rebuilt from the bodies and marked
 * valid (inside the caller's write transaction); marked stale instead when a
 * body does not load. */
int mcpp_store_summaries_rebuild(mcpp_store *s);
int mcpp_store_summaries_init_if_empty(mcpp_store *s);
/* The text of the summaries' validity mark in store_meta: this library's
 * version and the summaries' format (both backends write and compare it). */
const char *mcpp_store_summaries_state(void);

/* `store check` of a tombstone (both backends): in *why, NULL when it is
 * sound, else what is wrong ("the receipt is removed and live at once ...",
 * "its body no longer loads", "its body holds another receipt"). `live`: a
 * row of the same id exists; `body` (its text, `len` bytes) NULL when it
 * could not be read. Returns MCPP_ENOMEM or MCPP_OK. */
int mcpp_store_tombstone_verdict(const char **why, const mcpp_store *s, const char *id, int live, const char *body,
                                 size_t len);

/* One line of `store removed`: {"id", "reason", "removed_at"} (both backends). */
void mcpp_store_tombstone_line(struct mcpp_strbuf *b, const char *id, const char *reason, const char *removed_at);

#endif /* MCPP_STORE_INTERNAL_H */
