/*
 * step_args.c — parsing and checking mcpp-step's command line. Every bad
 * value is refused with the flag's name and what was expected (exit 3).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_kernels/reference.h"
#include "mcpp_receipts.h"
#include "step.h"

static const char step_usage[] =
    "usage: mcpp-step [options]\n"
    "\n"
    "Runs a hybrid layer stack (A attention, M selective scan, E MoE, R recurrent tail)\n"
    "forward for a measured window and writes a receipt (schema mcpp.receipt/2).\n"
    "\n"
    "Model:\n"
    "  --pattern STR            block pattern of A, M, E, R (default AEMEAEMEAEMR)\n"
    "  --depth N                layers; the pattern is tiled (default: pattern length)\n"
    "  --d-model N              hidden size (default 128)\n"
    "  --heads N                attention heads; must divide d-model (default 4)\n"
    "  --d-ff N                 expert hidden size (default 2 * d-model)\n"
    "  --state N                selective-scan state per channel, 1..64 (default 16)\n"
    "  --vocab N                vocab for synthetic data (default 256; a token file sets its own)\n"
    "  --family NAME            lane.family (default: derived, e.g. NAM56R)\n"
    "  --lane-name TEXT         lane.name (default: derived)\n"
    "Workload:\n"
    "  --seq-len N              tokens per sequence (default 128)\n"
    "  --batch N                sequences per step (default 2)\n"
    "  --data synthetic|FILE    uniform random tokens, or a token file (BUILD/kernels/data/*.tok)\n"
    "  --seed N                 parameters and synthetic data (default 1)\n"
    "MoE (E blocks):\n"
    "  --experts N              (default 8)\n"
    "  --top-k N                (default 2)\n"
    "  --capacity-factor X      (default 1.25)\n"
    "  --overflow drop|pad|no_drop      (default drop)\n"
    "  --score softmax|sigmoid          (default softmax)\n"
    "  --moe-lane padded|jagged|block_sparse   (default jagged)\n"
    "Backend:\n"
    "  --backend cpu|cuda       (default cpu)\n"
    "  --gemm blas|blocked|reference   CPU GEMM path (default blas = OpenBLAS)\n"
    "  --precision fp32|bf16    (default: fp32 on cpu, bf16 on cuda)\n"
    "  --allow-fallback         run on the CPU when CUDA is unusable, and record it\n"
    "  --accelerator NAME       the accelerator asked for, e.g. \"H100\" (default: this host's CPU\n"
    "                           for --backend cpu, any CUDA device for --backend cuda)\n"
    "  --threads N              OpenBLAS threads (default 1; recorded as hardware.observed.threads)\n"
    "  --commit SHA             source.git_commit (default: $MCPP_GIT_COMMIT, else `git rev-parse HEAD`\n"
    "                           in the working directory; runs of one commit pool in a gate)\n"
    "Measurement:\n"
    "  --steps N                measured steps (default 5)\n"
    "  --warmup N               unmeasured steps before them (default 2)\n"
    "  --profile-steps A:B      CUDA profiler capture over measured steps A..B (0-based)\n"
    "  --no-verify              skip re-running one step through the reference\n"
    "  --out FILE               receipt path, .json or .yaml (default: JSON on stdout)\n"
    "  --quiet                  no progress on stderr\n"
    "  --help                   this text\n"
    "\n"
    "Exit codes: 0 ok, 1 verification failed (receipt still written), 3 bad input or\n"
    "CUDA requested without a usable device (and no --allow-fallback), 4 internal error.\n";

static int step_bad(const char *flag, const char *expected, const char *got)
{
    fprintf(stderr, "mcpp-step: %s: expected %s, got '%s'\n", flag, expected, got ? got : "");
    return STEP_EXIT_BAD_INPUT;
}

static int step_long(long *out, const char *flag, const char *s, long min, long max)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || *end || end == s || v < min || v > max) {
        char want[96];
        snprintf(want, sizeof want, "an integer in %ld..%ld", min, max);
        return step_bad(flag, want, s);
    }
    *out = v;
    return -1;
}

static int step_size(size_t *out, const char *flag, const char *s, long min, long max)
{
    long v = 0;
    int rc = step_long(&v, flag, s, min, max);
    if (rc < 0) *out = (size_t)v;
    return rc;
}

static void step_defaults(step_options *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->stack.pattern, sizeof o->stack.pattern, "AEMEAEMEAEMR");
    o->stack.d_model = 128;
    o->stack.heads = 4;
    o->stack.state = 16;
    o->stack.vocab = 256;
    o->stack.seq_len = 128;
    o->stack.batch = 2;
    o->stack.seed = 1;
    o->stack.moe.experts = 8;
    o->stack.moe.top_k = 2;
    o->stack.moe.capacity_factor = 1.25;
    o->stack.moe.score = MCPP_KERNEL_SCORE_SOFTMAX;
    o->stack.moe.overflow = MCPP_KERNEL_OVERFLOW_DROP;
    o->stack.moe.align_rows = 1;
    o->stack.moe.block_rows = 32;
    o->lane = MCPP_KERNEL_MOE_JAGGED;
    o->backend = MCPP_KERNEL_BACKEND_CPU;
    o->cpu_gemm = MCPP_KERNEL_GEMM_BLAS;
    o->steps = 5;
    o->warmup = 2;
    o->data = "synthetic";
    o->profile_first = o->profile_last = -1;
    o->threads = 1;
    o->verify = 1;
}

/* Options given as counts; depth and d_ff stay 0 when not given (their
 * defaults follow from the pattern and d_model). */
