/*
 * cuda_stack.cu — the hybrid stack forward on a CUDA device: bf16 weights and
 * activations, fp32 residual stream and accumulation, cuBLAS for the dense
 * projections, our kernels for attention / scan / recurrence / jagged MoE.
 * Each block runs inside an NVTX range named after its family ("A", "M", "E",
 * "R") and is timed with CUDA events, so per-family milliseconds are device time.
 */
#include <nvtx3/nvToolsExt.h>
#include <string.h>
#include <vector>

#include "cuda_common.cuh"

extern "C" {
#include "mcpp_kernels/cuda_stack.h"
#include "mcpp_kernels/reference.h"
}

struct cuda_layer {
    char family;
    bf16 *norm, *w_in, *w_out, *w1, *w2;
    float *a_log, *dt_bias, *d_skip;
};

struct mcpp_kernel_cuda_stack {
    mcpp_kernel_stack_config cfg;
    mcpp_kernel_moe_lane lane;
    cublasHandle_t handle;
    cudaStream_t stream;
    std::vector<cuda_layer> layers;
    std::vector<cudaEvent_t> events; /* two per layer, then two for the head */
    bf16 *embedding, *final_norm;
    float *x, *router, *logits;
    bf16 *xn, *proj, *core, *delta;
    int32_t *tokens;
    mcpp_cuda_moe *moe;
    size_t base_used, peak_used;
    std::vector<void *> owned;
};

static size_t cuda_used_bytes(void)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return 0;
    return total_b - free_b;
}

template <typename T> static int cs_alloc(mcpp_kernel_cuda_stack *s, T **out, size_t count)
{
    *out = NULL;
    MCPP_CUDA_TRY(cudaMalloc((void **)out, (count ? count : 1) * sizeof(T)));
    s->owned.push_back(*out);
    return MCPP_OK;
}

static int cs_up(mcpp_kernel_cuda_stack *s, bf16 **out, const float *host, size_t count)
{
    int rc = mcpp_cuda_upload_bf16(out, host, count);
    if (rc == MCPP_OK) s->owned.push_back(*out);
    return rc;
}

static int cs_up_f32(mcpp_kernel_cuda_stack *s, float **out, const float *host, size_t count)
{
    int rc = cs_alloc(s, out, count);
    if (rc != MCPP_OK) return rc;
    MCPP_CUDA_TRY(cudaMemcpy(*out, host, count * sizeof(float), cudaMemcpyHostToDevice));
    return MCPP_OK;
}

extern "C" void mcpp_kernel_cuda_stack_free(mcpp_kernel_cuda_stack *s)
{
    if (!s) return;
    for (void *p : s->owned) cudaFree(p);
    for (cudaEvent_t e : s->events) cudaEventDestroy(e);
    mcpp_cuda_moe_free(s->moe);
    if (s->handle) cublasDestroy(s->handle);
    if (s->stream) cudaStreamDestroy(s->stream);
    delete s;
}

#define CS_TRY(expr)                                                                             \
    do {                                                                                         \
        int _rc = (expr);                                                                        \
        if (_rc != MCPP_OK) {                                                                    \
            mcpp_kernel_cuda_stack_free(s);                                                             \
            return _rc;                                                                          \
        }                                                                                        \
    } while (0)

