/*
 * compare_internal.h — shared pieces of the comparison, gate, frontier and
 * claim code: a growable text buffer, canonical value text, and the headline
 * metric values of a receipt.
 */
#ifndef MCPP_COMPARE_INTERNAL_H
#define MCPP_COMPARE_INTERNAL_H

#include <stdarg.h>

#include "mcpp_receipts/compare.h"
#include "policy/policy_internal.h"

/* ---- Text buffer (compare_text.c) ------------------------------------------------ */

/* A growable NUL-terminated buffer. On allocation failure it latches `failed`
 * and ignores further appends, so callers check once at the end. */
typedef struct mcpp_textbuf {
    char *data;
    size_t len, cap;
    int failed;
} mcpp_textbuf;

void mcpp_textbuf_init(mcpp_textbuf *b, size_t initial);
void mcpp_textbuf_free(mcpp_textbuf *b);
void mcpp_textbuf_append(mcpp_textbuf *b, const char *s, size_t n);
void mcpp_textbuf_puts(mcpp_textbuf *b, const char *s);
void mcpp_textbuf_putc(mcpp_textbuf *b, char c);
void mcpp_textbuf_printf(mcpp_textbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends `s` as a JSON string literal (quotes included); NULL gives null. */
void mcpp_textbuf_json_string(mcpp_textbuf *b, const char *s);
/* Appends a JSON number (shortest round-trip form); non-finite gives null. */
void mcpp_textbuf_json_number(mcpp_textbuf *b, double v);
/* Appends `s` for a markdown table cell ('|' escaped, newlines as spaces). */
void mcpp_textbuf_md_cell(mcpp_textbuf *b, const char *s);
/* Hands the text over (caller frees with mcpp_free); MCPP_ENOMEM if it failed. */
int mcpp_textbuf_finish(mcpp_textbuf *b, char **out);

/* Appends the shortest text that reads back as exactly `v`. */
void mcpp_text_double(mcpp_textbuf *b, double v);
/* Appends a field value's canonical text: decimal ints, shortest doubles,
 * true/false, strings verbatim, lists as "[a, b]", objects as JSON. With
 * `escape_key` set, '\\', ';', '|', '=' and ',' are escaped (lane keys). */
void mcpp_value_text(mcpp_textbuf *b, const mcpp_value *v, int escape_key);
/* 1 when two present values are the same. */
int mcpp_value_equal(const mcpp_value *a, const mcpp_value *b);

/* Appends (when t is not NULL) one receipt's fired fallbacks (from the string
 * lists `list_ids`) and every requested != observed pair, separated by `sep`;
 * returns how many there are. (compare.c) */
size_t mcpp_fallback_items(const mcpp_policy *p, const int *list_ids, size_t n_lists, const mcpp_receipt *r,
                           mcpp_textbuf *t, const char *sep);

/* The same count without text, read straight from the receipt's slots. */
size_t mcpp_fallback_count(const mcpp_policy *p, const int *list_ids, size_t n_lists, const mcpp_receipt *r);

/* 64-bit FNV-1a over n bytes, continuing from h (start with MCPP_FNV_OFFSET). */
#define MCPP_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t mcpp_fnv1a(const void *data, size_t n, uint64_t h);
/* 1 when field `id` is equal in both receipts or absent from both. */
int mcpp_field_same(const mcpp_receipt *a, const mcpp_receipt *b, int id);
/* Mixes field `id` of r into h so that mcpp_field_same fields hash equal. */
uint64_t mcpp_field_hash(const mcpp_receipt *r, int id, uint64_t h);

/* ---- Headline values (compare_metric.c) ----------------------------------------------- */

/* Values of the headline metric pooled over receipts of one side. */
typedef struct mcpp_metric_side {
    double *steps; /* per-step values of all receipts that had samples */
    size_t n_steps, cap_steps;
    double *stated; /* the stated (or derived) metric, one per receipt */
    size_t n_stated, cap_stated;
    size_t receipts;      /* receipts added */
    size_t with_samples;  /* of those, how many gave step values */
} mcpp_metric_side;

void mcpp_metric_side_free(mcpp_metric_side *s);
/* Adds one receipt's values. Returns 1 when it had the metric, 0 when not,
 * MCPP_ENOMEM on allocation failure. */
int mcpp_metric_side_add(mcpp_metric_side *s, const mcpp_policy *p, int metric_id,
                         const mcpp_receipt *r);

/* The stated (or derived) value of the metric in one receipt, without
 * allocating: 1 when it has one, else 0. */
int mcpp_metric_stated(double *out, const mcpp_policy *p, int metric_id, const mcpp_receipt *r);

/* Compares two sides into *out (method and metric point to static or
 * policy-owned text: callers copy what they keep). Returns 0, or MCPP_ENOMEM. */
int mcpp_metric_compare(mcpp_metric_result *out, const mcpp_policy *p, const mcpp_metric_side *base,
                        const mcpp_metric_side *cand);

/* The gate decision for a metric result, with its reason line. */
mcpp_gate_outcome mcpp_metric_gate(const mcpp_metric_result *m, const mcpp_policy *p,
                                   mcpp_textbuf *reason);

/* Renders a metric result as a JSON object, and as text lines. */
void mcpp_metric_render_json(mcpp_textbuf *b, const mcpp_metric_result *m);
void mcpp_metric_render_text(mcpp_textbuf *b, const mcpp_metric_result *m, const char *indent);

#endif /* MCPP_COMPARE_INTERNAL_H */
