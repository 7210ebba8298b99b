/*
 * step_run.c — mcpp-step's measured run: resolve the backend, load the data,
 * build the stack, run warmup then the measured window (each step one forward
 * pass), and re-run one measured step through the reference to verify it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcpp_kernels/gemm.h"
#include "mcpp_receipts.h"
#include "step.h"
#ifdef MCPP_HAVE_CUDA
#include "mcpp_kernels/cuda_stack.h"
#endif

static double step_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t step_mix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The tokens of global step `step`: fresh uniform tokens, or consecutive
 * windows of the token file starting at a seed-chosen offset. */
static void step_fill_tokens(int32_t *tokens, const step_options *opt, const mcpp_kernel_token_file *file,
                             size_t vocab, long step)
{
    size_t B = opt->stack.batch, T = opt->stack.seq_len;
    uint64_t rng = opt->stack.seed * 0x100000001B3ull + (uint64_t)step * 0x9E37ull + 7;
    if (!file) {
        for (size_t i = 0; i < B * T; i++) tokens[i] = (int32_t)(step_mix(&rng) % vocab);
        return;
    }
    uint64_t base_rng = opt->stack.seed + 11;
    size_t span = (size_t)file->count - T + 1;
    size_t base = (size_t)(step_mix(&base_rng) % span);
    for (size_t b = 0; b < B; b++) {
        size_t start = (base + ((size_t)step * B + b) * T) % span;
        memcpy(tokens + b * T, file->tokens + start, T * sizeof(int32_t));
    }
}

static double step_rel_err(const float *got, const float *want, size_t n)
{
    double maxdiff = 0.0, maxref = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        if (!(d <= maxdiff)) maxdiff = isnan(d) ? INFINITY : d;
        if (fabs((double)want[i]) > maxref) maxref = fabs((double)want[i]);
    }
    return maxdiff / maxref;
}

void step_result_release(step_result *res)
{
    free(res->samples);
    res->samples = NULL;
}

static int step_fail(int code, const char *what)
{
    const mcpp_error *e = mcpp_error_last();
    fprintf(stderr, "mcpp-step: %s: %s\n", what, e->message && e->message[0] ? e->message : "failed");
    return code;
}

/* What one run holds while it runs; run_release frees it. */
typedef struct step_state {
    mcpp_kernel_kmem mem;
    mcpp_kernel_token_file file;
    mcpp_kernel_stack *stack;
    int32_t *tokens;
    float *logits; /* of the last measured step */
    mcpp_kernel_stack_config cfg;
    size_t N; /* tokens per step */
    int on_cuda;
#ifdef MCPP_HAVE_CUDA
    mcpp_kernel_cuda_stack *cuda;
#endif
} step_state;

/* --data FILE: the token file replaces the synthetic tokens and sets the vocabulary. */
static int run_open_data(step_state *st, step_result *res, const step_options *opt)
{
    if (strcmp(opt->data, "synthetic") == 0)
        return STEP_EXIT_OK;
    if (mcpp_kernel_tokens_read(&st->file, opt->data) != 0) return step_fail(STEP_EXIT_BAD_INPUT, "--data");
    if (st->file.count < st->cfg.seq_len) {
        fprintf(stderr, "mcpp-step: --data: %s has %llu tokens, fewer than --seq-len %zu\n",
                opt->data, (unsigned long long)st->file.count, st->cfg.seq_len);
        return STEP_EXIT_BAD_INPUT;
    }
    st->cfg.vocab = st->file.vocab_size;
    res->data_real = 1;
    snprintf(res->dataset, sizeof res->dataset, "%s", st->file.name[0] ? st->file.name : "unnamed");
    return STEP_EXIT_OK;
}

