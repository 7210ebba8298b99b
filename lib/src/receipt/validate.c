/*
 * validate.c — rules that span more than one field, run on the staging struct
 * after binding (so they see typed values, whichever format the input was):
 * schema id, RFC 3339 time, the A/M/E/R pattern and what it implies (routing,
 * family), samples against the stated statistics, and requested-vs-observed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/block_families.h"
#include "receipt/fields.h"
#include "receipt/load_ctx.h"
#include "receipt/quality_metrics.h"
#include "receipt/request_pairs.h"
#include "receipt/schema.h"
#include "util/quantile.h"
#include "util/rfc3339.h"
#include "util/strbuf.h"

#define P(id) mcpp_present(r, MCPP_F_##id)
#define PATH(id) mcpp_schema_entries[MCPP_F_##id].info.path

static void check_stat(mcpp_load_ctx *ctx, const char *path, double stated, double derived,
                       const char *what, size_t n)
{
    if (mcpp_rel_differs(stated, derived)) {
        char a[40], b[40];
        mcpp_format_double(a, sizeof a, stated, 0);
        mcpp_format_double(b, sizeof b, derived, 0);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", path, 0,
                         "expected the %s of the %zu samples (%s, within 0.5%%), got %s", what, n,
                         b, a);
    }
}

/* schema, created_at and id. */
static void check_identity(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    const mcpp_fields *f = &r->f;
    if (!P(schema)) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "missing", "schema", 1,
                         "required field is missing, expected \"%s\"", MCPP_SCHEMA_ID);
    } else if (strcmp(f->schema, MCPP_SCHEMA_ID) != 0) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "enum", "schema", 0,
                         "expected \"%s\" (or \"%s\", read and upgraded), got \"%s\"",
                         MCPP_SCHEMA_ID, MCPP_SCHEMA_ID_V1, f->schema);
    }
    if (P(created_at) && !mcpp_is_rfc3339(f->created_at))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", "created_at", 0,
                         "expected an RFC 3339 time such as \"2026-11-22T01:02:03Z\", got \"%s\"",
                         f->created_at);
    if (P(id) && f->id[0] == '\0')
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "range", "id", 0,
                         "expected a non-empty id, got \"\"");
}

/* lane.pattern: its letters, and what they imply for routing, family and depth. */
static void check_pattern(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    const mcpp_fields *f = &r->f;
    int has_e = 0, pattern_ok = 0;
    if (P(lane_pattern)) {
        const char *p = f->lane_pattern;
        pattern_ok = 1;
        if (!*p) {
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "range", PATH(lane_pattern), 0,
                             "expected at least one of the letters A, M, E, R, got \"\"");
            pattern_ok = 0;
        }
        for (size_t i = 0; p[i]; i++) {
            if (!mcpp_block_letter_valid(p[i])) {
                mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "enum", PATH(lane_pattern), 0,
                                 "expected only the letters A, M, E, R, got '%c' at position %zu "
                                 "of \"%s\"",
                                 p[i], i + 1, p);
                pattern_ok = 0;
                break;
            }
            if (p[i] == 'E')
                has_e = 1;
        }
        if (has_e && !P(routing_mode))
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "missing", PATH(routing_mode), 1,
                             "required because lane.pattern \"%s\" has E (MoE) blocks, expected "
                             "one of \"token_choice\", \"expert_choice\"",
                             p);
        if (pattern_ok)
            mcpp_validate_family(ctx, r, has_e);
        if (pattern_ok && P(lane_depth) && f->lane_depth < (int64_t)strlen(p))
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "consistency", PATH(lane_depth), 0,
                             "depth %lld is shorter than the pattern \"%s\" (%zu blocks)",
                             (long long)f->lane_depth, p, strlen(p));
    }
    if (!P(lane_pattern) && P(lane_family))
        mcpp_validate_family(ctx, r, 0);
}

