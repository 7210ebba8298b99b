/*
 * harness.c — how an existing C benchmark harness emits a receipt with the
 * installed mcpp_receipts library: set the lane's fields one by one, append
 * each measured step time, let mcpp_builder_finish() validate (and derive the
 * median/p10/p90 and the id), write the receipt atomically, print its id.
 *
 * usage: harness OUT.json|OUT.yaml
 *
 * The "training loop" here is a stand-in that sleeps nothing and makes up
 * plausible step times; a real harness records its own clock around each step.
 */
#include <stdio.h>

#include <mcpp_receipts.h>
#include <mcpp_receipts/field_paths.h> /* MCPP_FIELD_*: a misspelt path is a compile error */

/* Stops at the first setter that fails: mcpp_error_last() names the field. */
#define TRY(call)                                                                  \
    do {                                                                           \
        if ((rc = (call)) != MCPP_OK)                                              \
            goto cleanup;                                                          \
    } while (0)

int main(int argc, char **argv)
{
    mcpp_builder *b = NULL;
    mcpp_receipt *receipt = NULL;
    mcpp_report *report = NULL;
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.json|OUT.yaml\n", argv[0]);
        return 2;
    }
    if (mcpp_version_number() != MCPP_VERSION_NUMBER) {
        fprintf(stderr, "header %s but library %s\n", MCPP_VERSION_STRING, mcpp_version_string());
        return 2;
    }

    TRY(mcpp_builder_new(&b));
    TRY(mcpp_builder_set_string(b, "created_at", "2026-03-20T12:00:00Z"));
    TRY(mcpp_builder_set_string(b, "source.tool", "c-harness example"));
    TRY(mcpp_builder_set_string(b, "source.git_commit", "0123456789abcdef0123456789abcdef01234567"));

    /* the lane: what exactly was measured */
    TRY(mcpp_builder_set_string(b, "lane.name", "NAM56R hybrid MoE lane"));
    TRY(mcpp_builder_set_string(b, "lane.family", "NAM56R"));
    TRY(mcpp_builder_set_string(b, "lane.pattern", "AEMEAEMEAEMR"));
    TRY(mcpp_builder_set_int(b, "lane.depth", 52));
    TRY(mcpp_builder_set_int(b, MCPP_FIELD_WORKLOAD_SEQ_LEN, 4096));
    TRY(mcpp_builder_set_int(b, MCPP_FIELD_WORKLOAD_MICRO_BATCH, 2));
    TRY(mcpp_builder_set_int(b, MCPP_FIELD_WORKLOAD_GLOBAL_BATCH, 256));
    TRY(mcpp_builder_set_int(b, MCPP_FIELD_WORKLOAD_TOKENS_PER_STEP, 1048576));
    TRY(mcpp_builder_set_int(b, MCPP_FIELD_WORKLOAD_USEFUL_TOKENS_PER_STEP, 1032192));
    TRY(mcpp_builder_set_string(b, MCPP_FIELD_WORKLOAD_DATA_PATH, "synthetic"));
    TRY(mcpp_builder_set_string(b, "routing.mode", "token_choice"));
    TRY(mcpp_builder_set_string(b, "routing.score", "sigmoid"));
    TRY(mcpp_builder_set_int(b, "routing.num_experts", 64));
    TRY(mcpp_builder_set_int(b, "routing.top_k", 6));
    TRY(mcpp_builder_set_double(b, "routing.capacity_factor", 1.25));
    TRY(mcpp_builder_set_string(b, "routing.overflow", "pad"));
    TRY(mcpp_builder_set_string(b, "compile.posture", "eager"));
    TRY(mcpp_builder_set_string(b, "backend.precision", "bf16"));
    TRY(mcpp_builder_set_string(b, "backend.moe.requested", "padded"));
    TRY(mcpp_builder_set_string(b, "backend.moe.observed", "padded"));

    /* what was asked for and what actually ran */
    TRY(mcpp_builder_set_string(b, "hardware.requested.accelerator", "NVIDIA H100 80GB HBM3"));
    TRY(mcpp_builder_set_int(b, "hardware.requested.count", 8));
    TRY(mcpp_builder_set_string(b, "hardware.observed.accelerator", "NVIDIA H100 80GB HBM3"));
    TRY(mcpp_builder_set_int(b, "hardware.observed.count", 8));
    TRY(mcpp_builder_set_string(b, "topology.substrate", "cuda"));
    TRY(mcpp_builder_set_int(b, "topology.tp", 2));
    TRY(mcpp_builder_set_int(b, "topology.ep", 4));
    TRY(mcpp_builder_set_int(b, "topology.dp", 4));
    TRY(mcpp_builder_set_string(b, "startup.state", "warm_cache"));

    /* the measured window: warmup steps are not samples */
    TRY(mcpp_builder_set_int(b, "metrics.window.warmup_steps", 10));
    TRY(mcpp_builder_set_int(b, "metrics.window.measured_steps", 12));
    for (int step = 0; step < 12; step++)
        TRY(mcpp_builder_add_step_sample(b, 2.60 + 0.004 * (step % 5) - 0.002 * (step % 3)));
    TRY(mcpp_builder_set_double(b, "metrics.tokens_per_s", 1032192 / 2.604));
    TRY(mcpp_builder_set_string(b, "status.outcome", "ok"));
    TRY(mcpp_builder_set_string(b, "status.stability", "unstable"));
    TRY(mcpp_builder_set_string(b, "status.blocker", "only one run so far"));
    TRY(mcpp_builder_add_artifact(b, "log", "file:///tmp/harness.log"));
    TRY(mcpp_builder_set_json(b, "extra.harness", "{\"name\": \"c-harness\", \"example\": true}"));

    /* validates everything set above; the report lists each problem (a failed
     * setter above also makes finish fail: builder errors are sticky) */
    rc = mcpp_builder_finish(&receipt, &report, b);
    if (rc != MCPP_OK) {
        for (size_t i = 0; i < mcpp_report_count(report); i++)
            fprintf(stderr, "%s\n", mcpp_report_at(report, i)->message);
        goto cleanup;
    }
    TRY(mcpp_receipt_write_file(receipt, argv[1], MCPP_FORMAT_AUTO));
    printf("%s\n", mcpp_receipt_id(receipt));

cleanup:
    if (rc != MCPP_OK)
        fprintf(stderr, "harness: %s\n", mcpp_error_last()->message);
    mcpp_report_free(report);
    mcpp_receipt_free(receipt);
    mcpp_builder_free(b);
    return rc == MCPP_OK ? 0 : 1;
}
