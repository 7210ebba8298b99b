/*
 * test_comparability_v2.c — the comparability of schema-2 receipts: accelerators
 * by canonical id (and requests by what satisfies them), the launch contract and
 * features as must-match dimensions, and benchmark-suite results compared on
 * benchmark identity instead of the model-shape dimensions. Receipts are the
 * shipped schema-2 examples with text substitutions, so each case states
 * exactly what differs.
 */
#include "example_variants.h"

#define PADDED "nam56r_padded.json"
#define RUN2 "nam56r_padded_run2.json"
#define OBSERVED "\"observed\": {\n      \"accelerator\": \"NVIDIA H100 80GB HBM3\""
#define REQUESTED "\"requested\": {\n      \"accelerator\": \"NVIDIA H100 80GB HBM3\""

TEST(the_same_chip_under_another_name_is_the_same_hardware)
{
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL),
           variant(RUN2, "b", OBSERVED, "\"observed\": {\n      \"accelerator\": \"NVIDIA H100-SXM5-80GB\"", REQUESTED,
                   "\"requested\": {\n      \"accelerator\": \"H100\""),
           MCPP_VERDICT_COMPARABLE, "hardware", MCPP_DIM_MATCH, NULL);
}

TEST(another_form_factor_is_other_hardware_and_the_reason_shows_both_names)
{
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL),
           variant(RUN2, "b", OBSERVED, "\"observed\": {\n      \"accelerator\": \"NVIDIA H100 PCIe\"", REQUESTED,
                   "\"requested\": {\n      \"accelerator\": \"NVIDIA H100 PCIe\""),
           MCPP_VERDICT_NOT_COMPARABLE, "hardware", MCPP_DIM_MISMATCH, "NVIDIA H100 PCIe");
}

TEST(a_request_for_the_model_or_the_platform_is_met_by_the_chip)
{
    /* "H100" names the model, "cuda" any CUDA device: neither is a fallback */
    expect(variant(PADDED, "a", REQUESTED, "\"requested\": {\n      \"accelerator\": \"H100\"", NULL, NULL),
           variant(RUN2, "b", REQUESTED, "\"requested\": {\n      \"accelerator\": \"cuda\"", NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "fallbacks", MCPP_DIM_MATCH, NULL);
    /* a request for another chip is still one */
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL),
           variant(RUN2, "b", REQUESTED, "\"requested\": {\n      \"accelerator\": \"NVIDIA H200\"", NULL, NULL),
           MCPP_VERDICT_QUALIFIED, "fallbacks", MCPP_DIM_QUALIFY, "requested NVIDIA H200");
}

TEST(the_launch_contract_must_match_and_the_row_names_the_key)
{
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL),
           variant(RUN2, "b", "\"mtp_depth\": 1", "\"mtp_depth\": 3", NULL, NULL), MCPP_VERDICT_NOT_COMPARABLE,
           "launch", MCPP_DIM_MISMATCH, "launch.mtp_depth differs: 1 vs 3");
    expect(variant(PADDED, "a", "\"mtp_depth\": 1", "\"mtp_depth\": 1, \"cuda_graphs\": \"off\"", NULL, NULL),
           /* the pinned policy says full too: one receipt saying full and false is refused (issue 47) */
           variant(RUN2, "b", "\"mtp_depth\": 1", "\"mtp_depth\": 1, \"cuda_graphs\": \"full\"",
                   "\"cuda_graphs\": false", "\"cuda_graphs\": \"full\""),
           MCPP_VERDICT_NOT_COMPARABLE, "launch", MCPP_DIM_MISMATCH, "launch.cuda_graphs differs: off vs full");
}