/* Counts that cannot exceed their totals. */
static void check_counts(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    const mcpp_fields *f = &r->f;
    if (P(lane_params_active) && P(lane_params_total) &&
        f->lane_params_active > f->lane_params_total)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", PATH(lane_params_active), 0,
                         "expected at most lane.params_total (%lld), got %lld",
                         (long long)f->lane_params_total, (long long)f->lane_params_active);
    if (P(workload_useful_tokens_per_step) && P(workload_tokens_per_step) &&
        f->workload_useful_tokens_per_step > f->workload_tokens_per_step)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency",
                         PATH(workload_useful_tokens_per_step), 0,
                         "expected at most workload.tokens_per_step (%lld), got %lld",
                         (long long)f->workload_tokens_per_step,
                         (long long)f->workload_useful_tokens_per_step);
    if (P(routing_top_k) && P(routing_num_experts) && f->routing_top_k > f->routing_num_experts)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", PATH(routing_top_k), 0,
                         "expected at most routing.num_experts (%lld), got %lld",
                         (long long)f->routing_num_experts, (long long)f->routing_top_k);
}

/* Step statistics: their order, then their agreement with the samples.
 * Returns the samples' median (NAN without samples), which check_throughput
 * reuses instead of sorting the samples again. */
/* The median, p10 and p90 of the step samples. When the median is stated,
 * the stated figures that sit between the ranks they interpolate are read in
 * one pass (mcpp_quantiles_near); else the samples are sorted (which was ~7%
 * of a load). */
static void samples_quantiles(const mcpp_fields *f, int has_med, int has_p10, int has_p90, double *med, double *p10,
                              double *p90)
{
    const double *s = f->metrics_step_time_s_samples.items;
    size_t n = f->metrics_step_time_s_samples.count, k = 0;
    double q[3], stated[3], found[3];
    if (has_med) {
        q[k] = 0.5;
        stated[k++] = f->metrics_step_time_s_median;
        if (has_p10) {
            q[k] = 0.1;
            stated[k++] = f->metrics_step_time_s_p10;
        }
        if (has_p90) {
            q[k] = 0.9;
            stated[k++] = f->metrics_step_time_s_p90;
        }
    }
    if (!k || !mcpp_quantiles_near(found, s, n, q, stated, k)) {
        mcpp_sample_stats(s, n, med, p10, p90);
        return;
    }
    *med = found[0];
    if (has_p10)
        *p10 = found[1];
    if (has_p90)
        *p90 = found[k - 1];
}

static double check_step_stats(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    double samples_median = NAN;
    const mcpp_fields *f = &r->f;
    int has_med = P(metrics_step_time_s_median), has_p10 = P(metrics_step_time_s_p10),
        has_p90 = P(metrics_step_time_s_p90);
    if (has_p10 && has_med && f->metrics_step_time_s_p10 > f->metrics_step_time_s_median)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "range", PATH(metrics_step_time_s_p10), 0,
                         "expected p10 <= median (%g), got %g", f->metrics_step_time_s_median,
                         f->metrics_step_time_s_p10);
    if (has_p90 && has_med && f->metrics_step_time_s_median > f->metrics_step_time_s_p90)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "range", PATH(metrics_step_time_s_p90), 0,
                         "expected p90 >= median (%g), got %g", f->metrics_step_time_s_median,
                         f->metrics_step_time_s_p90);
    if (P(metrics_step_time_s_samples) && f->metrics_step_time_s_samples.count > 0) {
        size_t n = f->metrics_step_time_s_samples.count;
        double med = NAN, p10 = NAN, p90 = NAN;
        samples_quantiles(f, has_med, has_p10, has_p90, &med, &p10, &p90);
        samples_median = med;
        if (has_med)
            check_stat(ctx, PATH(metrics_step_time_s_median), f->metrics_step_time_s_median, med,
                       "median", n);
        if (has_p10)
            check_stat(ctx, PATH(metrics_step_time_s_p10), f->metrics_step_time_s_p10, p10,
                       "10th percentile", n);
        if (has_p90)
            check_stat(ctx, PATH(metrics_step_time_s_p90), f->metrics_step_time_s_p90, p90,
                       "90th percentile", n);
        if (P(metrics_window_measured_steps) &&
            (int64_t)n != f->metrics_window_measured_steps)
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "consistency",
                             PATH(metrics_window_measured_steps), 0,
                             "%lld measured steps but %zu step samples",
                             (long long)f->metrics_window_measured_steps, n);
    }
    return samples_median;
}

/* The stated tokens/s must be the useful tokens of a step over the median
 * step time (stated, else of the samples): a headline that disagrees with its
 * own inputs by more than 1% is not a measurement. */