typedef struct step_counts {
    long depth, dff;
} step_counts;

#define NOT_AN_OPTION_HERE (-2) /* the option belongs to another take_* */

/* The numeric options: -1 when taken, an exit code when the value is bad. */
static int take_number(step_options *o, step_counts *n, const char *name, const char *v)
{
    if (strcmp(name, "--depth") == 0) return step_long(&n->depth, name, v, 1, MCPP_KERNEL_STACK_MAX_DEPTH);
    if (strcmp(name, "--d-model") == 0) return step_size(&o->stack.d_model, name, v, 1, 16384);
    if (strcmp(name, "--heads") == 0) return step_size(&o->stack.heads, name, v, 1, 1024);
    if (strcmp(name, "--d-ff") == 0) return step_long(&n->dff, name, v, 1, 65536);
    if (strcmp(name, "--state") == 0) return step_size(&o->stack.state, name, v, 1, MCPP_KERNEL_SCAN_MAX_STATE);
    if (strcmp(name, "--vocab") == 0) return step_size(&o->stack.vocab, name, v, 2, 1 << 24);
    if (strcmp(name, "--seq-len") == 0) return step_size(&o->stack.seq_len, name, v, 1, 65536);
    if (strcmp(name, "--batch") == 0) return step_size(&o->stack.batch, name, v, 1, 65536);
    if (strcmp(name, "--experts") == 0) return step_size(&o->stack.moe.experts, name, v, 1, 4096);
    if (strcmp(name, "--top-k") == 0) return step_size(&o->stack.moe.top_k, name, v, 1, 4096);
    if (strcmp(name, "--steps") == 0) return step_long(&o->steps, name, v, 1, STEP_MAX_STEPS);
    if (strcmp(name, "--warmup") == 0) return step_long(&o->warmup, name, v, 0, STEP_MAX_STEPS);
    if (strcmp(name, "--seed") == 0) {
        long seed = 0;
        int rc = step_long(&seed, name, v, 0, 2147483647L);
        o->stack.seed = (uint64_t)seed;
        return rc;
    }
    if (strcmp(name, "--threads") == 0) {
        long threads = 1;
        int rc = step_long(&threads, name, v, 1, 256);
        o->threads = (int)threads;
        return rc;
    }
    if (strcmp(name, "--capacity-factor") == 0) {
        char *end = NULL;
        double cf = strtod(v, &end);
        if (!end || *end || end == v || !(cf > 0.0) || cf > 1e6)
            return step_bad(name, "a positive number", v);
        o->stack.moe.capacity_factor = cf;
        return -1;
    }
    return NOT_AN_OPTION_HERE;
}

