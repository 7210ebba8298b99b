/*
 * moe_route.c — the MoE router: scores, top-k, gate weights, capacity and the
 * overflow policy, producing the plan that every lane executes.
 *
 * Ranks inside an expert follow token order, so which assignments are dropped
 * is deterministic and identical across lanes and backends.
 */
#include <math.h>
#include <string.h>

#include "kernel_error.h"
#include "mcpp_kernels/moe.h"

static const char *const score_names[] = {"softmax", "sigmoid"};
static const char *const overflow_names[] = {"drop", "pad", "no_drop"};
static const char *const lane_names[] = {"padded", "jagged", "block_sparse"};

const char *mcpp_kernel_moe_score_name(mcpp_kernel_moe_score score) { return score_names[score]; }
const char *mcpp_kernel_moe_overflow_name(mcpp_kernel_moe_overflow overflow) { return overflow_names[overflow]; }
const char *mcpp_kernel_moe_lane_name(mcpp_kernel_moe_lane lane) { return lane_names[lane]; }

static int moe_parse(int *out, const char *name, const char *const *names, size_t count,
                     const char *what)
{
    for (size_t i = 0; name && i < count; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (int)i;
            return MCPP_OK;
        }
    return mcpp_kernel_error(MCPP_EINVALID, MCPP_ERROR_KIND_ENUM, NULL, what, 0, "unknown %s '%s'", what,
                          name ? name : "(null)");
}

int mcpp_kernel_moe_score_parse(mcpp_kernel_moe_score *out, const char *name)
{
    int v = 0, rc = moe_parse(&v, name, score_names, 2, "score");
    if (rc == MCPP_OK) *out = (mcpp_kernel_moe_score)v;
    return rc;
}

int mcpp_kernel_moe_overflow_parse(mcpp_kernel_moe_overflow *out, const char *name)
{
    int v = 0, rc = moe_parse(&v, name, overflow_names, 3, "overflow");
    if (rc == MCPP_OK) *out = (mcpp_kernel_moe_overflow)v;
    return rc;
}

int mcpp_kernel_moe_lane_parse(mcpp_kernel_moe_lane *out, const char *name)
{
    int v = 0, rc = moe_parse(&v, name, lane_names, 3, "moe-lane");
    if (rc == MCPP_OK) *out = (mcpp_kernel_moe_lane)v;
    return rc;
}

int mcpp_kernel_moe_plan_init(mcpp_kernel_moe_plan *plan, const mcpp_kernel_moe_config *cfg, size_t tokens,
                       mcpp_kernel_kmem *mem)
{
    memset(plan, 0, sizeof *plan);
    if (cfg->experts == 0 || cfg->top_k == 0 || cfg->top_k > cfg->experts)
        return mcpp_kernel_error(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "top_k", 0,
                              "top-k must be in 1..experts (got %zu of %zu)", cfg->top_k,
                              cfg->experts);
    size_t n = tokens * cfg->top_k;
    plan->tokens = tokens;
    plan->top_k = cfg->top_k;
    plan->experts = cfg->experts;
    plan->expert = mcpp_kernel_kmem_alloc(mem, n, sizeof(int32_t));
    plan->weight = mcpp_kernel_kmem_alloc(mem, n, sizeof(float));
    plan->rank = mcpp_kernel_kmem_alloc(mem, n, sizeof(int32_t));
    plan->demand = mcpp_kernel_kmem_alloc(mem, cfg->experts, sizeof(size_t));
    plan->kept = mcpp_kernel_kmem_alloc(mem, cfg->experts, sizeof(size_t));
    if (!plan->expert || !plan->weight || !plan->rank || !plan->demand || !plan->kept) {
        mcpp_kernel_moe_plan_release(plan, mem);
        return mcpp_kernel_error_nomem();
    }
    return MCPP_OK;
}

void mcpp_kernel_moe_plan_release(mcpp_kernel_moe_plan *plan, mcpp_kernel_kmem *mem)
{
    mcpp_kernel_kmem_free(mem, plan->expert);
    mcpp_kernel_kmem_free(mem, plan->weight);
    mcpp_kernel_kmem_free(mem, plan->rank);
    mcpp_kernel_kmem_free(mem, plan->demand);
    mcpp_kernel_kmem_free(mem, plan->kept);
    memset(plan, 0, sizeof *plan);
}

