/*
 * step_receipt.c — turning a measured run into a receipt through the
 * library's builder, so what mcpp-step writes is validated exactly like any
 * receipt a user loads. Every number here comes from step_result; nothing is
 * asserted that was not measured or configured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif
#include <time.h>

#include "mcpp_receipts.h"
#include "step.h"

/* Collects the first builder failure so the setters read as a flat list. */
typedef struct step_builder {
    mcpp_builder *b;
    int rc;
    char failed_path[96];
} step_builder;

static void sb_check(step_builder *sb, int rc, const char *path)
{
    if (rc != 0 && sb->rc == 0) {
        sb->rc = rc;
        snprintf(sb->failed_path, sizeof sb->failed_path, "%s", path);
    }
}

static void sb_str(step_builder *sb, const char *path, const char *v)
{
    sb_check(sb, mcpp_builder_set_string(sb->b, path, v), path);
}
static void sb_int(step_builder *sb, const char *path, long long v)
{
    sb_check(sb, mcpp_builder_set_int(sb->b, path, (int64_t)v), path);
}
static void sb_dbl(step_builder *sb, const char *path, double v)
{
    sb_check(sb, mcpp_builder_set_double(sb->b, path, v), path);
}
static void sb_bool(step_builder *sb, const char *path, int v)
{
    sb_check(sb, mcpp_builder_set_bool(sb->b, path, v), path);
}
static void sb_add(step_builder *sb, const char *path, const char *v)
{
    sb_check(sb, mcpp_builder_append_string(sb->b, path, v), path);
}
static void sb_json(step_builder *sb, const char *path, const char *json)
{
    sb_check(sb, mcpp_builder_set_json(sb->b, path, json), path);
}

static int step_has(const step_options *opt, char family)
{
    return strchr(opt->stack.pattern, family) != NULL;
}

/* A descriptive name for a stack the family registry does not list:
 * "NAM<depth>" for dense stacks, "NAM<depth>R" for MoE stacks ending in an R
 * block, "NAM<depth>E" for other MoE stacks. */
static void step_family(char *out, size_t cap, const step_options *opt)
{
    const char *p = opt->stack.pattern;
    size_t len = strlen(p);
    char suffix[2] = {0, 0};
    if (step_has(opt, 'E')) suffix[0] = p[len - 1] == 'R' ? 'R' : 'E';
    snprintf(out, cap, "NAM%zu%s", opt->stack.depth, suffix);
}

/* The lane family: the registered family of this pattern at this depth
 * (AEMEAEMEAEMR at 52 is NAM56R), else the descriptive name above, unless a
 * registered family has that name and this stack is not one of it: then none
 * (0), since a wrong family makes the receipt invalid. */
static int step_lane_family(char *out, size_t cap, const step_options *opt)
{
    const mcpp_kernel_stack_config *c = &opt->stack;
    mcpp_model_family reg;
    if (mcpp_model_family_for_pattern(&reg, c->pattern, (int64_t)c->depth) == MCPP_OK) {
        snprintf(out, cap, "%s", reg.name);
        return 1;
    }
    step_family(out, cap, opt);
    if (mcpp_model_family_find(&reg, out) != MCPP_OK)
        return 1;
    if (reg.pattern[0] || reg.depth != (int64_t)c->depth) /* e.g. NAM56R at another depth */
        return 0;
    for (const char *p = c->pattern; *p; p++) /* NAM52: depth and letters only */
        if (!strchr(reg.letters, *p))
            return 0;
    return 1;
}

static char *step_join_argv(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 3;
    char *s = malloc(len), *p = s;
    if (!s) return NULL;
    for (int i = 0; i < argc; i++) {
        int quote = strpbrk(argv[i], " \t\"'") != NULL || argv[i][0] == '\0';
        p += sprintf(p, "%s%s%s%s", i ? " " : "", quote ? "'" : "", argv[i], quote ? "'" : "");
    }
    return s;
}

/* The commit the run's code came from: --commit, else $MCPP_GIT_COMMIT, else
 * `git rev-parse HEAD` in the working directory (a run outside a git tree
 * records none). Runs that name one commit pool in a gate (issue 47 item 13).
 * 1 when out holds one. */