/* Builds the stack (and its CUDA twin) and the buffers one step needs. */
static int run_setup(step_state *st, step_result *res, const step_options *opt)
{
    mcpp_kernel_gemm_set_threads(opt->threads);
    if (mcpp_kernel_stack_new(&st->stack, &st->cfg, &st->mem) != 0)
        return step_fail(STEP_EXIT_BAD_INPUT, "stack");
    res->params_total = mcpp_kernel_stack_params_total(st->stack);
    res->params_active = mcpp_kernel_stack_params_active(st->stack);
    st->N = st->cfg.batch * st->cfg.seq_len;
    st->tokens = malloc(st->N * sizeof(int32_t));
    st->logits = malloc(st->N * st->cfg.vocab * sizeof(float));
    res->samples = calloc((size_t)opt->steps, sizeof(double));
    if (!st->tokens || !st->logits || !res->samples) {
        fprintf(stderr, "mcpp-step: out of memory\n");
        return STEP_EXIT_INTERNAL;
    }
#ifdef MCPP_HAVE_CUDA
    if (st->on_cuda && mcpp_kernel_cuda_stack_new(&st->cuda, st->stack, opt->lane) != 0)
        return step_fail(STEP_EXIT_INTERNAL, "cuda");
#endif
    return STEP_EXIT_OK;
}

/* Step s of warmup + measured steps: fills the tokens, runs the forward
 * pass (timed) and records the time where it belongs. */
static int run_step(step_state *st, step_result *res, const step_options *opt, long s, mcpp_kernel_stack_stats *warm)
{
    int measured = s >= opt->warmup;
    long m = s - opt->warmup;
    mcpp_kernel_stack_exec exec = {opt->cpu_gemm, opt->lane, 0};
    double t0 = step_now();
    step_fill_tokens(st->tokens, opt, res->data_real ? &st->file : NULL, st->cfg.vocab, s);
    double t1 = step_now();
    res->data_s += t1 - t0;
    if (measured && m == 0)
        clock_gettime(CLOCK_REALTIME, &res->window_began);
    mcpp_kernel_stack_stats *stats = measured ? &res->window : warm;
    int frc;
#ifdef MCPP_HAVE_CUDA
    if (st->on_cuda && measured && m == opt->profile_first) {
        mcpp_kernel_cuda_profiler_start();
        res->profiled = 1;
    }
    frc = st->on_cuda ? mcpp_kernel_cuda_stack_forward(st->cuda, st->tokens, stats)
                      : mcpp_kernel_stack_forward(st->stack, st->tokens, &exec, stats);
    if (st->on_cuda && measured && m == opt->profile_last) mcpp_kernel_cuda_profiler_stop();
#else
    frc = mcpp_kernel_stack_forward(st->stack, st->tokens, &exec, stats);
#endif
    double t2 = step_now();
    if (measured && m == opt->steps - 1)
        clock_gettime(CLOCK_REALTIME, &res->window_ended);
    if (frc != 0)
        return step_fail(STEP_EXIT_INTERNAL, "forward");
    if (measured)
        res->samples[m] = t2 - t1;
    else
        res->warmup_s += t2 - t1;
    if (!opt->quiet)
        fprintf(stderr, "mcpp-step: %s step %ld/%ld  %.2f ms\n", measured ? "measured" : "warmup",
                measured ? m + 1 : s + 1, measured ? opt->steps : opt->warmup, 1e3 * (t2 - t1));
    return STEP_EXIT_OK;
}

/* After the last step: peak memory, the measured logits, routing imbalance. */
static int run_collect(step_state *st, step_result *res)
{
    res->peak_bytes = st->mem.peak_bytes;
#ifdef MCPP_HAVE_CUDA
    if (st->on_cuda) {
        res->peak_bytes = mcpp_kernel_cuda_stack_peak_bytes(st->cuda);
        res->peak_is_device = 1;
        if (mcpp_kernel_cuda_stack_logits(st->cuda, st->logits) != 0)
            return step_fail(STEP_EXIT_INTERNAL, "cuda logits");
    }
#endif
    if (!st->on_cuda) memcpy(st->logits, mcpp_kernel_stack_logits(st->stack), st->N * st->cfg.vocab * sizeof(float));
    if (res->window.imbalance_count) {
        res->imbalance_mean = res->window.imbalance_sum / (double)res->window.imbalance_count;
        res->imbalance_max = res->window.imbalance_max;
    }
    return STEP_EXIT_OK;
}

