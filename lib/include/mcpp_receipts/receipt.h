/*
 * mcpp_receipts/receipt.h — the receipt (schema mcpp.receipt/2; schema 1 is
 * read too): load, validate, read fields and named metrics, write canonical
 * JSON or YAML, and build one field by field. docs/schema-2.md lists the fields.
 *
 * A receipt is immutable once loaded or built. It is its own typed structure
 * (not a JSON tree); every field of the schema has a fixed type, listed by
 * mcpp_schema_field_at(). Values are read with mcpp_receipt_get().
 *
 * Ownership: every mcpp_receipt returned through an `out` parameter belongs to
 * the caller, who frees it with mcpp_receipt_free() (NULL-safe). Strings and
 * arrays read from a receipt are borrowed and live as long as the receipt.
 *
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_RECEIPT_H
#define MCPP_RECEIPTS_RECEIPT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thread safety: a receipt is immutable once loaded or built; any number of
 * threads may read, compare and render one at once. Free it once, after all. */
typedef struct mcpp_receipt mcpp_receipt;

/* ---- Formats and limits ---------------------------------------------------- */

typedef enum mcpp_format {
    MCPP_FORMAT_AUTO = 0, /* from the file extension (.json, .yaml, .yml), else sniffed */
    MCPP_FORMAT_JSON = 1,
    MCPP_FORMAT_YAML = 2
} mcpp_format;

/* Bounds on hostile input. Inputs beyond them are refused with MCPP_ELIMIT.
 * Declare one with MCPP_LIMITS_INIT (the defaults) or fill it with
 * mcpp_limits_default(), then change what you need: `version` tells the
 * library which layout the caller was compiled with, and a function given a
 * version it does not know fails with MCPP_EARG. */
#define MCPP_LIMITS_VERSION 1u
typedef struct mcpp_limits {
    unsigned int version;    /* MCPP_LIMITS_VERSION                      */
    size_t max_input_bytes;  /* default 16 MiB                           */
    size_t max_depth;        /* default 64 nested containers             */
    size_t max_string_bytes; /* default 64 KiB per string                */
    size_t max_array_items;  /* default 1,000,000 items per array        */
} mcpp_limits;

#define MCPP_LIMITS_INIT {MCPP_LIMITS_VERSION, (size_t)16 << 20, 64, (size_t)64 << 10, 1000000}

/* Fills *out with the defaults above (version included). */
MCPP_API void mcpp_limits_default(mcpp_limits *out);

/* ---- Diagnostics --------------------------------------------------------- */

typedef enum mcpp_severity { MCPP_SEVERITY_ERROR = 0, MCPP_SEVERITY_WARNING = 1 } mcpp_severity;

/* One problem found in an input. Strings are owned by the report. `kind` uses
 * the categories of mcpp_error. `message` is the full one-line text. */
typedef struct mcpp_diagnostic {
    mcpp_severity severity;
    const char *kind;
    const char *message;
    const char *file;
    const char *field;
    int line;
    int column;
} mcpp_diagnostic;

/* Every problem found while loading one input (errors first, then warnings in
 * input order). Owned by the caller; free with mcpp_report_free (NULL-safe). */
/* Thread safety: read-only once returned; threads may read one at once. */
typedef struct mcpp_report mcpp_report;

MCPP_API size_t mcpp_report_count(const mcpp_report *report);
MCPP_API size_t mcpp_report_error_count(const mcpp_report *report);
/* Borrowed; NULL when index is out of range or report is NULL. */
MCPP_API const mcpp_diagnostic *mcpp_report_at(const mcpp_report *report, size_t index);
MCPP_API void mcpp_report_free(mcpp_report *report);

/* ---- Loading ------------------------------------------------------------- */

/*
 * Parses and validates one receipt.
 *
 *   out         receives the receipt on success (caller frees); set to NULL on failure
 *   report_out  optional (may be NULL): receives every error and warning found,
 *               also on success (warnings); caller frees with mcpp_report_free
 *   limits      optional (NULL = mcpp_limits_default)
 *
 * Returns MCPP_OK, or MCPP_EINVALID / MCPP_ELIMIT / MCPP_EIO / MCPP_ENOMEM with the
 * first error also in mcpp_error_last(). Refused outright: duplicate keys,
 * invalid UTF-8, "\u0000", NaN, infinities, numbers that overflow their field,
 * trailing garbage, YAML anchors, aliases, tags and multiple documents.
 */
