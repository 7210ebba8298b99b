/*
 * mcpp_receipts/store.h — a durable receipt store (one SQLite file, or a
 * PostgreSQL database many writers share), and the
 * history of a lane over time with its change points.
 *
 * A store keeps each receipt as its canonical JSON (mcpp_receipt_write) plus
 * the columns people filter on, computed through the public API when the
 * receipt is added: id, created_at, source.git_commit, source.tool, lane.name,
 * the lane key and short key under the default policy (frontier.h), a label,
 * and the default gate metric's name ("primary") and value. A receipt's id is its
 * identity: adding the same id with the same canonical JSON is a no-op; the
 * same id with different content is a conflict (MCPP_EINVALID, kind
 * "conflict") and the whole add call changes nothing.
 *
 * Durability: the file is in WAL mode; every mcpp_store_add() call is one
 * transaction committed with synchronous=FULL, so after it returns MCPP_OK the
 * receipts survive a crash or power loss, and a crash during the call leaves
 * none of them. Writers wait for each other (busy timeout, then retries).
 * The file carries a schema version; opening an older store migrates it
 * forward in a transaction; a newer one is refused (MCPP_EUNSUPPORTED).
 *
 * Removal keeps a tombstone (id, reason, time, the canonical JSON): a removed
 * id is not added again by a later add (it is counted as skipped), so
 * re-adding a directory does not bring back what someone removed on purpose.
 *
 * Errors: MCPP_EIO (kind "io") for a file that cannot be opened, read or
 * written — a full disk and a read-only directory say so — and MCPP_EINVALID
 * (kind "consistency") for a file that is not a store or is damaged, and for
 * an id conflict. The message always names the database file.
 *
 * Threads: a store handle is used by one thread at a time; open one handle per
 * thread or process (they may share the file).
 *
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_STORE_H
#define MCPP_RECEIPTS_STORE_H

#include <stddef.h>

#include "compare.h"
#include "frontier.h"
#include "receipt.h"
#include "receipt_set.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest store schema version this library writes. */
#define MCPP_STORE_SCHEMA_VERSION 8

/* Thread safety: one thread at a time per handle (see above). */
typedef struct mcpp_store mcpp_store;

/* Flags of mcpp_store_open. */
#define MCPP_STORE_CREATE 1u    /* create the file when it does not exist        */
#define MCPP_STORE_READ_ONLY 2u /* never write (works on read-only media too)     */

/*
 * `path` is a SQLite file, or a PostgreSQL database named by a libpq URL
 * ("postgresql://..." or "postgres://..."): one store many processes on many
 * machines share. Every call below answers the same from both; with
 * PostgreSQL an add waits for the other writers (an advisory lock) instead of
 * SQLite's file lock, the schema version counts PostgreSQL's own migrations,
 * and receipts are read from their bodies (no images: mcpp_store_images_refused
 * stays 0). docs/store.md, "PostgreSQL".
 *
 * Opens (and with MCPP_STORE_CREATE creates) the store at `path`, migrating
 * an older schema forward unless MCPP_STORE_READ_ONLY is given. A missing file
 * without CREATE is MCPP_EIO; a file that is not a store is MCPP_EINVALID.
 * Free with mcpp_store_close().
 */
MCPP_API int mcpp_store_open(mcpp_store **out, const char *path, unsigned flags);
MCPP_API void mcpp_store_close(mcpp_store *store); /* NULL-safe */

/* A store location as every message shows it: a postgresql:// (or
 * postgres://) URL without its password (user:PASSWORD@ becomes user@,
 * password=... becomes password=***), anything else as it is, into *out
 * (free with mcpp_free). For front ends that print a location (the Lua
 * module's tostring): output and CI logs are read by others.
 * MCPP_EARG, MCPP_ENOMEM or MCPP_OK. */
MCPP_EXPERIMENTAL int mcpp_store_location_shown(char **out, const char *location);

/* The schema version of the open store (MCPP_STORE_SCHEMA_VERSION once migrated;
 * a PostgreSQL store counts its own migrations, docs/store.md). */
MCPP_EXPERIMENTAL int mcpp_store_schema_version(const mcpp_store *store);

/* What one add call did. */
typedef struct mcpp_store_add_result {
    size_t added;           /* new receipts written                                */
    size_t unchanged;       /* already there with the same content: no-ops (a
                               missing image, or one of another library build,
                               is made by the next read: docs/store.md)        */
    size_t skipped_removed; /* ids with a tombstone: not added again               */
} mcpp_store_add_result;

/*
 * Adds `n` receipts (borrowed) in one transaction. `out` may be NULL. On any
 * error nothing of the call is kept. A receipt whose id is stored with other
 * content, or repeated in the call with other content, is MCPP_EINVALID
 * naming the id.
 */
