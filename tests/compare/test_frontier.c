/*
 * test_frontier.c — lane keys, frontier labels and adjacency on a mixed set,
 * claims (supported, contradicted, laundered), mergeable lane summaries under
 * random partitioning, and loading receipt sets from directories.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test_util.h"
#include "fixtures.h"
#include "mcpp_receipts/receipt_set.h"

#define BASE_ID "\"id\":\"base-1\""
#define JAGGED "\"moe\":{\"requested\":\"jagged\",\"observed\":\"jagged\"}"
#define PADDED "\"moe\":{\"requested\":\"padded\",\"observed\":\"padded\"}"

static mcpp_receipt *run(const char *id, double tps, const char *from1, const char *to1, const char *from2,
                         const char *to2)
{
    char idb[64], tpsb[64];
    snprintf(idb, sizeof idb, "\"id\":\"%s\"", id);
    snprintf(tpsb, sizeof tpsb, "\"tokens_per_s\":%.1f", tps);
    /* No step samples: run-level values only, so the headline is across runs. */
    return FIX(BASE_ID, idb, "\"step_time_s\":{\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]},", "",
               "\"tokens_per_s\":262144", tpsb, from1, to1, from2, to2);
}

#define SAME "\"schema\":\"mcpp.receipt/1\"", "\"schema\":\"mcpp.receipt/1\""
#define H200 "\"requested\":{\"accelerator\":\"NVIDIA H100 80GB HBM3\"", "\"requested\":{\"accelerator\":\"NVIDIA H200\""

enum { N_MIXED = 13 };
static mcpp_receipt *mixed[N_MIXED];

static void build_mixed(void)
{
    int k = 0;
    /* A: jagged, seq 4096, three ok runs: stable. */
    mixed[k++] = run("a1", 262144, SAME, SAME);
    mixed[k++] = run("a2", 263000, SAME, SAME);
    mixed[k++] = run("a3", 261500, SAME, SAME);
    /* B: padded, one partial run that claims blocked: unstable. */
    mixed[k++] = run("b1", 300000, JAGGED, PADDED, "\"outcome\":\"ok\",\"stability\":\"stable\"",
                     "\"outcome\":\"partial\",\"stability\":\"blocked\",\"blocker\":\"padded MoE capacity buffer OOM\"");
    /* C: jagged, seq 8192, three ok runs, one asked for H200 and got H100. */
    mixed[k++] = run("c1", 131072, "\"seq_len\":4096", "\"seq_len\":8192", SAME);
    mixed[k++] = run("c2", 131000, "\"seq_len\":4096", "\"seq_len\":8192", SAME);
    mixed[k++] = run("c3", 131100, "\"seq_len\":4096", "\"seq_len\":8192", H200);
    /* E: jagged, seq 2048, three ok runs far apart: noise over bound. */
    mixed[k++] = run("e1", 200000, "\"seq_len\":4096", "\"seq_len\":2048", SAME);
    mixed[k++] = run("e2", 262144, "\"seq_len\":4096", "\"seq_len\":2048", SAME);
    mixed[k++] = run("e3", 300000, "\"seq_len\":4096", "\"seq_len\":2048", SAME);
    /* F: verification failed, three ok runs. */
    mixed[k++] = run("f1", 250000, "\"top_k\":2", "\"top_k\":4", "\"status\":\"passed\"", "\"status\":\"failed\"");
    mixed[k++] = run("f2", 250000, "\"top_k\":2", "\"top_k\":4", SAME);
    mixed[k++] = run("f3", 250000, "\"top_k\":2", "\"top_k\":4", SAME);
}

static size_t lane_with_receipt(const mcpp_frontier *f, const char *id)
{
    for (size_t l = 0; l < mcpp_frontier_lane_count(f); l++)
        for (size_t r = 0; r < mcpp_frontier_lane_receipt_count(f, l); r++)
            if (strcmp(mcpp_frontier_lane_receipt_id(f, l, r), id) == 0) return l;
    return (size_t)-1;
}

static int has_reason(const mcpp_frontier *f, size_t lane, const char *part)
{
    for (size_t i = 0; i < mcpp_frontier_lane_reason_count(f, lane); i++)
        if (strstr(mcpp_frontier_lane_reason(f, lane, i), part)) return 1;
    return 0;
}

