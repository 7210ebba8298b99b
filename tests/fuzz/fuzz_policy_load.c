/*
 * fuzz_policy_load.c — libFuzzer target: Lua policy text. Any bytes either
 * load as a policy or are refused with a policy/limit error; a policy that
 * loads with custom rules has them run on two example receipts. Bounds are
 * small (50 ms per call, 10 MiB, 2M instructions) so each input ends fast;
 * what is checked is that nothing crashes, leaks or hangs past them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/policy_lua.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mcpp_receipt *base, *cand;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (mcpp_receipt_load_file(&base, NULL, MCPP_FUZZ_EXAMPLES "/nam56r_padded.json", NULL) != MCPP_OK ||
        mcpp_receipt_load_file(&cand, NULL, MCPP_FUZZ_EXAMPLES "/nam52_dense.json", NULL) != MCPP_OK) {
        fprintf(stderr, "cannot load the example receipts: %s\n", mcpp_error_last()->message);
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mcpp_lua_limits limits;
    mcpp_lua_limits_default(&limits);
    limits.max_instructions = 2000000;
    limits.max_memory_bytes = (size_t)10 << 20;
    limits.max_call_ms = 50;
    limits.max_total_ms = 200;
    mcpp_policy *p = NULL;
    int rc = mcpp_policy_load_lua_buffer(&p, (const char *)data, size, NULL, &limits);
    if (rc != MCPP_OK && rc != MCPP_EPOLICY && rc != MCPP_ELIMIT) {
        fprintf(stderr, "unexpected status %d: %s\n", rc, mcpp_error_last()->message);
        abort();
    }
    if (p && mcpp_policy_rule_count(p) > 0) {
        mcpp_verdict v;
        (void)mcpp_compare_verdict(&v, p, base, cand);
        (void)mcpp_compare_verdict(&v, p, cand, cand);
    }
    mcpp_policy_free(p);
    return 0;
}
