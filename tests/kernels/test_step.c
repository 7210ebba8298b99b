/*
 * test_step.c — mcpp-step end to end: the receipts it writes load and
 * validate through the library, carry the measured window, the per-family
 * time, the MoE accounting, verification, and the data path; CUDA without a
 * device is exit 3 unless --allow-fallback, which is then recorded; an
 * --accelerator the run does not satisfy makes it unstable; bad input is
 * exit 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../test_util.h"
#include "mcpp_kernels/device.h"
#include "mcpp_receipts.h"

#define SMALL "--d-model 32 --heads 2 --seq-len 32 --batch 2 --experts 4 --top-k 2 --quiet"

static int run_step(const char *args, const char *out_name)
{
    char cmd[2048];
    if (out_name)
        snprintf(cmd, sizeof cmd, "'%s' %s --out '%s/%s' 2>/dev/null", MCPP_STEP_EXE, args,
                 MCPP_TEST_OUT_DIR, out_name);
    else
        snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", MCPP_STEP_EXE, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* What mcpp-step prints on stderr for `args` (into out, cap bytes). */
static void step_stderr(char *out, size_t cap, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1 >/dev/null", MCPP_STEP_EXE, args);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, cap - 1, p) : 0;
    out[n] = '\0';
    if (p)
        pclose(p);
}

static mcpp_receipt *load(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MCPP_TEST_OUT_DIR, name);
    mcpp_receipt *r = NULL;
    mcpp_report *rep = NULL;
    int rc = mcpp_receipt_load_file(&r, &rep, path, NULL);
    if (rc != 0) {
        fprintf(stderr, "load %s failed: %s\n", path, mcpp_error_last()->message);
        for (size_t i = 0; i < mcpp_report_count(rep); i++)
            fprintf(stderr, "  %s\n", mcpp_report_at(rep, i)->message);
    }
    mcpp_report_free(rep);
    return r;
}

static const char *str(const mcpp_receipt *r, const char *path)
{
    mcpp_value v = MCPP_VALUE_INIT;
    if (mcpp_receipt_get(r, path, &v) != 0) return NULL;
    return (v.type == MCPP_TYPE_STRING || v.type == MCPP_TYPE_ENUM) ? v.string : NULL;
}

static long long num(const mcpp_receipt *r, const char *path)
{
    mcpp_value v = MCPP_VALUE_INIT;
    if (mcpp_receipt_get(r, path, &v) != 0) return -1;
    return v.type == MCPP_TYPE_INT ? v.integer : -1;
}

static double dbl(const mcpp_receipt *r, const char *path)
{
    mcpp_value v = MCPP_VALUE_INIT;
    if (mcpp_receipt_get(r, path, &v) != 0) return -1;
    if (v.type == MCPP_TYPE_DOUBLE) return v.number;
    if (v.type == MCPP_TYPE_INT) return (double)v.integer;
    return -1;
}

static int list_has(const mcpp_receipt *r, const char *path, const char *needle)
{
    mcpp_value v = MCPP_VALUE_INIT;
    if (mcpp_receipt_get(r, path, &v) != 0 || v.type != MCPP_TYPE_STRING_LIST) return 0;
    for (size_t i = 0; i < v.count; i++)
        if (strstr(v.strings[i], needle)) return 1;
    return 0;
}

