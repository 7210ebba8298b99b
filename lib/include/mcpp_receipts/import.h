/*
 * mcpp_receipts/import.h — turn other tools' benchmark results into receipts:
 * MLPerf Training and Inference logs (mllog), pytest-benchmark, Google
 * Benchmark, hyperfine, pyperf and asv JSON, and go test -bench output.
 * docs/import.md has the mapping of every input field to a receipt field.
 *
 * An import is all or nothing: every input is read and every receipt is built
 * before anything is returned (mcpp_import_files_to_dir writes each receipt as
 * it is made and takes the files back on failure); the first malformed input (a truncated log, a log without
 * run_stop, a JSON file of another tool, a missing MLPerf system file) fails
 * the whole import with MCPP_EINVALID or MCPP_EIO, and mcpp_error_last() names
 * the file, line and column. Nothing is returned or written then.
 *
 * Imports are deterministic: the same inputs give the same receipts with the
 * same ids (a readable prefix plus 12 hex digits of the content hash), so
 * importing again overwrites files with identical bytes.
 *
 * Ownership: the receipt set returned through `out` belongs to the caller
 * (mcpp_receipt_set_free); paths are borrowed.
 *
 * API tier: stable (mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_IMPORT_H
#define MCPP_RECEIPTS_IMPORT_H

#include "receipt_set.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcpp_import_format {
    MCPP_IMPORT_MLPERF = 1,           /* "mlperf": result_N.txt files or results trees  */
    MCPP_IMPORT_PYTEST_BENCHMARK = 2, /* "pytest-benchmark": --benchmark-json files       */
    MCPP_IMPORT_GOOGLE_BENCHMARK = 3, /* "google-benchmark": --benchmark_out JSON files   */
    MCPP_IMPORT_HYPERFINE = 4,        /* "hyperfine": --export-json files                */
    MCPP_IMPORT_PYPERF = 5,           /* "pyperf": pyperf JSON files                     */
    MCPP_IMPORT_ASV = 6,              /* "asv": asv results files or directories         */
    MCPP_IMPORT_GO_BENCH = 7,         /* "go-bench": go test -bench output, text or -json */
    MCPP_IMPORT_MLPERF_INFERENCE = 8  /* "mlperf-inference": loadgen mlperf_log_detail.txt */
} mcpp_import_format;

/* The format called `name` ("mlperf", "pytest-benchmark", ...); MCPP_EARG
 * naming the known formats otherwise. */
MCPP_API int mcpp_import_format_from_name(mcpp_import_format *out, const char *name);
/* The name of a format (static), or NULL for a value outside the enum. The
 * formats are numbered from 1 without gaps: a caller lists them all with
 * `for (f = 1; mcpp_import_format_name(f); f++)`. */
MCPP_API const char *mcpp_import_format_name(mcpp_import_format format);
/* One line saying which inputs a format takes (static), or NULL outside the enum. */
MCPP_API const char *mcpp_import_format_summary(mcpp_import_format format);

/*
 * Imports `n_paths` inputs into a new receipt set (*out; NULL on failure).
 * mlperf takes result_N.txt files and directories (walked for results/<system>/
 * <benchmark>/result_N.txt, in byte order of names); the JSON formats take
 * files. One receipt per MLPerf run, per pytest-benchmark benchmark, per
 * Google Benchmark run name. An input given twice is imported once.
 */
MCPP_API int mcpp_import_files(mcpp_receipt_set **out, mcpp_import_format format,
                               const char *const *paths, size_t n_paths);

/* The file name an imported receipt is written under: its id, characters
 * outside [A-Za-z0-9._-] replaced by '_', plus ".json" (caller frees with
 * mcpp_free). */
MCPP_API int mcpp_import_file_name(char **out, const mcpp_receipt *receipt);

/*
 * Writes every receipt of `set` into directory `dir` (created with its missing
 * parents when absent, like `mkdir -p`) as canonical JSON under
 * mcpp_import_file_name, each file atomically. When a write fails, the files
 * and directories this call created are removed again. `out_written` (may be NULL) receives the number of files written.
 */
MCPP_API int mcpp_import_write_dir(size_t *out_written, const mcpp_receipt_set *set,
                                   const char *dir);

/* Called by mcpp_import_files_to_dir with the path of each file it wrote. */
typedef void (*mcpp_import_each_fn)(const char *path, void *ctx);

/*
 * mcpp_import_files and mcpp_import_write_dir in one pass that holds at most
 * a few receipts: each receipt is written into `dir` as soon as the importer
 * has made it and then let go, so memory follows one benchmark of the input,
 * not all of its receipts (what `mcpp-receipts import` does). All or nothing
 * as the two calls: when an input fails, the files and directories this call
 * created are removed and nothing was written. A receipt made twice (an input
 * given twice) is written once. On success `each` (may be NULL) gets the path
 * of every file written, in the order of the inputs, and `out_written` (may
 * be NULL) their number.
 */
MCPP_API int mcpp_import_files_to_dir(size_t *out_written, mcpp_import_format format,
                                      const char *const *paths, size_t n_paths, const char *dir,
                                      mcpp_import_each_fn each, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_IMPORT_H */