extern "C" int mcpp_kernel_cuda_stack_new(mcpp_kernel_cuda_stack **out, const mcpp_kernel_stack *host, mcpp_kernel_moe_lane lane)
{
    *out = NULL;
    int rc = mcpp_cuda_require_device();
    if (rc != MCPP_OK) return rc;
    const mcpp_kernel_stack_config *c = mcpp_kernel_stack_get_config(host);
    if (c->d_model / c->heads > 128)
        return mcpp_kernel_error(MCPP_EUNSUPPORTED, MCPP_ERROR_KIND_UNSUPPORTED, NULL, "heads", 0,
                              "CUDA attention supports head_dim <= 128");
    mcpp_kernel_cuda_stack *s = new mcpp_kernel_cuda_stack();
    s->cfg = *c;
    s->lane = lane;
    s->base_used = cuda_used_bytes();
    if (cudaStreamCreate(&s->stream) != cudaSuccess || cublasCreate(&s->handle) != CUBLAS_STATUS_SUCCESS) {
        mcpp_kernel_cuda_stack_free(s);
        return mcpp_kernel_error(MCPP_EINTERNAL, MCPP_ERROR_KIND_INTERNAL, NULL, NULL, 0, "CUDA stream or cuBLAS handle creation failed");
    }
    size_t D = c->d_model, S = c->state, V = c->vocab, N = c->batch * c->seq_len;
    size_t E = c->moe.experts, F = c->moe.d_ff;
    size_t pw = 3 * D > 2 * D + 2 * S ? 3 * D : 2 * D + 2 * S;
    CS_TRY(cs_up(s, &s->embedding, mcpp_kernel_stack_embedding(host), V * D));
    CS_TRY(cs_up(s, &s->final_norm, mcpp_kernel_stack_final_norm(host), D));
    s->layers.resize(c->depth);
    int has_e = 0;
    for (size_t i = 0; i < c->depth; i++) {
        mcpp_kernel_stack_layer_view v;
        CS_TRY(mcpp_kernel_stack_layer(&v, host, i));
        cuda_layer &l = s->layers[i];
        memset(&l, 0, sizeof l);
        l.family = v.family;
        CS_TRY(cs_up(s, &l.norm, v.norm, D));
        switch (v.family) {
        case 'A':
        case 'R':
            CS_TRY(cs_up(s, &l.w_in, v.w_in, D * 3 * D));
            CS_TRY(cs_up(s, &l.w_out, v.w_out, D * D));
            break;
        case 'M':
            CS_TRY(cs_up(s, &l.w_in, v.w_in, D * (2 * D + 2 * S)));
            CS_TRY(cs_up(s, &l.w_out, v.w_out, D * D));
            CS_TRY(cs_up_f32(s, &l.a_log, v.a_log, D * S));
            CS_TRY(cs_up_f32(s, &l.dt_bias, v.dt_bias, D));
            CS_TRY(cs_up_f32(s, &l.d_skip, v.d_skip, D));
            break;
        case 'E':
            CS_TRY(cs_up(s, &l.w_in, v.w_in, D * E));
            CS_TRY(cs_up(s, &l.w1, v.w1, E * D * F));
            CS_TRY(cs_up(s, &l.w2, v.w2, E * F * D));
            has_e = 1;
            break;
        }
    }
    CS_TRY(cs_alloc(s, &s->x, N * D));
    CS_TRY(cs_alloc(s, &s->xn, N * D));
    CS_TRY(cs_alloc(s, &s->proj, N * pw));
    CS_TRY(cs_alloc(s, &s->core, N * D));
    CS_TRY(cs_alloc(s, &s->delta, N * D));
    CS_TRY(cs_alloc(s, &s->logits, N * V));
    CS_TRY(cs_alloc(s, &s->tokens, N));
    if (has_e) {
        CS_TRY(cs_alloc(s, &s->router, N * E));
        mcpp_kernel_moe_config mc = c->moe;
        mc.d_model = D;
        CS_TRY(mcpp_cuda_moe_new(&s->moe, &mc, N));
    }
    s->events.resize(2 * c->depth + 2);
    for (cudaEvent_t &e : s->events)
        if (cudaEventCreate(&e) != cudaSuccess) CS_TRY(mcpp_kernel_error(MCPP_EINTERNAL, MCPP_ERROR_KIND_INTERNAL, NULL, NULL, 0, "cudaEventCreate failed"));
    *out = s;
    return MCPP_OK;
}

static const char *cs_range_name(char family)
{
    switch (family) {
    case 'A': return "A attention";
    case 'M': return "M selective scan";
    case 'E': return "E moe";
    default: return "R recurrence";
    }
}