TEST(a_cpu_moe_run_writes_a_receipt_that_validates_and_carries_the_window)
{
    CHECK_INT_EQ(run_step("--pattern AEMEAEMEAEMR --moe-lane padded --steps 3 --warmup 2 " SMALL,
                          "padded.json"),
                 0);
    mcpp_receipt *r = load("padded.json");
    CHECK(r != NULL);
    if (!r) return;
    CHECK_STR_EQ(str(r, "source.tool"), "mcpp-step");
    CHECK_CONTAINS(str(r, "source.command"), "--moe-lane padded");
    CHECK_STR_EQ(str(r, "lane.family"), "NAM12R");
    CHECK_STR_EQ(str(r, "lane.pattern"), "AEMEAEMEAEMR");
    CHECK_INT_EQ(num(r, "metrics.window.warmup_steps"), 2);
    CHECK_INT_EQ(num(r, "metrics.window.measured_steps"), 3);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(r, "metrics.step_time_s.samples", &v), 0);
    CHECK_INT_EQ(v.count, 3);
    /* the window's capture (issue 47 item 11): its UTC times, to the millisecond, in order, within
     * the run; nothing compiled, captured or profiled inside it (the receipt validated above) */
    CHECK_INT_EQ(num(r, "metrics.window.recompiles"), 0);
    CHECK_INT_EQ(num(r, "metrics.window.graph_recaptures"), 0);
    CHECK_INT_EQ(num(r, "metrics.window.profiled_steps"), 0);
    const char *began = str(r, "metrics.window.began"), *ended = str(r, "metrics.window.ended");
    CHECK(began && ended && strlen(began) == 24 && strlen(ended) == 24 && began[19] == '.');
    if (began && ended) {
        CHECK(strcmp(began, ended) <= 0);
        CHECK(strncmp(ended, str(r, "created_at"), 19) <= 0); /* created_at is to the second */
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/padded.json", MCPP_TEST_OUT_DIR);
    mcpp_receipt *again = NULL;
    mcpp_report *rep = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&again, &rep, path, NULL), 0);
    for (size_t i = 0; i < mcpp_report_count(rep); i++) /* the window's own checks find nothing */
        CHECK(strncmp(mcpp_report_at(rep, i)->field ? mcpp_report_at(rep, i)->field : "", "metrics.window", 14) != 0);
    mcpp_report_free(rep);
    mcpp_receipt_free(again);
    CHECK(dbl(r, "metrics.per_family_ms.A") > 0);
    CHECK(dbl(r, "metrics.per_family_ms.E") > 0);
    CHECK(dbl(r, "metrics.per_family_ms.M") > 0);
    CHECK(dbl(r, "metrics.per_family_ms.R") > 0);
    CHECK(dbl(r, "metrics.tokens_per_s") > 0);
    CHECK(dbl(r, "metrics.peak_memory_gib") > 0);
    CHECK(dbl(r, "metrics.goodput.badput_s.warmup") > 0);
    CHECK(dbl(r, "metrics.goodput.useful_s") <= dbl(r, "metrics.goodput.kernel_busy_s"));
    CHECK(dbl(r, "metrics.goodput.kernel_busy_s") <= dbl(r, "metrics.goodput.allocated_s"));
    CHECK_INT_EQ(num(r, "workload.tokens_per_step"), 64);
    CHECK(num(r, "workload.useful_tokens_per_step") <= 64);
    CHECK_STR_EQ(str(r, "workload.data.path"), "synthetic");
    CHECK_STR_EQ(str(r, "routing.overflow"), "drop");
    CHECK_STR_EQ(str(r, "backend.moe.observed"), "padded");
    CHECK_STR_EQ(str(r, "backend.gemm.observed"), "cpu_blas");
    CHECK_STR_EQ(str(r, "backend.verification.status"), "passed");
    CHECK(dbl(r, "backend.verification.max_rel_err") < 1e-3);
    CHECK_STR_EQ(str(r, "compile.posture"), "eager");
    CHECK_STR_EQ(str(r, "startup.state"), "cold_boot");
    /* On the CPU the request resolves to this host's CPU: requested == observed. */
    CHECK_CONTAINS(str(r, "hardware.observed.accelerator"), "cpu: ");
    CHECK_STR_EQ(str(r, "hardware.requested.accelerator"), str(r, "hardware.observed.accelerator"));
    CHECK(num(r, "hardware.host.cores") >= 1);
    CHECK(list_has(r, "status.caveats", "forward-only: no backward pass"));
    CHECK(list_has(r, "status.caveats", "padding rows"));
    CHECK(num(r, "extra.moe_rows.computed_rows") > num(r, "extra.moe_rows.useful_rows"));
    mcpp_receipt_free(r);
}

