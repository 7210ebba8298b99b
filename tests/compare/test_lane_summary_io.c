/*
 * test_lane_summary_io.c — lane summaries across processes: serialized text
 * read back equal, refused under another policy or when malformed; a frontier
 * from per-partition summaries equal to the frontier of all receipts (random
 * partitionings, lanes split across partitions, duplicates); claims on such a
 * frontier equal to claims on the receipts.
 */
#include "../test_util.h"
#include "fixtures.h"

static unsigned long long rng_state = 0x2545f4914f6cdd1dULL;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

enum { N_POOL = 48, MAX_LANES = 16 };
static mcpp_receipt *pool[N_POOL];

/* Receipts over 8 lanes (seq_len x top_k) with random outcomes, claims,
 * fallbacks and values; lane 0 gets a single run (its headline is steps). */
static void build_pool(void)
{
    static const char *seqs[] = {"\"seq_len\":4096", "\"seq_len\":2048", "\"seq_len\":8192", "\"seq_len\":1024"};
    static const char *outcomes[] = {"\"outcome\":\"ok\"", "\"outcome\":\"ok\"", "\"outcome\":\"failed\""};
    static const char *stabilities[] = {"\"stability\":\"stable\"", "\"stability\":\"stable\"",
                                        "\"stability\":\"unstable\",\"blocker\":\"x\""};
    for (int i = 0; i < N_POOL; i++) {
        char id[32], tps[48], steps[160], topk[32];
        unsigned lane = i == 0 ? 0 : 1 + rnd(7);
        /* tokens/s stays useful tokens (one denominator: one lane, issue 47) over the median
         * step, as validation demands: the steps scale. */
        int tokens = 222143 + (int)rnd(lane % 2 ? 40000 : 4000);
        snprintf(id, sizeof id, "\"id\":\"p%02d\"", i);
        snprintf(tps, sizeof tps, "\"tokens_per_s\":%d", tokens);
        samples_scaled(steps, sizeof steps, i == 0 ? 1.0 : 262144.0 / tokens);
        snprintf(topk, sizeof topk, "\"top_k\":%u", 1 + lane / 4);
        int fb = rnd(6) == 0;
        pool[i] =
            FIX("\"id\":\"base-1\"", id, "\"tokens_per_s\":262144", i == 0 ? "\"tokens_per_s\":262144" : tps,
                "\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]", steps, "\"seq_len\":4096", seqs[lane % 4],
                "\"top_k\":2", topk, "\"outcome\":\"ok\"", i == 0 ? "\"outcome\":\"ok\"" : outcomes[rnd(3)],
                "\"stability\":\"stable\"", i == 0 ? "\"stability\":\"stable\"" : stabilities[rnd(3)],
                "\"precision\":\"bf16\"",
                fb ? "\"precision\":\"bf16\",\"fallbacks\":[\"gemm:cutlass->cublas\"]" : "\"precision\":\"bf16\"");
    }
}

/* The summaries of one partition: one per lane, under `metric`. */
typedef struct partition {
    mcpp_lane_summary *lanes[MAX_LANES];
    size_t n;
} partition;

static void partition_add(partition *p, const char *metric, const mcpp_receipt *r)
{
    char *key = NULL;
    CHECK_INT_EQ(mcpp_lane_key(&key, NULL, r), MCPP_OK);
    size_t i = 0;
    while (i < p->n && strcmp(mcpp_lane_summary_key(p->lanes[i]), key) != 0) i++;
    if (i == p->n) {
        CHECK(p->n < MAX_LANES);
        CHECK_INT_EQ(mcpp_lane_summary_new(&p->lanes[p->n++], NULL, metric), MCPP_OK);
    }
    CHECK_INT_EQ(mcpp_lane_summary_add(p->lanes[i], r), MCPP_OK);
    mcpp_free(key);
}

static void partition_clear(partition *p)
{
    for (size_t i = 0; i < p->n; i++) mcpp_lane_summary_free(p->lanes[i]);
    p->n = 0;
}

