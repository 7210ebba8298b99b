/*
 * cuda_moe.cu — the MoE block on CUDA: routing, a deterministic counting sort
 * by expert, and the three lanes.
 *
 *   jagged / block_sparse  ONE grouped launch per projection over expert
 *       segments aligned to the 64-row tile height: a per-tile expert id, rows
 *       read by index (no gather copy), tensor-core (WMMA bf16, fp32
 *       accumulate) tiles, SiLU in the up-projection epilogue and the routing
 *       weight in the down-projection epilogue. On CUDA the block-sparse lane
 *       is the same kernel: its blocks are the 64-row tiles.
 *   padded  gather into [experts, capacity, D], cuBLAS strided-batched GEMMs,
 *       SiLU, and the weight applied while combining.
 *
 * Ranks inside an expert follow assignment order (token, then k), computed
 * per 1024-assignment chunk with warp match masks and a chunk-ordered prefix,
 * so the kept/dropped decision is identical to the CPU plan's. Every
 * assignment writes its own output row; a final kernel sums each token's k
 * rows in k order: a deterministic k-sum, no atomics on outputs.
 *
 * The per-expert demand comes back to the host once per call (a small copy and
 * a sync) to size the segments and the tile list.
 */
#include <math.h>
#include <mma.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cuda_common.cuh"

using namespace nvcuda;

#define MOE_CHUNK 1024
#define MOE_TILE 64
#define MOE_TK 32

struct mcpp_cuda_moe {
    mcpp_kernel_moe_config cfg;
    size_t tokens, assignments, chunks;
    int32_t *expert, *slot, *chunk_counts, *demand, *seg_offset, *limit, *dropped_tokens;
    float *weight;
    int32_t *tile_expert, *tile_row0, *row_token;
    float *row_weight;
    bf16 *xp, *hp;
    float *yp;
    size_t rows_cap, tiles_cap;
    std::vector<int32_t> h_demand, h_offset, h_limit, h_tile_expert, h_tile_row0;
};

/* ---- routing ---- */

__global__ void k_route(int32_t *expert, float *weight, const float *logits, size_t tokens,
                        int experts, int top_k, int sigmoid)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= tokens) return;
    const float *l = logits + t * experts;
    float max = l[0];
    for (int e = 1; e < experts; e++) max = fmaxf(max, l[e]);
    float sum = 0.0f;
    for (int e = 0; e < experts; e++) sum += expf(l[e] - max);
    float chosen = 0.0f;
    for (int k = 0; k < top_k; k++) {
        int best = -1;
        for (int e = 0; e < experts; e++) {
            bool taken = false;
            for (int j = 0; j < k; j++) taken |= expert[t * top_k + j] == e;
            if (!taken && (best < 0 || l[e] > l[best])) best = e;
        }
        float s = sigmoid ? 1.0f / (1.0f + expf(-l[best])) : expf(l[best] - max) / sum;
        expert[t * top_k + k] = best;
        weight[t * top_k + k] = s;
        chosen += s;
    }
    if (sigmoid)
        for (int k = 0; k < top_k; k++) weight[t * top_k + k] /= chosen;
}

__global__ void k_count(int32_t *chunk_counts, const int32_t *expert, size_t n, int experts)
{
    extern __shared__ int32_t counts[];
    for (int e = threadIdx.x; e < experts; e += blockDim.x) counts[e] = 0;
    __syncthreads();
    size_t a = blockIdx.x * (size_t)MOE_CHUNK + threadIdx.x;
    if (a < n) atomicAdd(&counts[expert[a]], 1); /* counts only: order-free */
    __syncthreads();
    for (int e = threadIdx.x; e < experts; e += blockDim.x)
        chunk_counts[blockIdx.x * (size_t)experts + e] = counts[e];
}

/* Exclusive prefix over chunks, per expert (in place); demand = the total. */
__global__ void k_scan_chunks(int32_t *chunk_counts, int32_t *demand, size_t chunks, int experts)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= experts) return;
    int32_t run = 0;
    for (size_t c = 0; c < chunks; c++) {
        int32_t v = chunk_counts[c * experts + e];
        chunk_counts[c * experts + e] = run;
        run += v;
    }
    demand[e] = run;
}