extern "C" int mcpp_kernel_cuda_stack_forward(mcpp_kernel_cuda_stack *s, const int32_t *tokens, mcpp_kernel_stack_stats *stats)
{
    const mcpp_kernel_stack_config *c = &s->cfg;
    size_t D = c->d_model, S = c->state, V = c->vocab, N = c->batch * c->seq_len;
    size_t H = c->heads, E = c->moe.experts;
    cudaStream_t st = s->stream;
    cublasHandle_t h = s->handle;
    MCPP_CUDA_TRY(cudaMemcpyAsync(s->tokens, tokens, N * sizeof(int32_t), cudaMemcpyHostToDevice, st));
    mcpp_cuda_embedding(s->x, s->tokens, s->embedding, N, D, st);
    for (size_t i = 0; i < c->depth; i++) {
        cuda_layer &l = s->layers[i];
        nvtxRangePushA(cs_range_name(l.family));
        MCPP_CUDA_TRY(cudaEventRecord(s->events[2 * i], st));
        mcpp_cuda_rmsnorm(s->xn, s->x, l.norm, N, D, st);
        int rc = MCPP_OK;
        switch (l.family) {
        case 'A':
            rc = mcpp_cuda_gemm(h, N, 3 * D, D, s->xn, D, l.w_in, 3 * D, 0, s->proj, 3 * D, 0, st);
            if (rc == MCPP_OK) mcpp_cuda_attention(s->core, s->proj, c->batch, c->seq_len, H, D / H, st);
            if (rc == MCPP_OK) rc = mcpp_cuda_gemm(h, N, D, D, s->core, D, l.w_out, D, 0, s->delta, D, 0, st);
            break;
        case 'M':
            rc = mcpp_cuda_gemm(h, N, 2 * D + 2 * S, D, s->xn, D, l.w_in, 2 * D + 2 * S, 0, s->proj,
                                2 * D + 2 * S, 0, st);
            if (rc == MCPP_OK)
                mcpp_cuda_selective_scan(s->core, s->proj, l.a_log, l.dt_bias, l.d_skip, c->batch,
                                         c->seq_len, D, S, st);
            if (rc == MCPP_OK) rc = mcpp_cuda_gemm(h, N, D, D, s->core, D, l.w_out, D, 0, s->delta, D, 0, st);
            break;
        case 'R':
            rc = mcpp_cuda_gemm(h, N, 3 * D, D, s->xn, D, l.w_in, 3 * D, 0, s->proj, 3 * D, 0, st);
            if (rc == MCPP_OK) mcpp_cuda_gated_recurrence(s->core, s->proj, c->batch, c->seq_len, D, st);
            if (rc == MCPP_OK) rc = mcpp_cuda_gemm(h, N, D, D, s->core, D, l.w_out, D, 0, s->delta, D, 0, st);
            break;
        case 'E': {
            double imb = 1.0;
            rc = mcpp_cuda_gemm(h, N, E, D, s->xn, D, l.w_in, E, 0, s->router, E, 1, st);
            if (rc == MCPP_OK)
                rc = mcpp_cuda_moe_forward(s->moe, s->delta, s->xn, s->router, l.w1, l.w2, s->lane, h,
                                           st, stats ? &stats->moe : NULL, &imb);
            if (stats) {
                stats->imbalance_sum += imb;
                stats->imbalance_count++;
                if (imb > stats->imbalance_max) stats->imbalance_max = imb;
            }
            break;
        }
        }
        if (rc != MCPP_OK) {
            nvtxRangePop();
            return rc;
        }
        mcpp_cuda_residual_add(s->x, s->delta, N * D, st);
        MCPP_CUDA_TRY(cudaEventRecord(s->events[2 * i + 1], st));
        nvtxRangePop();
    }
    nvtxRangePushA("head");
    MCPP_CUDA_TRY(cudaEventRecord(s->events[2 * c->depth], st));
    mcpp_cuda_rmsnorm(s->xn, s->x, s->final_norm, N, D, st);
    int rc = mcpp_cuda_gemm(h, N, V, D, s->xn, D, s->embedding, D, 1, s->logits, V, 1, st);
    MCPP_CUDA_TRY(cudaEventRecord(s->events[2 * c->depth + 1], st));
    nvtxRangePop();
    if (rc != MCPP_OK) return rc;
    MCPP_CUDA_TRY(cudaStreamSynchronize(st));
    MCPP_CUDA_TRY(cudaGetLastError());
    size_t used = cuda_used_bytes();
    if (used > s->base_used && used - s->base_used > s->peak_used) s->peak_used = used - s->base_used;
    if (stats) {
        for (size_t i = 0; i < c->depth; i++) {
            float ms = 0.0f;
            cudaEventElapsedTime(&ms, s->events[2 * i], s->events[2 * i + 1]);
            stats->family_s[mcpp_kernel_stack_family_index(s->layers[i].family)] += 1e-3 * ms;
        }
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, s->events[2 * c->depth], s->events[2 * c->depth + 1]);
        stats->head_s += 1e-3 * ms;
        stats->forwards++;
    }
    return MCPP_OK;
}

extern "C" int mcpp_kernel_cuda_stack_logits(const mcpp_kernel_cuda_stack *s, float *out)
{
    size_t n = s->cfg.batch * s->cfg.seq_len * s->cfg.vocab;
    MCPP_CUDA_TRY(cudaMemcpy(out, s->logits, n * sizeof(float), cudaMemcpyDeviceToHost));
    return MCPP_OK;
}

extern "C" size_t mcpp_kernel_cuda_stack_peak_bytes(const mcpp_kernel_cuda_stack *s) { return s->peak_used; }
