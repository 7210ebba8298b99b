/*
 * mcpp_receipts/receipt_set.h — load many receipts at once (files and
 * directories, recursively) for the CLI and the bindings.
 *
 * A set keeps going past bad files: each one that fails to load is recorded
 * with its path and error message, and the rest are kept. Directory entries
 * are visited in byte order of their names, so the set's order is
 * deterministic; within a directory only *.json, *.yaml and *.yml files are
 * loaded (a file named explicitly is loaded whatever its extension) and
 * entries starting with '.' are skipped.
 *
 * Ownership: the set owns its receipts; pointers from mcpp_receipt_set_at()
 * and mcpp_receipt_set_items() are borrowed and live as long as the set.
 *
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_RECEIPT_SET_H
#define MCPP_RECEIPTS_RECEIPT_SET_H

#include "receipt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thread safety: adding is not thread-safe (one thread adds); once filled, the
 * set and its receipts may be read from several threads at once. */
typedef struct mcpp_receipt_set mcpp_receipt_set;

MCPP_API int mcpp_receipt_set_new(mcpp_receipt_set **out);
MCPP_API void mcpp_receipt_set_free(mcpp_receipt_set *set); /* NULL-safe */

/*
 * Loads `path` (a file, or a directory walked recursively). Returns MCPP_OK
 * even when some files failed (see the failure accessors); MCPP_EIO when
 * `path` itself cannot be read; MCPP_ENOMEM. `limits` may be NULL.
 */
MCPP_API int mcpp_receipt_set_add_path(mcpp_receipt_set *set, const char *path,
                                       const mcpp_limits *limits);
/* Receives a receipt file of a walk (`code` MCPP_OK, `message` NULL), or a
 * path the walk could not read: a directory that does not open, an entry
 * stat fails on, directories nested too deep (its status and message). A
 * non-zero return stops the walk, which returns it. */
typedef int (*mcpp_receipt_file_fn)(void *ctx, const char *path, int code, const char *message);
/*
 * The receipt files of directory `dir` as mcpp_receipt_set_add_path reads
 * them: regular *.json, *.yaml and *.yml files, recursively, in byte order of
 * names, entries starting with '.' skipped, at most 32 directories deep. A
 * path that cannot be read goes to `fn` with its error and the walk goes on
 * (for tools that report on each file, as `validate DIR` does), `dir` itself
 * too. MCPP_EIO when `dir` is not a directory.
 */
MCPP_EXPERIMENTAL int mcpp_receipt_files_walk(const char *dir, mcpp_receipt_file_fn fn, void *ctx);
/* Adds a receipt the set takes ownership of (also on failure, when it frees it).
 * A receipt with the id of one already in the set and other canonical content
 * is refused with MCPP_EINVALID naming both sources (an id conflict; through
 * mcpp_receipt_set_add_path it is recorded as that file's failure). The same
 * id with the same content is the same run loaded twice and is added. */
MCPP_API int mcpp_receipt_set_add(mcpp_receipt_set *set, mcpp_receipt *receipt);

MCPP_API size_t mcpp_receipt_set_count(const mcpp_receipt_set *set);
MCPP_API const mcpp_receipt *mcpp_receipt_set_at(const mcpp_receipt_set *set, size_t index);
/* The receipts as an array of count pointers, for mcpp_frontier_build() and
 * mcpp_gate_run(). NULL when empty. */
MCPP_API const mcpp_receipt *const *mcpp_receipt_set_items(const mcpp_receipt_set *set);

/* Checks receipts gathered elsewhere (a binding's list) as a set checks what
 * it adds: MCPP_EINVALID naming both sources when two receipts share an id
 * with different canonical content, else MCPP_OK. */
MCPP_EXPERIMENTAL int mcpp_receipts_check_ids(const mcpp_receipt *const *receipts, size_t n);

/* Files that failed to load: path, status code and the error message. */
MCPP_API size_t mcpp_receipt_set_failure_count(const mcpp_receipt_set *set);
MCPP_API const char *mcpp_receipt_set_failure_path(const mcpp_receipt_set *set, size_t index);
MCPP_EXPERIMENTAL int mcpp_receipt_set_failure_code(const mcpp_receipt_set *set, size_t index);
MCPP_API const char *mcpp_receipt_set_failure_message(const mcpp_receipt_set *set, size_t index);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_RECEIPT_SET_H */