TEST(a_dense_run_has_no_routing_section_and_a_dense_family)
{
    CHECK_INT_EQ(run_step("--pattern A --depth 2 --steps 2 --warmup 1 " SMALL, "dense.json"), 0);
    mcpp_receipt *r = load("dense.json");
    CHECK(r != NULL);
    if (!r) return;
    CHECK_STR_EQ(str(r, "lane.family"), "NAM2");
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(r, "routing.num_experts", &v), 0);
    CHECK_INT_EQ(v.type, MCPP_TYPE_ABSENT);
    CHECK_INT_EQ(mcpp_receipt_get(r, "metrics.per_family_ms.E", &v), 0);
    CHECK_INT_EQ(v.type, MCPP_TYPE_ABSENT);
    CHECK_INT_EQ(num(r, "lane.params_total"), num(r, "lane.params_active"));
    mcpp_receipt_free(r);
}

TEST(real_data_is_recorded_as_real_with_its_dataset)
{
    CHECK_INT_EQ(run_step("--pattern AE --steps 2 --warmup 1 --data " MCPP_KERNELS_DATA_DIR
                          "/mcpp_sources.tok " SMALL,
                          "real.json"),
                 0);
    mcpp_receipt *r = load("real.json");
    CHECK(r != NULL);
    if (!r) return;
    CHECK_STR_EQ(str(r, "workload.data.path"), "real");
    CHECK_STR_EQ(str(r, "workload.data.dataset"), "mcpp-sources-c-bytes");
    CHECK(dbl(r, "extra.routing_imbalance.mean_max_over_mean") >= 1.0);
    mcpp_receipt_free(r);
}

TEST(cuda_without_a_device_exits_3_and_with_allow_fallback_records_it)
{
    mcpp_kernel_device_info dev;
    mcpp_kernel_device_query(&dev);
    if (dev.device_count > 0) {
        printf("# a CUDA device is present: the no-device case cannot be exercised here\n");
        return;
    }
    CHECK_INT_EQ(run_step("--backend cuda --pattern AE --steps 1 --warmup 0 " SMALL, NULL), 3);
    CHECK_INT_EQ(run_step("--backend cuda --allow-fallback --pattern AE --steps 1 --warmup 0 " SMALL,
                          "fallback.json"),
                 0);
    mcpp_receipt *r = load("fallback.json");
    CHECK(r != NULL);
    if (!r) return;
    CHECK_STR_EQ(str(r, "hardware.requested.accelerator"), "cuda");
    CHECK_STR_EQ(str(r, "topology.substrate"), "cpu");
    CHECK(list_has(r, "backend.fallbacks", "attention:cuda->reference"));
    CHECK(list_has(r, "backend.fallbacks", "gemm:cublas->cpu_blas"));
    CHECK(list_has(r, "backend.fallbacks", "precision:bf16->fp32"));
    CHECK(!list_has(r, "backend.fallbacks", "mamba:")); /* no M block in pattern AE */
    CHECK_STR_EQ(str(r, "backend.attention.requested"), "cuda");
    CHECK_STR_EQ(str(r, "backend.attention.observed"), "reference");
    CHECK_STR_EQ(str(r, "backend.precision"), "fp32");
    CHECK_STR_EQ(str(r, "status.stability"), "unstable");
    CHECK(list_has(r, "status.caveats", "fallback"));
    mcpp_receipt_free(r);
}

