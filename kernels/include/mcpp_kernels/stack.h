/*
 * mcpp_kernels/stack.h — a hybrid layer stack built from a pattern string and
 * run forward on the CPU.
 *
 * The pattern (letters A, M, E, R) is tiled to `depth` layers. Every layer is
 * pre-norm residual: x += block(rmsnorm(x)). Blocks:
 *   A  causal multi-head attention: fused QKV projection, attention, output projection
 *   M  selective scan: fused [u | dt | B | C] projection, scan, output projection
 *   E  MoE FFN: router, top-k, capacity/overflow, experts in the chosen lane
 *   R  gated recurrent tail: fused [a | z | g] projection, recurrence, output projection
 * then a final RMSNorm and LM-head logits tied to the embedding table.
 * Parameters are random (seeded): the step runner measures the work, not a model.
 */
#ifndef MCPP_KERNELS_STACK_H
#define MCPP_KERNELS_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "gemm.h"
#include "memtrack.h"
#include "moe.h"

#define MCPP_KERNEL_STACK_MAX_PATTERN 64
#define MCPP_KERNEL_STACK_MAX_DEPTH 1024

typedef struct mcpp_kernel_stack_config {
    char pattern[MCPP_KERNEL_STACK_MAX_PATTERN + 1];
    size_t depth;
    size_t d_model;
    size_t heads;
    size_t state;   /* selective-scan state per channel */
    size_t vocab;
    size_t seq_len;
    size_t batch;
    mcpp_kernel_moe_config moe; /* d_model is copied from above */
    uint64_t seed;
} mcpp_kernel_stack_config;

/* How to execute a forward pass. reference = 1 runs every GEMM through the
 * naive reference and the MoE token by token (the verification path). */
typedef struct mcpp_kernel_stack_exec {
    mcpp_kernel_gemm_impl gemm;
    mcpp_kernel_moe_lane lane;
    int reference;
} mcpp_kernel_stack_exec;

/* Accumulated over forward passes (zero it to start a window). */
typedef struct mcpp_kernel_stack_stats {
    double family_s[4];    /* A, M, E, R */
    double embed_s;        /* embedding lookup       */
    double head_s;         /* final norm and LM head */
    mcpp_kernel_moe_stats moe;
    double imbalance_sum;  /* sum over E layers of max/mean expert demand */
    double imbalance_max;
    size_t imbalance_count;
    size_t forwards;
} mcpp_kernel_stack_stats;

typedef struct mcpp_kernel_stack mcpp_kernel_stack;

/* Index of a family letter in mcpp_kernel_stack_stats.family_s, or -1. */
int mcpp_kernel_stack_family_index(char letter);

/* Checks a configuration; MCPP_EINVALID names the offending field. */
int mcpp_kernel_stack_config_check(const mcpp_kernel_stack_config *cfg);

/* Builds the stack with seeded random parameters; all memory comes from mem,
 * which must outlive the stack. */
int mcpp_kernel_stack_new(mcpp_kernel_stack **out, const mcpp_kernel_stack_config *cfg, mcpp_kernel_kmem *mem);
void mcpp_kernel_stack_free(mcpp_kernel_stack *stack); /* NULL-safe */

/* One forward pass over batch*seq_len tokens (each < vocab). stats may be NULL. */
int mcpp_kernel_stack_forward(mcpp_kernel_stack *stack, const int32_t *tokens, const mcpp_kernel_stack_exec *exec,
                       mcpp_kernel_stack_stats *stats);

/* The last forward's logits, [batch*seq_len, vocab]; borrowed. */
const float *mcpp_kernel_stack_logits(const mcpp_kernel_stack *stack);

/* The last forward's routing plan of the first E layer (NULL without E); borrowed. */
const mcpp_kernel_moe_plan *mcpp_kernel_stack_first_plan(const mcpp_kernel_stack *stack);

/* Read-only views of the parameters, for backends that copy them (CUDA). */
typedef struct mcpp_kernel_stack_layer_view {
    char family;
    const float *norm;    /* [D] */
    const float *w_in;    /* A, R: [D, 3D]   M: [D, 2D+2S]   E: router [D, E] */
    const float *w_out;   /* A, M, R: [D, D] */
    const float *a_log;   /* M: [D, S] */
    const float *dt_bias; /* M: [D] */
    const float *d_skip;  /* M: [D] */
    const float *w1;      /* E: [E, D, F] */
    const float *w2;      /* E: [E, F, D] */
} mcpp_kernel_stack_layer_view;

const mcpp_kernel_stack_config *mcpp_kernel_stack_get_config(const mcpp_kernel_stack *stack);
/* MCPP_EARG when index >= depth. */
int mcpp_kernel_stack_layer(mcpp_kernel_stack_layer_view *out, const mcpp_kernel_stack *stack, size_t index);
const float *mcpp_kernel_stack_embedding(const mcpp_kernel_stack *stack);  /* [V, D] */
const float *mcpp_kernel_stack_final_norm(const mcpp_kernel_stack *stack); /* [D]    */

/* Parameter counts: all of them, and those one token touches (k of the experts). */
size_t mcpp_kernel_stack_params_total(const mcpp_kernel_stack *stack);
size_t mcpp_kernel_stack_params_active(const mcpp_kernel_stack *stack);

#endif /* MCPP_KERNELS_STACK_H */