static const char *adjacent_dims(const mcpp_frontier *f, size_t a, size_t b)
{
    for (size_t i = 0; i < mcpp_frontier_lane_adjacent_count(f, a); i++)
        if (mcpp_frontier_lane_adjacent_index(f, a, i) == b) return mcpp_frontier_lane_adjacent_dimensions(f, a, i);
    return NULL;
}

TEST(frontier_labels_lanes_with_every_reason)
{
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)mixed, N_MIXED), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 5);
    CHECK_INT_EQ(mcpp_frontier_stable_count(f), 1);
    size_t A = lane_with_receipt(f, "a1"), B = lane_with_receipt(f, "b1"), C = lane_with_receipt(f, "c1"),
           E = lane_with_receipt(f, "e1"), F = lane_with_receipt(f, "f1");
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, A), MCPP_LANE_STABLE);
    CHECK_INT_EQ(mcpp_frontier_lane_reason_count(f, A), 0);
    CHECK(mcpp_frontier_lane_blocker(f, A) == NULL);
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    CHECK_INT_EQ(mcpp_frontier_lane_headline(&h, f, A), MCPP_OK);
    CHECK(fabs(h.median - 262144) < 1e-6);
    CHECK_INT_EQ(h.n, 3);
    CHECK(h.interval_low == 261500 && h.interval_high == 263000);
    CHECK(h.confidence > 0.7 && h.confidence < 0.8); /* [min, max] of 3 covers 75% */

    CHECK_INT_EQ(mcpp_frontier_lane_status(f, B), MCPP_LANE_UNSTABLE);
    CHECK(has_reason(f, B, "too few ok runs: 0 of 3 needed"));
    CHECK(has_reason(f, B, "1 run not ok (0 failed, 1 partial)"));
    CHECK(has_reason(f, B, "1 run claims blocked"));
    CHECK_STR_EQ(mcpp_frontier_lane_blocker(f, B), "padded MoE capacity buffer OOM");

    /* c3 asked for H200 and got H100: excluded from the headline with its
     * reason; the lane is labelled from its two clean runs. */
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, C), MCPP_LANE_UNSTABLE);
    CHECK(has_reason(f, C, "too few ok runs: 2 of 3 needed (1 excluded from the headline)"));
    CHECK_INT_EQ(mcpp_frontier_lane_reason_count(f, C), 1);
    CHECK_INT_EQ(mcpp_frontier_lane_receipt_count(f, C), 2);
    CHECK_INT_EQ(mcpp_frontier_lane_excluded_count(f, C), 1);
    CHECK_STR_EQ(mcpp_frontier_lane_excluded_id(f, C, 0), "c3");
    CHECK_CONTAINS(mcpp_frontier_lane_excluded_reason(f, C, 0),
                   "hardware: requested NVIDIA H200 x8, observed NVIDIA H100 80GB HBM3 x8");

    CHECK_INT_EQ(mcpp_frontier_lane_status(f, E), MCPP_LANE_UNSTABLE);
    CHECK(has_reason(f, E, "noise over bound"));
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, F), MCPP_LANE_UNSTABLE);
    CHECK(has_reason(f, F, "verification failed in 1 run"));

    /* Adjacency: one dimension apart, both directions, named. */
    CHECK_STR_EQ(adjacent_dims(f, A, B), "backend");
    CHECK_STR_EQ(adjacent_dims(f, B, A), "backend");
    CHECK_STR_EQ(adjacent_dims(f, A, C), "sequence");
    CHECK_STR_EQ(adjacent_dims(f, A, F), "routing");
    CHECK(adjacent_dims(f, B, C) == NULL); /* backend and sequence differ */
    CHECK_INT_EQ(mcpp_frontier_lane_adjacent_count(f, A), 4);
    mcpp_frontier_free(f);
}

TEST(wider_adjacency_width_links_lanes_two_dimensions_apart)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_adjacency_width(p, 2), MCPP_OK);
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)mixed, N_MIXED), MCPP_OK);
    size_t B = lane_with_receipt(f, "b1"), C = lane_with_receipt(f, "c1");
    CHECK_STR_EQ(adjacent_dims(f, B, C), "sequence, backend");
    mcpp_frontier_free(f);
    mcpp_policy_free(p);
}

