/*
 * moe_lanes.c — executing a routed MoE plan in the padded, jagged and
 * block-sparse lanes on the CPU.
 *
 * All three lanes share the same skeleton — gather the kept rows into expert
 * segments, run W1, SiLU, W2 over the segments, then combine per token in k
 * order — and differ in the shape of the segments and of the GEMM calls:
 *   padded        one equal-size segment per expert (a strided batch of GEMMs)
 *   jagged        one GEMM per ragged segment (a grouped GEMM)
 *   block_sparse  one GEMM per block of block_rows rows, addressed by its expert
 * Padding rows are zeros and are computed, because that is the waste we report.
 */
#include <string.h>

#include "kernel_error.h"
#include "mcpp_kernels/moe.h"
#include "mcpp_kernels/reference.h"

typedef struct moe_segments {
    size_t *offset; /* [experts + 1] first row of each expert's segment */
    size_t total;   /* rows across all segments, padding included       */
} moe_segments;

static int moe_segments_build(moe_segments *seg, const mcpp_kernel_moe_plan *plan,
                              const mcpp_kernel_moe_config *cfg, mcpp_kernel_moe_lane lane, mcpp_kernel_kmem *mem)
{
    seg->offset = mcpp_kernel_kmem_alloc(mem, plan->experts + 1, sizeof(size_t));
    if (!seg->offset) return mcpp_kernel_error_nomem();
    size_t rows = 0;
    for (size_t e = 0; e < plan->experts; e++) {
        seg->offset[e] = rows;
        rows += mcpp_kernel_moe_lane_rows(plan, cfg, lane, e);
    }
    seg->offset[plan->experts] = rows;
    seg->total = rows;
    return MCPP_OK;
}

/* Runs dst = act(src[rows of expert e] * W) over the lane's GEMM schedule. */
static void moe_lane_gemm(mcpp_kernel_moe_lane lane, mcpp_kernel_gemm_impl gemm, const moe_segments *seg,
                          const mcpp_kernel_moe_config *cfg, size_t experts, const float *src,
                          size_t src_width, const float *weights, size_t dst_width, float *dst)
{
    size_t per_expert = src_width * dst_width;
    for (size_t e = 0; e < experts; e++) {
        size_t r0 = seg->offset[e], rows = seg->offset[e + 1] - r0;
        const float *w = weights + e * per_expert;
        if (rows == 0) continue;
        if (lane == MCPP_KERNEL_MOE_BLOCK_SPARSE && cfg->block_rows > 0) {
            for (size_t b = 0; b < rows; b += cfg->block_rows) {
                size_t mb = rows - b < cfg->block_rows ? rows - b : cfg->block_rows;
                mcpp_kernel_gemm(gemm, mb, dst_width, src_width, src + (r0 + b) * src_width, src_width,
                          w, dst_width, 0, dst + (r0 + b) * dst_width, dst_width, 0);
            }
        } else {
            mcpp_kernel_gemm(gemm, rows, dst_width, src_width, src + r0 * src_width, src_width, w,
                      dst_width, 0, dst + r0 * dst_width, dst_width, 0);
        }
    }
}

int mcpp_kernel_moe_forward(float *out, const float *x, const float *w1, const float *w2,
                     const mcpp_kernel_moe_plan *plan, const mcpp_kernel_moe_config *cfg, mcpp_kernel_moe_lane lane,
                     mcpp_kernel_gemm_impl gemm, mcpp_kernel_kmem *mem, mcpp_kernel_moe_stats *stats)
{
    size_t D = cfg->d_model, F = cfg->d_ff, K = plan->top_k, T = plan->tokens;
    moe_segments seg = {0};
    float *xp = NULL, *hp = NULL, *yp = NULL;
    int rc = moe_segments_build(&seg, plan, cfg, lane, mem);
    if (rc != MCPP_OK) goto cleanup;
    size_t rows = seg.total ? seg.total : 1;
    xp = mcpp_kernel_kmem_alloc(mem, rows, D * sizeof(float));
    hp = mcpp_kernel_kmem_alloc(mem, rows, F * sizeof(float));
    yp = mcpp_kernel_kmem_alloc(mem, rows, D * sizeof(float));
    if (!xp || !hp || !yp) {
        rc = mcpp_kernel_error_nomem();
        goto cleanup;
    }

    /* Permute: the kept assignment (t, k) lands on row offset[e] + rank. */
    for (size_t t = 0; t < T; t++)
        for (size_t k = 0; k < K; k++) {
            int32_t r = plan->rank[t * K + k];
            if (r < 0) continue;
            size_t row = seg.offset[plan->expert[t * K + k]] + (size_t)r;
            memcpy(xp + row * D, x + t * D, D * sizeof(float));
        }

    moe_lane_gemm(lane, gemm, &seg, cfg, plan->experts, xp, D, w1, F, hp);
    for (size_t i = 0; i < seg.total * F; i++) hp[i] = mcpp_kernel_silu(hp[i]);
    moe_lane_gemm(lane, gemm, &seg, cfg, plan->experts, hp, F, w2, D, yp);

    /* Unpermute with the gate weight; k is summed in order so every lane and
     * every row order gives the same bits. */
    for (size_t t = 0; t < T; t++) {
        float *o = out + t * D;
        memset(o, 0, D * sizeof(float));
        for (size_t k = 0; k < K; k++) {
            int32_t r = plan->rank[t * K + k];
            if (r < 0) continue;
            const float *y = yp + (seg.offset[plan->expert[t * K + k]] + (size_t)r) * D;
            float w = plan->weight[t * K + k];
            for (size_t j = 0; j < D; j++) o[j] += w * y[j];
        }
    }

    if (stats) {
        size_t useful = 0;
        for (size_t e = 0; e < plan->experts; e++) useful += plan->kept[e];
        stats->computed_rows += seg.total;
        stats->useful_rows += useful;
        stats->dropped += plan->dropped;
        stats->dropped_tokens += plan->dropped_tokens;
        stats->flops_computed += 4.0 * (double)seg.total * (double)D * (double)F;
        stats->flops_useful += 4.0 * (double)useful * (double)D * (double)F;
    }

cleanup:
    mcpp_kernel_kmem_free(mem, xp);
    mcpp_kernel_kmem_free(mem, hp);
    mcpp_kernel_kmem_free(mem, yp);
    mcpp_kernel_kmem_free(mem, seg.offset);
    return rc;
}

void mcpp_kernel_ref_moe(float *out, const float *x, const float *w1, const float *w2,
                  const mcpp_kernel_moe_plan *plan, const mcpp_kernel_moe_config *cfg, float *hidden_scratch)
{
    size_t D = cfg->d_model, F = cfg->d_ff, K = plan->top_k;
    for (size_t t = 0; t < plan->tokens; t++) {
        float *o = out + t * D;
        for (size_t j = 0; j < D; j++) o[j] = 0.0f;
        for (size_t k = 0; k < K; k++) {
            if (plan->rank[t * K + k] < 0) continue;
            size_t e = (size_t)plan->expert[t * K + k];
            const float *a = w1 + e * D * F, *b = w2 + e * F * D;
            for (size_t f = 0; f < F; f++) {
                float acc = 0.0f;
                for (size_t j = 0; j < D; j++) acc += x[t * D + j] * a[j * F + f];
                hidden_scratch[f] = mcpp_kernel_silu(acc);
            }
            float w = plan->weight[t * K + k];
            for (size_t j = 0; j < D; j++) {
                float acc = 0.0f;
                for (size_t f = 0; f < F; f++) acc += hidden_scratch[f] * b[f * D + j];
                o[j] += w * acc;
            }
        }
    }
}