static int step_commit(char *out, size_t cap, const step_options *opt)
{
    const char *given = opt->commit ? opt->commit : getenv("MCPP_GIT_COMMIT");
    if (given && *given) {
        snprintf(out, cap, "%s", given);
        return 1;
    }
    FILE *git = popen("git rev-parse HEAD 2>/dev/null", "r");
    if (!git)
        return 0;
    int ok = fgets(out, (int)cap, git) != NULL;
    int status = pclose(git);
    size_t n = ok ? strcspn(out, "\r\n") : 0;
    if (ok)
        out[n] = '\0';
    return ok && status == 0 && n >= 7 && strspn(out, "0123456789abcdef") == n;
}

static size_t step_count_family(const step_options *opt, char family)
{
    size_t n = 0, len = strlen(opt->stack.pattern);
    for (size_t i = 0; i < opt->stack.depth; i++) n += opt->stack.pattern[i % len] == family;
    return n;
}


/* What the parts of a receipt share: the run, and values derived once. */
typedef struct receipt_ctx {
    step_builder sb;
    const step_options *opt;
    const step_result *res;
    const mcpp_kernel_stack_config *c;
    const mcpp_kernel_dispatch *d;
    int on_cuda;
    size_t N, e_layers;
    long steps;
    long long useful_tokens; /* set by put_workload */
    double waste;            /* the padding share of E rows, set by put_metrics */
    char buf[512];
} receipt_ctx;

/* created_at, source (the command line, host, commit) and lane. */
static void put_source_and_lane(receipt_ctx *x)
{
    step_builder *sb = &x->sb;
    const step_options *opt = x->opt;
    const step_result *res = x->res;
    const mcpp_kernel_stack_config *c = x->c;
    char *buf = x->buf;
    int on_cuda = x->on_cuda;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, sizeof x->buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    sb_str(sb, "created_at", buf);
    sb_str(sb, "source.tool", "mcpp-step");
    char *command = step_join_argv(opt->argc, opt->argv);
    if (command) sb_str(sb, "source.command", command);
    free(command);
    sb_str(sb, "source.host", res->host.host);
    char commit[64];
    if (step_commit(commit, sizeof commit, opt))
        sb_str(sb, "source.git_commit", commit);

    char family[64];
    if (opt->family) snprintf(family, sizeof family, "%s", opt->family);
    int has_family = opt->family || step_lane_family(family, sizeof family, opt);
    if (has_family)
        sb_str(sb, "lane.family", family);
    if (opt->lane_name) {
        sb_str(sb, "lane.name", opt->lane_name);
    } else {
        /* no family (e.g. the NAM56R pattern at another depth): the name says
         * only what the stack is, never a family it is not */
        snprintf(buf, sizeof x->buf, "%s%s%s x%zu d%zu%s%s on %s", has_family ? family : "", has_family ? " " : "",
                 c->pattern, c->depth,
                 c->d_model, step_has(opt, 'E') ? " moe " : "",
                 step_has(opt, 'E') ? mcpp_kernel_moe_lane_name(opt->lane) : "",
                 on_cuda ? "cuda" : "cpu");
        sb_str(sb, "lane.name", buf);
    }
    sb_str(sb, "lane.pattern", c->pattern);
    sb_int(sb, "lane.depth", (long long)c->depth);
    sb_int(sb, "lane.params_total", (long long)res->params_total);
    sb_int(sb, "lane.params_active", (long long)res->params_active);
    sb_int(sb, "lane.d_model", (long long)c->d_model);
    /* heads are a size of the attention blocks only (model_size dimension) */
    if (step_has(opt, 'A')) sb_int(sb, "lane.heads", (long long)c->heads);
    sb_int(sb, "run.seed", (long long)c->seed);

}

