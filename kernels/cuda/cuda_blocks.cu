/*
 * cuda_blocks.cu — CUDA kernels for the dense blocks: embedding, RMSNorm,
 * residual add, causal attention (A), selective scan (M), gated recurrence
 * (R). Storage is bf16, arithmetic fp32; the residual stream stays fp32.
 *
 * Attention, scan and recurrence keep their running state on chip: the
 * online-softmax statistics and output accumulator in registers, the scan's
 * per-channel state in registers, the recurrence's h in a register. Nothing
 * of that state round-trips through global memory.
 */
#include <math.h>

#include "cuda_common.cuh"

extern "C" {
#include "mcpp_kernels/reference.h"
}

#define ATTN_WARPS 4
#define ATTN_KEYS 32
#define ATTN_MAX_HEAD_DIM 128
#define SCAN_THREADS 128

static unsigned grid_for(size_t n, unsigned block) { return (unsigned)((n + block - 1) / block); }

__global__ void k_embedding(float *x, const int32_t *tokens, const bf16 *table, size_t n, size_t d)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n * d) return;
    size_t row = i / d, col = i % d;
    x[i] = __bfloat162float(table[(size_t)tokens[row] * d + col]);
}

void mcpp_cuda_embedding(float *x, const int32_t *tokens, const bf16 *table, size_t n, size_t d,
                         cudaStream_t s)
{
    k_embedding<<<grid_for(n * d, 256), 256, 0, s>>>(x, tokens, table, n, d);
}

/* One block per row; a block-wide sum of squares in fp32. */
__global__ void k_rmsnorm(bf16 *out, const float *x, const bf16 *weight, size_t d)
{
    __shared__ float partial[32];
    const float *xr = x + blockIdx.x * d;
    float ss = 0.0f;
    for (size_t j = threadIdx.x; j < d; j += blockDim.x) ss += xr[j] * xr[j];
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        if (threadIdx.x == 0) partial[0] = v;
    }
    __syncthreads();
    float inv = rsqrtf(partial[0] / (float)d + 1e-5f);
    for (size_t j = threadIdx.x; j < d; j += blockDim.x)
        out[blockIdx.x * d + j] = __float2bfloat16(xr[j] * inv * __bfloat162float(weight[j]));
}

void mcpp_cuda_rmsnorm(bf16 *out, const float *x, const bf16 *weight, size_t rows, size_t d,
                       cudaStream_t s)
{
    k_rmsnorm<<<(unsigned)rows, 256, 0, s>>>(out, x, weight, d);
}

__global__ void k_residual_add(float *x, const bf16 *delta, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) x[i] += __bfloat162float(delta[i]);
}

void mcpp_cuda_residual_add(float *x, const bf16 *delta, size_t n, cudaStream_t s)
{
    k_residual_add<<<grid_for(n, 256), 256, 0, s>>>(x, delta, n);
}

__global__ void k_f32_to_bf16(bf16 *out, const float *in, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float2bfloat16(in[i]);
}

void mcpp_cuda_f32_to_bf16(bf16 *out, const float *in, size_t n, cudaStream_t s)
{
    k_f32_to_bf16<<<grid_for(n, 256), 256, 0, s>>>(out, in, n);
}

/*
 * Causal attention, flash style. A block serves ATTN_WARPS consecutive query
 * rows of one (batch, head); each warp owns one row. Keys and values stream
 * through shared memory ATTN_KEYS at a time; lane j scores key j of the tile,
 * and each lane accumulates the output dimensions lane, lane+32, ... with an
 * online softmax (running max m, running sum l) kept in registers.
 */
__global__ void k_attention(bf16 *out, const bf16 *qkv, size_t seq, size_t heads, size_t hd)
{
    __shared__ float ks[ATTN_KEYS][ATTN_MAX_HEAD_DIM + 1];
    __shared__ float vs[ATTN_KEYS][ATTN_MAX_HEAD_DIM + 1];
    __shared__ float qs[ATTN_WARPS][ATTN_MAX_HEAD_DIM];
    const size_t width = heads * hd, row = 3 * width;
    const size_t b = blockIdx.z, h = blockIdx.y;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const size_t i = blockIdx.x * (size_t)ATTN_WARPS + warp; /* this warp's query row */
    const size_t last = min((size_t)(blockIdx.x + 1) * ATTN_WARPS, seq) - 1; /* block's last row */
    const float scale = rsqrtf((float)hd);
    const bf16 *base = qkv + b * seq * row;

    if (i < seq)
        for (size_t e = lane; e < hd; e += 32) qs[warp][e] = __bfloat162float(base[i * row + h * hd + e]);

    float m = -INFINITY, l = 0.0f;
    float acc[ATTN_MAX_HEAD_DIM / 32];
#pragma unroll
    for (int r = 0; r < ATTN_MAX_HEAD_DIM / 32; r++) acc[r] = 0.0f;

    for (size_t j0 = 0; j0 <= last; j0 += ATTN_KEYS) {
        __syncthreads();
        for (size_t idx = threadIdx.x; idx < ATTN_KEYS * hd; idx += blockDim.x) {
            size_t jj = idx / hd, e = idx % hd, j = j0 + jj;
            float kv = 0.0f, vv = 0.0f;
            if (j < seq) {
                kv = __bfloat162float(base[j * row + width + h * hd + e]);
                vv = __bfloat162float(base[j * row + 2 * width + h * hd + e]);
            }
            ks[jj][e] = kv;
            vs[jj][e] = vv;
        }
        __syncthreads();
        if (i >= seq) continue;
        size_t j = j0 + lane;
        float sc = -INFINITY;
        if (j <= i) {
            float dot = 0.0f;
            for (size_t e = 0; e < hd; e++) dot += qs[warp][e] * ks[lane][e];
            sc = dot * scale;
        }
        float tile_max = sc;
        for (int o = 16; o > 0; o >>= 1) tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, o));
        if (tile_max == -INFINITY) continue; /* the whole tile is in the future */
        float m_new = fmaxf(m, tile_max);
        float p = sc == -INFINITY ? 0.0f : __expf(sc - m_new);
        float corr = m == -INFINITY ? 0.0f : __expf(m - m_new);
        float psum = p;
        for (int o = 16; o > 0; o >>= 1) psum += __shfl_xor_sync(0xffffffffu, psum, o);
        l = l * corr + psum;