MCPP_API int mcpp_receipt_load_file(mcpp_receipt **out, mcpp_report **report_out,
                                    const char *path, const mcpp_limits *limits);

/* As mcpp_receipt_load_file for bytes in memory. `buf` is borrowed and need not
 * be NUL-terminated. `name` (may be NULL) is used in messages as the file name.
 * MCPP_FORMAT_AUTO sniffs the format from the first non-blank byte. */
MCPP_API int mcpp_receipt_load_buffer(mcpp_receipt **out, mcpp_report **report_out,
                                      const char *buf, size_t len, mcpp_format format,
                                      const char *name, const mcpp_limits *limits);

/* NULL-safe. */
MCPP_API void mcpp_receipt_free(mcpp_receipt *receipt);

/* A copy that reads the same as `receipt` (caller frees; `receipt` may be freed
 * first). Receipts never change, so the copy may share its memory: the last
 * mcpp_receipt_free of the two releases it. */
MCPP_API int mcpp_receipt_clone(mcpp_receipt **out, const mcpp_receipt *receipt);

/* Receipts that keep one copy of what repeats between them (member names,
 * strings, free-form subtrees met twice), as the receipts of one import do:
 * mcpp_receipt_share_pack makes a copy of `receipt` (*out, caller frees) that
 * reads the same and whose repeated parts point into `share`. Each such copy
 * holds the share, so it may outlive the share's maker and the other
 * receipts. Safe from several threads at once. mcpp_receipt_share_free drops
 * the maker's hold (NULL-safe): nothing more may be packed into it then.
 * MCPP_ENOMEM, MCPP_EARG for NULL. */
typedef struct mcpp_share mcpp_receipt_share;
MCPP_EXPERIMENTAL int mcpp_receipt_share_new(mcpp_receipt_share **out);
MCPP_EXPERIMENTAL int mcpp_receipt_share_pack(mcpp_receipt **out, const mcpp_receipt *receipt,
                                              mcpp_receipt_share *share);
MCPP_EXPERIMENTAL void mcpp_receipt_share_free(mcpp_receipt_share *share);

/* The receipt's id (stated, or derived from a content hash when absent) and
 * the name of the input it was loaded from (NULL for built receipts). Borrowed.
 * A derived id is "r-" + 16 hex digits of the 64-bit FNV-1a hash of the
 * canonical JSON without id: the same content gives the same id whatever its
 * key order or format. It is not written out, and mcpp_receipt_get(r, "id")
 * reports only a stated id. */
MCPP_API const char *mcpp_receipt_id(const mcpp_receipt *receipt);
MCPP_EXPERIMENTAL const char *mcpp_receipt_source_name(const mcpp_receipt *receipt);

/* ---- Writing ------------------------------------------------------------- */

/*
 * Serialises canonically: sections and fields in schema order, absent fields
 * omitted, numbers in shortest round-trip form, `extra` keys sorted. For JSON,
 * load -> write is byte-identical for canonical input.
 *
 *   out      receives a NUL-terminated string (caller frees with mcpp_free)
 *   out_len  optional: receives strlen(*out)
 *   format   MCPP_FORMAT_JSON or MCPP_FORMAT_YAML (AUTO means JSON)
 */
MCPP_API int mcpp_receipt_write(char **out, size_t *out_len, const mcpp_receipt *receipt,
                                mcpp_format format);

/* As mcpp_receipt_write in the layout of `schema_version` (2: the current
 * schema; 1: mcpp.receipt/1, for tools that only read schema 1). Writing
 * schema 1 fails with MCPP_EINVALID, naming the field in mcpp_error_last(),
 * when the content does not fit: a field schema 1 lacks, a precision or
 * substrate value it does not know, or requested and observed precisions that
 * differ. lane.blocks is left out (schema 1 derives it from the pattern). */
