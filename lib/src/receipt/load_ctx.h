/*
 * load_ctx.h — making a receipt: the load context that binding, validation
 * and packing share, the diagnostics report it fills, the JSON text helpers
 * (json_scan.c: pre-scan, UTF-8, positions of a path) and the schema-1
 * upgrade. Used by receipt/ and by io/, which runs these steps over the
 * bytes it reads; the layout they fill is receipt/layout.h.
 *
 * cJSON appears only as `struct cJSON`: a file that parses or walks a tree
 * includes <cjson/cJSON.h> (or receipt/cjson_inline.h) itself.
 */
#ifndef MCPP_RECEIPT_LOAD_CTX_H
#define MCPP_RECEIPT_LOAD_CTX_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "receipt/layout.h"

struct cJSON;

/* ---- reports (report.c) ------------------------------------------------------- */

mcpp_report *mcpp_report_new(void);
/* From now on the report drops warnings (a load whose caller asked for no
 * report: only its first error is read, for mcpp_error_last). */
void mcpp_report_errors_only(mcpp_report *report);
/* Whether a problem of `severity` would be kept (0 for a NULL report). */
int mcpp_report_keeps(const mcpp_report *report, mcpp_severity severity);
/* Adds a diagnostic; returns 0, or MCPP_ENOMEM. */
int mcpp_report_add(mcpp_report *report, mcpp_severity severity, const char *kind,
                    const char *file, const char *field, int line, int column, const char *text);
/* Sets mcpp_error_last() from the report's first error and returns `code`. */
int mcpp_report_set_last_error(const mcpp_report *report, int code);
/* The kind of the first error, or NULL. */
const char *mcpp_report_first_kind(const mcpp_report *report);

/* ---- JSON text helpers (json_scan.c) ----------------------------------------- */

/* One pass over the bytes before cJSON: UTF-8, "\u0000", depth and string
 * length. Returns 0 or a negative code with the problem added to `report`
 * (none added when `report` is NULL). */
int mcpp_json_prescan(const char *buf, size_t len, const mcpp_limits *limits, const char *name,
                      mcpp_report *report);
/* 0 when s[0..len) is valid UTF-8 (no overlongs, surrogates, > U+10FFFF), else -1. */
int mcpp_utf8_valid(const char *s, size_t len);
/* Length of the valid UTF-8 sequence at s (at most `avail` bytes), 0 if invalid. */
size_t mcpp_utf8_sequence(const unsigned char *s, size_t avail);
/* 1-based line and column (in characters) of byte `offset`. */
void mcpp_text_position(const char *buf, size_t len, size_t offset, int *line, int *column);
/* Byte offset of the value (or, with want_key, the key) at dotted `path`
 * ("a.b[2].c"); `occurrence` counts duplicate keys (1 = first). -1 if absent. */
long mcpp_json_locate(const char *buf, size_t len, const char *path, int want_key, int occurrence);

/* ---- binding and validation (bind.c, validate.c) ------------------------------ */

#define MCPP_MAX_SHOWN_PROBLEMS 32

typedef struct mcpp_load_ctx {
    const char *name; /* input name for messages (may be NULL) */
    const char *buf;  /* source text, for locating fields on the error path */
    size_t len;
    int format; /* MCPP_FORMAT_JSON / MCPP_FORMAT_YAML; 0 for the builder */
    const mcpp_limits *limits;
    mcpp_report *report;
    const struct cJSON *root; /* for locating YAML nodes by path */
    /* YAML: the line and column of a node (or of its key), 0 when unknown.
     * io/load.c sets it with the reader's marks, so the binder locates a
     * problem without calling up into io. */
    void (*yaml_position)(const void *marks, const struct cJSON *node, int want_key, int *line,
                          int *column);
    const void *marks;
    int errors; /* every error, counted */
    int shown;  /* problems located and reported (at most MCPP_MAX_SHOWN_PROBLEMS) */
    int nomem;
    int schema_version; /* 1 when the input was schema 1 (upgraded), else 0 */
    uint64_t tried[MCPP_PRESENT_WORDS]; /* fields seen (bound or not): duplicates */
    int quiet;          /* problems are only counted, in quiet_problems (the direct reader) */
    int quiet_problems;
    /* staging lists: a scratch area, then heap blocks freed by mcpp_ctx_release */
    size_t scratch_used;
    size_t heap_count;
    void *heap[16];
    _Alignas(16) char scratch[3072];
} mcpp_load_ctx;

/* Staging-list memory from the context's scratch area (or the heap when big);
 * NULL with ctx->nomem set when out of memory. */