/* Every summary of the partitions, in one array. */
static size_t gather(const mcpp_lane_summary **out, partition *parts, unsigned n_parts)
{
    size_t n = 0;
    for (unsigned k = 0; k < n_parts; k++)
        for (size_t i = 0; i < parts[k].n; i++) out[n++] = parts[k].lanes[i];
    return n;
}

static char *render_json(const mcpp_frontier *f)
{
    char *text = NULL;
    CHECK_INT_EQ(mcpp_frontier_render(&text, f, MCPP_OUTPUT_JSON), MCPP_OK);
    return text;
}

TEST(serialized_summaries_read_back_equal)
{
    partition p = {{NULL}, 0};
    for (int i = 0; i < N_POOL; i++) partition_add(&p, NULL, pool[i]);
    CHECK(p.n >= 6);
    for (size_t i = 0; i < p.n; i++) {
        char *text = NULL, *again = NULL;
        mcpp_lane_summary *back = NULL;
        CHECK_INT_EQ(mcpp_lane_summary_serialize(&text, p.lanes[i]), MCPP_OK);
        CHECK_INT_EQ(mcpp_lane_summary_deserialize(&back, NULL, text, strlen(text)), MCPP_OK);
        CHECK(mcpp_lane_summary_equal(back, p.lanes[i]));
        CHECK_INT_EQ(mcpp_lane_summary_serialize(&again, back), MCPP_OK);
        CHECK_STR_EQ(again, text);
        CHECK_INT_EQ(mcpp_lane_summary_status(back), mcpp_lane_summary_status(p.lanes[i]));
        mcpp_free(text);
        mcpp_free(again);
        mcpp_lane_summary_free(back);
    }
    partition_clear(&p);
}

TEST(deserialize_refuses_malformed_text_and_another_policy)
{
    mcpp_lane_summary *s = NULL, *back = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_new(&s, NULL, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_add(s, pool[0]), MCPP_OK); /* the one run of its lane */
    char *text = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_serialize(&text, s), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_deserialize(&back, NULL, "{\"key\": 3", 9), MCPP_EINVALID);
    CHECK(back == NULL);
    CHECK_INT_EQ(mcpp_lane_summary_deserialize(&back, NULL, "[1]", 3), MCPP_EINVALID);
    char *no_ok = strstr(text, "\"ok\": ");
    CHECK(no_ok != NULL);
    no_ok[1] = 'O'; /* "Ok": the count is missing */
    CHECK_INT_EQ(mcpp_lane_summary_deserialize(&back, NULL, text, strlen(text)), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "ok must be a count");
    no_ok[1] = 'o';
    /* counts beyond size_t or 2^53 are refused before any cast (1e400 reads
     * as infinity: casting it was undefined behaviour, issue 28) */
    static const char *const HUGE_COUNTS[] = {"1e400", "-1e400", "1e300", "18446744073709551616", "-1", "0.5"};
    for (size_t k = 0; k < sizeof HUGE_COUNTS / sizeof HUGE_COUNTS[0]; k++) {
        size_t head = (size_t)(no_ok - text) + 6, digits = strspn(text + head, "0123456789");
        char *forged = malloc(strlen(text) + 32);
        snprintf(forged, strlen(text) + 32, "%.*s%s%s", (int)head, text, HUGE_COUNTS[k], text + head + digits);
        CHECK_INT_EQ(mcpp_lane_summary_deserialize(&back, NULL, forged, strlen(forged)), MCPP_EINVALID);
        CHECK_CONTAINS(mcpp_error_last()->message, "ok must be a count");
        CHECK(back == NULL);
        free(forged);
    }
    /* A policy needing one ok run labels a lane of one ok run stable: the text says otherwise. */
    static const char lenient[] = "return { name = \"one_run\", noise = { min_runs = 1, max_rel_spread = 0.5 } }";
    mcpp_policy *one = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&one, lenient, strlen(lenient), "one_run.lua", NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_status(s), MCPP_LANE_UNSTABLE);
    CHECK_INT_EQ(mcpp_lane_summary_deserialize(&back, one, text, strlen(text)), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "another policy");
    CHECK_INT_EQ(mcpp_lane_summary_deserialize(&back, NULL, text, strlen(text)), MCPP_OK);
    CHECK(mcpp_lane_summary_equal(back, s));
    mcpp_policy_free(one);
    mcpp_lane_summary_free(back);
    mcpp_lane_summary_free(s);
    mcpp_free(text);
}

