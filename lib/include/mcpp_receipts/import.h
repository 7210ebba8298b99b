/*
 * mcpp_receipts/import.h — turn other tools' benchmark results into receipts,
 * one importer per row of MCPP_IMPORT_FORMATS below (the one list of the
 * formats; `mcpp-receipts import --help` prints it). docs/import.md has the
 * mapping of every input field to a receipt field.
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
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_IMPORT_H
#define MCPP_RECEIPTS_IMPORT_H

#include "receipt_set.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The formats, one row each: X(ID, number, "name", parser, "the inputs it takes").
 * This list is the importer registry: the enum below, the library's dispatch
 * (`parser` names the library's internal mcpp_import_<parser>), the names and
 * summaries of mcpp_import_format_name/_summary, `mcpp-receipts import --help`
 * and the formats table of docs/import.md come from it. The numbers are ABI:
 * a new format takes the next one; none is ever renumbered. A name is
 * lowercase letters, digits and '-' (tests/core/lists_test.py), so a name
 * with '_' is never a format: tests of an unknown format use one. */
#define MCPP_IMPORT_FORMATS(X) \
    X(MLPERF, 1, "mlperf", mlperf_path, \
      "MLPerf Training result_N.txt logs, or results trees <submitter>/results/<system>/<benchmark>/") \
    X(PYTEST_BENCHMARK, 2, "pytest-benchmark", pytest_benchmark_file, \
      "files written by pytest --benchmark-json=FILE") \
    X(GOOGLE_BENCHMARK, 3, "google-benchmark", google_benchmark_file, \
      "files written by --benchmark_out=FILE --benchmark_out_format=json") \
    X(HYPERFINE, 4, "hyperfine", hyperfine_file, \
      "files written by hyperfine --export-json FILE") \
    X(PYPERF, 5, "pyperf", pyperf_file, \
      "pyperf JSON files (-o FILE of a pyperf.Runner script, pyperformance)") \
    X(ASV, 6, "asv", asv_path, \
      "asv results files, or results directories (results/<machine>/<commit>-<env>.json)") \
    X(GO_BENCH, 7, "go-bench", go_bench_file, \
      "output of go test -bench, as text or as go test -json") \
    X(MLPERF_INFERENCE, 8, "mlperf-inference", mlperf_inference_path, \
      "MLPerf Inference loadgen mlperf_log_detail.txt files, or results trees holding them")

#define MCPP_X_IMPORT_ENUM(id, number, name, parser, summary) MCPP_IMPORT_##id = number,
typedef enum mcpp_import_format { MCPP_IMPORT_FORMATS(MCPP_X_IMPORT_ENUM) } mcpp_import_format;
#undef MCPP_X_IMPORT_ENUM

/* The format called `name` ("mlperf", "pytest-benchmark", ...); MCPP_EARG
 * naming the known formats otherwise. */
MCPP_API int mcpp_import_format_from_name(mcpp_import_format *out, const char *name);
/* The name of a format (static), or NULL for a value outside the enum. The
 * formats are numbered from 1 without gaps: a caller lists them all with
 * `for (f = 1; mcpp_import_format_name(f); f++)`. */
MCPP_API const char *mcpp_import_format_name(mcpp_import_format format);
/* One line saying which inputs a format takes (static), or NULL outside the enum. */
MCPP_EXPERIMENTAL const char *mcpp_import_format_summary(mcpp_import_format format);

/*
 * Imports `n_paths` inputs into a new receipt set (*out; NULL on failure).
 * mlperf takes result_N.txt files and directories (walked for results/<system>/
 * <benchmark>/result_N.txt, in byte order of names); the JSON formats take
 * files. One receipt per MLPerf run, per pytest-benchmark benchmark, per
 * Google Benchmark run name. An input given twice is imported once. The
 * receipts of one call share one copy of what repeats between them (member
 * names, the tool's strings, Google Benchmark's context); each holds what it
 * shares, so a receipt (mcpp_receipt_clone) may outlive the set and the
 * others, and reads the same from any thread.
 */
MCPP_API int mcpp_import_files(mcpp_receipt_set **out, mcpp_import_format format,
                               const char *const *paths, size_t n_paths);

/* The file name an imported receipt is written under: its id, characters
 * outside [A-Za-z0-9._-] replaced by '_', plus ".json" (caller frees with
 * mcpp_free). */
MCPP_EXPERIMENTAL int mcpp_import_file_name(char **out, const mcpp_receipt *receipt);

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

/*
 * The two imports above, told the commit the inputs measured (`git rev-parse
 * HEAD` of the code that ran): every receipt gets source.git_commit
 * `git_commit`. Google Benchmark (without --benchmark_context=git_commit=...),
 * hyperfine, pyperf, go test and MLPerf results never name one, and a gate
 * pools a side's runs only when they name one commit: three candidate runs
 * without it are three candidates, each judged alone. An input that names a
 * different commit fails the import (MCPP_EINVALID, kind consistency, at its
 * file, field source.git_commit). NULL or "" is the plain import. The commit
 * is part of each receipt's content, so its id differs from the plain one.
 */
MCPP_EXPERIMENTAL int mcpp_import_files_at_commit(mcpp_receipt_set **out, mcpp_import_format format,
                                                  const char *const *paths, size_t n_paths, const char *git_commit);
MCPP_EXPERIMENTAL int mcpp_import_files_to_dir_at_commit(size_t *out_written, mcpp_import_format format,
                                                         const char *const *paths, size_t n_paths, const char *dir,
                                                         const char *git_commit, mcpp_import_each_fn each, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_IMPORT_H */