MCPP_EXPERIMENTAL int mcpp_receipt_write_schema(char **out, size_t *out_len, const mcpp_receipt *receipt,
                                                mcpp_format format, int schema_version);

/* Writes to `path` atomically (temp file, fsync, rename, directory fsync): on
 * failure the old file, if any, is untouched. AUTO picks from the extension.
 * A replaced file keeps its permission bits; a new file gets 0666 less the
 * umask. When `path` is a symbolic link its target is replaced (the link
 * stays); a link to a missing file, a directory or another non-regular file
 * is refused with MCPP_EIO. Any name up to NAME_MAX works (the temporary
 * file is ".mcpp-XXXXXXXX" in the target's directory). */
MCPP_API int mcpp_receipt_write_file(const mcpp_receipt *receipt, const char *path,
                                     mcpp_format format);

/* Writes `len` bytes of `text` (a rendered report, say) to `path` the same
 * atomic way as mcpp_receipt_write_file. */
MCPP_API int mcpp_text_write_file(const char *path, const char *text, size_t len);
/* The same with the text made as it is written: `produce(ctx, write, wctx)`
 * hands it to `write(wctx, data, len)` piece by piece (a streamed render:
 * mcpp_frontier_render_stream and the like) and returns MCPP_OK or its own
 * failure, which leaves `path` as it was (so does a failed write: MCPP_EIO,
 * "write failed: ..."). */
typedef int (*mcpp_produce_fn)(void *ctx, mcpp_write_fn write, void *wctx);
MCPP_EXPERIMENTAL int mcpp_text_write_file_from(const char *path, mcpp_produce_fn produce, void *ctx);

/*
 * Renders a receipt for people or tools (what `mcpp-receipts show` prints).
 *   MCPP_OUTPUT_TEXT      one section per part of the receipt, aligned columns,
 *                         requested and observed side by side ("! differs"
 *                         where what ran is not what was asked for), step-time
 *                         statistics on one line; control characters as \xNN
 *   MCPP_OUTPUT_JSON      the canonical JSON of mcpp_receipt_write()
 *   MCPP_OUTPUT_MARKDOWN  the text view in a fenced code block
 * `format` is an mcpp_output_format. *out is NUL-terminated; free it with
 * mcpp_free(). MCPP_EARG for NULL arguments or an unknown format.
 */
MCPP_API int mcpp_receipt_render(char **out, const mcpp_receipt *receipt, int format);

/* ---- Reading fields ------------------------------------------------------ */

typedef enum mcpp_type {
    MCPP_TYPE_ABSENT = 0,  /* the field is not present in this receipt          */
    MCPP_TYPE_BOOL,        /* boolean                                           */
    MCPP_TYPE_INT,         /* int64 count                                       */
    MCPP_TYPE_DOUBLE,      /* finite measurement                                */
    MCPP_TYPE_STRING,      /* UTF-8 string                                      */
    MCPP_TYPE_ENUM,        /* one of the schema's names (also given as .string) */
    MCPP_TYPE_STRING_LIST, /* list of strings                                   */
    MCPP_TYPE_DOUBLE_LIST, /* list of finite doubles (step samples)             */
    MCPP_TYPE_OBJECT       /* free-form object or list (extra, features,
                              launch.fixed_policy, benchmark.params,
                              software.components, artifacts, metrics.named):
                              read it as canonical JSON text                    */
} mcpp_type;

/*
 * A borrowed view of one field. Only the members for `type` are meaningful:
 *   BOOL: boolean   INT: integer   DOUBLE: number   STRING/ENUM: string
 *   ENUM also sets enum_index (position in the schema's list of names)
 *   STRING_LIST: strings[count]   DOUBLE_LIST: doubles[count]
 *   version: the layout the caller was compiled with; declare the struct with
 *           MCPP_VALUE_INIT. The library writes only that layout's bytes and
 *           refuses a version it does not know (0, or newer than it) with
 *           MCPP_EARG, the struct untouched.
 *   OBJECT: string holds canonical JSON of the value, compact and with keys
 *           sorted bytewise, e.g. {"a":1,"b":[true,"x"]}; count is its number of
 *           members or items (artifacts: [{"kind":"trace","uri":"..."}]). The
 *           text is written when first read and lives as long as the receipt.
 */
