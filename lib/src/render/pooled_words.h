/*
 * pooled_words.h — which runs a headline pools and which it set aside, in
 * the same words in every output (issue 47 item 3): "pools 3 runs: a, b, c;
 * sets aside 1: d (request not met: ...)". The claim, the gate, the lane
 * history and the HTML report each hand their lists through accessors, so
 * the wording is written once.
 */
#ifndef MCPP_RENDER_POOLED_WORDS_H
#define MCPP_RENDER_POOLED_WORDS_H

#include <stddef.h>

#include "mcpp_receipts/compare.h"
#include "util/strbuf.h"

typedef struct mcpp_pooled_words {
    size_t n_pooled, n_aside;           /* runs in all */
    size_t pooled_listed, aside_listed; /* the first ones the accessors give (<= the totals) */
    const void *ctx;
    const char *(*pooled_id)(const void *ctx, size_t i);
    const char *(*aside_id)(const void *ctx, size_t i);
    const char *(*aside_reason)(const void *ctx, size_t i); /* may be NULL: no reason given */
    const char *(*aside_path)(const void *ctx, size_t i);   /* may be NULL: no "path" key in JSON */
} mcpp_pooled_words;

/* Appends "pools N runs: a, b; sets aside M: c (reason); d (reason)",
 * naming at most `shown` of each list ("and K more" for the rest), every
 * string through `escape` (mcpp_sb_terminal, mcpp_sb_markdown, mcpp_sb_html). */
void mcpp_sb_pooled_words(mcpp_strbuf *b, const mcpp_pooled_words *w, void (*escape)(mcpp_strbuf *, const char *),
                          size_t shown);

/* Appends ["a", "b", ...]: n ids as a JSON array. */
void mcpp_sb_json_id_list(mcpp_strbuf *b, char *const *ids, size_t n);

/* Appends the JSON array of the runs set aside that the accessors give:
 * [{"id": ..., ("path": ...,) "reason": ...}]. */
void mcpp_sb_pooled_aside_json(mcpp_strbuf *b, const mcpp_pooled_words *w);

/* The same for one candidate of a gate report (render/gate_render.c): the
 * baselines and candidate runs its change pools, the baselines of its lane
 * it set aside with why, and a count of those of other lanes. */
void mcpp_gate_entry_pooled_words(mcpp_strbuf *b, const mcpp_gate_report *r, size_t entry,
                                  void (*escape)(mcpp_strbuf *, const char *), size_t shown);

/* The same for one lane of a lane history (render/history_render.c): the
 * runs its series pools are counted (its table lists them), the first
 * HISTORY_ASIDE_SHOWN set aside are named with why. */
#define HISTORY_ASIDE_SHOWN 10
struct history_lane;
void mcpp_history_pooled_words(mcpp_strbuf *b, const struct history_lane *l,
                               void (*escape)(mcpp_strbuf *, const char *));

#endif /* MCPP_RENDER_POOLED_WORDS_H */