TEST(frontier_json_has_documented_keys_and_the_lane_only_note)
{
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)mixed, N_MIXED), MCPP_OK);
    char *json = NULL, *text = NULL, *md = NULL;
    CHECK_INT_EQ(mcpp_frontier_render(&json, f, MCPP_OUTPUT_JSON), MCPP_OK);
    cJSON *doc = cJSON_Parse(json);
    CHECK(doc != NULL);
    cJSON *lanes = cJSON_GetObjectItem(doc, "lanes");
    CHECK_INT_EQ(cJSON_GetArraySize(lanes), 5);
    const char *keys[] = {"key", "status", "receipts", "headline", "adjacent", "reasons"};
    cJSON *lane;
    int stable_seen = 0;
    cJSON_ArrayForEach(lane, lanes)
    {
        for (int k = 0; k < 6; k++) CHECK(cJSON_GetObjectItem(lane, keys[k]) != NULL);
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(lane, "status")), "stable") == 0) {
            stable_seen++;
            CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(lane, "note")), "this number belongs to this lane only");
        }
    }
    CHECK_INT_EQ(stable_seen, 1);
    cJSON_Delete(doc);
    CHECK_INT_EQ(mcpp_frontier_render(&text, f, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK_CONTAINS(text, "this number belongs to this lane only");
    CHECK_CONTAINS(text, "blocker: padded MoE capacity buffer OOM");
    CHECK_INT_EQ(mcpp_frontier_render(&md, f, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_CONTAINS(md, "| lane | status | headline |");
    mcpp_free(json);
    mcpp_free(text);
    mcpp_free(md);
    mcpp_frontier_free(f);
}

TEST(same_receipt_twice_counts_as_one_run)
{
    const mcpp_receipt *twice[] = {mixed[0], mixed[0], mixed[1]};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, twice, 3), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_receipt_count(f, 0), 2);
    CHECK(has_reason(f, 0, "too few ok runs: 2 of 3 needed"));
    mcpp_frontier_free(f);
}

TEST(single_run_lane_uses_step_values_for_its_headline_and_noise)
{
    mcpp_receipt *one = FIX(BASE_ID, BASE_ID);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    /* A caller built against version 1 (four fields) is still read correctly. */
    struct {
        unsigned int version;
        double max_rel_spread;
        int64_t min_runs;
        double noise_floor;
    } v1 = {1, 0.05, 1, 0.01};
    CHECK_INT_EQ(mcpp_policy_set_noise(p, (const mcpp_noise_settings *)(const void *)&v1), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_policy_noise(p)->min_runs, 1);
    CHECK(mcpp_policy_noise(p)->run_to_run == 0.03); /* the default: version 1 never wrote it */
    const mcpp_receipt *rs[] = {one};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, rs, 1), MCPP_OK);
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    CHECK_INT_EQ(mcpp_frontier_lane_headline(&h, f, 0), MCPP_OK);
    CHECK_INT_EQ(h.from_steps, 1);
    CHECK_INT_EQ(h.n, 8);
    CHECK(h.interval_low < h.median && h.median < h.interval_high);
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, 0), MCPP_LANE_STABLE);
    mcpp_frontier_free(f);
    mcpp_policy_free(p);
    mcpp_receipt_free(one);
}

TEST(policy_without_must_match_dimensions_puts_everything_in_one_lane)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_new(&p, "empty"), MCPP_OK);
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)mixed, N_MIXED), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 1);
    CHECK_STR_EQ(mcpp_frontier_lane_key(f, 0), "");
    CHECK_INT_EQ(mcpp_frontier_lane_receipt_count(f, 0), N_MIXED - 1); /* c3: request not met */
    CHECK_INT_EQ(mcpp_frontier_lane_excluded_count(f, 0), 1);
    CHECK_INT_EQ(mcpp_frontier_lane_adjacent_count(f, 0), 0);
    mcpp_frontier_free(f);
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, NULL, 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 0);
    mcpp_frontier_free(f);
    mcpp_policy_free(p);
}

/* ---- Lane keys ------------------------------------------------------------------------ */