TEST(frontier_from_partition_summaries_equals_the_frontier_of_all)
{
    mcpp_frontier *whole = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&whole, NULL, (const mcpp_receipt *const *)pool, N_POOL), MCPP_OK);
    char *expect = render_json(whole);
    for (int trial = 0; trial < 50; trial++) {
        partition parts[6];
        unsigned n_parts = 1 + rnd(6);
        memset(parts, 0, sizeof parts);
        for (int i = 0; i < N_POOL; i++) partition_add(&parts[rnd(n_parts)], NULL, pool[i]);
        const mcpp_lane_summary *all[6 * MAX_LANES];
        size_t n = gather(all, parts, n_parts);
        mcpp_frontier *f = NULL;
        CHECK_INT_EQ(mcpp_frontier_from_summaries(&f, NULL, all, n, 0), MCPP_OK);
        char *got = render_json(f);
        CHECK_STR_EQ(got, expect);
        mcpp_free(got);
        mcpp_frontier_free(f);
        for (unsigned k = 0; k < n_parts; k++) partition_clear(&parts[k]);
    }
    mcpp_free(expect);
    mcpp_frontier_free(whole);
}

TEST(duplicates_are_listed_and_counted)
{
    /* pool[5] loaded twice: once in each of two partitions. */
    const mcpp_receipt *with_dup[N_POOL + 1];
    for (int i = 0; i < N_POOL; i++) with_dup[i] = pool[i];
    with_dup[N_POOL] = pool[5];
    mcpp_frontier *whole = NULL, *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&whole, NULL, with_dup, N_POOL + 1), MCPP_OK);
    partition a = {{NULL}, 0}, b = {{NULL}, 0};
    for (int i = 0; i < N_POOL; i++) partition_add(i % 2 ? &a : &b, NULL, pool[i]);
    partition_add(&a, NULL, pool[5]); /* pool[5] is odd: a holds it twice now */
    char *key = NULL, *dups = NULL;
    CHECK_INT_EQ(mcpp_lane_key(&key, NULL, pool[5]), MCPP_OK);
    for (size_t i = 0; i < a.n; i++) {
        CHECK_INT_EQ(mcpp_lane_summary_duplicate_ids(&dups, a.lanes[i]), MCPP_OK);
        CHECK_STR_EQ(dups, strcmp(mcpp_lane_summary_key(a.lanes[i]), key) == 0 ? "[\"p05\"]" : "[]");
        mcpp_free(dups);
    }
    /* Summaries that hold each (lane, id) once, plus the count left out, give the same frontier. */
    partition_clear(&a);
    for (int i = 1; i < N_POOL; i += 2) partition_add(&a, NULL, pool[i]);
    const mcpp_lane_summary *all[2 * MAX_LANES];
    partition both[2] = {a, b};
    size_t n = gather(all, both, 2);
    CHECK_INT_EQ(mcpp_frontier_from_summaries(&f, NULL, all, n, 1), MCPP_OK);
    char *expect = render_json(whole), *got = render_json(f);
    CHECK_CONTAINS(expect, "\"duplicates\": 1");
    CHECK_STR_EQ(got, expect);
    mcpp_free(expect);
    mcpp_free(got);
    mcpp_free(key);
    mcpp_frontier_free(f);
    mcpp_frontier_free(whole);
    partition_clear(&a);
    partition_clear(&b);
}