static void check_throughput(mcpp_load_ctx *ctx, const mcpp_receipt *r, double samples_median)
{
    const mcpp_fields *f = &r->f;
    if (!P(metrics_tokens_per_s) || !P(workload_useful_tokens_per_step)) return;
    double median = 0;
    if (P(metrics_step_time_s_median)) median = f->metrics_step_time_s_median;
    else if (P(metrics_step_time_s_samples) && f->metrics_step_time_s_samples.count > 0)
        median = samples_median; /* check_step_stats sorted them */
    if (!(median > 0)) return;
    double expected = (double)f->workload_useful_tokens_per_step / median;
    if (fabs(f->metrics_tokens_per_s - expected) > 0.01 * expected)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", PATH(metrics_tokens_per_s), 0,
                         "expected workload.useful_tokens_per_step / median step time = %lld / %g s = %.6g "
                         "(within 1%%), got %.6g",
                         (long long)f->workload_useful_tokens_per_step, median, expected, f->metrics_tokens_per_s);
}

/* Goodput layers nest (useful <= kernel busy <= allocated) and the time lost
 * cannot exceed the time allocated. */
static void check_goodput(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    const mcpp_fields *f = &r->f;
    const double slack = 1e-9;
    if (P(metrics_goodput_useful_s) && P(metrics_goodput_kernel_busy_s) &&
        f->metrics_goodput_useful_s > f->metrics_goodput_kernel_busy_s * (1 + slack))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", PATH(metrics_goodput_useful_s), 0,
                         "expected at most metrics.goodput.kernel_busy_s (%g), got %g",
                         f->metrics_goodput_kernel_busy_s, f->metrics_goodput_useful_s);
    if (P(metrics_goodput_kernel_busy_s) && P(metrics_goodput_allocated_s) &&
        f->metrics_goodput_kernel_busy_s > f->metrics_goodput_allocated_s * (1 + slack))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", PATH(metrics_goodput_kernel_busy_s), 0,
                         "expected at most metrics.goodput.allocated_s (%g), got %g",
                         f->metrics_goodput_allocated_s, f->metrics_goodput_kernel_busy_s);
    if (P(metrics_goodput_useful_s) && P(metrics_goodput_allocated_s) &&
        f->metrics_goodput_useful_s > f->metrics_goodput_allocated_s * (1 + slack))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", PATH(metrics_goodput_useful_s), 0,
                         "expected at most metrics.goodput.allocated_s (%g), got %g",
                         f->metrics_goodput_allocated_s, f->metrics_goodput_useful_s);
    if (!P(metrics_goodput_allocated_s)) return;
    double badput = 0;
    int any = 0;
#define ADD_BADPUT(name) \
    if (P(metrics_goodput_badput_s_##name)) badput += f->metrics_goodput_badput_s_##name, any = 1;
    ADD_BADPUT(compile) ADD_BADPUT(warmup) ADD_BADPUT(data) ADD_BADPUT(checkpoint) ADD_BADPUT(eval) ADD_BADPUT(idle)
#undef ADD_BADPUT
    if (any && badput > f->metrics_goodput_allocated_s * (1 + slack))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", PATH(metrics_goodput_allocated_s), 0,
                         "expected the badput_s sum (%g) to be at most allocated_s, got allocated_s %g",
                         badput, f->metrics_goodput_allocated_s);
}

static void require_observed(mcpp_load_ctx *ctx, const mcpp_receipt *r, int requested, int observed)
{
    if (requested >= 0 && mcpp_present(r, requested) && !mcpp_present(r, observed))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "missing", mcpp_schema_entries[observed].info.path, 1,
                         "required because %s is stated: a receipt must say what actually "
                         "ran, not only what was asked for",
                         mcpp_schema_entries[requested].info.path);
}

/* Wherever something was requested, what was observed must be stated too
 * (every pair of receipt/request_pairs.h). */
static void check_observed_stated(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    for (size_t i = 0; i < MCPP_REQUEST_PAIR_COUNT; i++) {
        const mcpp_request_pair *pr = &mcpp_request_pairs[i];
        require_observed(ctx, r, pr->requested, pr->observed);
        require_observed(ctx, r, pr->requested_count, pr->observed_count);
    }
}