TEST(lane_key_is_the_same_across_field_order_and_json_vs_yaml)
{
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID);
    /* The same receipt with its sections in another order. */
    mcpp_receipt *b = FIX("\"startup\":{\"state\":\"warm_cache\"},", "", BASE_ID,
                          BASE_ID ",\"startup\":{\"state\":\"warm_cache\"}");
    char *yaml = NULL;
    CHECK_INT_EQ(mcpp_receipt_write(&yaml, NULL, a, MCPP_FORMAT_YAML), MCPP_OK);
    mcpp_receipt *c = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&c, NULL, yaml, strlen(yaml), MCPP_FORMAT_YAML, "y", NULL), MCPP_OK);
    char *ka = NULL, *kb = NULL, *kc = NULL;
    CHECK_INT_EQ(mcpp_lane_key(&ka, NULL, a), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_key(&kb, NULL, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_key(&kc, NULL, c), MCPP_OK);
    CHECK_STR_EQ(ka, kb);
    CHECK_STR_EQ(ka, kc);
    CHECK_CONTAINS(ka, "sequence=4096;");
    /* the starting line keys the lane (issue 47): cold boot and warm cache are different benchmarks */
    CHECK_CONTAINS(ka, "startup=warm_cache");
    CHECK(strstr(ka, "cache=") == NULL); /* other qualifying dimensions are not part of the lane */
    char s1[24], s2[24];
    CHECK_INT_EQ(mcpp_lane_key_short(s1, sizeof s1, ka), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_key_short(s2, sizeof s2, kc), MCPP_OK);
    CHECK_STR_EQ(s1, s2);
    CHECK_INT_EQ(strlen(s1), 17);
    CHECK(strncmp(s1, "lane-", 5) == 0);
    mcpp_receipt *d = FIX("\"seq_len\":4096", "\"seq_len\":8192");
    char *kd = NULL;
    CHECK_INT_EQ(mcpp_lane_key(&kd, NULL, d), MCPP_OK);
    CHECK(strcmp(ka, kd) != 0);
    mcpp_free(ka);
    mcpp_free(kb);
    mcpp_free(kc);
    mcpp_free(kd);
    mcpp_free(yaml);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_receipt_free(c);
    mcpp_receipt_free(d);
}

/* ---- Claims ------------------------------------------------------------------------------ */

static mcpp_claim_result *claim(const char *sel, double value)
{
    mcpp_claim_result *r = NULL;
    int rc = mcpp_claim_check(&r, NULL, (const mcpp_receipt *const *)mixed, N_MIXED, sel, NULL, value);
    if (rc) fprintf(stderr, "claim: %s\n", mcpp_error_last()->message);
    return r;
}

TEST(claim_within_a_stable_matching_lane_is_supported)
{
    mcpp_claim_result *r = claim("family=NAM56R,moe=jagged,seq_len=4096,top_k=2", 262500);
    CHECK_INT_EQ(mcpp_claim_result_verdict(r), MCPP_CLAIM_SUPPORTED);
    CHECK_CONTAINS(mcpp_claim_result_reason(r), "this number belongs to this lane only");
    CHECK_INT_EQ(mcpp_claim_result_matched_count(r), 1);
    mcpp_claim_result_free(r);
}

TEST(claim_outside_the_stable_lane_is_contradicted_and_names_the_real_source)
{
    /* 300000 came from the padded lane, which is blocked: laundering. */
    mcpp_claim_result *r = claim("family=NAM56R,moe=jagged,seq_len=4096,top_k=2", 300000);
    CHECK_INT_EQ(mcpp_claim_result_verdict(r), MCPP_CLAIM_CONTRADICTED);
    CHECK_CONTAINS(mcpp_claim_result_reason(r), "lies outside it");
    CHECK_CONTAINS(mcpp_claim_result_reason(r), "this number came from lane");
    CHECK_CONTAINS(mcpp_claim_result_reason(r), "unstable: too few ok runs");
    int padded_named = 0;
    for (size_t i = 0; i < mcpp_claim_result_source_count(r); i++)
        if (strstr(mcpp_claim_result_source_key(r, i), "|padded|")) padded_named = 1;
    CHECK(padded_named);
    mcpp_claim_result_free(r);
}

