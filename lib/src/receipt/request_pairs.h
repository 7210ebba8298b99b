/*
 * request_pairs.h — THE table of requested/observed pairs (private to the
 * library, its tests and build tools): what a receipt may ask for and what it
 * must then say ran.
 *
 * One entry feeds every use (issue 47 item 14): validation (a request needs
 * its observation, validate.c; a fallback that names a family checks it
 * against what ran), the `fallbacks` dimension of a comparison and the
 * frontier's "request not met" (policy.c copies the table into every policy;
 * analysis/compare.c reads it there), and the policy digest (policy_digest.c
 * writes one line per entry, so a verdict that changes with the table changes
 * the digest). A new requested/observed pair is one entry here and its two
 * fields in schema_fields.h (docs/ARCHITECTURE.md, "Adding a requested/observed
 * pair", says what else changes when it also keys lanes).
 *
 * How a request is met (mcpp_field_request_unmet, receipt/fields.c): the
 * observation equal to it, where accelerators compare by model (any form
 * factor of an H100 meets "H100"), precision recipes as sets, and a string
 * request "auto" is met by whatever ran.
 *
 * X(LABEL, REQUESTED, OBSERVED, REQUESTED_COUNT, OBSERVED_COUNT)
 *   LABEL     how reports name the pair; for a backend family also the
 *             family a backend.fallbacks item names ("attention:flash->sdpa")
 *   REQUESTED / OBSERVED  schema field ids (MCPP_F_...)
 *   *_COUNT   a count asked for and observed with it, reported with it
 *             ("requested H100 x8, observed H100 x4"), or -1
 */
#ifndef MCPP_RECEIPT_REQUEST_PAIRS_H
#define MCPP_RECEIPT_REQUEST_PAIRS_H

#include "receipt/field_ids.h"

#define MCPP_REQUEST_PAIRS(X)                                                                                          \
    X("attention", MCPP_F_backend_attention_requested, MCPP_F_backend_attention_observed, -1, -1)                      \
    X("moe", MCPP_F_backend_moe_requested, MCPP_F_backend_moe_observed, -1, -1)                                        \
    X("mamba", MCPP_F_backend_mamba_requested, MCPP_F_backend_mamba_observed, -1, -1)                                  \
    X("recurrent", MCPP_F_backend_recurrent_requested, MCPP_F_backend_recurrent_observed, -1, -1)                      \
    X("gemm", MCPP_F_backend_gemm_requested, MCPP_F_backend_gemm_observed, -1, -1)                                     \
    X("precision", MCPP_F_backend_precision_requested, MCPP_F_backend_precision_observed, -1, -1)                      \
    X("hardware", MCPP_F_hardware_requested_accelerator, MCPP_F_hardware_observed_accelerator,                         \
      MCPP_F_hardware_requested_count, MCPP_F_hardware_observed_count)                                                 \
    X("hardware per node", MCPP_F_hardware_requested_per_node, MCPP_F_hardware_observed_per_node, -1, -1)

typedef struct mcpp_request_pair {
    const char *label;
    int requested, observed;
    int requested_count, observed_count; /* -1 when the pair has no count */
} mcpp_request_pair;

#define MCPP_X_REQUEST_PAIR(label, req, obs, req_count, obs_count) {label, req, obs, req_count, obs_count},
static const mcpp_request_pair mcpp_request_pairs[] = {MCPP_REQUEST_PAIRS(MCPP_X_REQUEST_PAIR)};
#undef MCPP_X_REQUEST_PAIR

#define MCPP_REQUEST_PAIR_COUNT (sizeof mcpp_request_pairs / sizeof mcpp_request_pairs[0])

#endif /* MCPP_RECEIPT_REQUEST_PAIRS_H */