TEST(a_feature_toggled_on_is_a_difference_not_a_silent_tax)
{
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL),
           variant(RUN2, "b", "\"launch\": {", "\"features\": {\"stp\": true}, \"launch\": {", NULL, NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "features", MCPP_DIM_MISMATCH, "features differs: (none) vs");
    expect(variant(PADDED, "a", "\"launch\": {", "\"features\": {\"stp\": true}, \"launch\": {", NULL, NULL),
           variant(RUN2, "b", "\"launch\": {", "\"features\": {\"stp\": true}, \"launch\": {", NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "features", MCPP_DIM_MATCH, NULL);
}

#define PYTEST "schema2/pytest_benchmark_sorted.json"

TEST(two_runs_of_one_suite_benchmark_compare_on_benchmark_identity)
{
    expect(variant(PYTEST, "p1", NULL, NULL, NULL, NULL), variant(PYTEST, "p2", "0.00612", "0.00619", NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "pattern", MCPP_DIM_MATCH, "not applicable: both are benchmark-suite results");
    /* what the sources say they do not record is shown as such, not compared */
    expect(variant(PYTEST, "p1", NULL, NULL, NULL, NULL), variant(PYTEST, "p2", NULL, NULL, NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "startup", MCPP_DIM_NOT_RECORDED, "not recorded by source");
}

TEST(another_benchmark_or_params_is_not_comparable)
{
    expect(variant(PYTEST, "p1", NULL, NULL, NULL, NULL),
           variant(PYTEST, "p2", "\"name\": \"test_sorted\"", "\"name\": \"test_reversed\"", NULL, NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "benchmark", MCPP_DIM_MISMATCH, "benchmark.name differs");
    expect(variant(PYTEST, "p1", NULL, NULL, NULL, NULL),
           variant(PYTEST, "p2", "\"n\": 100000", "\"n\": 1000", NULL, NULL), MCPP_VERDICT_NOT_COMPARABLE,
           "benchmark", MCPP_DIM_MISMATCH, "benchmark.params differs");
    /* a suite result and a model run are not the same kind of evidence */
    expect(variant(PYTEST, "p1", NULL, NULL, NULL, NULL), variant(PADDED, "m", NULL, NULL, NULL, NULL),
           MCPP_VERDICT_INSUFFICIENT, "benchmark", MCPP_DIM_MISSING, NULL);
}

TEST(frontier_lanes_group_one_chip_under_its_names)
{
    mcpp_receipt *rs[3] = {
        variant(PADDED, "a", NULL, NULL, NULL, NULL),
        variant(RUN2, "b", OBSERVED, "\"observed\": {\n      \"accelerator\": \"NVIDIA H100-SXM5-80GB\"", NULL, NULL),
        variant(RUN2, "c", OBSERVED, "\"observed\": {\n      \"accelerator\": \"NVIDIA H100 PCIe\"", NULL, NULL),
    };
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_frontier_lane_count(f), 2); /* SXM (two names) and PCIe */
    /* (the PCIe run requested the SXM chip: it sits in its lane, excluded) */
    size_t sizes = 0;
    for (size_t l = 0; l < mcpp_frontier_lane_count(f); l++)
        sizes = sizes * 10 + mcpp_frontier_lane_receipt_count(f, l) + mcpp_frontier_lane_excluded_count(f, l);
    CHECK(sizes == 21 || sizes == 12);
    mcpp_frontier_free(f);
    for (int i = 0; i < 3; i++) mcpp_receipt_free(rs[i]);
}

int main(void)
{
    RUN(the_same_chip_under_another_name_is_the_same_hardware);
    RUN(another_form_factor_is_other_hardware_and_the_reason_shows_both_names);
    RUN(a_request_for_the_model_or_the_platform_is_met_by_the_chip);
    RUN(the_launch_contract_must_match_and_the_row_names_the_key);
    RUN(a_feature_toggled_on_is_a_difference_not_a_silent_tax);
    RUN(two_runs_of_one_suite_benchmark_compare_on_benchmark_identity);
    RUN(another_benchmark_or_params_is_not_comparable);
    RUN(frontier_lanes_group_one_chip_under_its_names);
    TEST_MAIN_END();
}