TEST(claim_for_a_lane_that_is_only_unstable_is_unsupported_laundering)
{
    mcpp_claim_result *r = claim("moe=padded", 300000);
    CHECK_INT_EQ(mcpp_claim_result_verdict(r), MCPP_CLAIM_UNSUPPORTED);
    CHECK_CONTAINS(mcpp_claim_result_reason(r), "no stable lane matches the selector");
    CHECK_CONTAINS(mcpp_claim_result_reason(r), "blocked");
    /* Sources: the padded lane, and the noisy seq 2048 lane whose range reaches 300000. */
    CHECK_INT_EQ(mcpp_claim_result_source_count(r), 2);
    for (size_t i = 0; i < mcpp_claim_result_source_count(r); i++)
        CHECK_INT_EQ(mcpp_claim_result_source_status(r, i), MCPP_LANE_UNSTABLE);
    mcpp_claim_result_free(r);
    r = claim("seq_len=16384", 262144);
    CHECK_INT_EQ(mcpp_claim_result_verdict(r), MCPP_CLAIM_UNSUPPORTED);
    CHECK_CONTAINS(mcpp_claim_result_reason(r), "no lane matches the selector");
    CHECK_CONTAINS(mcpp_claim_result_reason(r), "stable, but not the lane the claim names");
    mcpp_claim_result_free(r);
}

TEST(claim_selector_may_be_a_lane_key_or_a_schema_path)
{
    char *key = NULL, shortk[24];
    CHECK_INT_EQ(mcpp_lane_key(&key, NULL, mixed[0]), MCPP_OK);
    mcpp_lane_key_short(shortk, sizeof shortk, key);
    mcpp_claim_result *r = claim(shortk, 262144);
    CHECK_INT_EQ(mcpp_claim_result_verdict(r), MCPP_CLAIM_SUPPORTED);
    mcpp_claim_result_free(r);
    r = claim(key, 262144);
    CHECK_INT_EQ(mcpp_claim_result_verdict(r), MCPP_CLAIM_SUPPORTED);
    mcpp_claim_result_free(r);
    r = claim("routing.top_k=2,workload.seq_len=4096,backend.moe.observed=jagged", 262144);
    CHECK_INT_EQ(mcpp_claim_result_verdict(r), MCPP_CLAIM_SUPPORTED);
    char *json = NULL;
    CHECK_INT_EQ(mcpp_claim_result_render(&json, r, MCPP_OUTPUT_JSON), MCPP_OK);
    cJSON *doc = cJSON_Parse(json);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "verdict")), "supported");
    cJSON_Delete(doc);
    mcpp_free(json);
    mcpp_claim_result_free(r);
    mcpp_free(key);
    mcpp_claim_result *bad = (mcpp_claim_result *)1;
    CHECK_INT_EQ(mcpp_claim_check(&bad, NULL, (const mcpp_receipt *const *)mixed, N_MIXED, "colour=red", NULL, 1), MCPP_EARG);
    CHECK(bad == NULL);
    CHECK_INT_EQ(mcpp_claim_check(&bad, NULL, (const mcpp_receipt *const *)mixed, N_MIXED, "family", NULL, 1), MCPP_EARG);
    CHECK_INT_EQ(mcpp_claim_check(&bad, NULL, (const mcpp_receipt *const *)mixed, N_MIXED, "family=NAM56R",
                                  "lane.pattern", 1), MCPP_EARG);
}

/* ---- Mergeable summaries ------------------------------------------------------------------- */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

enum { N_POOL = 40 };