MCPP_API int mcpp_store_add(mcpp_store_add_result *out, mcpp_store *store,
                            const mcpp_receipt *const *receipts, size_t n);

/* Removes the receipt `id`, keeping a tombstone with `reason` (required, not
 * empty). MCPP_ENOTFOUND when no live receipt has that id. */
MCPP_API int mcpp_store_remove(mcpp_store *store, const char *id, const char *reason);

/*
 * Which receipts a query returns. Every member may be NULL/0 (no filter); a
 * zeroed struct returns every live receipt. Results are ordered by
 * created_at, then id.
 *
 *   lane     a lane selector of frontier.h (key, short key or KEY=VALUE terms),
 *            under the default policy; a term's value that is a slip of a
 *            stated one is MCPP_EARG, as for mcpp_claim_check
 *   where    comma-separated COLUMN=VALUE terms on the stored columns: id,
 *            tool, git_commit (a prefix of at least 4 characters matches),
 *            name, lane_label, metric. When nothing is selected, a value of
 *            tool, name, lane_label or metric that no row has but a stored
 *            one equals in another case, or begins with ("name=NAM56R" for
 *            "NAM56R hybrid MoE lane"), is MCPP_EARG naming that one
 *   since    created_at >= since (compared as text)
 *   until    created_at <= until, or created_at starting with until: a bound
 *            is RFC 3339 text (2026-11-30T12:00:00Z) or a date, month or
 *            year (2026-11-30, 2026-11, 2026) standing for all of itself, so
 *            until 2026-11-30 keeps that day; anything else is MCPP_EARG
 *   limit    at most this many (0: no limit); the newest when `newest` is set
 */
typedef struct mcpp_store_query {
    const char *lane;
    const char *where;
    const char *since;
    const char *until;
    size_t limit;
    int newest;
} mcpp_store_query;

/*
 * The frontier of every stored receipt. With `policy` NULL (the default
 * policy) it is built from lane summaries the store keeps, without reading
 * the receipts: the same frontier as mcpp_frontier_build over them, in time
 * proportional to the lanes' sizes rather than the receipts' bytes. An add
 * leaves the summaries of its receipts to the first frontier after it, which
 * reads those receipts and merges them in (saved when the store is writable
 * and no other writer holds it; never waiting for one). When the summaries
 * are stale (after a remove, or made by another library version) they are
 * rebuilt from the receipts first, and saved unless the store is read-only.
 * Any other policy reads every receipt.
 */
MCPP_API int mcpp_store_frontier(mcpp_frontier **out, mcpp_store *store, const mcpp_policy *policy);

/* The receipts a query selects, loaded into a new set. `query` NULL: all. */
MCPP_API int mcpp_store_query_set(mcpp_receipt_set **out, mcpp_store *store,
                                  const mcpp_store_query *query);

/* Receives one receipt and owns it from then on; a non-zero return stops
 * the query, which then returns that value. */
typedef int (*mcpp_store_receipt_fn)(void *ctx, mcpp_receipt *receipt);

/* As mcpp_store_query_set, handing each receipt to `fn` in order (for
 * bindings that keep receipts in their own objects). Stored bodies are
 * parsed on several threads; `fn` is called on the calling thread only. */
MCPP_EXPERIMENTAL int mcpp_store_query_each(mcpp_store *store, const mcpp_store_query *query, mcpp_store_receipt_fn fn,
                                            void *ctx);

/* The receipts a query selects as text: `format` "json" (an array), "jsonl"
 * (one canonical JSON receipt per line) or "yaml" (documents, each after
 * "---"). Free *out with mcpp_free(). */
MCPP_API int mcpp_store_export(char **out, mcpp_store *store, const mcpp_store_query *query,
                               const char *format);

/* Live receipts and tombstones in the store. */
MCPP_API int mcpp_store_count(size_t *out_live, size_t *out_removed, mcpp_store *store);

/*
 * Checks the store against its receipts' bodies, which are the truth: SQLite's
 * integrity check, then every body loads with its id, every row's columns
 * and image are what its body gives, and the lane summaries (when marked
 * valid) are what the bodies make. *out gets one line per difference, or
 * "ok\n"; free with mcpp_free(). Returns MCPP_OK when healthy, MCPP_EINVALID
 * when damaged (docs/store.md).
 */
MCPP_API int mcpp_store_check(char **out, mcpp_store *store);

/*
 * Rewrites, in one transaction, every row's columns and image that differ
 * from its body (or that are missing, or of another library build) and
 * rebuilds the lane summaries from the bodies, then checks again. *out gets
 * what was repaired and the report of that check; returns as
 * mcpp_store_check does (a body that does not load, or a damaged file,
 * cannot be repaired here and remains a problem).
 */