TEST(summaries_built_per_partition_leave_out_duplicates_in_it)
{
    /* Partition 0: pool[0..24) and pool[3] again; partition 1: the rest. */
    const mcpp_receipt *p0[25], *const *all = (const mcpp_receipt *const *)pool;
    for (int i = 0; i < 24; i++) p0[i] = pool[i];
    p0[24] = pool[3];
    mcpp_lane_summary **s0 = NULL, **s1 = NULL;
    size_t n0 = 0, n1 = 0, d0 = 9, d1 = 9;
    CHECK_INT_EQ(mcpp_lane_summaries_build(&s0, &n0, &d0, NULL, NULL, p0, 25), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summaries_build(&s1, &n1, &d1, NULL, NULL, all + 24, N_POOL - 24), MCPP_OK);
    CHECK_INT_EQ(d0, 1);
    CHECK_INT_EQ(d1, 0);
    const mcpp_lane_summary *both[2 * MAX_LANES];
    size_t n = 0;
    for (size_t i = 0; i < n0; i++) both[n++] = s0[i];
    for (size_t i = 0; i < n1; i++) both[n++] = s1[i];
    const mcpp_receipt *with_dup[N_POOL + 1];
    for (int i = 0; i < N_POOL; i++) with_dup[i] = pool[i];
    with_dup[N_POOL] = pool[3];
    mcpp_frontier *whole = NULL, *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&whole, NULL, with_dup, N_POOL + 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_from_summaries(&f, NULL, both, n, d0 + d1), MCPP_OK);
    char *expect = render_json(whole), *got = render_json(f);
    CHECK_STR_EQ(got, expect);
    CHECK(mcpp_lane_summary_equal(mcpp_frontier_lane_summary(f, 0), mcpp_frontier_lane_summary(whole, 0)));
    CHECK(mcpp_frontier_lane_summary(f, mcpp_frontier_lane_count(f)) == NULL);
    mcpp_free(expect);
    mcpp_free(got);
    mcpp_frontier_free(whole);
    mcpp_frontier_free(f);
    mcpp_lane_summaries_free(s0, n0);
    mcpp_lane_summaries_free(s1, n1);
}

TEST(a_policy_without_lane_dimensions_keys_every_receipt_empty)
{
    static const char flat[] = "return { name = \"flat\", noise = { min_runs = 2 } }";
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, flat, strlen(flat), "flat.lua", NULL), MCPP_OK);
    mcpp_lane_summary **s = NULL, *back = NULL;
    size_t n = 0;
    CHECK_INT_EQ(mcpp_lane_summaries_build(&s, &n, NULL, p, NULL, (const mcpp_receipt *const *)pool, N_POOL), MCPP_OK);
    CHECK_INT_EQ(n, 1);
    CHECK_STR_EQ(mcpp_lane_summary_key(s[0]), "");
    char *text = NULL, *a = NULL, *b = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_serialize(&text, s[0]), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_deserialize(&back, p, text, strlen(text)), MCPP_OK);
    CHECK(mcpp_lane_summary_equal(back, s[0]));
    mcpp_frontier *whole = NULL, *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&whole, p, (const mcpp_receipt *const *)pool, N_POOL), MCPP_OK);
    const mcpp_lane_summary *one[1] = {back};
    CHECK_INT_EQ(mcpp_frontier_from_summaries(&f, p, one, 1, 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 1);
    a = render_json(whole);
    b = render_json(f);
    CHECK_STR_EQ(b, a);
    mcpp_free(a);
    mcpp_free(b);
    mcpp_free(text);
    mcpp_frontier_free(whole);
    mcpp_frontier_free(f);
    mcpp_lane_summary_free(back);
    mcpp_lane_summaries_free(s, n);
    mcpp_policy_free(p);
}

TEST(from_summaries_refuses_mixed_metrics)
{
    mcpp_lane_summary *s = NULL, *t = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_new(&s, NULL, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_new(&t, NULL, "metrics.step_time_s.median"), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_add(s, pool[1]), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_add(t, pool[1]), MCPP_OK);
    const mcpp_lane_summary *both[2] = {s, t};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_from_summaries(&f, NULL, both, 2, 0), MCPP_EINVALID);
    CHECK(f == NULL);
    mcpp_lane_summary_free(s);
    mcpp_lane_summary_free(t);
}

/* The claim on summaries: each partition's summaries for the metric and the
 * selector's per-receipt truth, ANDed per lane. */