/* workload, routing (MoE stacks) and compile. */
static void put_workload(receipt_ctx *x)
{
    step_builder *sb = &x->sb;
    const step_options *opt = x->opt;
    const step_result *res = x->res;
    const mcpp_kernel_stack_config *c = x->c;
    long steps = x->steps;
    size_t e_layers = x->e_layers;
    /* workload: a token that lost an expert assignment to capacity in an E
     * layer is not useful in that layer; useful tokens are N minus the mean
     * of such tokens over E layers and measured steps. */
    double lost = e_layers ? (double)res->window.moe.dropped_tokens / ((double)steps * (double)e_layers) : 0.0;
    x->useful_tokens = (long long)((double)x->N - lost + 0.5);
    sb_int(sb, "workload.seq_len", (long long)c->seq_len);
    sb_int(sb, "workload.micro_batch", (long long)c->batch);
    sb_int(sb, "workload.global_batch", (long long)c->batch);
    sb_int(sb, "workload.tokens_per_step", (long long)x->N);
    sb_int(sb, "workload.useful_tokens_per_step", x->useful_tokens);
    sb_str(sb, "workload.data.path", res->data_real ? "real" : "synthetic");
    if (res->data_real) sb_str(sb, "workload.data.dataset", res->dataset);

    if (step_has(opt, 'E')) {
        sb_str(sb, "routing.mode", "token_choice");
        sb_str(sb, "routing.score", mcpp_kernel_moe_score_name(c->moe.score));
        sb_int(sb, "routing.num_experts", (long long)c->moe.experts);
        sb_int(sb, "routing.top_k", (long long)c->moe.top_k);
        sb_int(sb, "routing.shared_experts", 0);
        sb_dbl(sb, "routing.capacity_factor", c->moe.capacity_factor);
        sb_str(sb, "routing.overflow", mcpp_kernel_moe_overflow_name(c->moe.overflow));
    }

    sb_str(sb, "compile.posture", "eager");
    sb_str(sb, "compile.warmup", opt->warmup > 0 ? "explicit" : "skipped");
    sb_int(sb, "compile.graph_breaks", 0);
    sb_dbl(sb, "compile.compile_s", 0.0);

}

/* backend: requested and observed per family, fallbacks, verification. */
static void put_backend(receipt_ctx *x)
{
    step_builder *sb = &x->sb;
    const step_options *opt = x->opt;
    const step_result *res = x->res;
    const mcpp_kernel_dispatch *d = x->d;
    char *buf = x->buf;
    int on_cuda = x->on_cuda;
    /* backend: per family present in the pattern, plus the GEMM path. */
    sb_str(sb, "backend.precision", on_cuda ? opt->precision : "fp32");
    static const struct { char letter; mcpp_kernel_family family; const char *req, *obs; } fams[] = {
        {'A', MCPP_KERNEL_FAMILY_ATTENTION, "backend.attention.requested", "backend.attention.observed"},
        {'M', MCPP_KERNEL_FAMILY_MAMBA, "backend.mamba.requested", "backend.mamba.observed"},
        {'E', MCPP_KERNEL_FAMILY_MOE, "backend.moe.requested", "backend.moe.observed"},
        {'R', MCPP_KERNEL_FAMILY_RECURRENT, "backend.recurrent.requested", "backend.recurrent.observed"},
        {'*', MCPP_KERNEL_FAMILY_GEMM, "backend.gemm.requested", "backend.gemm.observed"},
    };
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
        if (fams[i].letter != '*' && !step_has(opt, fams[i].letter)) continue;
        sb_str(sb, fams[i].req, mcpp_kernel_dispatch_requested_name(d, fams[i].family));
        sb_str(sb, fams[i].obs, mcpp_kernel_dispatch_observed_name(d, fams[i].family));
    }
    /* Only the families this pattern runs (plus the GEMMs every stack uses). */
    for (size_t i = 0; i < d->fallback_count; i++) {
        int listed = 0;
        for (size_t k = 0; k < sizeof fams / sizeof fams[0]; k++) {
            const char *name = mcpp_kernel_family_name(fams[k].family);
            size_t n = strlen(name);
            if (strncmp(d->fallbacks[i], name, n) == 0 && d->fallbacks[i][n] == ':')
                listed = fams[k].letter == '*' || step_has(opt, fams[k].letter);
        }
        if (listed) sb_add(sb, "backend.fallbacks", d->fallbacks[i]);
    }
    if (d->fallback_count && strcmp(opt->precision, "fp32") != 0 && !on_cuda) {
        snprintf(buf, sizeof x->buf, "precision:%s->fp32", opt->precision);
        sb_add(sb, "backend.fallbacks", buf);
    }
    if (res->verify_ran) {
        sb_str(sb, "backend.verification.status", res->verify_passed ? "passed" : "failed");
        sb_dbl(sb, "backend.verification.max_rel_err", res->verify_max_rel_err);
    } else {
        sb_str(sb, "backend.verification.status", "skipped");
    }

}

/* The accelerator the run observed, as the receipt names it: the CUDA
 * device, else "cpu: MODEL" of this host; in buf when it is built there. */