TEST(merged_partition_summaries_equal_the_summary_of_the_union)
{
    static const char *outcomes[] = {"\"outcome\":\"ok\"", "\"outcome\":\"failed\"", "\"outcome\":\"partial\""};
    static const char *stabilities[] = {"\"stability\":\"stable\"", "\"stability\":\"unstable\",\"blocker\":\"x\"",
                                        "\"stability\":\"blocked\",\"blocker\":\"y\""};
    mcpp_receipt *pool[N_POOL];
    for (int i = 0; i < N_POOL; i++) {
        char id[32], tps[48], steps[160], oc[64], st[96];
        /* tokens/s stays useful tokens (one denominator: one lane) over the median step, as
         * validation demands: the steps scale instead. */
        int tokens = 250000 + (int)rnd(12000);
        double f = 262144.0 / tokens;
        snprintf(id, sizeof id, "\"id\":\"p%d\"", i);
        snprintf(tps, sizeof tps, "\"tokens_per_s\":%d", tokens);
        samples_scaled(steps, sizeof steps, f);
        snprintf(oc, sizeof oc, "%s", outcomes[rnd(3)]);
        snprintf(st, sizeof st, "%s", stabilities[rnd(3)]);
        int fb = rnd(4) == 0;
        pool[i] =
            FIX(BASE_ID, id, "\"tokens_per_s\":262144", tps, "\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]",
                steps, "\"outcome\":\"ok\"", oc, "\"stability\":\"stable\"", st, "\"precision\":\"bf16\"",
                fb ? "\"precision\":\"bf16\",\"fallbacks\":[\"gemm:cutlass->cublas\"]" : "\"precision\":\"bf16\"");
    }
    int failures = 0;
    for (int trial = 0; trial < 200 && !failures; trial++) {
        /* A random subset (sometimes of one receipt, to exercise step values). */
        size_t n = trial % 10 == 0 ? 1 : 1 + rnd(N_POOL);
        unsigned parts = 1 + rnd(5);
        mcpp_lane_summary *whole = NULL, *part[5] = {NULL}, *merged = NULL;
        CHECK_INT_EQ(mcpp_lane_summary_new(&whole, NULL, NULL), MCPP_OK);
        for (unsigned k = 0; k < parts; k++) CHECK_INT_EQ(mcpp_lane_summary_new(&part[k], NULL, NULL), MCPP_OK);
        for (size_t i = 0; i < n; i++) {
            mcpp_receipt *r = pool[(i * 7 + (size_t)trial) % N_POOL];
            CHECK_INT_EQ(mcpp_lane_summary_add(whole, r), MCPP_OK);
            CHECK_INT_EQ(mcpp_lane_summary_add(part[rnd(parts)], r), MCPP_OK);
        }
        CHECK_INT_EQ(mcpp_lane_summary_new(&merged, NULL, NULL), MCPP_OK);
        unsigned start = rnd(parts);
        for (unsigned k = 0; k < parts; k++) CHECK_INT_EQ(mcpp_lane_summary_merge(merged, part[(start + k) % parts]), MCPP_OK);
        char *a = NULL, *b = NULL;
        mcpp_lane_summary_serialize(&a, whole);
        mcpp_lane_summary_serialize(&b, merged);
        if (!mcpp_lane_summary_equal(whole, merged) || !a || !b || strcmp(a, b) != 0) {
            failures++;
            fprintf(stderr, "trial %d differs:\n%s\n%s\n", trial, a ? a : "", b ? b : "");
        }
        CHECK_INT_EQ(mcpp_lane_summary_status(whole), mcpp_lane_summary_status(merged));
        CHECK_INT_EQ(mcpp_lane_summary_receipt_count(merged), n);
        mcpp_free(a);
        mcpp_free(b);
        mcpp_lane_summary_free(whole);
        mcpp_lane_summary_free(merged);
        for (unsigned k = 0; k < parts; k++) mcpp_lane_summary_free(part[k]);
    }
    CHECK_INT_EQ(failures, 0);
    for (int i = 0; i < N_POOL; i++) mcpp_receipt_free(pool[i]);
}

