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
#include "receipt/fields.h"
#include "util/hash.h"
#include "util/strbuf.h"

/* ---- Text (the buffer is util/strbuf.h, the escapers util/escape.h) ----------- */

/* Appends (when t is not NULL) one receipt's fired fallbacks (from the string
 * lists `list_ids`) and every requested != observed pair, separated by `sep`;
 * returns how many there are. (compare.c) */
size_t mcpp_fallback_items(const mcpp_policy *p, const int *list_ids, size_t n_lists, const mcpp_receipt *r,
                           mcpp_strbuf *t, const char *sep);

/* The same count without text, read straight from the receipt's slots. */
size_t mcpp_fallback_count(const mcpp_policy *p, const int *list_ids, size_t n_lists, const mcpp_receipt *r);

/* Renders a comparison's rows if they are not yet (they are made when first
 * read, from the receipts and policy view the comparison holds). MCPP_OK, or
 * MCPP_ENOMEM with the last error set; safe from several threads at once.
 * Renderers call it first so a failure is reported, not drawn as no rows. */
int mcpp_comparison_explain(const mcpp_comparison *comparison);

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

/* mcpp_compare_verdict(p, r, r) without the rows that cannot fire when a
 * receipt meets itself (qualifying dimensions, fallbacks, the denominator):
 * the lanes sort every receipt with it. `p` must not be NULL. */
int mcpp_compare_self_verdict(mcpp_verdict *out, const mcpp_policy *p, const mcpp_receipt *r);

/* Compares two sides into *out (method and metric point to static or
 * policy-owned text: callers copy what they keep). Returns 0, or MCPP_ENOMEM. */
int mcpp_metric_compare(mcpp_metric_result *out, const mcpp_policy *p, const mcpp_metric_side *base,
                        const mcpp_metric_side *cand);

/* The gate decision for a metric result, with its reason line. */
mcpp_gate_outcome mcpp_metric_gate(const mcpp_metric_result *m, const mcpp_policy *p,
                                   mcpp_strbuf *reason);

/* Renders a metric result as a JSON object, and as text lines. */
void mcpp_metric_render_json(mcpp_strbuf *b, const mcpp_metric_result *m);
void mcpp_metric_render_text(mcpp_strbuf *b, const mcpp_metric_result *m, const char *indent);

#endif /* MCPP_COMPARE_INTERNAL_H */