static void check_claim_equal(const char *selector, const char *metric, double value)
{
    mcpp_claim_result *expect = NULL, *got = NULL;
    CHECK_INT_EQ(mcpp_claim_check(&expect, NULL, (const mcpp_receipt *const *)pool, N_POOL, selector, metric, value),
                 MCPP_OK);
    partition parts[3];
    memset(parts, 0, sizeof parts);
    for (int i = 0; i < N_POOL; i++) partition_add(&parts[rnd(3)], metric, pool[i]);
    const mcpp_lane_summary *all[3 * MAX_LANES];
    size_t n = gather(all, parts, 3);
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_from_summaries(&f, NULL, all, n, 0), MCPP_OK);
    unsigned char holds[N_POOL], lane_holds[MAX_LANES];
    /* a full lane key (it has ';' between dimensions) names a lane, not terms */
    int terms = strchr(selector, '=') != NULL && strncmp(selector, "lane-", 5) != 0 && !strchr(selector, ';');
    memset(lane_holds, 1, sizeof lane_holds);
    if (terms) {
        CHECK_INT_EQ(mcpp_claim_selector_holds(holds, selector, (const mcpp_receipt *const *)pool, N_POOL), MCPP_OK);
        for (int i = 0; i < N_POOL; i++) {
            char *key = NULL;
            size_t lane = 0;
            CHECK_INT_EQ(mcpp_lane_key(&key, NULL, pool[i]), MCPP_OK);
            CHECK_INT_EQ(mcpp_frontier_find_lane(&lane, f, key), MCPP_OK);
            if (!holds[i]) lane_holds[lane] = 0;
            mcpp_free(key);
        }
    }
    CHECK_INT_EQ(mcpp_claim_check_frontier(&got, NULL, f, terms ? lane_holds : NULL, selector, metric, value), MCPP_OK);
    char *a = NULL, *b = NULL;
    CHECK_INT_EQ(mcpp_claim_result_render(&a, expect, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_result_render(&b, got, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_STR_EQ(b, a);
    mcpp_free(a);
    mcpp_free(b);
    mcpp_claim_result_free(expect);
    mcpp_claim_result_free(got);
    mcpp_frontier_free(f);
    for (int k = 0; k < 3; k++) partition_clear(&parts[k]);
}

TEST(claims_on_summaries_equal_claims_on_receipts)
{
    check_claim_equal("seq_len=2048", NULL, 262144);
    check_claim_equal("seq_len=2048,top_k=1", NULL, 251000);
    check_claim_equal("top_k=2", "metrics.step_time_s.median", 1.0);
    check_claim_equal("family=NAM56R", NULL, 999999);
    char *key = NULL;
    CHECK_INT_EQ(mcpp_lane_key(&key, NULL, pool[3]), MCPP_OK);
    check_claim_equal(key, NULL, 260000);
    mcpp_free(key);
    mcpp_frontier *f = NULL;
    mcpp_claim_result *r = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)pool, N_POOL), MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_check_frontier(&r, NULL, f, NULL, "seq_len=2048", NULL, 1), MCPP_EARG);
    CHECK_INT_EQ(mcpp_claim_selector_holds((unsigned char[1]){0}, "nonsense", (const mcpp_receipt *const *)pool, 1),
                 MCPP_EARG);
    CHECK(r == NULL);
    mcpp_frontier_free(f);
}

/* The gate over only the baselines comparable (or qualified) with some
 * candidate, with the others tallied per candidate, decides as the gate over all. */