TEST(summary_refuses_a_receipt_or_summary_of_another_lane)
{
    mcpp_lane_summary *s = NULL, *t = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_new(&s, NULL, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_new(&t, NULL, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_add(s, mixed[0]), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_add(s, mixed[4]), MCPP_EINVALID); /* seq 8192 */
    CHECK_INT_EQ(mcpp_lane_summary_add(t, mixed[4]), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_merge(s, t), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_lane_summary_receipt_count(s), 1);
    CHECK(!mcpp_lane_summary_equal(s, t));
    mcpp_lane_summary_free(s);
    mcpp_lane_summary_free(t);
}

/* ---- Receipt sets ---------------------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) abort();
    fputs(text, f);
    fclose(f);
}

TEST(receipt_set_walks_directories_and_keeps_going_past_bad_files)
{
    char dir[] = "/tmp/mcpp_compare_set_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[1100], sub[512];
    char *text = fixture_text((const char *const[]){BASE_ID, BASE_ID}, 1);
    snprintf(path, sizeof path, "%s/a.json", dir);
    write_file(path, text);
    snprintf(sub, sizeof sub, "%s/nested", dir);
    mkdir(sub, 0700);
    char *yaml = NULL;
    mcpp_receipt_write(&yaml, NULL, mixed[1], MCPP_FORMAT_YAML);
    snprintf(path, sizeof path, "%s/b.yaml", sub);
    write_file(path, yaml);
    snprintf(path, sizeof path, "%s/broken.json", sub);
    write_file(path, "{\"schema\": \"mcpp.receipt/1\", \"lane\": ");
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_file(path, "not a receipt and not loaded");
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_receipt_set_new(&set), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_set_add_path(set, dir, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_set_count(set), 2);
    CHECK_INT_EQ(mcpp_receipt_set_failure_count(set), 1);
    CHECK_CONTAINS(mcpp_receipt_set_failure_path(set, 0), "broken.json");
    CHECK(mcpp_receipt_set_failure_code(set, 0) < 0);
    CHECK_STR_EQ(mcpp_receipt_id(mcpp_receipt_set_at(set, 0)), "base-1"); /* a.json before nested/ */
    CHECK_INT_EQ(mcpp_receipt_set_add_path(set, "/nonexistent/mcpp", NULL), MCPP_EIO);
    mcpp_receipt_set_free(set);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    CHECK_INT_EQ(system(path), 0);
    free(text);
    mcpp_free(yaml);
}

/* Three lanes all named "NAM56R hybrid MoE lane": one jagged at 4096, one
 * padded at 4096, one jagged at 8192. Every display must tell them apart. */
TEST(lanes_sharing_a_label_show_what_differs_from_their_neighbours_everywhere)
{
    mcpp_receipt *rs[3] = {
        FIX("\"id\":\"base-1\"", "\"id\":\"j4\""),
        FIX("\"id\":\"base-1\"", "\"id\":\"p4\"", "\"requested\":\"jagged\",\"observed\":\"jagged\"",
            "\"requested\":\"padded\",\"observed\":\"padded\""),
        FIX("\"id\":\"base-1\"", "\"id\":\"j8\"", "\"seq_len\":4096", "\"seq_len\":8192"),
    };
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 3);
    const char *want[3] = {"NAM56R hybrid MoE lane (seq_len=4096, moe=jagged)",
                           "NAM56R hybrid MoE lane (seq_len=4096, moe=padded)",
                           "NAM56R hybrid MoE lane (seq_len=8192, moe=jagged)"};
    int seen[3] = {0, 0, 0};
    for (size_t l = 0; l < 3; l++) {
        CHECK_STR_EQ(mcpp_frontier_lane_label(f, l), "NAM56R hybrid MoE lane");
        const char *display = mcpp_frontier_lane_display_label(f, l);
        for (int w = 0; w < 3; w++)
            if (display && strcmp(display, want[w]) == 0) seen[w]++;
        CHECK(strstr(display, mcpp_frontier_lane_differences(f, l)) != NULL);
    }
    CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
    char *text = NULL, *md = NULL, *json = NULL;
    CHECK_INT_EQ(mcpp_frontier_render(&text, f, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_render(&md, f, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_render(&json, f, MCPP_OUTPUT_JSON), MCPP_OK);
    for (int w = 0; w < 3; w++) {
        CHECK_CONTAINS(text, want[w]);
        CHECK_CONTAINS(md, want[w]);
        char field[160];
        snprintf(field, sizeof field, "\"display_label\": \"%s\"", want[w]);
        CHECK_CONTAINS(json, field);
    }
    CHECK_CONTAINS(json, "\"differences\": \"seq_len=8192, moe=jagged\"");
    mcpp_free(text);
    mcpp_free(md);
    mcpp_free(json);
    mcpp_frontier_free(f);

    /* a lane alone has no neighbour: its label stands as it is */
    mcpp_frontier *alone = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&alone, NULL, (const mcpp_receipt *const *)rs, 1), MCPP_OK);
    CHECK_STR_EQ(mcpp_frontier_lane_differences(alone, 0), "");
    CHECK_STR_EQ(mcpp_frontier_lane_display_label(alone, 0), "NAM56R hybrid MoE lane");
    CHECK(mcpp_frontier_lane_display_label(alone, 1) == NULL);
    mcpp_frontier_free(alone);
    for (int i = 0; i < 3; i++) mcpp_receipt_free(rs[i]);
}