static const char *observed_accelerator(const receipt_ctx *x, char *buf, size_t cap)
{
    if (x->on_cuda) return x->res->device.name;
    snprintf(buf, cap, "cpu: %s", x->res->host.cpu);
    return buf;
}

/* hardware, topology and startup. */
static void put_hardware(receipt_ctx *x)
{
    step_builder *sb = &x->sb;
    const step_options *opt = x->opt;
    const step_result *res = x->res;
    char *buf = x->buf;
    int on_cuda = x->on_cuda;
    /* hardware: requested vs what the runtime / OS reports. --accelerator
     * names a device; without it --backend cpu asks for this host's CPU
     * (named as the observation names it) and --backend cuda for "cuda", a
     * platform request that any NVIDIA device satisfies (receipt/
     * accelerators.c), so only a run that fell back to the CPU reads as a
     * hardware fallback. */
    const char *requested = opt->accelerator ? opt->accelerator
                            : opt->backend == MCPP_KERNEL_BACKEND_CUDA ? "cuda"
                            : observed_accelerator(x, buf, sizeof x->buf); /* the CPU it runs on */
    sb_str(sb, "hardware.requested.accelerator", requested);
    sb_int(sb, "hardware.requested.count", 1);
    sb_str(sb, "hardware.observed.accelerator", observed_accelerator(x, buf, sizeof x->buf));
    sb_str(sb, "hardware.observed.source", "probed");
    if (on_cuda) {
        sb_int(sb, "hardware.observed.count", res->device.device_count);
        sb_dbl(sb, "hardware.observed.memory_gib", res->device.memory_gib);
        sb_str(sb, "hardware.observed.driver", res->device.driver);
        sb_str(sb, "hardware.observed.runtime", res->device.runtime);
    } else {
        sb_int(sb, "hardware.observed.count", 1);
        if (res->host.memory_gib > 0) sb_dbl(sb, "hardware.observed.memory_gib", res->host.memory_gib);
        /* the CPU path's execution resources: another thread count is another lane, never a code speed-up */
        sb_int(sb, "hardware.observed.threads", mcpp_kernel_gemm_threads(opt->cpu_gemm));
        /* the CPU path's "driver" is the OS kernel, its runtime the C library */
        struct utsname u;
        if (uname(&u) == 0) {
            snprintf(buf, sizeof x->buf, "%s %s", u.sysname, u.release);
            sb_str(sb, "hardware.observed.driver", buf);
        }
#ifdef __GLIBC__
        snprintf(buf, sizeof x->buf, "glibc %s", gnu_get_libc_version());
        sb_str(sb, "hardware.observed.runtime", buf);
#endif
    }
    sb_str(sb, "hardware.host.cpu", res->host.cpu);
    sb_int(sb, "hardware.host.cores", res->host.cores);

    sb_str(sb, "topology.substrate", on_cuda ? "cuda" : "cpu");
    static const char *const ones[] = {"topology.nodes", "topology.tp", "topology.pp", "topology.vpp",
                                       "topology.ep", "topology.cp", "topology.dp"};
    for (size_t i = 0; i < sizeof ones / sizeof ones[0]; i++) sb_int(sb, ones[i], 1);
    sb_bool(sb, "topology.sp", 0);
    sb_bool(sb, "topology.fsdp", 0);
    sb_str(sb, "startup.state", "cold_boot");
    /* the launch contract: the step runner captures no CUDA graph, predicts
     * one token, and runs no optional feature (features {} = none in force) */
    sb_int(sb, "launch.mtp_depth", 0);
    sb_str(sb, "launch.cuda_graphs", "off");
    sb_json(sb, "features", "{}");

}

/* metrics.window.began/.ended: the measured window's capture, in UTC to the millisecond. */
static void put_window_times(receipt_ctx *x)
{
    const struct timespec *ts[2] = {&x->res->window_began, &x->res->window_ended};
    static const char *const paths[2] = {"metrics.window.began", "metrics.window.ended"};
    for (int i = 0; i < 2; i++) {
        if (!ts[i]->tv_sec)
            continue; /* no measured step ran */
        struct tm tm;
        time_t sec = ts[i]->tv_sec;
        gmtime_r(&sec, &tm);
        char day[32], text[48];
        strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(text, sizeof text, "%s.%03ldZ", day, ts[i]->tv_nsec / 1000000);
        sb_str(&x->sb, paths[i], text);
    }
}