TEST(gate_on_filtered_baselines_decides_as_the_gate)
{
    mcpp_receipt *cands[2];
    cands[0] = FIX("\"id\":\"base-1\"", "\"id\":\"cand-1\"", "\"seq_len\":4096", "\"seq_len\":2048");
    cands[1] = FIX("\"id\":\"base-1\"", "\"id\":\"cand-2\"", "\"seq_len\":4096", "\"seq_len\":16384");
    const mcpp_receipt *kept[N_POOL];
    size_t n_kept = 0, dropped[4] = {0, 0, 0, 0};
    for (int i = 0; i < N_POOL; i++) {
        mcpp_verdict v[2];
        for (int c = 0; c < 2; c++) CHECK_INT_EQ(mcpp_compare_verdict(&v[c], NULL, pool[i], cands[c]), MCPP_OK);
        int keep = 0;
        for (int c = 0; c < 2; c++) keep |= v[c] == MCPP_VERDICT_COMPARABLE || v[c] == MCPP_VERDICT_QUALIFIED;
        if (keep) {
            kept[n_kept++] = pool[i];
            continue;
        }
        for (int c = 0; c < 2; c++) dropped[2 * c + (v[c] == MCPP_VERDICT_INSUFFICIENT)]++;
    }
    CHECK(n_kept > 0 && n_kept < N_POOL);
    mcpp_gate_report *all = NULL, *filtered = NULL, *untallied = NULL;
    const mcpp_receipt *const *cs = (const mcpp_receipt *const *)cands;
    CHECK_INT_EQ(mcpp_gate_run(&all, NULL, (const mcpp_receipt *const *)pool, N_POOL, cs, 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_run_filtered(&filtered, NULL, kept, n_kept, cs, 2, dropped), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_run_filtered(&untallied, NULL, kept, n_kept, cs, 2, NULL), MCPP_OK);
    char *a = NULL, *b = NULL, *c = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render(&a, all, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_render(&b, filtered, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_render(&c, untallied, MCPP_OUTPUT_JSON), MCPP_OK);
    /* The same decisions and tallies; the blockers named can only come from
     * the baselines passed in, so the reason lines are compared up to them. */
    CHECK_INT_EQ(mcpp_gate_report_outcome(filtered), mcpp_gate_report_outcome(all));
    for (size_t i = 0; i < 2; i++) {
        CHECK_INT_EQ(mcpp_gate_report_entry_outcome(filtered, i), mcpp_gate_report_entry_outcome(all, i));
        CHECK_INT_EQ(mcpp_gate_report_entry_baseline_count(filtered, i), mcpp_gate_report_entry_baseline_count(all, i));
        CHECK_STR_EQ(mcpp_gate_report_entry_reason_code(filtered, i), mcpp_gate_report_entry_reason_code(all, i));
        for (int v = 0; v < 4; v++)
            CHECK_INT_EQ(mcpp_gate_report_entry_verdict_count(filtered, i, (mcpp_verdict)v),
                         mcpp_gate_report_entry_verdict_count(all, i, (mcpp_verdict)v));
        const mcpp_metric_result *ma = mcpp_gate_report_entry_metric(all, i), *mb = mcpp_gate_report_entry_metric(filtered, i);
        CHECK((ma == NULL) == (mb == NULL));
        if (ma && mb) CHECK(ma->rel_delta == mb->rel_delta && ma->interval_low == mb->interval_low);
    }
    CHECK_STR_EQ(mcpp_gate_report_entry_reason(filtered, 0), mcpp_gate_report_entry_reason(all, 0));
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(filtered, 1), "no comparable baseline among 48");
    CHECK_CONTAINS(a, "no comparable baseline among 48");
    CHECK(strcmp(c, a) != 0); /* without the tally the reason would say less */
    mcpp_free(a);
    mcpp_free(b);
    mcpp_free(c);
    mcpp_gate_report_free(all);
    mcpp_gate_report_free(filtered);
    mcpp_gate_report_free(untallied);
    mcpp_receipt_free(cands[0]);
    mcpp_receipt_free(cands[1]);
}

int main(void)
{
    build_pool();
    RUN(serialized_summaries_read_back_equal);
    RUN(deserialize_refuses_malformed_text_and_another_policy);
    RUN(frontier_from_partition_summaries_equals_the_frontier_of_all);
    RUN(duplicates_are_listed_and_counted);
    RUN(summaries_built_per_partition_leave_out_duplicates_in_it);
    RUN(a_policy_without_lane_dimensions_keys_every_receipt_empty);
    RUN(from_summaries_refuses_mixed_metrics);
    RUN(claims_on_summaries_equal_claims_on_receipts);
    RUN(gate_on_filtered_baselines_decides_as_the_gate);
    for (int i = 0; i < N_POOL; i++) mcpp_receipt_free(pool[i]);
    TEST_MAIN_END();
}