/* The options that name one of a few choices: -1 when taken, or an exit code. */
static int take_choice(step_options *o, const char *name, const char *v)
{
    if (strcmp(name, "--overflow") == 0)
        return mcpp_kernel_moe_overflow_parse(&o->stack.moe.overflow, v) != 0 ? step_bad(name, "drop, pad or no_drop", v) : -1;
    if (strcmp(name, "--score") == 0)
        return mcpp_kernel_moe_score_parse(&o->stack.moe.score, v) != 0 ? step_bad(name, "softmax or sigmoid", v) : -1;
    if (strcmp(name, "--moe-lane") == 0)
        return mcpp_kernel_moe_lane_parse(&o->lane, v) != 0 ? step_bad(name, "padded, jagged or block_sparse", v) : -1;
    if (strcmp(name, "--backend") == 0) {
        if (strcmp(v, "cpu") == 0) o->backend = MCPP_KERNEL_BACKEND_CPU;
        else if (strcmp(v, "cuda") == 0) o->backend = MCPP_KERNEL_BACKEND_CUDA;
        else return step_bad(name, "cpu or cuda", v);
        return -1;
    }
    if (strcmp(name, "--gemm") == 0) {
        if (strcmp(v, "blas") == 0) o->cpu_gemm = MCPP_KERNEL_GEMM_BLAS;
        else if (strcmp(v, "blocked") == 0) o->cpu_gemm = MCPP_KERNEL_GEMM_BLOCKED;
        else if (strcmp(v, "reference") == 0) o->cpu_gemm = MCPP_KERNEL_GEMM_REFERENCE;
        else return step_bad(name, "blas, blocked or reference", v);
        return -1;
    }
    if (strcmp(name, "--precision") == 0) {
        if (strcmp(v, "fp32") != 0 && strcmp(v, "bf16") != 0)
            return step_bad(name, "fp32 or bf16", v);
        snprintf(o->precision, sizeof o->precision, "%s", v);
        o->precision_given = 1;
        return -1;
    }
    return NOT_AN_OPTION_HERE;
}

/* The options that take text (a pattern, paths, labels, a step range). */
static int take_text(step_options *o, const char *name, const char *v)
{
    if (strcmp(name, "--pattern") == 0) {
        if (strlen(v) == 0 || strlen(v) > MCPP_KERNEL_STACK_MAX_PATTERN)
            return step_bad(name, "1..64 letters of A, M, E, R", v);
        snprintf(o->stack.pattern, sizeof o->stack.pattern, "%s", v);
        return -1;
    }
    static const struct {
        const char *name, *wanted;
        size_t offset;
    } texts[] = {
        {"--data", "synthetic or a token file", offsetof(step_options, data)},
        {"--out", "a file path", offsetof(step_options, out)},
        {"--family", "a family label", offsetof(step_options, family)},
        {"--lane-name", "a lane name", offsetof(step_options, lane_name)},
        {"--accelerator", "an accelerator name", offsetof(step_options, accelerator)},
        {"--commit", "a commit id", offsetof(step_options, commit)},
    };
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        if (strcmp(name, texts[k].name) != 0) continue;
        if (!*v) return step_bad(name, texts[k].wanted, v);
        *(const char **)(void *)((char *)o + texts[k].offset) = v;
        return -1;
    }
    if (strcmp(name, "--profile-steps") == 0) {
        char *end = NULL;
        long a0 = strtol(v, &end, 10);
        if (!end || *end != ':' || end == v) return step_bad(name, "A:B with 0 <= A <= B", v);
        const char *second = end + 1;
        long b0 = strtol(second, &end, 10);
        if (!end || *end || end == second || a0 < 0 || b0 < a0)
            return step_bad(name, "A:B with 0 <= A <= B", v);
        o->profile_first = a0;
        o->profile_last = b0;
        return -1;
    }
    return NOT_AN_OPTION_HERE;
}

/* --family naming a registered family must describe this stack (its
 * pattern, canonically, and depth; or its letters): otherwise the receipt
 * could not validate, which is bad input, not an internal error. */