/* metrics: step samples, throughput, per-family time, goodput. */
static void put_metrics(receipt_ctx *x)
{
    step_builder *sb = &x->sb;
    const step_options *opt = x->opt;
    const step_result *res = x->res;
    long steps = x->steps;
    sb_int(sb, "metrics.window.warmup_steps", opt->warmup);
    sb_int(sb, "metrics.window.measured_steps", steps);
    /* the step runner compiles nothing and captures no CUDA graph: none inside the window */
    sb_int(sb, "metrics.window.recompiles", 0);
    sb_int(sb, "metrics.window.graph_recaptures", 0);
    /* --profile-steps A:B: the measured steps the CUDA profiler captured (their times hold its overhead) */
    sb_int(sb, "metrics.window.profiled_steps", res->profiled ? opt->profile_last - opt->profile_first + 1 : 0);
    put_window_times(x);
    double measured_s = 0.0;
    for (long i = 0; i < steps; i++) {
        sb_check(sb, mcpp_builder_add_step_sample(sb->b, res->samples[i]), "metrics.step_time_s.samples");
        measured_s += res->samples[i];
    }
    double median; /* the receipt's own median of the samples (the mean if that fails) */
    if (mcpp_quantile(&median, res->samples, (size_t)steps, 0.5) != MCPP_OK)
        median = measured_s / (double)steps;
    sb_dbl(sb, "metrics.tokens_per_s", median > 0 ? (double)x->useful_tokens / median : 0.0);
    sb_dbl(sb, "metrics.peak_memory_gib", (double)res->peak_bytes / (1024.0 * 1024.0 * 1024.0));
    static const char *const fam_paths[4] = {"metrics.per_family_ms.A", "metrics.per_family_ms.M",
                                             "metrics.per_family_ms.E", "metrics.per_family_ms.R"};
    double busy = res->window.embed_s + res->window.head_s;
    for (int f = 0; f < 4; f++) {
        busy += res->window.family_s[f];
        if (step_has(opt, "AMER"[f])) sb_dbl(sb, fam_paths[f], 1e3 * res->window.family_s[f] / (double)steps);
    }
    /* Useful time: busy time less the E share spent on padding rows. */
    const mcpp_kernel_moe_stats *ms = &res->window.moe;
    double waste = x->waste = ms->computed_rows ? 1.0 - (double)ms->useful_rows / (double)ms->computed_rows : 0.0;
    double useful_s = busy - res->window.family_s[2] * waste;
    if (busy > measured_s) busy = measured_s;
    if (useful_s > busy) useful_s = busy;
    if (useful_s < 0) useful_s = 0;
    sb_dbl(sb, "metrics.goodput.allocated_s", res->allocated_s);
    sb_dbl(sb, "metrics.goodput.kernel_busy_s", busy);
    sb_dbl(sb, "metrics.goodput.useful_s", useful_s);
    sb_dbl(sb, "metrics.goodput.badput_s.compile", 0.0);
    sb_dbl(sb, "metrics.goodput.badput_s.warmup", res->warmup_s);
    sb_dbl(sb, "metrics.goodput.badput_s.data", res->data_s);
    double idle = res->allocated_s - res->warmup_s - res->data_s - measured_s;
    sb_dbl(sb, "metrics.goodput.badput_s.idle", idle > 0 ? idle : 0.0);

}

/* 1 when --accelerator named a device that the one the run observed does
 * not satisfy (through the shipped alias table, so "H100" is satisfied by
 * "NVIDIA H100 80GB HBM3"); `why` then says what was asked and what ran. */
static int accelerator_not_satisfied(const receipt_ctx *x, char *why, size_t cap)
{
    if (!x->opt->accelerator) return 0;
    char buf[320];
    const char *observed = observed_accelerator(x, buf, sizeof buf);
    int ok = 0;
    if (mcpp_accelerator_satisfies(&ok, NULL, 0, NULL, x->opt->accelerator, observed) != MCPP_OK || ok)
        return 0;
    snprintf(why, cap, "requested accelerator %s, ran on %s", x->opt->accelerator, observed);
    return 1;
}