/* Ranks in assignment order: warps of a chunk take turns, each lane's rank is
 * the expert's running count plus its position among same-expert lanes. */
__global__ void k_rank(int32_t *slot, int32_t *row_token, float *row_weight,
                       const int32_t *expert, const float *weight, const int32_t *chunk_offsets,
                       const int32_t *seg_offset, const int32_t *limit, size_t n, int experts,
                       int top_k)
{
    extern __shared__ int32_t running[];
    for (int e = threadIdx.x; e < experts; e += blockDim.x)
        running[e] = chunk_offsets[blockIdx.x * (size_t)experts + e];
    __syncthreads();
    size_t a = blockIdx.x * (size_t)MOE_CHUNK + threadIdx.x;
    int e = a < n ? expert[a] : -1;
    unsigned peers = __match_any_sync(0xffffffffu, e);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int before = __popc(peers & ((1u << lane) - 1u));
    int leader = __ffs(peers) - 1;
    for (int w = 0; w < (int)(blockDim.x >> 5); w++) {
        if (warp == w && e >= 0) {
            int rank = running[e] + before;
            __syncwarp(peers);
            if (lane == leader) running[e] += __popc(peers);
            if (rank < limit[e]) {
                int s = seg_offset[e] + rank;
                slot[a] = s;
                row_token[s] = (int32_t)(a / top_k);
                row_weight[s] = weight[a];
            } else {
                slot[a] = -1;
            }
        }
        __syncthreads();
    }
}

__global__ void k_count_dropped_tokens(int32_t *count, const int32_t *slot, size_t tokens, int top_k)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= tokens) return;
    bool lost = false;
    for (int k = 0; k < top_k; k++) lost |= slot[t * top_k + k] < 0;
    if (lost) atomicAdd(count, 1);
}

/* ---- jagged: one grouped launch over aligned segments ---- */

/*
 * MODE 0 (up):   hidden[slot, :] = silu(x[row_token[slot], :] * W1[e])   (bf16)
 * MODE 1 (down): y[slot, :]      = row_weight[slot] * hidden[slot, :] * W2[e] (fp32)
 * Grid: (tiles, ceil(ndim / 64)); 4 warps, each a 32x32 piece of the 64x64 tile.
 */
