/* lab_common.c — the random stream and receipts of the noise labs (lab_common.h). */
#include "lab_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

uint64_t lab_rng_state;

double lab_uniform(void)
{
    lab_rng_state ^= lab_rng_state >> 12, lab_rng_state ^= lab_rng_state << 25, lab_rng_state ^= lab_rng_state >> 27;
    return (double)((lab_rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

double lab_normal(void)
{
    double u = lab_uniform(), v = lab_uniform();
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

mcpp_receipt *lab_receipt(const char *program, const char *name, const char *id, const char *commit, double headline,
                          const double *rounds, size_t n)
{
    static const char *const not_recorded[] = {"lane",    "workload", "routing", "compile",
                                               "backend", "launch",   "startup"};
    mcpp_builder *b = NULL;
    mcpp_receipt *out = NULL;
    int rc = mcpp_builder_new(&b);
    for (size_t k = 0; rc == MCPP_OK && k < sizeof not_recorded / sizeof *not_recorded; k++)
        rc = mcpp_builder_append_string(b, "source.not_recorded", not_recorded[k]);
    if (rc == MCPP_OK) rc = mcpp_builder_set_string(b, "id", id);
    if (rc == MCPP_OK) rc = mcpp_builder_set_string(b, "source.git_commit", commit);
    if (rc == MCPP_OK) rc = mcpp_builder_set_string(b, "benchmark.suite", "noise-lab");
    if (rc == MCPP_OK) rc = mcpp_builder_set_string(b, "benchmark.name", name);
    if (rc == MCPP_OK) rc = mcpp_builder_set_string(b, "topology.substrate", "cpu");
    if (rc == MCPP_OK) rc = mcpp_builder_set_string(b, "hardware.observed.accelerator", "cpu: noise lab");
    if (rc == MCPP_OK) rc = mcpp_builder_set_string(b, "status.outcome", "ok");
    if (rc == MCPP_OK)
        rc = mcpp_builder_add_metric(b, "time_s", "s", MCPP_DIRECTION_LOWER, headline, "median", "round", rounds, n);
    if (rc == MCPP_OK) rc = mcpp_builder_set_string(b, "metrics.primary", "time_s");
    if (rc == MCPP_OK) rc = mcpp_builder_finish(&out, NULL, b);
    mcpp_builder_free(b);
    if (rc != MCPP_OK) {
        fprintf(stderr, "%s: building a receipt failed: %s\n", program, mcpp_error_last()->message);
        exit(4);
    }
    return out;
}