#define MCPP_VALUE_VERSION 1u
typedef struct mcpp_value {
    unsigned int version; /* the caller's layout: MCPP_VALUE_VERSION (MCPP_VALUE_INIT) */
    mcpp_type type;
    int boolean;
    int64_t integer;
    double number;
    const char *string;
    int enum_index;
    size_t count;
    const char *const *strings;
    const double *doubles;
} mcpp_value;

/* An absent value; declare with it so that the struct is never read uninitialised. */
#define MCPP_VALUE_INIT {MCPP_VALUE_VERSION, MCPP_TYPE_ABSENT, 0, 0, 0.0, NULL, -1, 0, NULL, NULL}

/* Stable ids of schema fields, for hot loops that read many receipts: resolve
 * a path once with mcpp_schema_field_id(), then read with mcpp_receipt_get_field. */
typedef struct mcpp_field_info {
    int id;              /* 0 .. mcpp_schema_field_count()-1                    */
    const char *path;    /* dotted path, e.g. "routing.top_k"                   */
    mcpp_type type;      /* the declared type (never ABSENT)                    */
    const char *const *enum_names; /* NULL-terminated, for MCPP_TYPE_ENUM only   */
    const char *doc;     /* one-line meaning, for help text and generated docs   */
} mcpp_field_info;

MCPP_API int mcpp_schema_field_count(void);
/* Borrowed static data; NULL when id is out of range. */
MCPP_API const mcpp_field_info *mcpp_schema_field_at(int id);
/* The field id of a dotted path, or -1 when the schema has no such field. */
MCPP_EXPERIMENTAL int mcpp_schema_field_id(const char *path);
/* The schema path closest to a path that is not one ("workload.seqlen" ->
 * "workload.seq_len", "seq_len" -> "workload.seq_len"), written to buf (cap
 * bytes): MCPP_OK with the suggestion, MCPP_ENOTFOUND (buf "") when nothing
 * is close or `path` is a field already. The loader's "did you mean" uses the
 * same distance. */
MCPP_EXPERIMENTAL int mcpp_schema_field_suggest(char *buf, size_t cap, const char *path);

/*
 * Reads a field by dotted path ("routing.top_k", "metrics.per_family_ms.E",
 * "backend.moe.observed"). Paths into free-form objects also work:
 * "extra.team" or "launch.fixed_policy.nccl" give the value as JSON text
 * (type OBJECT) or as a scalar when it is one.
 *
 * Returns MCPP_OK with out->type == MCPP_TYPE_ABSENT when the schema knows the
 * field but this receipt lacks it; MCPP_ENOTFOUND when the path names no field
 * of the schema; MCPP_EARG when out->version is not a layout this library
 * writes (declare *out with MCPP_VALUE_INIT). Pointers in *out are borrowed
 * from the receipt.
 */
MCPP_API int mcpp_receipt_get(const mcpp_receipt *receipt, const char *path, mcpp_value *out);

/* The same by field id (the hot path of comparisons); it allocates only the
 * first time a free-form value's or the artifact list's text is read (a
 * packed receipt keeps their trees; the text is written then and kept with
 * the receipt, so later reads return the same pointer), MCPP_ENOMEM when
 * that fails. */
MCPP_EXPERIMENTAL int mcpp_receipt_get_field(const mcpp_receipt *receipt, int field_id, mcpp_value *out);

/* ---- Named metrics ----------------------------------------------------------- */

/*
 * Every number a receipt states, by name. The well-known metrics live at fixed
 * paths with a fixed unit and direction (tokens_per_s in tokens/s, higher;
 * step_time_s in s, lower, the median of metrics.step_time_s; goodput.*; the
 * whole list is docs/schema-2.md's table, written from the library's
 * registry). The library derives
 * more from them when their inputs are stated (docs/metrics.md):
 * goodput.useful_fraction, goodput.kernel_busy_fraction,
 * goodput.badput_fraction and padding_waste_fraction. Any other metric is an
 * entry of metrics.named. Well-known metrics come first, in schema order, then
 * the derived ones, then the named ones in the order the receipt lists them.
 * A schema-1 receipt's tokens_per_s and step_time_s are found here by name
 * like any other. (A test checks these names against the library's.)
 */