#pragma unroll
        for (int r = 0; r < ATTN_MAX_HEAD_DIM / 32; r++) acc[r] *= corr;
        for (int jj = 0; jj < ATTN_KEYS; jj++) {
            float pj = __shfl_sync(0xffffffffu, p, jj);
            if (pj == 0.0f) continue;
#pragma unroll
            for (int r = 0; r < ATTN_MAX_HEAD_DIM / 32; r++) {
                size_t e = lane + 32 * (size_t)r;
                if (e < hd) acc[r] += pj * vs[jj][e];
            }
        }
        m = m_new;
    }
    if (i >= seq) return;
    bf16 *o = out + (b * seq + i) * width + h * hd;
#pragma unroll
    for (int r = 0; r < ATTN_MAX_HEAD_DIM / 32; r++) {
        size_t e = lane + 32 * (size_t)r;
        if (e < hd) o[e] = __float2bfloat16(acc[r] / l);
    }
}

void mcpp_cuda_attention(bf16 *out, const bf16 *qkv, size_t batch, size_t seq, size_t heads,
                         size_t head_dim, cudaStream_t s)
{
    dim3 grid(grid_for(seq, ATTN_WARPS), (unsigned)heads, (unsigned)batch);
    k_attention<<<grid, ATTN_WARPS * 32, 0, s>>>(out, qkv, seq, heads, head_dim);
}

/*
 * Selective scan: one thread per (batch, channel), its state in registers.
 * B and C of each time step are shared by all channels, so the block stages
 * them in shared memory once per step.
 */
__global__ void k_selective_scan(bf16 *y, const bf16 *proj, const float *a_log,
                                 const float *dt_bias, const float *d_skip, size_t seq, size_t d,
                                 size_t state)
{
    __shared__ float bc[2 * MCPP_KERNEL_SCAN_MAX_STATE];
    const size_t b = blockIdx.y, c = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t row = 2 * d + 2 * state;
    float h[MCPP_KERNEL_SCAN_MAX_STATE], a[MCPP_KERNEL_SCAN_MAX_STATE];
#pragma unroll
    for (int n = 0; n < MCPP_KERNEL_SCAN_MAX_STATE; n++) {
        h[n] = 0.0f;
        a[n] = (c < d && (size_t)n < state) ? -__expf(a_log[c * state + n]) : 0.0f;
    }
    float bias = c < d ? dt_bias[c] : 0.0f, skip = c < d ? d_skip[c] : 0.0f;
    for (size_t t = 0; t < seq; t++) {
        const bf16 *p = proj + (b * seq + t) * row;
        __syncthreads();
        for (size_t n = threadIdx.x; n < 2 * state; n += blockDim.x) bc[n] = __bfloat162float(p[2 * d + n]);
        __syncthreads();
        if (c >= d) continue;
        float u = __bfloat162float(p[c]);
        float dt = __bfloat162float(p[d + c]) + bias;
        float delta = dt > 20.0f ? dt : log1pf(__expf(dt));
        float acc = 0.0f;
#pragma unroll
        for (int n = 0; n < MCPP_KERNEL_SCAN_MAX_STATE; n++) {
            if ((size_t)n < state) {
                h[n] = __expf(delta * a[n]) * h[n] + delta * bc[n] * u;
                acc += bc[state + n] * h[n];
            }
        }
        y[(b * seq + t) * d + c] = __float2bfloat16(acc + skip * u);
    }
}

void mcpp_cuda_selective_scan(bf16 *y, const bf16 *proj, const float *a_log, const float *dt_bias,
                              const float *d_skip, size_t batch, size_t seq, size_t d,
                              size_t state, cudaStream_t s)
{
    dim3 grid(grid_for(d, SCAN_THREADS), (unsigned)batch);
    k_selective_scan<<<grid, SCAN_THREADS, 0, s>>>(y, proj, a_log, dt_bias, d_skip, seq, d, state);
}

__global__ void k_gated_recurrence(bf16 *y, const bf16 *proj, size_t seq, size_t d)
{
    const size_t b = blockIdx.y, c = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (c >= d) return;
    float h = 0.0f;
    for (size_t t = 0; t < seq; t++) {
        const bf16 *p = proj + (b * seq + t) * 3 * d;
        float r = 1.0f / (1.0f + __expf(-__bfloat162float(p[c])));
        h = r * h + (1.0f - r) * __bfloat162float(p[d + c]);
        float g = __bfloat162float(p[2 * d + c]);
        y[(b * seq + t) * d + c] = __float2bfloat16(h * g / (1.0f + __expf(-g)));
    }
}

void mcpp_cuda_gated_recurrence(bf16 *y, const bf16 *proj, size_t batch, size_t seq, size_t d,
                                cudaStream_t s)
{
    dim3 grid(grid_for(d, 128), (unsigned)batch);
    k_gated_recurrence<<<grid, 128, 0, s>>>(y, proj, seq, d);
}