/* status and caveats, in plain words. */
static void put_status(receipt_ctx *x)
{
    step_builder *sb = &x->sb;
    const step_options *opt = x->opt;
    const step_result *res = x->res;
    const mcpp_kernel_dispatch *d = x->d;
    char *buf = x->buf;
    int on_cuda = x->on_cuda;
    size_t e_layers = x->e_layers;
    int fell_back = d->fallback_count > 0;
    int verify_failed = res->verify_ran && !res->verify_passed;
    const mcpp_kernel_moe_stats *ms = &res->window.moe;
    double waste = x->waste;
    char other_device[512];
    int wrong_device = accelerator_not_satisfied(x, other_device, sizeof other_device);
    sb_str(sb, "status.outcome", verify_failed ? "failed" : "ok");
    sb_str(sb, "status.stability", fell_back || verify_failed || wrong_device ? "unstable" : "stable");
    if (verify_failed) {
        snprintf(buf, sizeof x->buf, "verification failed: max relative error %.3g over tolerance %.3g",
                 res->verify_max_rel_err, res->verify_tolerance);
        sb_str(sb, "status.blocker", buf);
    } else if (fell_back) {
        snprintf(buf, sizeof x->buf, "requested CUDA ran on the CPU: %s", d->fallback_reason);
        sb_str(sb, "status.blocker", buf);
    } else if (wrong_device) {
        sb_str(sb, "status.blocker", other_device);
    }
    sb_add(sb, "status.caveats", "forward-only: no backward pass");
    if (wrong_device) sb_add(sb, "status.caveats", other_device);
    if (fell_back) {
        snprintf(buf, sizeof x->buf, "fallback: requested cuda, ran on the CPU (%s)", d->fallback_reason);
        sb_add(sb, "status.caveats", buf);
    }
    if (!on_cuda) sb_add(sb, "status.caveats", "CPU run: attention, scan and recurrence use the C reference kernels; peak memory is tracked host allocations");
    if (!res->verify_ran) sb_add(sb, "status.caveats", "verification skipped (--no-verify)");
    if (opt->profile_first >= 0 && !res->profiled)
        sb_add(sb, "status.caveats", "--profile-steps ignored: no CUDA profiler on the CPU path");
    if (e_layers) {
        if (ms->dropped) {
            snprintf(buf, sizeof x->buf, "MoE dropped %.1f%% of expert assignments to capacity (%zu of %zu)",
                     100.0 * (double)ms->dropped / (double)(ms->dropped + ms->useful_rows), ms->dropped,
                     ms->dropped + ms->useful_rows);
            sb_add(sb, "status.caveats", buf);
        }
        if (ms->computed_rows > ms->useful_rows) {
            snprintf(buf, sizeof x->buf, "MoE %s lane computed %.1f%% padding rows (%zu computed for %zu useful)",
                     mcpp_kernel_moe_lane_name(opt->lane), 100.0 * waste, ms->computed_rows, ms->useful_rows);
            sb_add(sb, "status.caveats", buf);
        }
        if (res->imbalance_mean > 1.5) {
            snprintf(buf, sizeof x->buf, "routing imbalance: busiest expert gets %.2fx the mean load (%s data)",
                     res->imbalance_mean, res->data_real ? "real" : "synthetic");
            sb_add(sb, "status.caveats", buf);
        }
    }

}

/* extra: the accounting behind the headline numbers. */
static void put_extra(receipt_ctx *x)
{
    step_builder *sb = &x->sb;
    const step_options *opt = x->opt;
    const step_result *res = x->res;
    const mcpp_kernel_stack_config *c = x->c;
    char *buf = x->buf;
    long steps = x->steps;
    size_t e_layers = x->e_layers;
    const mcpp_kernel_moe_stats *ms = &res->window.moe;
    double waste = x->waste;
    snprintf(buf, sizeof x->buf,
             "{\"computed_rows\":%zu,\"useful_rows\":%zu,\"dropped_assignments\":%zu,"
             "\"dropped_token_layers\":%zu,\"waste_fraction\":%.6f,\"useful_gflop\":%.6f,"
             "\"computed_gflop\":%.6f,\"e_layers\":%zu}",
             ms->computed_rows, ms->useful_rows, ms->dropped, ms->dropped_tokens, waste,
             ms->flops_useful * 1e-9, ms->flops_computed * 1e-9, e_layers);
    if (e_layers) sb_json(sb, "extra.moe_rows", buf);
    if (e_layers) {
        snprintf(buf, sizeof x->buf, "{\"mean_max_over_mean\":%.6f,\"max_max_over_mean\":%.6f,\"data\":\"%s\"}",
                 res->imbalance_mean, res->imbalance_max, res->data_real ? "real" : "synthetic");
        sb_json(sb, "extra.routing_imbalance", buf);
    }
    snprintf(buf, sizeof x->buf,
             "{\"embedding_ms\":%.6f,\"lm_head_ms\":%.6f,\"setup_s\":%.6f,\"verify_step\":%ld,"
             "\"verify_tolerance\":%g,\"threads\":%d,\"cpu_gemm\":\"%s\",\"d_ff\":%zu,\"state\":%zu,"
             "\"heads\":%zu,\"d_model\":%zu,\"vocab\":%zu,\"seed\":%llu}",
             1e3 * res->window.embed_s / (double)steps, 1e3 * res->window.head_s / (double)steps,
             res->setup_s, res->verify_step, res->verify_tolerance, opt->threads,
             mcpp_kernel_gemm_impl_name(opt->cpu_gemm), c->moe.d_ff, c->state, c->heads, c->d_model,
             res->data_real ? (size_t)0 : c->vocab, (unsigned long long)c->seed);
    sb_json(sb, "extra.step", buf);
    if (opt->profile_first >= 0) {
        snprintf(buf, sizeof x->buf, "{\"first\":%ld,\"last\":%ld,\"captured\":%s}", opt->profile_first,
                 opt->profile_last, res->profiled ? "true" : "false");
        sb_json(sb, "extra.profile_steps", buf);
    }

}

