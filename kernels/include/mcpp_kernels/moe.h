/*
 * mcpp_kernels/moe.h — the MoE FFN block: router (softmax or sigmoid scores,
 * top-k, capacity factor, overflow policy) and the three execution lanes.
 *
 *   padded        route -> permute -> pad every expert to the capacity ->
 *                 batched GEMM -> unpad -> unpermute
 *   jagged        route -> sort by expert -> grouped GEMM over the ragged
 *                 segments (aligned to `align_rows`) -> weighted scatter
 *   block_sparse  segments padded to `block_rows`; one GEMM per (block, expert)
 *                 block of the block-diagonal topology
 *
 * Every lane computes exactly the same function of its kept assignments; they
 * differ only in how many rows they compute (the waste this project measures).
 * Outputs are combined per token in a fixed k order, so results do not depend
 * on the lane's row order (a deterministic k-sum).
 *
 * Expert i uses W1[i] (d_model x d_ff) then SiLU then W2[i] (d_ff x d_model).
 */
#ifndef MCPP_KERNELS_MOE_H
#define MCPP_KERNELS_MOE_H

#include <stddef.h>
#include <stdint.h>

#include "gemm.h"
#include "memtrack.h"

typedef enum mcpp_kernel_moe_score { MCPP_KERNEL_SCORE_SOFTMAX = 0, MCPP_KERNEL_SCORE_SIGMOID = 1 } mcpp_kernel_moe_score;

/*
 * drop     capacity C = ceil(capacity_factor * tokens * top_k / experts); assignments
 *          past C for an expert (in token order) are dropped.
 * pad      as drop, and every lane pads each expert to exactly C rows (static shapes).
 * no_drop  no capacity: every assignment is kept; the padded lane pads to the
 *          largest expert load (a data-dependent capacity).
 */
typedef enum mcpp_kernel_moe_overflow {
    MCPP_KERNEL_OVERFLOW_DROP = 0,
    MCPP_KERNEL_OVERFLOW_PAD = 1,
    MCPP_KERNEL_OVERFLOW_NO_DROP = 2
} mcpp_kernel_moe_overflow;

typedef enum mcpp_kernel_moe_lane {
    MCPP_KERNEL_MOE_PADDED = 0,
    MCPP_KERNEL_MOE_JAGGED = 1,
    MCPP_KERNEL_MOE_BLOCK_SPARSE = 2
} mcpp_kernel_moe_lane;

const char *mcpp_kernel_moe_score_name(mcpp_kernel_moe_score score);
const char *mcpp_kernel_moe_overflow_name(mcpp_kernel_moe_overflow overflow);
const char *mcpp_kernel_moe_lane_name(mcpp_kernel_moe_lane lane);
/* Parse the names above; 0 on success, MCPP_EINVALID otherwise. */
int mcpp_kernel_moe_score_parse(mcpp_kernel_moe_score *out, const char *name);
int mcpp_kernel_moe_overflow_parse(mcpp_kernel_moe_overflow *out, const char *name);
int mcpp_kernel_moe_lane_parse(mcpp_kernel_moe_lane *out, const char *name);

typedef struct mcpp_kernel_moe_config {
    size_t experts;
    size_t top_k;
    size_t d_model;
    size_t d_ff;
    double capacity_factor;
    mcpp_kernel_moe_score score;
    mcpp_kernel_moe_overflow overflow;
    size_t align_rows; /* jagged segment alignment (1 on the CPU, the tile height on CUDA) */
    size_t block_rows; /* block_sparse block height                                       */
} mcpp_kernel_moe_config;

/* Which expert each (token, k) assignment goes to, with what weight, at which row. */
typedef struct mcpp_kernel_moe_plan {
    size_t tokens, top_k, experts;
    size_t capacity;         /* rows per expert that the policy allows (tokens*top_k for no_drop) */
    int32_t *expert;         /* [tokens * top_k]                                             */
    float *weight;           /* [tokens * top_k] gate weight                                 */
    int32_t *rank;           /* [tokens * top_k] row within the expert, -1 when dropped       */
    size_t *demand;          /* [experts] assignments routed to the expert before dropping    */
    size_t *kept;            /* [experts] assignments kept                                    */
    size_t dropped;          /* assignments dropped                                           */
    size_t dropped_tokens;   /* tokens that lost at least one assignment                      */
} mcpp_kernel_moe_plan;

/* Rows computed by a lane vs rows that carried a kept assignment. */
typedef struct mcpp_kernel_moe_stats {
    size_t computed_rows; /* rows that went through the expert GEMMs, padding included */
    size_t useful_rows;   /* kept assignments                                          */
    size_t dropped;       /* dropped assignments                                       */
    size_t dropped_tokens;
    double flops_computed; /* 2*rows*d_model*d_ff*2 over computed rows                */
    double flops_useful;
} mcpp_kernel_moe_stats;

/* Allocates the plan's arrays for `tokens` tokens (from mem). */
int mcpp_kernel_moe_plan_init(mcpp_kernel_moe_plan *plan, const mcpp_kernel_moe_config *cfg, size_t tokens,
                       mcpp_kernel_kmem *mem);
void mcpp_kernel_moe_plan_release(mcpp_kernel_moe_plan *plan, mcpp_kernel_kmem *mem);

/*
 * Routes from router logits [tokens, experts]: scores (softmax over experts, or
 * sigmoid), top-k (ties to the lower expert id), weights (softmax: the chosen
 * probabilities; sigmoid: normalised over the chosen k), then capacity and
 * overflow in token order. The plan must come from mcpp_kernel_moe_plan_init.
 */
void mcpp_kernel_moe_route(mcpp_kernel_moe_plan *plan, const float *logits, const mcpp_kernel_moe_config *cfg);

/* Rows one expert segment occupies in a lane (padding included). */
size_t mcpp_kernel_moe_lane_rows(const mcpp_kernel_moe_plan *plan, const mcpp_kernel_moe_config *cfg,
                          mcpp_kernel_moe_lane lane, size_t expert);

/*
 * Runs the experts of a routed plan: out[t, :] = sum_k weight * FFN_e(x[t, :]) over
 * kept assignments (out is overwritten; a token with nothing kept gets zeros).
 * w1 is [experts, d_model, d_ff], w2 is [experts, d_ff, d_model]. Workspace is
 * taken from mem for the call. stats may be NULL.
 */
int mcpp_kernel_moe_forward(float *out, const float *x, const float *w1, const float *w2,
                     const mcpp_kernel_moe_plan *plan, const mcpp_kernel_moe_config *cfg, mcpp_kernel_moe_lane lane,
                     mcpp_kernel_gemm_impl gemm, mcpp_kernel_kmem *mem, mcpp_kernel_moe_stats *stats);

/* The token-by-token reference: each kept assignment computed on its own row. */
void mcpp_kernel_ref_moe(float *out, const float *x, const float *w1, const float *w2,
                  const mcpp_kernel_moe_plan *plan, const mcpp_kernel_moe_config *cfg, float *hidden_scratch);

/* max/mean of the experts' demand: 1.0 is perfectly balanced. */
double mcpp_kernel_moe_imbalance(const mcpp_kernel_moe_plan *plan);

#endif /* MCPP_KERNELS_MOE_H */