template <int MODE>
__global__ void __launch_bounds__(128)
k_grouped_gemm(void *out, const bf16 *a_src, const int32_t *row_token, const float *row_weight,
               const int32_t *tile_expert, const int32_t *tile_row0, const bf16 *w, size_t kdim,
               size_t ndim)
{
    __shared__ __align__(128) bf16 as[MOE_TILE][MOE_TK + 8];
    __shared__ __align__(128) bf16 bs[MOE_TK][MOE_TILE + 8];
    __shared__ __align__(128) float cs[MOE_TILE][MOE_TILE + 4];
    const int tile = blockIdx.x;
    const size_t col0 = (size_t)blockIdx.y * MOE_TILE;
    const int e = tile_expert[tile];
    const size_t r0 = (size_t)tile_row0[tile];
    const bf16 *we = w + (size_t)e * kdim * ndim;
    const int warp = threadIdx.x >> 5, wm = warp >> 1, wn = warp & 1;
    const bf16 zero = __float2bfloat16(0.0f);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    for (size_t k0 = 0; k0 < kdim; k0 += MOE_TK) {
        for (int idx = threadIdx.x; idx < MOE_TILE * MOE_TK; idx += blockDim.x) {
            int r = idx / MOE_TK, kk = idx % MOE_TK;
            size_t k = k0 + kk, s = r0 + r;
            bf16 v = zero;
            if (k < kdim) {
                if (MODE == 0) {
                    int32_t tok = row_token[s];
                    if (tok >= 0) v = a_src[(size_t)tok * kdim + k];
                } else {
                    v = a_src[s * kdim + k];
                }
            }
            as[r][kk] = v;
        }
        for (int idx = threadIdx.x; idx < MOE_TK * MOE_TILE; idx += blockDim.x) {
            int kk = idx / MOE_TILE, n = idx % MOE_TILE;
            size_t k = k0 + kk, col = col0 + n;
            bs[kk][n] = (k < kdim && col < ndim) ? we[k * ndim + col] : zero;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < MOE_TK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> fb[2];
#pragma unroll
            for (int i = 0; i < 2; i++) wmma::load_matrix_sync(fa[i], &as[wm * 32 + i * 16][kk], MOE_TK + 8);
#pragma unroll
            for (int j = 0; j < 2; j++) wmma::load_matrix_sync(fb[j], &bs[kk][wn * 32 + j * 16], MOE_TILE + 8);
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(&cs[wm * 32 + i * 16][wn * 32 + j * 16], acc[i][j], MOE_TILE + 4,
                                    wmma::mem_row_major);
    __syncthreads();
    for (int idx = threadIdx.x; idx < MOE_TILE * MOE_TILE; idx += blockDim.x) {
        int r = idx / MOE_TILE, n = idx % MOE_TILE;
        size_t col = col0 + n, s = r0 + r;
        if (col >= ndim) continue;
        float v = cs[r][n];
        if (MODE == 0) {
            ((bf16 *)out)[s * ndim + col] = __float2bfloat16(v / (1.0f + __expf(-v)));
        } else {
            ((float *)out)[s * ndim + col] = v * row_weight[s];
        }
    }
}

/* ---- padded helpers ---- */

__global__ void k_gather_rows(bf16 *xp, const bf16 *x, const int32_t *row_token, size_t rows, size_t d)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= rows * d) return;
    int32_t tok = row_token[i / d];
    xp[i] = tok >= 0 ? x[(size_t)tok * d + i % d] : __float2bfloat16(0.0f);
}

__global__ void k_silu_bf16(bf16 *h, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = __bfloat162float(h[i]);
    h[i] = __float2bfloat16(v / (1.0f + __expf(-v)));
}

/* out[t, :] = sum over k in order of (weight) * y[slot(t, k), :]. */
__global__ void k_combine(bf16 *out, const float *yp, const int32_t *slot, const float *weight,
                          size_t tokens, size_t d, int top_k, int apply_weight)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= tokens * d) return;
    size_t t = i / d, c = i % d;
    float v = 0.0f;
    for (int k = 0; k < top_k; k++) {
        int32_t s = slot[t * top_k + k];
        if (s < 0) continue;
        float w = apply_weight ? weight[t * top_k + k] : 1.0f;
        v += w * yp[(size_t)s * d + c];
    }
    out[i] = __float2bfloat16(v);
}

static unsigned moe_grid(size_t n, unsigned block) { return (unsigned)((n + block - 1) / block); }

void mcpp_cuda_moe_free(mcpp_cuda_moe *m)
{
    if (!m) return;
    void *bufs[] = {m->expert, m->slot, m->chunk_counts, m->demand, m->seg_offset, m->limit,
                    m->dropped_tokens, m->weight, m->tile_expert, m->tile_row0, m->row_token,
                    m->row_weight, m->xp, m->hp, m->yp};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) cudaFree(bufs[i]);
    delete m;
}

