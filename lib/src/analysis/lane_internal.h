/*
 * lane_internal.h — lane keys and lane summaries as the frontier and claim
 * code use them (the public side is in frontier.h).
 */
#ifndef MCPP_LANE_INTERNAL_H
#define MCPP_LANE_INTERNAL_H

#include <stdint.h>

#include "analysis/compare_internal.h"
#include "mcpp_receipts/frontier.h"

/* Must-match field dimensions: the ones that make up a lane key. */
size_t mcpp_lane_key_dim_count(const mcpp_policy *p);
/* The name of key dimension k. */
const char *mcpp_lane_key_dim_name(const mcpp_policy *p, size_t k);

/* Key dimension k itself (its fields, in key order); NULL when out of range. */
const mcpp_policy_dim *mcpp_lane_key_dim(const mcpp_policy *p, size_t k);

/* The key fields in which the lane with key `key` differs from any of the
 * `n` lanes with keys `neighbours` (same policy), as "moe=jagged, seq_len=8192"
 * in key order; "" when none. lane_distinct.c; caller frees *out. */
int mcpp_lane_key_differences(char **out, const mcpp_policy *p, const char *key, const char *const *neighbours,
                              size_t n);

/* Appends the lane key of r to b. When seg_hashes is not NULL it receives one
 * hash per key dimension (of that dimension's segment text). */
void mcpp_lane_key_append(mcpp_strbuf *b, const mcpp_policy *p, const mcpp_receipt *r, uint64_t *seg_hashes);
/* A hash of p's lane key layout: each keying dimension's name and field
 * paths, in order (MCPP_LANE_KEY_FORMAT says why). */
uint64_t mcpp_lane_key_layout_hash(const mcpp_policy *p);

/* A hash of r's lane-key fields from their raw values (equal keys, equal
 * hashes), and whether two receipts have the same lane key; both without
 * formatting any text. */
uint64_t mcpp_lane_key_hash(const mcpp_policy *p, const mcpp_receipt *r);
int mcpp_lane_same(const mcpp_policy *p, const mcpp_receipt *a, const mcpp_receipt *b);

/* What a summary says about its lane once evaluated. */
typedef struct mcpp_lane_eval {
    mcpp_lane_status status;
    char **reasons;
    size_t n_reasons;
    const char *blocker; /* NULL when stable; borrowed: the summary's first blocker or reasons[0] */
    int has_headline;
    mcpp_lane_headline headline; /* headline.metric is borrowed from the summary */
    double min_value, max_value; /* range of the values the headline is over */
    int has_excluded_values;
    double excluded_min, excluded_max; /* range of the excluded runs' stated values */
} mcpp_lane_eval;

void mcpp_lane_eval_clear(mcpp_lane_eval *e);
/* The evaluation borrows the summary's texts (the blocker): it is the
 * summary's cache (mcpp_lane_summary_eval_cached), cleared when they change. */
int mcpp_lane_summary_evaluate(const mcpp_lane_summary *s, mcpp_lane_eval *out);
/* The summary's own evaluation (made on first use, kept until an add or a
 * merge changes the summary), borrowed: the frontier's lanes point to it
 * rather than keep a copy. 0 or an error code. */
int mcpp_lane_summary_eval_cached(const mcpp_lane_summary *s, const mcpp_lane_eval **out);
/* Cuts the summary's lists, grown by doubling, to what they hold: for a
 * summary kept as it is (a frontier's), not one still being added to.
 * Pointers into its texts (mcpp_lane_summary_sorted_ids) taken before are
 * no longer valid. */
void mcpp_lane_summary_fit(mcpp_lane_summary *s);

/* A summary for a known key and metric (the frontier computes keys itself).
 * MCPP_EARG for a metric name mcpp_metric_ref_init refuses. */
int mcpp_lane_summary_create(mcpp_lane_summary **out, const mcpp_policy *p, const char *metric, const char *key);
/* Records what a run says the metric is (`id`, may be NULL) and, when given,
 * a conflict already found elsewhere (a merged or restored summary's). */
int mcpp_lane_summary_note_ident(mcpp_lane_summary *s, const mcpp_metric_ident *id, const char *conflict);
/* The runs' metric identity: 1 when a run stated the metric, else 0;
 * *conflict is NULL or the reason the runs disagree. */
int mcpp_lane_summary_ident(mcpp_metric_ident *out, const char **conflict, const mcpp_lane_summary *s);
/* Why the frontier keeps r out of its lane's headline, in the words it lists
 * under "excluded" (a request not met, evidence the policy needs and r
 * lacks), into *reason (malloc'd), or NULL when r counts: the one rule every
 * output that pools a lane's runs applies (the lane history, the report).
 * `metric` as for mcpp_lane_summary_new (NULL: the policy's gate metric).
 * 0 or an error code. */
int mcpp_lane_run_set_aside(char **reason, const mcpp_policy *p, const mcpp_receipt *r, const char *metric);
/* Adds a receipt already known to belong to the summary's lane. */
int mcpp_lane_summary_add_keyed(mcpp_lane_summary *s, const mcpp_receipt *r);
/* The same; *clean (when not NULL) is set to 1 when the receipt counts in the
 * headline and is comparable with itself (no rule, missing key dimension or
 * failed verification against it): the receipts whose pairs the frontier
 * checks under custom rules. */
int mcpp_lane_summary_add_checked(mcpp_lane_summary *s, const mcpp_receipt *r, int *clean);
/* How a receipt is sorted against itself: FAST decides with the self-verdict
 * and renders the rows of mcpp_compare(r, r) only for a receipt that is
 * insufficient or not comparable with itself; ROWS always renders them (the
 * reference the tests hold FAST to: same summary, same *clean). */