MCPP_EXPERIMENTAL int mcpp_store_repair(char **out, mcpp_store *store);

/*
 * Images of this build refused since the store was opened (damaged or
 * forged: those receipts were read from their bodies instead). A caller that
 * loaded receipts warns when it is not 0; `store check` names them.
 */
MCPP_EXPERIMENTAL size_t mcpp_store_images_refused(const mcpp_store *store);

/* Tombstones as JSON lines {"id", "reason", "removed_at"}; free with mcpp_free(). */
MCPP_EXPERIMENTAL int mcpp_store_removed_render(char **out, mcpp_store *store);

/* ---- Lane history and change points ------------------------------------------ */

/*
 * Change points of a series (Gaussian mean shift on log values, binary
 * segmentation with a BIC-like penalty): the best split of a segment is kept
 * when the fall in squared error, divided by the noise variance, exceeds
 * z^2 = `penalty_per_log_n` * ln(n) carried to the Student t quantile of the
 * segment's degrees of freedom (Cornish-Fisher), and the medians on either
 * side differ by at least `min_rel_change`; then both halves are searched.
 * The noise variance is the larger of the one from the median absolute
 * deviation of successive differences (a step barely moves it) and the
 * segment's residual variance around its two means (short series).
 */
typedef struct mcpp_changepoint_settings {
    double penalty_per_log_n; /* default 6.0                                  */
    double min_rel_change;    /* default 0.01 (the default policy noise floor) */
    size_t min_segment;       /* runs on each side of a change; default 4     */
} mcpp_changepoint_settings;

MCPP_EXPERIMENTAL void mcpp_changepoint_settings_default(mcpp_changepoint_settings *out);

/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/*
 * Finds change points of values[0..n) (all > 0). out_index receives up to
 * `cap` indices i, in increasing order, each the first run after a change;
 * *out_count gets how many there are (may exceed cap). `settings` NULL:
 * defaults. MCPP_EARG for a non-positive or non-finite value.
 */
MCPP_EXPERIMENTAL int mcpp_changepoints_find(size_t *out_index, size_t cap, size_t *out_count, const double *values,
                                             size_t n, const mcpp_changepoint_settings *settings);
/* ==== end of EXPERIMENTAL API ==== */

/* Thread safety: read-only once built; threads may read one at once. */
typedef struct mcpp_history mcpp_history;

/*
 * The history of the lanes `lane_selector` selects (as mcpp_store_query):
 * each lane's runs that state `metric` (NULL: the default policy's gate
 * metric), ordered by created_at then id, with their change points.
 */
MCPP_API int mcpp_history_build(mcpp_history **out, mcpp_store *store, const char *lane_selector,
                                const char *metric, const mcpp_changepoint_settings *settings);
MCPP_API void mcpp_history_free(mcpp_history *history); /* NULL-safe */

/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
MCPP_EXPERIMENTAL size_t mcpp_history_lane_count(const mcpp_history *history);
MCPP_EXPERIMENTAL const char *mcpp_history_lane_key(const mcpp_history *history, size_t lane);
MCPP_EXPERIMENTAL size_t mcpp_history_run_count(const mcpp_history *history, size_t lane);
/* Run accessors (borrowed strings; git_commit may be NULL). */
MCPP_EXPERIMENTAL const char *mcpp_history_run_id(const mcpp_history *history, size_t lane, size_t run);
MCPP_EXPERIMENTAL const char *mcpp_history_run_created_at(const mcpp_history *history, size_t lane, size_t run);
MCPP_EXPERIMENTAL const char *mcpp_history_run_commit(const mcpp_history *history, size_t lane, size_t run);
MCPP_EXPERIMENTAL double mcpp_history_run_value(const mcpp_history *history, size_t lane, size_t run);
MCPP_EXPERIMENTAL size_t mcpp_history_change_count(const mcpp_history *history, size_t lane);
/* The run index of the first run after the change. */
MCPP_EXPERIMENTAL size_t mcpp_history_change_run(const mcpp_history *history, size_t lane, size_t change);
/* ==== end of EXPERIMENTAL API ==== */

/* JSON keys: schema ("mcpp.history/1"), metric, method, lanes [{key, short_key,
 * label, runs [{id, created_at, git_commit, value, segment}], changes [{run,
 * id, created_at, before_commit, after_commit, before_median, after_median,
 * rel_change}]}]. Free *out with mcpp_free(). */
MCPP_API int mcpp_history_render(char **out, const mcpp_history *history, mcpp_output_format format);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_STORE_H */
