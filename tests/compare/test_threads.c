/*
 * test_threads.c — what docs/thread-safety.md allows, done from several
 * threads at once: gates over shared receipts and one shared policy give the
 * report a single thread gives. Run under ThreadSanitizer by scripts/test.sh
 * (build/tsan), where a data race fails it: lgamma() wrote glibc's global
 * signgam from every gate's t test (issue 48 item 8).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "../test_util.h"

enum { THREADS = 4, GATES_PER_THREAD = 8, RUNS = 3 };

static const char *const BASES[RUNS] = {"nam56r_padded.json", "nam56r_padded_run2.json", "nam56r_padded_run3.json"};
static mcpp_receipt *receipts[RUNS];
static const mcpp_policy *shared_policy;

/* The JSON of a gate of the runs against themselves (t tests on 3 runs a side). */
static char *gate_json(void)
{
    mcpp_gate_report *r = NULL;
    char *json = NULL;
    if (mcpp_gate_run(&r, shared_policy, (const mcpp_receipt *const *)receipts, RUNS,
                      (const mcpp_receipt *const *)receipts, RUNS) == MCPP_OK)
        mcpp_gate_report_render(&json, r, MCPP_OUTPUT_JSON);
    mcpp_gate_report_free(r);
    return json;
}

typedef struct worker {
    pthread_t thread;
    const char *want;
    int same; /* gates whose JSON was the single thread's */
} worker;

static void *run_gates(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < GATES_PER_THREAD; i++) {
        char *json = gate_json();
        w->same += json && strcmp(json, w->want) == 0;
        mcpp_free(json);
    }
    return NULL;
}

TEST(gates_on_four_threads_at_once_give_the_single_threads_report)
{
    char *want = gate_json();
    CHECK(want != NULL);
    if (!want)
        return;
    worker w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (worker){0, want, 0};
        CHECK_INT_EQ(pthread_create(&w[t].thread, NULL, run_gates, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(w[t].thread, NULL);
        CHECK_INT_EQ(w[t].same, GATES_PER_THREAD);
    }
    mcpp_free(want);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_threads EXAMPLES_RECEIPTS_DIR\n");
        return 2;
    }
    mcpp_policy *p = NULL;
    if (mcpp_policy_default(&p) != MCPP_OK)
        return 2;
    shared_policy = p;
    for (int i = 0; i < RUNS; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", argv[1], BASES[i]);
        if (mcpp_receipt_load_file(&receipts[i], NULL, path, NULL) != MCPP_OK) {
            fprintf(stderr, "%s: %s\n", path, mcpp_error_last()->message);
            return 2;
        }
    }
    RUN(gates_on_four_threads_at_once_give_the_single_threads_report);
    for (int i = 0; i < RUNS; i++)
        mcpp_receipt_free(receipts[i]);
    mcpp_policy_free(p);
    TEST_MAIN_END();
}