TEST(an_accelerator_request_the_run_does_not_satisfy_makes_it_unstable_saying_so)
{
    CHECK_INT_EQ(run_step("--accelerator 'NVIDIA H100 80GB HBM3' --pattern AE --steps 1 --warmup 0 " SMALL,
                          "other_device.json"),
                 0);
    mcpp_receipt *r = load("other_device.json");
    CHECK(r != NULL);
    if (!r) return;
    CHECK_STR_EQ(str(r, "hardware.requested.accelerator"), "NVIDIA H100 80GB HBM3");
    CHECK_CONTAINS(str(r, "hardware.observed.accelerator"), "cpu: ");
    CHECK_STR_EQ(str(r, "status.stability"), "unstable");
    CHECK_CONTAINS(str(r, "status.blocker"), "requested accelerator NVIDIA H100 80GB HBM3, ran on cpu: ");
    /* The comparison reads the same mismatch from the hardware fields. */
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, NULL, r, r), MCPP_OK);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_QUALIFIED);
    mcpp_comparison_free(c);

    /* Asking for the CPU it runs on, by the name the run observes, is satisfied. */
    char args[1024];
    snprintf(args, sizeof args, "--accelerator '%s' --pattern AE --steps 1 --warmup 0 " SMALL,
             str(r, "hardware.observed.accelerator"));
    mcpp_receipt_free(r);
    CHECK_INT_EQ(run_step(args, "same_device.json"), 0);
    r = load("same_device.json");
    CHECK(r != NULL);
    if (!r) return;
    CHECK_STR_EQ(str(r, "status.stability"), "stable");
    mcpp_receipt_free(r);
}

TEST(bad_input_exits_3_and_help_exits_0)
{
    CHECK_INT_EQ(run_step("--heads 3 --d-model 32", NULL), 3);
    CHECK_INT_EQ(run_step("--moe-lane ragged", NULL), 3);
    CHECK_INT_EQ(run_step("--steps 0", NULL), 3);
    CHECK_INT_EQ(run_step("--pattern AXE", NULL), 3);
    CHECK_INT_EQ(run_step("--capacity-factor -1", NULL), 3);
    CHECK_INT_EQ(run_step("--data /nonexistent.tok --steps 1", NULL), 3);
    CHECK_INT_EQ(run_step("--precision bf16", NULL), 3);
    CHECK_INT_EQ(run_step("--profile-steps 3:1", NULL), 3);
    CHECK_INT_EQ(run_step("--frobnicate 1", NULL), 3);
    CHECK_INT_EQ(run_step("--frobnicate", NULL), 3);
    char err[512];
    step_stderr(err, sizeof err, "--frobnicate"); /* last on the line: said so, not "got ''" */
    CHECK_CONTAINS(err, "mcpp-step: --frobnicate: nothing follows it: options take a value");
    CHECK_INT_EQ(run_step("--accelerator ''", NULL), 3);
    CHECK_INT_EQ(run_step("--help", NULL), 0);
}

/* issue 27: the step runner's receipts carry the schema-2 fields a real
 * launcher's do, so the two can be matched. */
TEST(step_runner_receipts_carry_the_schema_2_launch_contract_and_identity)
{
    CHECK_INT_EQ(run_step("--pattern AE --steps 2 --warmup 1 --seed 7 " SMALL, "schema2.json"), 0);
    mcpp_receipt *r = load("schema2.json");
    CHECK(r != NULL);
    if (!r) return;
    CHECK_STR_EQ(str(r, "schema"), "mcpp.receipt/2");
    CHECK(num(r, "lane.d_model") > 0);
    CHECK(num(r, "lane.heads") > 0); /* the pattern has A blocks */
    CHECK_INT_EQ(num(r, "run.seed"), 7);
    CHECK_STR_EQ(str(r, "hardware.observed.source"), "probed");
    CHECK(str(r, "hardware.observed.driver") != NULL);
    CHECK_INT_EQ(num(r, "launch.mtp_depth"), 0);
    CHECK_STR_EQ(str(r, "launch.cuda_graphs"), "off");
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(r, "features", &v), 0);
    mcpp_receipt_free(r);
}

TEST(a_family_that_is_not_this_stack_is_bad_input_and_no_family_is_invented)
{
    /* NAM56R is AEMEAEMEAEMR at depth 52: at depth 56 --family NAM56R is bad input (3) */
    CHECK_INT_EQ(run_step("--pattern AEMEAEMEAEMR --family NAM56R --depth 56 --steps 1 --warmup 0 " SMALL, NULL), 3);
    /* without --family the lane names no family it is not */
    CHECK_INT_EQ(run_step("--pattern AEMEAEMEAEMR --depth 56 --steps 1 --warmup 0 " SMALL, "depth56.json"), 0);
    mcpp_receipt *r = load("depth56.json");
    CHECK(r != NULL);
    if (!r) return;
    CHECK(str(r, "lane.family") == NULL);
    CHECK(strstr(str(r, "lane.name"), "NAM56R") == NULL);
    mcpp_receipt_free(r);
}