int mcpp_cuda_moe_new(mcpp_cuda_moe **out, const mcpp_kernel_moe_config *cfg, size_t tokens)
{
    *out = NULL;
    if (cfg->experts > 4096 || cfg->top_k > cfg->experts)
        return mcpp_kernel_error(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "experts", 0,
                              "CUDA MoE supports up to 4096 experts with top-k <= experts");
    mcpp_cuda_moe *m = new mcpp_cuda_moe();
    m->cfg = *cfg;
    m->tokens = tokens;
    m->assignments = tokens * cfg->top_k;
    m->chunks = (m->assignments + MOE_CHUNK - 1) / MOE_CHUNK;
    size_t E = cfg->experts;
    m->h_demand.resize(E);
    m->h_offset.resize(E);
    m->h_limit.resize(E);
#define MOE_ALLOC(p, n)                                                                          \
    do {                                                                                         \
        if (cudaMalloc((void **)&(p), (n) * sizeof(*(p))) != cudaSuccess) {                      \
            mcpp_cuda_moe_free(m);                                                               \
            return mcpp_kernel_error(MCPP_ENOMEM, MCPP_ERROR_KIND_MEMORY, NULL, NULL, 0,         \
                                     "cudaMalloc failed for the MoE workspace");                 \
        }                                                                                        \
    } while (0)
    MOE_ALLOC(m->expert, m->assignments);
    MOE_ALLOC(m->slot, m->assignments);
    MOE_ALLOC(m->weight, m->assignments);
    MOE_ALLOC(m->chunk_counts, m->chunks * E);
    MOE_ALLOC(m->demand, E);
    MOE_ALLOC(m->seg_offset, E);
    MOE_ALLOC(m->limit, E);
    MOE_ALLOC(m->dropped_tokens, 1);
#undef MOE_ALLOC
    *out = m;
    return MCPP_OK;
}

/* Grows the row buffers (a sync point, only when a larger plan appears). */
static int moe_reserve(mcpp_cuda_moe *m, size_t rows, size_t tiles)
{
    size_t D = m->cfg.d_model, F = m->cfg.d_ff;
    if (rows > m->rows_cap) {
        cudaFree(m->row_token);
        cudaFree(m->row_weight);
        cudaFree(m->xp);
        cudaFree(m->hp);
        cudaFree(m->yp);
        m->row_token = NULL; m->row_weight = NULL; m->xp = NULL; m->hp = NULL; m->yp = NULL;
        size_t cap = rows + rows / 4 + MOE_TILE;
        MCPP_CUDA_TRY(cudaMalloc((void **)&m->row_token, cap * sizeof(int32_t)));
        MCPP_CUDA_TRY(cudaMalloc((void **)&m->row_weight, cap * sizeof(float)));
        MCPP_CUDA_TRY(cudaMalloc((void **)&m->xp, cap * D * sizeof(bf16)));
        MCPP_CUDA_TRY(cudaMalloc((void **)&m->hp, cap * F * sizeof(bf16)));
        MCPP_CUDA_TRY(cudaMalloc((void **)&m->yp, cap * D * sizeof(float)));
        m->rows_cap = cap;
    }
    if (tiles > m->tiles_cap) {
        cudaFree(m->tile_expert);
        cudaFree(m->tile_row0);
        m->tile_expert = NULL; m->tile_row0 = NULL;
        size_t cap = tiles + tiles / 4 + 8;
        MCPP_CUDA_TRY(cudaMalloc((void **)&m->tile_expert, cap * sizeof(int32_t)));
        MCPP_CUDA_TRY(cudaMalloc((void **)&m->tile_row0, cap * sizeof(int32_t)));
        m->tiles_cap = cap;
    }
    return MCPP_OK;
}

/* The experts' FFN over the routed rows and the weighted combine back into
 * `out`: one strided-batched cuBLAS GEMM pair over equal padded segments, or
 * the grouped tile GEMM over jagged / block-sparse segments. */