/* A fallback "family:from->to" says `to` ran for that family: a receipt
 * whose observed backend for the family is another one contradicts itself
 * (issue 47 item 7), e.g. attention:flash->sdpa with flash observed. The
 * family is a label of the request table; other items are not checked. */
static void check_fallbacks_observed(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    if (!mcpp_present(r, MCPP_F_backend_fallbacks))
        return;
    const mcpp_string_list *list = &r->f.backend_fallbacks;
    for (size_t k = 0; k < list->count; k++) {
        const char *item = list->items[k], *colon = strchr(item, ':'), *arrow = strstr(item, "->");
        if (!colon || !arrow || arrow < colon)
            continue;
        for (size_t i = 0; i < MCPP_REQUEST_PAIR_COUNT; i++) {
            const mcpp_request_pair *pr = &mcpp_request_pairs[i];
            if (strlen(pr->label) != (size_t)(colon - item) || strncmp(pr->label, item, (size_t)(colon - item)) != 0 ||
                !mcpp_present(r, pr->observed) ||
                strncmp(mcpp_schema_entries[pr->observed].info.path, "backend.", 8) != 0)
                continue;
            const char *observed = *(const char *const *)mcpp_field_cptr(&r->f, pr->observed);
            const char *to = arrow + 2;
            int differs = observed && strcmp(observed, to) != 0;
            if (differs && pr->observed == MCPP_F_backend_precision_observed) { /* recipes are sets */
                char ran[128], said[128];
                mcpp_precision_recipe_canonical(ran, sizeof ran, observed);
                mcpp_precision_recipe_canonical(said, sizeof said, to);
                differs = strcmp(ran, said) != 0;
            }
            if (differs)
                mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "consistency",
                                 mcpp_schema_entries[MCPP_F_backend_fallbacks].info.path, 0,
                                 "fallback \"%s\" says %s ran for %s, but %s is \"%s\": one of them is "
                                 "wrong",
                                 item, to, pr->label, mcpp_schema_entries[pr->observed].info.path, observed);
        }
    }
}

/* Per-family timings must fit the stack and the step (issue 47 item 5): time
 * in blocks the pattern has none of, or families that together take longer
 * than the longest measured step, are a receipt that contradicts itself. */
static void check_per_family(mcpp_load_ctx *ctx, const mcpp_receipt *r, double samples_median)
{
    const mcpp_fields *f = &r->f;
    static const struct {
        char letter;
        int id;
    } fam[] = {{'A', MCPP_F_metrics_per_family_ms_A},
               {'M', MCPP_F_metrics_per_family_ms_M},
               {'E', MCPP_F_metrics_per_family_ms_E},
               {'R', MCPP_F_metrics_per_family_ms_R}};
    double sum_ms = 0;
    int any = 0;
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
        if (!mcpp_present(r, fam[i].id))
            continue;
        double ms = *(const double *)mcpp_field_cptr(f, fam[i].id);
        sum_ms += ms;
        any = 1;
        if (ms > 0 && P(lane_pattern) && !strchr(f->lane_pattern, fam[i].letter))
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "consistency", mcpp_schema_entries[fam[i].id].info.path, 0,
                             "%g ms per step in %c blocks, but lane.pattern \"%s\" has no %c block", ms, fam[i].letter,
                             f->lane_pattern, fam[i].letter);
    }
    /* the longest step the receipt states: the slowest sample, else p90, else the median */
    double longest = NAN;
    if (P(metrics_step_time_s_samples) && f->metrics_step_time_s_samples.count > 0) {
        longest = 0;
        for (size_t i = 0; i < f->metrics_step_time_s_samples.count; i++)
            longest = fmax(longest, f->metrics_step_time_s_samples.items[i]);
    } else if (P(metrics_step_time_s_p90)) {
        longest = f->metrics_step_time_s_p90;
    } else if (P(metrics_step_time_s_median)) {
        longest = f->metrics_step_time_s_median;
    } else {
        longest = samples_median;
    }
    if (any && isfinite(longest) && sum_ms > longest * 1000 * 1.05)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "consistency", "metrics.per_family_ms", 0,
                         "the families take %g ms per step together, longer than the longest measured step "
                         "(%g ms): per-family timings must fit inside the step",
                         sum_ms, longest * 1000);
}