void mcpp_kernel_moe_route(mcpp_kernel_moe_plan *plan, const float *logits, const mcpp_kernel_moe_config *cfg)
{
    size_t E = cfg->experts, K = cfg->top_k, T = plan->tokens;
    if (cfg->overflow == MCPP_KERNEL_OVERFLOW_NO_DROP) {
        plan->capacity = T * K;
    } else {
        double c = ceil(cfg->capacity_factor * (double)T * (double)K / (double)E);
        plan->capacity = c < 1.0 ? 1 : (size_t)c;
    }
    memset(plan->demand, 0, E * sizeof(size_t));
    memset(plan->kept, 0, E * sizeof(size_t));
    plan->dropped = 0;
    plan->dropped_tokens = 0;

    for (size_t t = 0; t < T; t++) {
        const float *l = logits + t * E;
        float max = l[0];
        for (size_t e = 1; e < E; e++)
            if (l[e] > max) max = l[e];
        float sum = 0.0f;
        for (size_t e = 0; e < E; e++) sum += expf(l[e] - max);
        /* Top-k by repeated selection: k is small and ties go to the lower id. */
        float chosen_sum = 0.0f;
        for (size_t k = 0; k < K; k++) {
            int best = -1;
            for (size_t e = 0; e < E; e++) {
                int taken = 0;
                for (size_t j = 0; j < k; j++)
                    if (plan->expert[t * K + j] == (int32_t)e) taken = 1;
                if (!taken && (best < 0 || l[e] > l[best])) best = (int)e;
            }
            float score = cfg->score == MCPP_KERNEL_SCORE_SOFTMAX ? expf(l[best] - max) / sum
                                                           : 1.0f / (1.0f + expf(-l[best]));
            plan->expert[t * K + k] = best;
            plan->weight[t * K + k] = score;
            chosen_sum += score;
        }
        if (cfg->score == MCPP_KERNEL_SCORE_SIGMOID)
            for (size_t k = 0; k < K; k++) plan->weight[t * K + k] /= chosen_sum;

        int lost = 0;
        for (size_t k = 0; k < K; k++) {
            size_t e = (size_t)plan->expert[t * K + k];
            plan->demand[e]++;
            if (plan->kept[e] < plan->capacity) {
                plan->rank[t * K + k] = (int32_t)plan->kept[e]++;
            } else {
                plan->rank[t * K + k] = -1;
                plan->dropped++;
                lost = 1;
            }
        }
        plan->dropped_tokens += (size_t)lost;
    }
}

size_t mcpp_kernel_moe_lane_rows(const mcpp_kernel_moe_plan *plan, const mcpp_kernel_moe_config *cfg,
                          mcpp_kernel_moe_lane lane, size_t expert)
{
    size_t n = plan->kept[expert];
    if (cfg->overflow == MCPP_KERNEL_OVERFLOW_PAD) return plan->capacity;
    if (lane == MCPP_KERNEL_MOE_PADDED) {
        if (cfg->overflow == MCPP_KERNEL_OVERFLOW_DROP) return plan->capacity;
        size_t max = 0; /* no_drop: the largest load becomes the capacity */
        for (size_t e = 0; e < plan->experts; e++)
            if (plan->kept[e] > max) max = plan->kept[e];
        return max;
    }
    size_t align = lane == MCPP_KERNEL_MOE_JAGGED ? cfg->align_rows : cfg->block_rows;
    if (align <= 1) return n;
    return (n + align - 1) / align * align;
}

double mcpp_kernel_moe_imbalance(const mcpp_kernel_moe_plan *plan)
{
    size_t max = 0, total = 0;
    for (size_t e = 0; e < plan->experts; e++) {
        total += plan->demand[e];
        if (plan->demand[e] > max) max = plan->demand[e];
    }
    if (total == 0) return 1.0;
    return (double)max * (double)plan->experts / (double)total;
}