typedef enum mcpp_direction {
    MCPP_DIRECTION_HIGHER = 0, /* higher is better (throughput) */
    MCPP_DIRECTION_LOWER = 1   /* lower is better (time, memory) */
} mcpp_direction;

/* A borrowed view of one metric (valid while the receipt lives). */
typedef struct mcpp_metric {
    const char *name;        /* "tokens_per_s", "time_to_train", "BM_Sort/1024.real_time" */
    const char *unit;        /* "tokens/s", "s", "min", "GFLOP/s", ...                     */
    mcpp_direction direction;
    double value;            /* the stated aggregate (the number that is compared)      */
    const char *aggregate;   /* how value comes from the samples: "single", "median",
                                "mean", "min", "max", "sum", "geomean"; NULL if unstated */
    const char *sample_kind; /* "step", "block", "run", "repetition", "round",
                                "iteration"; NULL without samples                       */
    size_t sample_count;     /* read them with mcpp_metric_sample()                     */
    const char *path;        /* where it is stored: "metrics.tokens_per_s", "metrics.named" */
    int well_known;          /* 1 for the schema's fixed metrics                         */
    const void *samples_;    /* private */
} mcpp_metric;

/* Number of metrics the receipt states (0 for NULL). */
MCPP_EXPERIMENTAL size_t mcpp_receipt_metric_count(const mcpp_receipt *receipt);
/* The metric at `index` (0 .. count-1); MCPP_ENOTFOUND past the end. */
MCPP_EXPERIMENTAL int mcpp_receipt_metric_at(mcpp_metric *out, const mcpp_receipt *receipt, size_t index);
/* The metric called `name`; MCPP_ENOTFOUND when the receipt does not state it. */
MCPP_API int mcpp_receipt_metric_find(mcpp_metric *out, const mcpp_receipt *receipt,
                                      const char *name);
/* The headline metric's name: metrics.primary when stated, else tokens_per_s,
 * else step_time_s, else the first metric; NULL when there is none. Borrowed. */
MCPP_API const char *mcpp_receipt_metric_primary(const mcpp_receipt *receipt);
/* Sample `index` of a metric (0 when out of range). */
MCPP_EXPERIMENTAL double mcpp_metric_sample(const mcpp_metric *metric, size_t index);
/* Quantile q in [0, 1] of n values (unsorted, left as they are), as the
 * library computes a receipt's stated p10 / median / p90 from its samples:
 * linear interpolation between closest ranks (type 7, numpy's default).
 * MCPP_EARG for n == 0 or q outside [0, 1], MCPP_ENOMEM. A harness that
 * derives a figure from the median (mcpp-step's tokens_per_s) uses this so
 * that the figure and the receipt's median agree. */
MCPP_API int mcpp_quantile(double *out, const double *values, size_t n, double q);
/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/* 1 when `name` is a well-known metric, with its fixed unit and direction
 * (either output may be NULL); 0 otherwise. */
MCPP_EXPERIMENTAL int mcpp_metric_well_known(const char *name, const char **unit_out, mcpp_direction *direction_out);
/* ==== end of EXPERIMENTAL API ==== */

/* ---- Building (for harnesses that emit receipts) ------------------------- */

