/*
 * json_bind_reader.h — the direct JSON reader (json_bind_reader.c): binds a
 * receipt while reading its text, or says the tree path must load it.
 */
#ifndef MCPP_IO_JSON_BIND_READER_H
#define MCPP_IO_JSON_BIND_READER_H

#include <cjson/cJSON.h>

#include "receipt/load_ctx.h"

/* Free-form values are read into trees the staging struct borrows: a small
 * one into nodes of `pool` (its strings in the reader's string area), a
 * larger one (or one the reader does not take on) by cJSON, at most one per
 * OBJECT / METRICS / ARTIFACTS field (a second is a duplicate). */
#define MCPP_JSON_MAX_SUBTREES 8
#define MCPP_JSON_POOL_NODES 96 /* a Google Benchmark row's extra and metrics.named: ~60 */
typedef struct mcpp_json_subtrees {
    cJSON *trees[MCPP_JSON_MAX_SUBTREES]; /* cJSON's: cJSON_Delete each */
    size_t count;
    cJSON pool[MCPP_JSON_POOL_NODES]; /* the reader's: freed with the struct */
    size_t pool_used;
} mcpp_json_subtrees;

enum { MCPP_JSON_READ_BOUND = 0, MCPP_JSON_READ_FALLBACK = 1 };

/* The offset of the first raw control character (< 0x20) inside a JSON
 * string of s[0..len), or SIZE_MAX. RFC 8259 wants them escaped and cJSON
 * keeps them raw; written back each takes six bytes (\u001d), so a string
 * within the length limit could come back over it and the written receipt
 * would not load again (found by fuzz_json_load). The loader refuses them,
 * as the YAML reader does. */
size_t mcpp_json_raw_control(const char *s, size_t len);

/* Reads ctx->buf (JSON, pre-scanned or not: a text it binds passes the
 * pre-scan, mcpp_json_prescan) into `out` (zeroed), strings decoded into
 * `strings` (at least ctx->len + 1 bytes), free-form trees into `subtrees`
 * (count 0), which must outlive the packing of `out`.
 * MCPP_JSON_READ_BOUND: bound exactly as the tree path would bind it, nothing
 * reported (a schema-1 input gets the upgrade warning). FALLBACK: nothing
 * reported; the caller frees the subtrees, releases ctx and loads the text
 * through cJSON + mcpp_bind_tree. */
int mcpp_json_bind_read(mcpp_load_ctx *ctx, mcpp_receipt *out, mcpp_json_subtrees *subtrees,
                        char *strings);

#ifdef MCPP_TEST_HOOKS
/* Test hooks, compiled only into mcpp_receipts_testing (lib/CMakeLists.txt),
 * never into the installed library. 1 makes every JSON load on this thread
 * take the tree path (the differential fuzzer and its ctest compare the two
 * paths; bench_ingest measures both); 0 by default. */
extern _Thread_local int mcpp_json_reader_disabled;
/* Per thread: loads the reader handed back to the tree path. */
extern _Thread_local unsigned long mcpp_json_reader_fallbacks;
#endif

#endif /* MCPP_IO_JSON_BIND_READER_H */
