/*
 * mcpp_receipts.h — the umbrella header: include this one.
 *
 * mcpp_receipts makes ML-training benchmark numbers honest. A throughput number
 * is evidence only with a *receipt*: the exact lane it was measured on (model
 * pattern, MoE routing, sequence length, compile posture, backend requested and
 * observed, hardware requested and observed, topology, data path, startup
 * state, caveats). This library reads, validates and writes receipts, decides
 * whether two are comparable and says why, compares their numbers with honest
 * statistics, and labels the frontier of stable and unstable lanes.
 *
 * Sections, from the simple API to the advanced one:
 *   common.h      version, status codes, the thread-local last error
 *   receipt.h     load / validate / write receipts, read fields, build receipts
 *   policy.h      comparability policies as data (dimensions, noise, gate)
 *   policy_lua.h  policies from sandboxed Lua files
 *   compare.h     pairwise comparison, metric statistics, the merge gate
 *   frontier.h    lanes, the frontier report, claims, mergeable lane summaries
 *   html_report.h the frontier as one self-contained HTML page
 *   receipt_set.h many receipts from files and directories, bad files reported
 *   store.h       a durable receipt store (SQLite), lane history, change points
 *   import.h      MLPerf, pytest-benchmark and Google Benchmark results as receipts
 *
 * API tiers (as zstd does). Every header says which tier it is in.
 *   STABLE        the calls declared MCPP_API (at most 120): what an outside C
 *                 program needs (docs/guide, examples/, the kernels). It changes
 *                 only on purpose, said in the release notes; an ABI change bumps
 *                 the SONAME.
 *   EXPERIMENTAL  the calls declared MCPP_EXPERIMENTAL: detail accessors of
 *                 results, builders of policies and tables, the mergeable lane
 *                 summaries. Exported like the rest, but they may change or go in
 *                 any release, so using one is opt-in, as zstd's
 *                 ZSTD_STATIC_LINKING_ONLY:
 *                     #define MCPP_RECEIPTS_EXPERIMENTAL
 *                     #include "mcpp_receipts.h"
 *                 Without it a call to one does not compile. The CLI and the
 *                 bindings ship with the library and opt in; prefer the rendered
 *                 JSON, whose keys are stable.
 * ctest core_api_tiers_stable_is_at_most_120_calls_and_every_export_is_tested
 * checks the count, that the kernels and examples/ use only the stable tier, and
 * that every exported call has a test.
 */
#ifndef MCPP_RECEIPTS_H
#define MCPP_RECEIPTS_H

#include "mcpp_receipts/common.h"
#include "mcpp_receipts/receipt.h"
#include "mcpp_receipts/accelerator.h"
#include "mcpp_receipts/model_family.h"
#include "mcpp_receipts/policy.h"
#include "mcpp_receipts/policy_lua.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/frontier.h"
#include "mcpp_receipts/html_report.h"
#include "mcpp_receipts/receipt_set.h"
#include "mcpp_receipts/store.h"
#include "mcpp_receipts/import.h"

#endif /* MCPP_RECEIPTS_H */