/*
 * A builder collects fields, then mcpp_builder_finish() validates them into an
 * immutable receipt. Setters take dotted paths of the schema and copy what they
 * are given (the caller keeps ownership of its strings). A setter fails with
 * MCPP_ENOTFOUND for an unknown path and MCPP_EINVALID for a value of the wrong
 * type or out of range (so mistakes surface at the line that made them); an
 * unknown path's message names the closest schema path ("did you mean
 * 'workload.seq_len'?"). Failures are also STICKY: the builder remembers every
 * failed call, and mcpp_builder_finish() then fails with the first one's status,
 * kind and field and a message listing them all, so a harness that ignores a
 * setter's return code still cannot emit a receipt silently missing a field.
 * Paths can be spelled with the generated constants of
 * <mcpp_receipts/field_paths.h> (MCPP_FIELD_WORKLOAD_SEQ_LEN, ...) so that a
 * typo is a compile error. "schema" is preset to mcpp.receipt/2.
 *
 * Thread safety: a builder is not thread-safe; use one builder per thread (or
 * lock around it). The receipts it finishes are immutable and may be shared.
 */
typedef struct mcpp_builder mcpp_builder;

MCPP_API int mcpp_builder_new(mcpp_builder **out);
MCPP_API void mcpp_builder_free(mcpp_builder *builder); /* NULL-safe */

MCPP_API int mcpp_builder_set_string(mcpp_builder *b, const char *path, const char *value); /* STRING and ENUM fields */
MCPP_API int mcpp_builder_set_int(mcpp_builder *b, const char *path, int64_t value);
MCPP_API int mcpp_builder_set_double(mcpp_builder *b, const char *path, double value); /* DOUBLE; INT when integral */
MCPP_API int mcpp_builder_set_bool(mcpp_builder *b, const char *path, int value);
/* Appends to a STRING_LIST field (status.caveats, backend.fallbacks, ...). */
MCPP_API int mcpp_builder_append_string(mcpp_builder *b, const char *path, const char *value);
/* Appends one measured step time (seconds) to metrics.step_time_s.samples. */
MCPP_API int mcpp_builder_add_step_sample(mcpp_builder *b, double seconds);
MCPP_API int mcpp_builder_add_artifact(mcpp_builder *b, const char *kind, const char *uri);
/*
 * Appends a metric to metrics.named: `name`, `unit` and `direction` are
 * required; `value` is the stated number. `samples` (NULL when n_samples is 0)
 * come with their `sample_kind` ("step", "block", "run", "repetition",
 * "round", "iteration") and `aggregate` saying how value comes from them
 * ("single", "median", "mean", "min", "max", "sum", "geomean"; NULL without
 * samples to leave it unstated). A well-known metric's name (tokens_per_s,
 * step_time_s, ...) is refused here: set its schema field instead. The rest
 * (unique names, value agreeing with the samples) is checked at finish.
 */
MCPP_EXPERIMENTAL int mcpp_builder_add_metric(mcpp_builder *b, const char *name, const char *unit,
                                              mcpp_direction direction, double value, const char *aggregate,
                                              const char *sample_kind, const double *samples, size_t n_samples);
/* Sets a free-form value ("extra.KEY" or "launch.fixed_policy.KEY") from JSON text. */
MCPP_API int mcpp_builder_set_json(mcpp_builder *b, const char *path, const char *json_text);
/* Removes a field again (no error when it was absent). */
MCPP_EXPERIMENTAL int mcpp_builder_unset(mcpp_builder *b, const char *path);
/* How many calls on this builder failed since it was made or last cleared. */
MCPP_API size_t mcpp_builder_error_count(const mcpp_builder *b);
/* Forgets the failed calls (after the caller has handled them), so finish can
 * succeed again. NULL-safe. */
MCPP_API void mcpp_builder_clear_errors(mcpp_builder *b);

/*
 * Validates what was set and produces the receipt. Derives what the schema
 * derives: median/p10/p90 from the samples when not stated, metrics.tokens_per_s
 * as workload.useful_tokens_per_step / the median step time when not stated
 * (as frontiers and comparisons derive it), and the id from a content hash
 * when not set. Fails first when any setter failed (see above). Percentiles use linear interpolation between
 * closest ranks: position q*(n-1) in the sorted samples (numpy's default), so
 * the median of an even count is the mean of the middle two. The builder stays
 * usable (finish again after more setters). `report_out` is optional, as for
 * loading.
 */
MCPP_API int mcpp_builder_finish(mcpp_receipt **out, mcpp_report **report_out,
                                 const mcpp_builder *b);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_RECEIPT_H */