typedef enum { MCPP_LANE_SELF_FAST, MCPP_LANE_SELF_ROWS } mcpp_lane_self_mode;
int mcpp_lane_summary_add_mode(mcpp_lane_summary *s, const mcpp_receipt *r, int *clean, mcpp_lane_self_mode mode);
/* As MCPP_LANE_SELF_FAST with the self-verdict already known (computed ahead
 * by mcpp_compare_self_verdict for this policy and receipt). */
int mcpp_lane_summary_add_known(mcpp_lane_summary *s, const mcpp_receipt *r, int *clean, mcpp_verdict self);
/* The ids of every receipt added, counted or excluded, sorted: an array of
 * n strings the caller frees (each, then the array). NULL when out of memory. */
char **mcpp_lane_summary_every_id(const mcpp_lane_summary *s, size_t *n);
/* Records that two counted receipts of the lane are not comparable under
 * the policy's rules (the lane becomes unstable). */
int mcpp_lane_summary_add_conflict(mcpp_lane_summary *s, const char *reason);
/* The excluded runs as "id\x1freason" texts, sorted: an array of n pointers
 * into the summary (valid until it changes; the caller frees the array only).
 * NULL with *n = 0 when out of memory. */
const char **mcpp_lane_summary_excluded_sorted(const mcpp_lane_summary *s, size_t *n);
/* The smallest lane.name seen, or NULL. */
const char *mcpp_lane_summary_label(const mcpp_lane_summary *s);
/* The receipt ids, sorted: an array of n pointers into the summary (caller
 * frees the array only). NULL with *n = 0 when empty or out of memory. */
const char **mcpp_lane_summary_sorted_ids(const mcpp_lane_summary *s, size_t *n);

/* The text of a lane key (mcpp_lane_key_append) has two parts. Its layout
 * (which dimensions key a lane, in order, and the fields of each) is read
 * from the built-in policy by mcpp_lane_key_layout_hash and is part of the
 * format a store records, so a dimension or field added, renamed or
 * reordered needs nothing by hand. How each value is written is this number:
 * bump it whenever a value is written otherwise. A store records the format
 * of its lane columns and re-derives them when it is not this build's
 * (store/store_lane_keys.c); the test
 * store.lane_keys.the_lane_key_format_is_bumped_with_the_key_text holds the
 * values of example receipts under each number. 2: the first recorded (the
 * keys of stores written before it may be of an earlier text). 3: issue 47,
 * hardware.observed.threads in the hardware segment and the starting line
 * (startup, software, window, denominator) keying lanes. 4: the routing
 * segment's group-limited routing and expert precision, the CUDA graph
 * capture read once. */
#define MCPP_LANE_KEY_FORMAT 4

/* The layout of mcpp_lane_summary_serialize's text: 2 added the metric's
 * identity (metric_name, unit, higher_is_better, metric_conflict); a text of
 * another format is refused (a store rebuilds its cache). */
#define MCPP_LANE_SUMMARY_FORMAT 2

/* Appends a headline as the compact JSON of lane summaries and claims,
 * {"median": .., "interval": [lo, hi], "n": ..}; NULL gives null. */
void mcpp_lane_headline_json(mcpp_strbuf *b, const mcpp_lane_headline *h);
/* Copies `full` into the caller's headline in the layout its version declares
 * (refusing an unknown one with MCPP_EARG): a caller compiled against version
 * 1 gets no byte written past its struct. */
int mcpp_lane_headline_put(mcpp_lane_headline *out, const mcpp_lane_headline *full);
/* MCPP_OK when out->version is a layout mcpp_lane_headline_put can write. */
int mcpp_lane_headline_version_ok(const mcpp_lane_headline *out);

/* Raw access for restoring a serialized summary (lane_summary_io.c): the
 * summary's policy and metric, its counts, and its parts one item at a time. */
const mcpp_policy *mcpp_lane_summary_policy(const mcpp_lane_summary *s);
const char *mcpp_lane_summary_metric(const mcpp_lane_summary *s);

typedef struct mcpp_lane_summary_counts {
    size_t receipts, ok, failed, partial, verification_failed, claim_unstable, claim_blocked, fallback_runs;
} mcpp_lane_summary_counts;

typedef enum mcpp_lane_summary_part {
    MCPP_SUMMARY_LABEL,     /* text: the smallest lane.name wins         */
    MCPP_SUMMARY_IDS,       /* text, a multiset                          */
    MCPP_SUMMARY_BLOCKERS,  /* text, a set                               */
    MCPP_SUMMARY_EXCLUDED,  /* text "id\x1freason", a multiset           */
    MCPP_SUMMARY_INSUFFICIENT, /* text, a set                            */
    MCPP_SUMMARY_CONFLICTS, /* text, a set                               */
    MCPP_SUMMARY_VALUES,    /* number: one run's stated value            */
    MCPP_SUMMARY_STEPS,     /* number: a step value of a single run      */
    MCPP_SUMMARY_EXCLUDED_VALUES /* number: an excluded run's stated value */
} mcpp_lane_summary_part;

void mcpp_lane_summary_set_counts(mcpp_lane_summary *s, const mcpp_lane_summary_counts *c);
int mcpp_lane_summary_restore_text(mcpp_lane_summary *s, mcpp_lane_summary_part part, const char *text);
int mcpp_lane_summary_restore_value(mcpp_lane_summary *s, mcpp_lane_summary_part part, double value);

#endif /* MCPP_LANE_INTERNAL_H */
