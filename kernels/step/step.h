/*
 * step.h — the mcpp-step runner's pieces: options (step_args.c), the measured
 * run (step_run.c) and the receipt it becomes (step_receipt.c).
 */
#ifndef MCPP_STEP_H
#define MCPP_STEP_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "mcpp_kernels/device.h"
#include "mcpp_kernels/dispatch.h"
#include "mcpp_kernels/hostinfo.h"
#include "mcpp_kernels/stack.h"
#include "mcpp_kernels/tokens.h"

/* Exit codes, as the mcpp-receipts CLI uses them. */
#define STEP_EXIT_OK 0
#define STEP_EXIT_VERIFY_FAILED 1
#define STEP_EXIT_BAD_INPUT 3
#define STEP_EXIT_INTERNAL 4

#define STEP_MAX_STEPS 100000

typedef struct step_options {
    mcpp_kernel_stack_config stack;
    mcpp_kernel_moe_lane lane;
    mcpp_kernel_backend backend;
    char precision[8];        /* fp32 | bf16 */
    int precision_given;
    mcpp_kernel_gemm_impl cpu_gemm;
    long steps, warmup;
    const char *data;         /* "synthetic" or a token file */
    const char *out;          /* NULL: stdout */
    const char *family;       /* NULL: derived from the pattern */
    const char *lane_name;    /* NULL: derived */
    const char *accelerator;  /* NULL: the device the backend finds */
    const char *commit;       /* NULL: $MCPP_GIT_COMMIT, else git rev-parse HEAD */
    int allow_fallback;
    long profile_first, profile_last; /* -1: no profiler window */
    int threads;
    int verify;
    int quiet;
    int argc;
    char **argv;
} step_options;

/* What one run measured; filled by step_run, read by step_receipt. */
typedef struct step_result {
    mcpp_kernel_dispatch dispatch;
    mcpp_kernel_device_info device;
    mcpp_kernel_host_info host;
    int data_real;
    char dataset[64];
    size_t params_total, params_active;
    double *samples;             /* [steps] forward seconds of the measured window */
    double warmup_s, data_s, allocated_s, setup_s;
    mcpp_kernel_stack_stats window;     /* accumulated over the measured window */
    size_t peak_bytes;
    int peak_is_device;
    int verify_ran, verify_passed;
    double verify_max_rel_err, verify_tolerance;
    long verify_step;
    double imbalance_mean, imbalance_max;
    size_t dropped_tokens_per_step;
    int profiled;
    struct timespec window_began, window_ended; /* UTC: the first measured step's start, the last one's end */
} step_result;

/* Parses argv. Returns -1 to continue, or an exit code (0 after --help). */
int step_parse_args(step_options *out, int argc, char **argv);

/* Runs warmup + measured window + verification. Returns an exit code. */
int step_run(step_result *out, const step_options *opt);

/* Builds, validates and writes the receipt. Returns an exit code. */
int step_write_receipt(const step_options *opt, const step_result *res);

void step_result_release(step_result *res);

#endif /* MCPP_STEP_H */
