/*
 * import_internal.h — what the importers share: reading an input whole, JSON
 * with FILE:LINE:COL for any value, lenient numbers ("1" and 1.0 alike), and
 * turning a filled builder into a receipt with a deterministic id.
 */
#ifndef MCPP_IMPORT_INTERNAL_H
#define MCPP_IMPORT_INTERNAL_H

#include <cjson/cJSON.h>

#include "mcpp_receipts/import.h"

/* A JSON input kept with its text, so errors can point at a line. */
typedef struct mcpp_import_sink mcpp_import_sink; /* where an importer's receipts go (below) */
typedef struct mcpp_share mcpp_share;             /* receipt/share.h */

typedef struct mcpp_import_json {
    const char *path;
    char *text;
    size_t len;
    cJSON *root;
    int line_base; /* lines before `text` in the file: JSON embedded in a log line */
    int col_base;  /* columns before `text` on its first line                     */
} mcpp_import_json;

/* Reads `path` whole (NUL-terminated; *out_len without the NUL). MCPP_EIO names the file. */
int mcpp_import_read_file(char **out, size_t *out_len, const char *path);

/* Parses text[0..len) as one JSON value; a syntax error is MCPP_EINVALID at
 * FILE:LINE:COL. `line_base`/`col_base` shift the position for JSON embedded
 * in a longer line (0 and 0 for a whole file). */
int mcpp_import_json_parse(cJSON **out, const char *text, size_t len, const char *path,
                           int line_base, int col_base);

/* MCPP_EINVALID "invalid JSON" (or "the JSON ends early", near the end) at
 * byte `offset` of text[0..len), shifted by the bases as above. */
int mcpp_import_json_syntax_error(const char *text, size_t len, size_t offset, const char *path,
                                  int line_base, int col_base);

/* Rewrites in place the bare NaN, Infinity and -Infinity that stand as
 * values in text[0..len) (outside strings) as empty arrays of the same
 * length ("[ ]", "[      ]", "[       ]"): the non-finite numbers some tools
 * write (Google Benchmark's rate over a zero time) which JSON has not, kept
 * where they were so that positions stay true and a reader can tell such a
 * value from a missing one. Returns how many it rewrote. */
size_t mcpp_import_json_nonfinite_as_empty(char *text, size_t len);

/* Reads a JSON file into *doc without parsing it (root stays NULL): for the
 * cursor below. Free with mcpp_import_json_free. */
int mcpp_import_json_read(mcpp_import_json *doc, const char *path);

/* Reads and parses a JSON file into *doc (free with mcpp_import_json_free). */
int mcpp_import_json_open(mcpp_import_json *doc, const char *path);
/* Reads a small JSON file whole, checks its shape with `check` (which must
 * make sure the top level's `list` member is a list), then imports each of
 * that list's elements with `one`: hyperfine's results, pyperf's benchmarks. */
int mcpp_import_json_list_file(mcpp_import_sink *sink, const char *path, int (*check)(const mcpp_import_json *doc),
                               const char *list,
                               int (*one)(mcpp_import_sink *sink, const mcpp_import_json *doc, const cJSON *item));
void mcpp_import_json_free(mcpp_import_json *doc);

/* Moves `value` under `key` of object `obj`, replacing an earlier value of
 * exactly that key (an event logged again); NULL does nothing, and a value
 * that cannot be placed is freed. Keys differing only in case are two keys:
 * cJSON_HasObjectItem ignores case while the replace does not, and a value
 * whose key matched only ignoring case was lost (found by fuzz_import). */
void mcpp_import_json_keep(cJSON *obj, const char *key, cJSON *value);

/* Records MCPP_EINVALID of `kind` at the position of `item` in the document
 * (its first byte), naming `field` (a JSON path such as benchmarks[2].stats). */
int mcpp_import_json_error(const mcpp_import_json *doc, const cJSON *item, const char *kind,
                           const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* The same at byte `offset` of the document's text (for the cursor, which
 * keeps no tree to find a value in). */