static int moe_expert_ffn(mcpp_cuda_moe *m, bf16 *out, const bf16 *x, const bf16 *w1, const bf16 *w2,
                          mcpp_kernel_moe_lane lane, cublasHandle_t h, cudaStream_t s, size_t rows, size_t tiles)
{
    const mcpp_kernel_moe_config *c = &m->cfg;
    const size_t T = m->tokens, K = c->top_k, E = c->experts, D = c->d_model, F = c->d_ff;
    if (lane == MCPP_KERNEL_MOE_PADDED) {
        size_t C = E ? rows / E : 0;
        k_gather_rows<<<moe_grid(rows * D, 256), 256, 0, s>>>(m->xp, x, m->row_token, rows, D);
        if (C) {
            const float alpha = 1.0f, beta = 0.0f;
            MCPP_CUBLAS_TRY(cublasSetStream(h, s));
            MCPP_CUBLAS_TRY(cublasGemmStridedBatchedEx(
                h, CUBLAS_OP_N, CUBLAS_OP_N, (int)F, (int)C, (int)D, &alpha, w1, CUDA_R_16BF, (int)F,
                (long long)(D * F), m->xp, CUDA_R_16BF, (int)D, (long long)(C * D), &beta, m->hp,
                CUDA_R_16BF, (int)F, (long long)(C * F), (int)E, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            k_silu_bf16<<<moe_grid(rows * F, 256), 256, 0, s>>>(m->hp, rows * F);
            MCPP_CUBLAS_TRY(cublasGemmStridedBatchedEx(
                h, CUBLAS_OP_N, CUBLAS_OP_N, (int)D, (int)C, (int)F, &alpha, w2, CUDA_R_16BF, (int)D,
                (long long)(F * D), m->hp, CUDA_R_16BF, (int)F, (long long)(C * F), &beta, m->yp,
                CUDA_R_32F, (int)D, (long long)(C * D), (int)E, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        }
        k_combine<<<moe_grid(T * D, 256), 256, 0, s>>>(out, m->yp, m->slot, m->weight, T, D, (int)K, 1);
    } else {
        if (tiles) {
            dim3 up((unsigned)tiles, moe_grid(F, MOE_TILE)), down((unsigned)tiles, moe_grid(D, MOE_TILE));
            k_grouped_gemm<0><<<up, 128, 0, s>>>(m->hp, x, m->row_token, m->row_weight, m->tile_expert,
                                                 m->tile_row0, w1, D, F);
            k_grouped_gemm<1><<<down, 128, 0, s>>>(m->yp, m->hp, m->row_token, m->row_weight,
                                                   m->tile_expert, m->tile_row0, w2, F, D);
        }
        k_combine<<<moe_grid(T * D, 256), 256, 0, s>>>(out, m->yp, m->slot, m->weight, T, D, (int)K, 0);
    }
    return MCPP_OK;
}

int mcpp_cuda_moe_forward(mcpp_cuda_moe *m, bf16 *out, const bf16 *x, const float *logits,
                          const bf16 *w1, const bf16 *w2, mcpp_kernel_moe_lane lane, cublasHandle_t h,
                          cudaStream_t s, mcpp_kernel_moe_stats *stats, double *imbalance_out)
{
    const mcpp_kernel_moe_config *c = &m->cfg;
    const size_t T = m->tokens, K = c->top_k, E = c->experts, D = c->d_model, F = c->d_ff;
    const size_t n = m->assignments;
    int rc;

    k_route<<<moe_grid(T, 128), 128, 0, s>>>(m->expert, m->weight, logits, T, (int)E, (int)K,
                                             c->score == MCPP_KERNEL_SCORE_SIGMOID);
    k_count<<<(unsigned)m->chunks, MOE_CHUNK, E * sizeof(int32_t), s>>>(m->chunk_counts, m->expert, n, (int)E);
    k_scan_chunks<<<moe_grid(E, 128), 128, 0, s>>>(m->chunk_counts, m->demand, m->chunks, (int)E);
    MCPP_CUDA_TRY(cudaMemcpyAsync(m->h_demand.data(), m->demand, E * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, s));
    MCPP_CUDA_TRY(cudaStreamSynchronize(s));

    /* Host: capacity, kept counts and segment geometry, as the CPU plan does. */
    size_t cap = T * K;
    if (c->overflow != MCPP_KERNEL_OVERFLOW_NO_DROP) {
        double cc = ceil(c->capacity_factor * (double)T * (double)K / (double)E);
        cap = cc < 1.0 ? 1 : (size_t)cc;
    }
    size_t max_kept = 0, useful = 0, demand_total = 0, demand_max = 0;
    for (size_t e = 0; e < E; e++) {
        size_t d = (size_t)m->h_demand[e], kept = d < cap ? d : cap;
        m->h_limit[e] = (int32_t)kept;
        useful += kept;
        demand_total += d;
        if (d > demand_max) demand_max = d;
        if (kept > max_kept) max_kept = kept;
    }
    size_t rows = 0;
    m->h_tile_expert.clear();
    m->h_tile_row0.clear();
    for (size_t e = 0; e < E; e++) {
        size_t kept = (size_t)m->h_limit[e], seg;
        if (lane == MCPP_KERNEL_MOE_PADDED)
            seg = c->overflow == MCPP_KERNEL_OVERFLOW_NO_DROP ? max_kept : cap;
        else if (c->overflow == MCPP_KERNEL_OVERFLOW_PAD)
            seg = (cap + MOE_TILE - 1) / MOE_TILE * MOE_TILE;
        else
            seg = (kept + MOE_TILE - 1) / MOE_TILE * MOE_TILE;
        m->h_offset[e] = (int32_t)rows;
        for (size_t r = 0; lane != MCPP_KERNEL_MOE_PADDED && r < seg; r += MOE_TILE) {
            m->h_tile_expert.push_back((int32_t)e);
            m->h_tile_row0.push_back((int32_t)(rows + r));
        }
        rows += seg;
    }
    size_t tiles = m->h_tile_expert.size();
    rc = moe_reserve(m, rows ? rows : 1, tiles ? tiles : 1);
    if (rc != MCPP_OK) return rc;
    MCPP_CUDA_TRY(cudaMemcpyAsync(m->seg_offset, m->h_offset.data(), E * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    MCPP_CUDA_TRY(cudaMemcpyAsync(m->limit, m->h_limit.data(), E * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    if (tiles) {
        MCPP_CUDA_TRY(cudaMemcpyAsync(m->tile_expert, m->h_tile_expert.data(), tiles * sizeof(int32_t), cudaMemcpyHostToDevice, s));
        MCPP_CUDA_TRY(cudaMemcpyAsync(m->tile_row0, m->h_tile_row0.data(), tiles * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    }
    /* Padding rows: token -1 (zeros in, zeros out), weight 0. */
    MCPP_CUDA_TRY(cudaMemsetAsync(m->row_token, 0xff, rows * sizeof(int32_t), s));
    MCPP_CUDA_TRY(cudaMemsetAsync(m->row_weight, 0, rows * sizeof(float), s));
    k_rank<<<(unsigned)m->chunks, MOE_CHUNK, E * sizeof(int32_t), s>>>(
        m->slot, m->row_token, m->row_weight, m->expert, m->weight, m->chunk_counts, m->seg_offset,
        m->limit, n, (int)E, (int)K);

    rc = moe_expert_ffn(m, out, x, w1, w2, lane, h, s, rows, tiles);
    if (rc != MCPP_OK) return rc;
    MCPP_CUDA_TRY(cudaGetLastError());

    if (imbalance_out) *imbalance_out = demand_total ? (double)demand_max * (double)E / (double)demand_total : 1.0;
    if (stats) {
        int32_t lost = 0;
        MCPP_CUDA_TRY(cudaMemsetAsync(m->dropped_tokens, 0, sizeof(int32_t), s));
        k_count_dropped_tokens<<<moe_grid(T, 256), 256, 0, s>>>(m->dropped_tokens, m->slot, T, (int)K);
        MCPP_CUDA_TRY(cudaMemcpyAsync(&lost, m->dropped_tokens, sizeof lost, cudaMemcpyDeviceToHost, s));
        MCPP_CUDA_TRY(cudaStreamSynchronize(s));
        stats->computed_rows += rows;
        stats->useful_rows += useful;
        stats->dropped += demand_total - useful;
        stats->dropped_tokens += (size_t)lost;
        stats->flops_computed += 4.0 * (double)rows * (double)D * (double)F;
        stats->flops_useful += 4.0 * (double)useful * (double)D * (double)F;
    }
    return MCPP_OK;
}
