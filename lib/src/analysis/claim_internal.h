/*
 * claim_internal.h — what a claim check holds (claim.c decides it;
 * render/claim_render.c writes it as text, JSON and markdown).
 */
#ifndef MCPP_CLAIM_INTERNAL_H
#define MCPP_CLAIM_INTERNAL_H

#include <stddef.h>

#include "mcpp_receipts/frontier.h"

typedef struct claim_lane {
    char *key;
    char short_key[24];
    char *label;
    int status;
    char *reasons; /* joined by "; " */
    int has_headline;
    mcpp_lane_headline headline;
    char *unit; /* the lane's unit for the metric (headline.unit points here) */
    /* Which runs the headline pools and which it set aside (issue 47 item 3):
     * n_pooled ids; set_aside as 2 * n_set_aside strings, id then reason. */
    char **pooled, **set_aside;
    size_t n_pooled, n_set_aside;
} claim_lane;

struct mcpp_claim_result {
    mcpp_claim_verdict verdict;
    char *reason;
    char *selector;
    char *metric;
    double value;
    const char *unit; /* the first matched (else source) lane's unit; borrowed from it */
    claim_lane *matched;
    size_t n_matched;
    claim_lane *sources;
    size_t n_sources;
    char *policy_name; /* the policy the claim was checked under, and its digest */
    char policy_digest[MCPP_POLICY_DIGEST_LEN + 1];
};

#endif /* MCPP_CLAIM_INTERNAL_H */