/* Generated launch arguments against the lane they were generated from
 * (issue 47 item 6; the notes: translation is a fail-closed planning step):
 * a Megatron-style flag whose value contradicts the receipt's own field is a
 * warning, and so is a hybrid layer pattern flag on a stack of attention only
 * (a warning, not an error: receipts edited by hand for a study keep
 * loading; `validate` prints it beside the file). */
static void check_generated_args(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    static const struct {
        const char *flag;
        int id;
    } flags[] = {
        {"--num-layers", MCPP_F_lane_depth},
        {"--hidden-size", MCPP_F_lane_d_model},
        {"--num-attention-heads", MCPP_F_lane_heads},
        {"--tensor-model-parallel-size", MCPP_F_topology_tp},
        {"--pipeline-model-parallel-size", MCPP_F_topology_pp},
        {"--expert-model-parallel-size", MCPP_F_topology_ep},
        {"--context-parallel-size", MCPP_F_topology_cp},
        {"--seq-length", MCPP_F_workload_seq_len},
        {"--micro-batch-size", MCPP_F_workload_micro_batch},
        {"--global-batch-size", MCPP_F_workload_global_batch},
        {"--num-experts", MCPP_F_routing_num_experts},
        {"--moe-router-topk", MCPP_F_routing_top_k},
    };
    const mcpp_fields *f = &r->f;
    if (!P(launch_generated_args))
        return;
    for (size_t k = 0; k < f->launch_generated_args.count; k++) {
        const char *arg = f->launch_generated_args.items[k];
        size_t name_len = strcspn(arg, " =");
        if (strncmp(arg, "--hybrid-override-pattern", name_len) == 0 && name_len == 25 && P(lane_pattern) &&
            strspn(f->lane_pattern, "A") == strlen(f->lane_pattern))
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "consistency", PATH(launch_generated_args), 0,
                             "generated argument \"%s\" is a hybrid layer pattern, but lane.pattern \"%s\" "
                             "has attention blocks only: the launch was generated for another lane",
                             arg, f->lane_pattern);
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
            if (strlen(flags[i].flag) != name_len || strncmp(arg, flags[i].flag, name_len) != 0 ||
                !mcpp_present(r, flags[i].id) || !arg[name_len])
                continue;
            char *end;
            long long said = strtoll(arg + name_len + 1, &end, 10);
            int64_t has = mcpp_int_slot_read(mcpp_field_cptr(f, flags[i].id), mcpp_schema_entries[flags[i].id].storage);
            if (end != arg + name_len + 1 && said != has)
                mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "consistency", PATH(launch_generated_args), 0,
                                 "generated argument \"%s\" contradicts %s %lld: the launch was generated "
                                 "for another lane",
                                 arg, mcpp_schema_entries[flags[i].id].info.path, (long long)has);
        }
    }
}

/* A quality value is compared in its metric's direction (the registry,
 * data/quality_metrics.tsv): one without a metric, or with a metric the
 * registry does not know, is never compared; say so when it is loaded. */
static void check_quality(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    if (!P(quality_achieved) && !P(quality_target))
        return;
    mcpp_direction dir;
    if (!P(quality_metric))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "missing", PATH(quality_metric), 1,
                         "a quality value needs its metric: without one it is never compared");
    else if (!mcpp_quality_direction_of(&dir, r))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "enum", PATH(quality_metric), 0,
                         "\"%s\" is not in the quality metric registry (data/quality_metrics.tsv): "
                         "which way it is better is unknown, so quality.achieved is never compared",
                         r->f.quality_metric);
}

void mcpp_validate(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    const mcpp_fields *f = &r->f;
    check_identity(ctx, r);
    check_pattern(ctx, r);
    mcpp_validate_v2(ctx, r);
    mcpp_validate_metrics(ctx, r);
    check_counts(ctx, r);
    double samples_median = check_step_stats(ctx, r);
    check_throughput(ctx, r, samples_median);
    check_per_family(ctx, r, samples_median);
    check_generated_args(ctx, r);
    check_goodput(ctx, r);
    check_observed_stated(ctx, r);
    check_fallbacks_observed(ctx, r);
    check_quality(ctx, r);
    if (P(status_stability) && f->status_stability != 0 && !P(status_blocker))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "missing", PATH(status_blocker), 1,
                         "a lane that is not stable should name its next blocker");
}