int mcpp_import_json_error_at(const mcpp_import_json *doc, size_t offset, const char *kind,
                              const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/*
 * A cursor over a document's text (json_cursor.c) for inputs whose lists run
 * to megabytes: it walks the outer objects and arrays token by token and
 * hands one value at a time to cJSON, so the file is never one tree (a tree
 * costs ~4x the text; issue 28). Errors are FILE:LINE:COL of the byte where
 * they are found, with mcpp_import_json_parse's messages.
 */
typedef struct mcpp_json_cursor {
    const mcpp_import_json *doc;
    size_t pos;
} mcpp_json_cursor;

/* A cursor at the first value of doc (after blanks and a UTF-8 BOM). */
void mcpp_jc_init(mcpp_json_cursor *c, const mcpp_import_json *doc);
/* Skips blanks; the byte at the cursor, -1 at the end of the text. */
int mcpp_jc_peek(mcpp_json_cursor *c);
/* Enters the object ('{') or array ('[') at the cursor: 1 entered, 0 when
 * the value there is something else (nothing consumed). */
int mcpp_jc_enter(mcpp_json_cursor *c, char open);
/* The next member or element of the container entered last: 1 when there is
 * one (the cursor at its value; for an object *key is its name, freed with
 * cJSON_free), 0 at the container's end (consumed), < 0 a syntax error.
 * `*first` starts at 1. */
int mcpp_jc_next(mcpp_json_cursor *c, char close, int *first, char **key);
/* The value at the cursor as a tree (*out, cJSON_Delete) and its offset. */
int mcpp_jc_parse(mcpp_json_cursor *c, cJSON **out, size_t *at);
/* Steps over the value at the cursor without building it (strings and
 * brackets matched; what is inside is checked when it is parsed). */
int mcpp_jc_skip(mcpp_json_cursor *c, size_t *at);
/* After the document's value: only blanks may follow. */
int mcpp_jc_end(mcpp_json_cursor *c);
/* A syntax error at the cursor. */
int mcpp_jc_syntax_error(const mcpp_json_cursor *c);

/* A benchmark suite file's top level (pytest-benchmark, Google Benchmark):
 * an object whose first "benchmarks" list runs to megabytes. */
typedef struct mcpp_jc_suite_top {
    size_t root_at;      /* offset of the top-level value                   */
    int has_benchmarks;  /* the first "benchmarks" member is a list, at:    */
    size_t benchmarks_at;
} mcpp_jc_suite_top;
/* Hands a parsed top-level member to its importer, which may keep the value
 * (taking it and setting *value to NULL). */
typedef void (*mcpp_jc_member_fn)(void *ctx, const char *key, cJSON **value);
/* Reads such a top level in one pass: the first "benchmarks" list stepped
 * over (its rows are read one at a time later), every other member parsed
 * and handed to `member`, so that a syntax error anywhere is still found. A
 * top level that is not an object is checked whole (then refused by the
 * importer, as has_benchmarks stays 0). */
int mcpp_jc_read_suite_top(mcpp_jc_suite_top *top, const mcpp_import_json *doc, mcpp_jc_member_fn member, void *ctx);
/* For a member handler: keeps *value in *slot when the slot is empty (taking
 * it), so the first of a repeated member counts, as for cJSON's lookup. */
void mcpp_jc_keep_first(cJSON **slot, cJSON **value);
/* A suite file that is not `tool`'s (its name in messages): "not TOOL JSON
 * output: expected an object with MEMBERS" at the top level, and when
 * `other` names the tool it looks like, " (this is OTHER output: import it
 * as FORMAT)". MCPP_EINVALID. */
int mcpp_jc_suite_not_tool(const mcpp_import_json *doc, const mcpp_jc_suite_top *top, const char *tool,
                           const char *members, const char *other, const char *other_format);

/* A number given as a JSON number or as a string holding one ("56", " 2.0").
 * Returns 1 and sets *out, 0 when `v` is neither (or NULL, or an empty string). */
int mcpp_import_number(double *out, const cJSON *v);
/* As mcpp_import_number, for a whole number within +-2^53. */
int mcpp_import_integer(int64_t *out, const cJSON *v);
/* The string value of v when it is a non-empty string, else NULL. */
const char *mcpp_import_string(const cJSON *v);
/* obj's member `key` (case-sensitive, as every tool's JSON is), or NULL. */
static inline const cJSON *mcpp_import_member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}
/* 1 when `key` is one of names[0..n): a member the importer maps onto a
 * field, which its copy of the rest into extra leaves out. */
int mcpp_import_is_one_of(const char *key, const char *const *names, size_t n);

/* A string field that a tool records or not: `path` is set to `value`
 * when value is not NULL. */
typedef struct mcpp_import_text {
    const char *path;
    const char *value;
} mcpp_import_text;
/* Sets texts[0..n) in order, each one that has a value; stops at the first failure. */
int mcpp_import_set_texts(mcpp_builder *b, const mcpp_import_text *texts, size_t n);

/* Sets a free-form path (extra.KEY, benchmark.params, software.components...)
 * from a cJSON value; NULL or JSON null values are skipped. */
int mcpp_import_set_json(mcpp_builder *b, const char *path, const cJSON *value);

/* Writes milliseconds since the Unix epoch as RFC 3339 UTC ("...T..:..:..123Z"). */
void mcpp_import_rfc3339_from_ms(char *buf, size_t cap, int64_t ms);
/* 1 when `s` carries a time zone (Z or +hh:mm), as created_at requires. */
int mcpp_import_has_zone(const char *s);