/* Validates the built receipt and writes it (--out FILE, else stdout);
 * the exit code. */
static int finish_receipt(receipt_ctx *x)
{
    const step_options *opt = x->opt;
    mcpp_receipt *receipt = NULL;
    mcpp_report *report = NULL;
    char *text = NULL;
    int exit_code = STEP_EXIT_INTERNAL; /* until the receipt is written */
    do {
        if (x->sb.rc != 0) {
            fprintf(stderr, "mcpp-step: internal error setting %s: %s\n", x->sb.failed_path,
                    mcpp_error_last()->message);
            break;
        }
        if (mcpp_builder_finish(&receipt, &report, x->sb.b) != 0) {
            fprintf(stderr, "mcpp-step: the receipt does not validate:\n");
            for (size_t i = 0; i < mcpp_report_count(report); i++)
                fprintf(stderr, "  %s\n", mcpp_report_at(report, i)->message);
            break;
        }
        for (size_t i = 0; i < mcpp_report_count(report); i++)
            fprintf(stderr, "mcpp-step: warning: %s\n", mcpp_report_at(report, i)->message);
        if (opt->out) {
            if (mcpp_receipt_write_file(receipt, opt->out, MCPP_FORMAT_AUTO) != 0) {
                fprintf(stderr, "mcpp-step: --out: %s\n", mcpp_error_last()->message);
                break;
            }
            if (!opt->quiet) fprintf(stderr, "mcpp-step: wrote %s\n", opt->out);
        } else {
            if (mcpp_receipt_write(&text, NULL, receipt, MCPP_FORMAT_JSON) != 0) {
                fprintf(stderr, "mcpp-step: %s\n", mcpp_error_last()->message);
                break;
            }
            fputs(text, stdout);
        }
        int verify_failed = x->res->verify_ran && !x->res->verify_passed;
        exit_code = verify_failed ? STEP_EXIT_VERIFY_FAILED : STEP_EXIT_OK;
    } while (0);
    mcpp_free(text);
    mcpp_report_free(report);
    mcpp_receipt_free(receipt);
    return exit_code;
}

int step_write_receipt(const step_options *opt, const step_result *res)
{
    receipt_ctx x = {0};
    x.opt = opt;
    x.res = res;
    x.c = &opt->stack;
    x.d = &res->dispatch;
    x.on_cuda = x.d->observed_backend == MCPP_KERNEL_BACKEND_CUDA;
    x.N = x.c->batch * x.c->seq_len;
    x.steps = opt->steps;
    x.e_layers = step_count_family(opt, 'E');
    if (mcpp_builder_new(&x.sb.b) != 0) {
        fprintf(stderr, "mcpp-step: %s\n", mcpp_error_last()->message);
        return STEP_EXIT_INTERNAL;
    }
    put_source_and_lane(&x);
    put_workload(&x);
    put_backend(&x);
    put_hardware(&x);
    put_metrics(&x);
    put_status(&x);
    put_extra(&x);
    int exit_code = finish_receipt(&x);
    mcpp_builder_free(x.sb.b);
    return exit_code;
}