/* Verification: the last measured step again, through the reference. */
static int run_verify(step_state *st, step_result *res, const step_options *opt, long total)
{
    res->verify_tolerance = st->on_cuda ? 3e-2 : 1e-3;
    res->verify_step = opt->steps - 1;
    if (!opt->verify)
        return STEP_EXIT_OK;
    mcpp_kernel_stack_exec ref = {MCPP_KERNEL_GEMM_REFERENCE, opt->lane, 1};
    step_fill_tokens(st->tokens, opt, res->data_real ? &st->file : NULL, st->cfg.vocab, total - 1);
    if (!opt->quiet) fprintf(stderr, "mcpp-step: verifying measured step %ld against the reference\n", res->verify_step);
    if (mcpp_kernel_stack_forward(st->stack, st->tokens, &ref, NULL) != 0)
        return step_fail(STEP_EXIT_INTERNAL, "verification");
    res->verify_ran = 1;
    res->verify_max_rel_err = step_rel_err(st->logits, mcpp_kernel_stack_logits(st->stack), st->N * st->cfg.vocab);
    res->verify_passed = res->verify_max_rel_err <= res->verify_tolerance;
    if (!opt->quiet)
        fprintf(stderr, "mcpp-step: verification %s (max rel err %.3g, tolerance %.3g)\n",
                res->verify_passed ? "passed" : "FAILED", res->verify_max_rel_err, res->verify_tolerance);
    return STEP_EXIT_OK;
}

static void run_release(step_state *st)
{
#ifdef MCPP_HAVE_CUDA
    mcpp_kernel_cuda_stack_free(st->cuda);
#endif
    mcpp_kernel_stack_free(st->stack);
    mcpp_kernel_tokens_release(&st->file);
    free(st->tokens);
    free(st->logits);
}

/* Picks the backend (CPU, CUDA, or a recorded fallback); 0 or an exit code. */
static int run_dispatch(step_result *res, const step_options *opt)
{
    mcpp_kernel_host_query(&res->host);
    mcpp_kernel_device_query(&res->device);
    mcpp_kernel_dispatch_request req = {opt->backend, opt->cpu_gemm, opt->lane, opt->allow_fallback, 0};
#ifdef MCPP_HAVE_CUDA
    req.cuda_stack_available = 1;
#endif
    if (mcpp_kernel_dispatch_resolve(&res->dispatch, &req, &res->device) != 0) {
        fprintf(stderr, "mcpp-step: %s\n", mcpp_error_last()->message);
        return STEP_EXIT_BAD_INPUT;
    }
    if (res->dispatch.fallback_count && !opt->quiet)
        fprintf(stderr, "mcpp-step: falling back to the CPU: %s\n", res->dispatch.fallback_reason);
    return STEP_EXIT_OK;
}

int step_run(step_result *res, const step_options *opt)
{
    memset(res, 0, sizeof *res);
    double t_setup = step_now();
    int rc = run_dispatch(res, opt);
    if (rc != STEP_EXIT_OK)
        return rc;
    step_state st = {0};
    st.cfg = opt->stack;
    st.on_cuda = res->dispatch.observed_backend == MCPP_KERNEL_BACKEND_CUDA;
    rc = run_open_data(&st, res, opt);
    if (rc == STEP_EXIT_OK)
        rc = run_setup(&st, res, opt);
    res->setup_s = step_now() - t_setup;
    long total = opt->warmup + opt->steps;
    mcpp_kernel_stack_stats warm = {0};
    double t_alloc = step_now();
    for (long s = 0; rc == STEP_EXIT_OK && s < total; s++)
        rc = run_step(&st, res, opt, s, &warm);
    res->allocated_s = step_now() - t_alloc;
    if (rc == STEP_EXIT_OK)
        rc = run_collect(&st, res);
    if (rc == STEP_EXIT_OK)
        rc = run_verify(&st, res, opt, total);
    run_release(&st);
    return rc;
}