/*
 * Where an importer puts each receipt it makes: a receipt set (the import
 * API), or a directory written as the receipts come (mcpp_import_files_to_dir,
 * so a big input never holds all its receipts at once). `take` owns the
 * receipt, also when it fails.
 */
struct mcpp_import_sink {
    int (*take)(mcpp_import_sink *sink, mcpp_receipt *r);
    const char *git_commit; /* the commit the caller says the inputs measured, or NULL */
    mcpp_share *share;      /* what the receipts share (receipt/share.h), or NULL */
};

/*
 * Finishes the builder into a receipt and hands it to `sink`. The id is
 * `readable` (sanitised) + "-" + 12 hex digits of the content hash, so the
 * same input always gives the same id. A receipt the validator refuses is
 * MCPP_EINVALID naming `path` (an importer bug or an input out of range).
 * The sink's git_commit, when set, becomes source.git_commit; an input that
 * names another commit is MCPP_EINVALID naming `path`.
 */
int mcpp_import_finish(mcpp_import_sink *sink, mcpp_builder *b, const char *readable,
                       const char *path);
/* The end of one receipt of a tool's file: what the mapping left over as
 * extra.<tool> (when there is any), then the receipt made and handed to the
 * sink under the readable name "<tool>-<name>". */
int mcpp_import_finish_tool(mcpp_import_sink *sink, mcpp_builder *b, const cJSON *extra, const char *tool,
                            const char *name, const char *path);
/* The same, handing the receipt to the caller (*out; NULL on failure);
 * `git_commit` and `share` as the sink's (NULL: none). */
int mcpp_import_make(mcpp_receipt **out, mcpp_builder *b, const char *readable, const char *path,
                     const char *git_commit, mcpp_share *share);

/* A new builder (*out, freed by the caller also on failure) with what every
 * importer states first: source.tool "mcpp-receipts import FORMAT", each
 * section of not_recorded in source.not_recorded, and benchmark.suite. */
int mcpp_import_begin(mcpp_builder **out, const char *format, const char *suite,
                      const char *const *not_recorded, size_t n_not_recorded);

/* Adds metric `name` with samples[0..n) of `kind`; its value is their median
 * (aggregate `median`; `single` for one sample). Nothing for n == 0. */
int mcpp_import_add_samples(mcpp_builder *b, const char *name, const char *unit, mcpp_direction dir,
                            const char *kind, const double *samples, size_t n);

/* A walk of a directory tree for an importer's inputs, entries in byte order
 * of names (mcpp_dir_list), so receipts come in the same order on every
 * machine. `take` is called on each regular file `is_input` accepts (its name,
 * and the directory it stands in) and counts what it imports in `found`.
 * Directories more than `max_depth` below the start are not entered or, with
 * `deeper_is_error`, refused (MCPP_ELIMIT naming the directory). */
typedef struct mcpp_import_walk {
    mcpp_import_sink *sink;
    int max_depth, deeper_is_error;
    int (*is_input)(const char *name, const char *dir);
    int (*take)(struct mcpp_import_walk *w, const char *path);
    size_t found;
} mcpp_import_walk;
int mcpp_import_walk_dir(mcpp_import_walk *w, const char *dir);

/* The benchmark's name: benchmark.name, and lane.name, the lane's display
 * label (no policy dimension reads lane.name). */
int mcpp_import_set_name(mcpp_builder *b, const char *name);

/* A CPU model the tool probed (NULL: none): hardware.host.cpu, and the
 * accelerator "cpu: MODEL" with source probed; cores >= 1: hardware.host.cores. */
int mcpp_import_set_cpu(mcpp_builder *b, const char *model, int64_t cores);

/* Copies [A-Za-z0-9._-] from `s` into buf, other bytes as '_' (always terminated). */
void mcpp_import_sanitize(char *buf, size_t cap, const char *s);

/* The importers: each hands the receipts of one input (a file, or a
 * directory where the format takes one) to `sink`, in order. */
#define MCPP_X_IMPORTER_PROTO(id, number, name, parser, summary) \
    int mcpp_import_##parser(mcpp_import_sink *sink, const char *path);
MCPP_IMPORT_FORMATS(MCPP_X_IMPORTER_PROTO)
#undef MCPP_X_IMPORTER_PROTO
int mcpp_import_mlperf_log(mcpp_import_sink *sink, const char *path);

/* A registry row (import.c): the one place a format is named and dispatched. */
typedef struct mcpp_importer {
    mcpp_import_format format;
    const char *name;    /* FORMAT of the CLI and the bindings            */
    const char *summary; /* the inputs it takes: import --help, docs/import.md */
    int (*import_path)(mcpp_import_sink *sink, const char *path);
} mcpp_importer;

/* The row of `format`, or NULL outside the enum. */
const mcpp_importer *mcpp_importer_of(mcpp_import_format format);

#endif /* MCPP_IMPORT_INTERNAL_H */