static int check_family(const step_options *o)
{
    mcpp_model_family reg;
    if (!o->family || mcpp_model_family_find(&reg, o->family) != MCPP_OK) return -1;
    int64_t d1 = 0, d2 = 0;
    char mine[MCPP_KERNEL_STACK_MAX_DEPTH + 1], theirs[sizeof mine];
    int ok = reg.depth == (int64_t)o->stack.depth;
    if (ok && reg.pattern[0]) {
        mcpp_pattern_canonical(mine, sizeof mine, &d1, o->stack.pattern, (int64_t)o->stack.depth);
        mcpp_pattern_canonical(theirs, sizeof theirs, &d2, reg.pattern, reg.depth);
        ok = strcmp(mine, theirs) == 0;
    }
    for (const char *p = o->stack.pattern; ok && !reg.pattern[0] && *p; p++) ok = strchr(reg.letters, *p) != NULL;
    if (ok) return -1;
    fprintf(stderr, "mcpp-step: --family %s: the registered family is %s%s%s at depth %lld; this stack is %s at "
            "depth %zu (leave --family out for a descriptive name)\n",
            o->family, reg.pattern[0] ? "\"" : "letters ", reg.pattern[0] ? reg.pattern : reg.letters,
            reg.pattern[0] ? "\"" : "", (long long)reg.depth, o->stack.pattern, o->stack.depth);
    return STEP_EXIT_BAD_INPUT;
}

/* Defaults that follow from other options, and checks across options. */
static int finish_options(step_options *o, const step_counts *n)
{
    o->stack.depth = n->depth ? (size_t)n->depth : strlen(o->stack.pattern);
    o->stack.moe.d_ff = n->dff ? (size_t)n->dff : 2 * o->stack.d_model;
    if (!o->precision_given)
        snprintf(o->precision, sizeof o->precision, "%s", o->backend == MCPP_KERNEL_BACKEND_CUDA ? "bf16" : "fp32");
    if (o->backend == MCPP_KERNEL_BACKEND_CPU && strcmp(o->precision, "fp32") != 0) {
        fprintf(stderr, "mcpp-step: --precision %s: the CPU path computes in fp32 only\n", o->precision);
        return STEP_EXIT_BAD_INPUT;
    }
    if (o->profile_first >= 0 && o->profile_last >= o->steps) {
        fprintf(stderr, "mcpp-step: --profile-steps %ld:%ld: the measured window has steps 0..%ld\n",
                o->profile_first, o->profile_last, o->steps - 1);
        return STEP_EXIT_BAD_INPUT;
    }
    if (mcpp_kernel_stack_config_check(&o->stack) != 0) {
        const mcpp_error *e = mcpp_error_last();
        fprintf(stderr, "mcpp-step: %s\n", e->message ? e->message : "invalid configuration");
        return STEP_EXIT_BAD_INPUT;
    }
    return check_family(o);
}

int step_parse_args(step_options *o, int argc, char **argv)
{
    step_defaults(o);
    o->argc = argc;
    o->argv = argv;
    step_counts counts = {0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        /* Flags without a value. */
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(step_usage, stdout);
            return STEP_EXIT_OK;
        }
        if (strcmp(a, "--allow-fallback") == 0) { o->allow_fallback = 1; continue; }
        if (strcmp(a, "--no-verify") == 0) { o->verify = 0; continue; }
        if (strcmp(a, "--quiet") == 0) { o->quiet = 1; continue; }
        if (strncmp(a, "--", 2) != 0) return step_bad("argument", "an option starting with --", a);

        /* Flags with a value: "--flag VALUE" or "--flag=VALUE". */
        char name[64];
        const char *v = NULL, *eq = strchr(a, '=');
        if (eq) {
            size_t n = (size_t)(eq - a);
            if (n >= sizeof name) return step_bad("argument", "a known option", a);
            memcpy(name, a, n);
            name[n] = '\0';
            v = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
            if (i + 1 >= argc) { /* also a misspelt option, last on the line */
                fprintf(stderr,
                        "mcpp-step: %s: nothing follows it: options take a value (--name VALUE or "
                        "--name=VALUE; --help lists them)\n",
                        a);
                return STEP_EXIT_BAD_INPUT;
            }
            v = argv[++i];
        }
        int rc = take_number(o, &counts, name, v);
        if (rc == NOT_AN_OPTION_HERE) rc = take_choice(o, name, v);
        if (rc == NOT_AN_OPTION_HERE) rc = take_text(o, name, v);
        if (rc == NOT_AN_OPTION_HERE) return step_bad("argument", "a known option (see --help)", a);
        if (rc >= 0) return rc;
    }
    return finish_options(o, &counts);
}