/* Issue 47 items 4 and 13: the threads a CPU run used are part of its
 * hardware (1 against 2 threads is never "comparable, gate passed": the
 * change is the machine, not the code), and the commit it ran is recorded
 * (--commit, else git), so its runs pool in a gate. */
TEST(cpu_threads_are_part_of_the_lane_and_the_commit_is_recorded)
{
    CHECK_INT_EQ(run_step("--pattern A --depth 2 --steps 2 --warmup 1 --threads 1 --commit 4747474 " SMALL, "t1.json"),
                 0);
    CHECK_INT_EQ(run_step("--pattern A --depth 2 --steps 2 --warmup 1 --threads 2 --commit 4747474 " SMALL, "t2.json"),
                 0);
    mcpp_receipt *a = load("t1.json"), *b = load("t2.json");
    CHECK(a != NULL && b != NULL);
    if (a && b) {
        CHECK_INT_EQ(num(a, "hardware.observed.threads"), 1);
        CHECK_INT_EQ(num(b, "hardware.observed.threads"), 2);
        CHECK_STR_EQ(str(a, "source.git_commit"), "4747474");
        mcpp_comparison *c = NULL;
        CHECK_INT_EQ(mcpp_compare(&c, NULL, a, b), MCPP_OK);
        CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_NOT_COMPARABLE);
        CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_UNDETERMINED);
        mcpp_comparison_free(c);
        char *ka = NULL, *kb = NULL;
        CHECK_INT_EQ(mcpp_lane_key(&ka, NULL, a), MCPP_OK);
        CHECK_INT_EQ(mcpp_lane_key(&kb, NULL, b), MCPP_OK);
        CHECK(ka && kb && strcmp(ka, kb) != 0);
        free(ka);
        free(kb);
    }
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    /* without --commit, inside a git work tree, the commit is git's */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && git rev-parse HEAD > '%s/head.txt' 2>/dev/null", MCPP_SOURCE_DIR,
             MCPP_TEST_OUT_DIR);
    if (system(cmd) != 0) {
        printf("# skipped the git half: %s is not a git work tree (a source tarball)\n", MCPP_SOURCE_DIR);
        return;
    }
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u MCPP_GIT_COMMIT '%s' --pattern A --depth 2 --steps 1 --warmup 0 " SMALL
             " --out '%s/git.json' 2>/dev/null",
             MCPP_SOURCE_DIR, MCPP_STEP_EXE, MCPP_TEST_OUT_DIR);
    CHECK_INT_EQ(system(cmd), 0);
    char head[128] = "", path[1024];
    snprintf(path, sizeof path, "%s/head.txt", MCPP_TEST_OUT_DIR);
    FILE *f = fopen(path, "r");
    if (f && fgets(head, sizeof head, f))
        head[strcspn(head, "\n")] = '\0';
    if (f)
        fclose(f);
    mcpp_receipt *g = load("git.json");
    CHECK(g != NULL);
    if (g)
        CHECK_STR_EQ(str(g, "source.git_commit"), head);
    mcpp_receipt_free(g);
}

int main(void)
{
    RUN(a_cpu_moe_run_writes_a_receipt_that_validates_and_carries_the_window);
    RUN(a_dense_run_has_no_routing_section_and_a_dense_family);
    RUN(real_data_is_recorded_as_real_with_its_dataset);
    RUN(cuda_without_a_device_exits_3_and_with_allow_fallback_records_it);
    RUN(an_accelerator_request_the_run_does_not_satisfy_makes_it_unstable_saying_so);
    RUN(bad_input_exits_3_and_help_exits_0);
    RUN(step_runner_receipts_carry_the_schema_2_launch_contract_and_identity);
    RUN(a_family_that_is_not_this_stack_is_bad_input_and_no_family_is_invented);
    RUN(cpu_threads_are_part_of_the_lane_and_the_commit_is_recorded);
    TEST_MAIN_END();
}