/* A sweep: 12 lanes that differ in seq_len only are all adjacent to one
 * another. Each lists the 4 nearest in key order and counts all 11, so the
 * report grows linearly with the lanes, not with their square. */
TEST(a_sweep_lists_the_nearest_adjacent_lanes_and_counts_the_rest)
{
    enum { N = 12 };
    mcpp_receipt *rs[N];
    fixture_seq_sweep(rs, N, "s");
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, N), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), N);
    size_t lane[N];
    for (int i = 0; i < N; i++) {
        char id[16];
        snprintf(id, sizeof id, "s%d", i);
        lane[i] = lane_with_receipt(f, id);
        CHECK_INT_EQ(mcpp_frontier_lane_adjacent_count(f, lane[i]), 4);
        CHECK_INT_EQ(mcpp_frontier_lane_adjacent_total(f, lane[i]), N - 1);
    }
    /* the first lane lists the next four; a middle one two on each side */
    for (int j = 1; j <= 4; j++) CHECK_STR_EQ(adjacent_dims(f, lane[0], lane[j]), "sequence");
    CHECK(adjacent_dims(f, lane[0], lane[5]) == NULL);
    for (int j = 4; j <= 8; j++)
        if (j != 6) CHECK_STR_EQ(adjacent_dims(f, lane[6], lane[j]), "sequence");
    CHECK(adjacent_dims(f, lane[6], lane[3]) == NULL && adjacent_dims(f, lane[6], lane[9]) == NULL);
    CHECK_STR_EQ(mcpp_frontier_lane_differences(f, lane[6]), "seq_len=1006");
    CHECK_INT_EQ(mcpp_frontier_lane_adjacent_count(f, N), 0);
    CHECK_INT_EQ(mcpp_frontier_lane_adjacent_total(f, N), 0);

    char *text = NULL, *md = NULL, *json = NULL;
    CHECK_INT_EQ(mcpp_frontier_render(&text, f, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_render(&md, f, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_render(&json, f, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_CONTAINS(text, "... and 7 more adjacent lanes");
    CHECK_CONTAINS(md, "+7 more");
    cJSON *doc = cJSON_Parse(json);
    CHECK(doc != NULL);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "lanes"), (int)lane[0]);
    CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(first, "adjacent")), 4);
    CHECK_INT_EQ(cJSON_GetObjectItem(first, "adjacent_total")->valueint, N - 1);
    cJSON_Delete(doc);
    mcpp_free(text);
    mcpp_free(md);
    mcpp_free(json);
    mcpp_frontier_free(f);
    for (int i = 0; i < N; i++) mcpp_receipt_free(rs[i]);
}

int main(void)
{
    build_mixed();
    RUN(frontier_labels_lanes_with_every_reason);
    RUN(wider_adjacency_width_links_lanes_two_dimensions_apart);
    RUN(frontier_json_has_documented_keys_and_the_lane_only_note);
    RUN(same_receipt_twice_counts_as_one_run);
    RUN(policy_without_must_match_dimensions_puts_everything_in_one_lane);
    RUN(single_run_lane_uses_step_values_for_its_headline_and_noise);
    RUN(lane_key_is_the_same_across_field_order_and_json_vs_yaml);
    RUN(claim_within_a_stable_matching_lane_is_supported);
    RUN(claim_outside_the_stable_lane_is_contradicted_and_names_the_real_source);
    RUN(claim_for_a_lane_that_is_only_unstable_is_unsupported_laundering);
    RUN(claim_selector_may_be_a_lane_key_or_a_schema_path);
    RUN(merged_partition_summaries_equal_the_summary_of_the_union);
    RUN(summary_refuses_a_receipt_or_summary_of_another_lane);
    RUN(receipt_set_walks_directories_and_keeps_going_past_bad_files);
    RUN(lanes_sharing_a_label_show_what_differs_from_their_neighbours_everywhere);
    RUN(a_sweep_lists_the_nearest_adjacent_lanes_and_counts_the_rest);
    for (int i = 0; i < N_MIXED; i++) mcpp_receipt_free(mixed[i]);
    TEST_MAIN_END();
}