void *mcpp_ctx_alloc(mcpp_load_ctx *ctx, size_t bytes);
/* Frees what the binder allocated for staging lists (call after packing). */
void mcpp_ctx_release(mcpp_load_ctx *ctx);

/* Adds an error (or warning) about `path`; locates it on the error path only. */
void mcpp_ctx_problem(mcpp_load_ctx *ctx, mcpp_severity severity, const char *kind,
                      const char *path, int want_key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Fills the staging struct `out` (zeroed by the caller) from the tree; strings
 * are borrowed from the tree. Problems go to ctx. */
void mcpp_bind_tree(mcpp_load_ctx *ctx, mcpp_receipt *out, const struct cJSON *root);
/* Binds value `v` into field `id` by the binder's rules without reporting:
 * 0 when bound, -1 when the binder would report a problem (nothing stored
 * that matters: the caller then loads the file through the tree path). */
int mcpp_bind_value_quiet(mcpp_load_ctx *ctx, mcpp_receipt *out, int id, const struct cJSON *v);
/* The same for a number read straight from the text (the JSON reader's
 * common case, without a cJSON value around it). */
int mcpp_bind_number_quiet(mcpp_load_ctx *ctx, mcpp_receipt *out, int id, double d);
/* Checks that a number fits field `id`'s range; returns NULL or the words for the message. */
const char *mcpp_range_problem(int range, double value);
/* Cross-field rules on a staging struct. */
void mcpp_validate(mcpp_load_ctx *ctx, const mcpp_receipt *r);
/* The family registry against lane.family/pattern/depth/blocks (validate_v2.c). */
void mcpp_validate_family(mcpp_load_ctx *ctx, const mcpp_receipt *r, int has_e);
/* Rules of the fields schema 2 added (validate_v2.c). */
void mcpp_validate_v2(mcpp_load_ctx *ctx, const mcpp_receipt *r);
/* The measured window's capture, metrics.window.began/.ended, against itself,
 * its steps and created_at (window_check.c). */
void mcpp_validate_window(mcpp_load_ctx *ctx, const mcpp_receipt *r);
/* Checks a free-form tree for duplicate keys / non-finite numbers, reporting at `path`. */
int mcpp_check_free_form(mcpp_load_ctx *ctx, const struct cJSON *node, char *path, size_t path_cap);

/* ---- metrics (metrics_check.c) ---------------------------------------------- */

/* Checks metrics.named (each entry's members, unique names, samples against
 * the stated aggregate) and metrics.primary on a staging struct. */
void mcpp_validate_metrics(mcpp_load_ctx *ctx, const mcpp_receipt *r);
/* 1 when |stated - derived| is beyond 0.5% of the larger (rounding to ~3 digits). */
int mcpp_rel_differs(double stated, double derived);

/* ---- packing (pack.c) ---------------------------------------------------------- */

/* Copies a staging struct into the compact receipt, derives the id. Returns 0
 * or MCPP_ENOMEM. */
int mcpp_pack(mcpp_receipt **out, const mcpp_receipt *staging, const char *source_name);
/* Frees what a staging struct owns: list arrays always; strings and cJSON
 * trees too when `owns_strings`. Leaves *r zeroed. */
void mcpp_staging_release(mcpp_receipt *r, int owns_strings);

/* Median and linear-interpolation percentiles of `n` samples (n >= 1). */
void mcpp_sample_stats(const double *samples, size_t n, double *median, double *p10, double *p90);

/* ---- schema 1 (schema_v1.c) ----------------------------------------------------- */

/* Rewrites a schema-1 tree into the layout of schema 2 in place (the only
 * moved field is backend.precision) and adds a warning saying so. Returns 0,
 * or -1 when out of memory. Trees of other schemas are left alone. */
int mcpp_schema1_upgrade(mcpp_load_ctx *ctx, struct cJSON *root);
/* The warning a schema-1 input gets when it is upgraded on load. */
void mcpp_schema1_upgrade_warning(mcpp_load_ctx *ctx);
/* 0 when `r` can be written as schema 1 without losing anything; else -1 with
 * the field and the reason in the last error. */
int mcpp_schema1_check(const mcpp_receipt *r);
/* Sets lane.blocks from lane.pattern tiled to lane.depth when both are stated
 * and no count is (builder, and schema-1 inputs being upgraded). */
void mcpp_derive_block_counts(mcpp_receipt *staging);
/* 1 when field `id` is new in schema 2 (a schema-1 file may not state it). */
int mcpp_schema1_lacks(int id);

#endif /* MCPP_RECEIPT_LOAD_CTX_H */
