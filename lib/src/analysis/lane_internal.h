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

/* Appends the lane key of r to b. When seg_hashes is not NULL it receives one
 * hash per key dimension (of that dimension's segment text). */
void mcpp_lane_key_append(mcpp_strbuf *b, const mcpp_policy *p, const mcpp_receipt *r, uint64_t *seg_hashes);

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
    char *blocker; /* NULL when stable */
    int has_headline;
    mcpp_lane_headline headline; /* headline.metric is borrowed from the summary */
    double min_value, max_value; /* range of the values the headline is over */
} mcpp_lane_eval;

void mcpp_lane_eval_clear(mcpp_lane_eval *e);
int mcpp_lane_summary_evaluate(const mcpp_lane_summary *s, mcpp_lane_eval *out);

/* A summary for a known key and metric id (the frontier computes keys itself). */
int mcpp_lane_summary_create(mcpp_lane_summary **out, const mcpp_policy *p, const char *metric, int metric_id,
                             const char *key);
/* Adds a receipt already known to belong to the summary's lane. */
int mcpp_lane_summary_add_keyed(mcpp_lane_summary *s, const mcpp_receipt *r);
/* The smallest lane.name seen, or NULL. */
const char *mcpp_lane_summary_label(const mcpp_lane_summary *s);
/* The receipt ids, sorted: an array of n pointers into the summary (caller
 * frees the array only). NULL with *n = 0 when empty or out of memory. */
const char **mcpp_lane_summary_sorted_ids(const mcpp_lane_summary *s, size_t *n);

/* Appends a headline as the compact JSON of lane summaries and claims,
 * {"median": .., "interval": [lo, hi], "n": ..}; NULL gives null. */
void mcpp_lane_headline_json(mcpp_strbuf *b, const mcpp_lane_headline *h);

#endif /* MCPP_LANE_INTERNAL_H */
