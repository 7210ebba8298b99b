/*
 * test_what_ran.c — issue 47, "the receipt says what ran": each concept of
 * the engineering notes that an audit found judged wrong or unchecked, one
 * test per concept, built from receipts written here by hand (a small CPU
 * receipt whose sections a case replaces), so every case states exactly the
 * one thing its pair differs in.
 */
#include <stdarg.h>

#include "example_variants.h"      /* row_of, expect */
#include "receipt/request_pairs.h" /* the one table of requested/observed pairs */

/* The receipt every case starts from: one section a line, in schema order. */
typedef struct section {
    const char *key, *json;
} section;

static const section BASE[] = {
    {"schema", "\"mcpp.receipt/2\""},
    {"source", "{\"tool\": \"hand-written for issue 47\", \"git_commit\": \"47474747\"}"},
    {"benchmark", NULL},
    {"software", NULL},
    {"lane", "{\"family\": \"tiny-dense\", \"pattern\": \"A\", \"depth\": 4, \"d_model\": 64, \"heads\": 4}"},
    {"workload", "{\"seq_len\": 128, \"micro_batch\": 2, \"global_batch\": 2, \"tokens_per_step\": 256, "
                 "\"useful_tokens_per_step\": 256, \"data\": {\"path\": \"synthetic\"}}"},
    {"routing", NULL},
    {"compile", "{\"posture\": \"eager\", \"warmup\": \"explicit\", \"graph_breaks\": 0, \"cache_state\": \"warm\"}"},
    {"backend", "{\"precision\": {\"observed\": \"fp32\"}, \"attention\": {\"observed\": \"ref_c\"}, "
                "\"gemm\": {\"observed\": \"blocked_c\"}}"},
    {"hardware", "{\"observed\": {\"accelerator\": \"cpu\", \"count\": 1}}"},
    {"topology", "{\"substrate\": \"cpu\", \"tp\": 1, \"pp\": 1, \"ep\": 1, \"cp\": 1, \"dp\": 1}"},
    {"launch", NULL},
    {"startup", "{\"state\": \"warm_cache\"}"},
    {"run", NULL},
    {"metrics", "{\"window\": {\"warmup_steps\": 5, \"measured_steps\": 8}, \"step_time_s\": {\"samples\": "
                "[0.100, 0.101, 0.099, 0.100, 0.102, 0.098, 0.100, 0.101]}}"},
    {"quality", NULL},
    {"status", "{\"outcome\": \"ok\", \"stability\": \"stable\"}"},
    {"extra", NULL},
};
#define N_BASE (sizeof BASE / sizeof BASE[0])

/* The base receipt with id `id` and sections replaced: NULL-terminated pairs
 * of key and JSON (NULL JSON drops the section). A key the base lacks is an
 * error of the test. */
static char *receipt_text(const char *id, va_list ap)
{
    const char *json[N_BASE];
    for (size_t i = 0; i < N_BASE; i++)
        json[i] = BASE[i].json;
    for (const char *key; (key = va_arg(ap, const char *)) != NULL;) {
        const char *value = va_arg(ap, const char *);
        size_t i = 0;
        while (i < N_BASE && strcmp(BASE[i].key, key) != 0)
            i++;
        if (i == N_BASE) {
            fprintf(stderr, "no section %s in the base receipt\n", key);
            abort();
        }
        json[i] = value;
    }
    size_t cap = 256;
    for (size_t i = 0; i < N_BASE; i++)
        cap += json[i] ? strlen(json[i]) + strlen(BASE[i].key) + 8 : 0;
    char *text = malloc(cap + strlen(id));
    if (!text)
        abort();
    size_t n = (size_t)sprintf(text, "{\"id\": \"%s\"", id);
    for (size_t i = 0; i < N_BASE; i++)
        if (json[i])
            n += (size_t)sprintf(text + n, ",\n \"%s\": %s", BASE[i].key, json[i]);
    sprintf(text + n, "\n}\n");
    return text;
}

/* Loads the receipt receipt_text makes; *rep gets the load's report. */
static mcpp_receipt *load(mcpp_report **rep, const char *id, va_list ap)
{
    char *text = receipt_text(id, ap);
    mcpp_receipt *r = NULL;
    mcpp_receipt_load_buffer(&r, rep, text, strlen(text), MCPP_FORMAT_JSON, id, NULL);
    free(text);
    return r;
}

/* A receipt made as receipt_text says; the test stops when it does not load. */
static mcpp_receipt *mk(const char *id, ...)
{
    va_list ap;
    va_start(ap, id);
    mcpp_receipt *r = load(NULL, id, ap);
    va_end(ap);
    if (!r) {
        fprintf(stderr, "receipt %s does not load: %s\n", id, mcpp_error_last()->message);
        abort();
    }
    return r;
}

/* The problems validation finds in the receipt, one "field: message" a line. */
static char *problems_of(const char *id, ...)
{
    va_list ap;
    va_start(ap, id);
    mcpp_report *rep = NULL;
    mcpp_receipt_free(load(&rep, id, ap));
    va_end(ap);
    size_t n = rep ? mcpp_report_count(rep) : 0, len = 1;
    for (size_t i = 0; i < n; i++) {
        const mcpp_diagnostic *d = mcpp_report_at(rep, i);
        len += strlen(d->message) + (d->field ? strlen(d->field) : 0) + 4;
    }
    char *out = calloc(1, len);
    if (!out)
        abort();
    for (size_t i = 0; i < n; i++) {
        const mcpp_diagnostic *d = mcpp_report_at(rep, i);
        strcat(out, d->field ? d->field : "");
        strcat(out, ": ");
        strcat(out, d->message);
        strcat(out, "\n");
    }
    mcpp_report_free(rep);
    return out;
}

/* a and b (freed) have one lane key. */
static void expect_one_lane(mcpp_receipt *a, mcpp_receipt *b)
{
    char *ka = NULL, *kb = NULL;
    CHECK_INT_EQ(mcpp_lane_key(&ka, NULL, a), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_key(&kb, NULL, b), MCPP_OK);
    CHECK_STR_EQ(ka, kb);
    free(ka);
    free(kb);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

static mcpp_frontier *frontier_of(mcpp_receipt **rs, size_t n)
{
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, n), MCPP_OK);
    return f;
}

static void free_all(mcpp_receipt **rs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mcpp_receipt_free(rs[i]);
}

/* ---- Item 2: a precision recipe is a set ---------------------------------------------- */

#define PREC(req, obs)                                                                                                 \
    "{\"precision\": {\"requested\": \"" req "\", \"observed\": \"" obs "\"}, \"attention\": {\"observed\": "          \
    "\"ref_c\"}, \"gemm\": {\"observed\": \"blocked_c\"}}"

TEST(a_precision_recipe_is_a_set_everywhere)
{
    /* the request check: fp8+bf16 asked, bf16+fp8 ran, is the request met */
    expect(mk("a", "backend", PREC("fp8+bf16", "bf16+fp8"), NULL), mk("b", "backend", PREC("bf16", "bf16"), NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "fallbacks", MCPP_DIM_MATCH, NULL);
    /* comparability: the same recipe written in two orders is the same backend */
    expect(mk("a", "backend", PREC("fp8+bf16", "fp8+bf16"), NULL),
           mk("b", "backend", PREC("bf16+fp8", "bf16+fp8"), NULL), MCPP_VERDICT_COMPARABLE, "backend", MCPP_DIM_MATCH,
           NULL);
    /* and a different recipe still differs */
    expect(mk("a", "backend", PREC("fp8+bf16", "fp8+bf16"), NULL),
           mk("b", "backend", PREC("bf16+fp16", "bf16+fp16"), NULL), MCPP_VERDICT_NOT_COMPARABLE, "backend",
           MCPP_DIM_MISMATCH, "precision.observed differs");
    /* lanes and the frontier: three clean runs in two spellings are one lane, none set aside */
    mcpp_receipt *rs[3] = {mk("a", "backend", PREC("fp8+bf16", "bf16+fp8"), NULL),
                           mk("b", "backend", PREC("bf16+fp8", "fp8+bf16"), NULL),
                           mk("c", "backend", PREC("fp8+bf16", "fp8+bf16"), NULL)};
    mcpp_frontier *f = frontier_of(rs, 3);
    CHECK_INT_EQ((int)mcpp_frontier_lane_count(f), 1);
    CHECK_INT_EQ((int)mcpp_frontier_lane_excluded_count(f, 0), 0);
    CHECK_INT_EQ((int)mcpp_frontier_lane_receipt_count(f, 0), 3);
    char *ka = NULL, *kb = NULL;
    CHECK_INT_EQ(mcpp_lane_key(&ka, NULL, rs[0]), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_key(&kb, NULL, rs[1]), MCPP_OK);
    CHECK_STR_EQ(ka, kb);
    CHECK(ka && strstr(ka, "bf16+fp8") != NULL); /* the key spells the recipe in sorted order */
    free(ka);
    free(kb);
    /* selectors: either spelling picks the lane's runs */
    unsigned char holds[3] = {0, 0, 0};
    CHECK_INT_EQ(mcpp_claim_selector_holds(holds, "precision=fp8+bf16", (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    CHECK(holds[0] && holds[1] && holds[2]);
    CHECK_INT_EQ(mcpp_claim_selector_holds(holds, "precision=bf16+fp16", (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    CHECK(!holds[0] && !holds[1] && !holds[2]);
    mcpp_frontier_free(f);
    free_all(rs, 3);
}

/* ---- Item 14 (with 7 and 8): one table of requested/observed pairs ------------------ */

/* For every entry of the table: a section whose request is met, one whose
 * request is not met, and one that requests without saying what ran. A new
 * entry without a row here fails the first check. */
typedef struct request_case {
    const char *label, *key, *met, *unmet, *unobserved, *unmet_text;
} request_case;

#define BK(x) "{\"precision\": {\"observed\": \"fp32\"}, \"gemm\": {\"observed\": \"blocked_c\"}, " x "}"
#define HW(x) "{" x "}"
static const request_case REQUESTS[] = {
    {"attention", "backend", BK("\"attention\": {\"requested\": \"ref_c\", \"observed\": \"ref_c\"}"),
     BK("\"attention\": {\"requested\": \"flash\", \"observed\": \"ref_c\"}"),
     BK("\"attention\": {\"requested\": \"flash\"}"), "attention: requested flash, observed ref_c"},
    {"moe", "backend",
     BK("\"attention\": {\"observed\": \"ref_c\"}, \"moe\": {\"requested\": \"padded\", \"observed\": \"padded\"}"),
     BK("\"attention\": {\"observed\": \"ref_c\"}, \"moe\": {\"requested\": \"jagged\", \"observed\": \"padded\"}"),
     BK("\"attention\": {\"observed\": \"ref_c\"}, \"moe\": {\"requested\": \"jagged\"}"),
     "moe: requested jagged, observed padded"},
    {"mamba", "backend",
     BK("\"attention\": {\"observed\": \"ref_c\"}, \"mamba\": {\"requested\": \"ref\", \"observed\": \"ref\"}"),
     BK("\"attention\": {\"observed\": \"ref_c\"}, \"mamba\": {\"requested\": \"scan\", \"observed\": \"ref\"}"),
     BK("\"attention\": {\"observed\": \"ref_c\"}, \"mamba\": {\"requested\": \"scan\"}"),
     "mamba: requested scan, observed ref"},
    {"recurrent", "backend",
     BK("\"attention\": {\"observed\": \"ref_c\"}, \"recurrent\": {\"requested\": \"ref\", \"observed\": \"ref\"}"),
     BK("\"attention\": {\"observed\": \"ref_c\"}, \"recurrent\": {\"requested\": \"cuda\", \"observed\": \"ref\"}"),
     BK("\"attention\": {\"observed\": \"ref_c\"}, \"recurrent\": {\"requested\": \"cuda\"}"),
     "recurrent: requested cuda, observed ref"},
    {"gemm", "backend",
     "{\"precision\": {\"observed\": \"fp32\"}, \"attention\": {\"observed\": \"ref_c\"}, \"gemm\": {\"requested\": "
     "\"blocked_c\", \"observed\": \"blocked_c\"}}",
     "{\"precision\": {\"observed\": \"fp32\"}, \"attention\": {\"observed\": \"ref_c\"}, \"gemm\": {\"requested\": "
     "\"openblas\", \"observed\": \"blocked_c\"}}",
     "{\"precision\": {\"observed\": \"fp32\"}, \"attention\": {\"observed\": \"ref_c\"}, \"gemm\": {\"requested\": "
     "\"openblas\"}}",
     "gemm: requested openblas, observed blocked_c"},
    {"precision", "backend", PREC("bf16", "bf16"), PREC("bf16+fp8", "bf16"),
     "{\"precision\": {\"requested\": \"bf16\"}, \"attention\": {\"observed\": \"ref_c\"}, \"gemm\": {\"observed\": "
     "\"blocked_c\"}}",
     "precision: requested bf16+fp8, observed bf16"},
    {"hardware", "hardware",
     HW("\"requested\": {\"accelerator\": \"cpu\", \"count\": 1}, \"observed\": {\"accelerator\": \"cpu\", \"count\": "
        "1}"),
     HW("\"requested\": {\"accelerator\": \"cpu\", \"count\": 2}, \"observed\": {\"accelerator\": \"cpu\", \"count\": "
        "1}"),
     HW("\"requested\": {\"accelerator\": \"cpu\"}, \"observed\": {\"count\": 1}"),
     "hardware: requested cpu x2, observed cpu x1"},
    {"hardware per node", "hardware",
     HW("\"requested\": {\"per_node\": 4}, \"observed\": {\"accelerator\": \"cpu\", \"count\": 1, \"per_node\": 4}"),
     HW("\"requested\": {\"per_node\": 8}, \"observed\": {\"accelerator\": \"cpu\", \"count\": 1, \"per_node\": 4}"),
     HW("\"requested\": {\"per_node\": 8}, \"observed\": {\"accelerator\": \"cpu\", \"count\": 1}"),
     "hardware per node: requested 8, observed 4"},
};
#define N_REQUESTS (sizeof REQUESTS / sizeof REQUESTS[0])

TEST(one_table_of_requests_feeds_validation_fallbacks_and_the_frontier)
{
    CHECK_INT_EQ((int)N_REQUESTS, (int)MCPP_REQUEST_PAIR_COUNT);
    for (size_t i = 0; i < N_REQUESTS && i < MCPP_REQUEST_PAIR_COUNT; i++) {
        const request_case *rc = &REQUESTS[i];
        CHECK_STR_EQ(rc->label, mcpp_request_pairs[i].label);
        /* validation: a request needs its observation */
        char *problems = problems_of("v", rc->key, rc->unobserved, NULL);
        CHECK_CONTAINS(problems, "a receipt must say what actually ran");
        free(problems);
        /* comparison: the unmet request qualifies, named by its label */
        expect(mk("a", rc->key, rc->met, NULL), mk("b", rc->key, rc->unmet, NULL), MCPP_VERDICT_QUALIFIED, "fallbacks",
               MCPP_DIM_QUALIFY, rc->unmet_text);
        /* the frontier: runs whose request was not met leave the headline, with the reason */
        mcpp_receipt *rs[3] = {mk("a", rc->key, rc->met, NULL), mk("b", rc->key, rc->met, NULL),
                               mk("c", rc->key, rc->unmet, NULL)};
        mcpp_frontier *f = frontier_of(rs, 3);
        CHECK_INT_EQ((int)mcpp_frontier_lane_count(f), 1);
        CHECK_INT_EQ((int)mcpp_frontier_lane_excluded_count(f, 0), 1);
        if (mcpp_frontier_lane_excluded_count(f, 0) == 1)
            CHECK_CONTAINS(mcpp_frontier_lane_excluded_reason(f, 0, 0), rc->unmet_text);
        mcpp_frontier_free(f);
        free_all(rs, 3);
    }
}

TEST(runs_that_asked_for_eight_per_node_and_got_four_are_no_stable_lane)
{
    const char *hw = REQUESTS[N_REQUESTS - 1].unmet;
    mcpp_receipt *rs[3] = {mk("a", "hardware", hw, NULL), mk("b", "hardware", hw, NULL), mk("c", "hardware", hw, NULL)};
    mcpp_frontier *f = frontier_of(rs, 3);
    CHECK_INT_EQ((int)mcpp_frontier_lane_count(f), 1);
    CHECK_INT_EQ((int)mcpp_frontier_lane_excluded_count(f, 0), 3);
    CHECK(mcpp_frontier_lane_status(f, 0) != (int)MCPP_LANE_STABLE);
    mcpp_frontier_free(f);
    free_all(rs, 3);
}

#define FALLBACK(observed, item)                                                                                       \
    "{\"precision\": {\"observed\": \"fp32\"}, \"attention\": {\"requested\": \"flash\", \"observed\": \"" observed    \
    "\"}, \"gemm\": {\"observed\": \"blocked_c\"}, \"fallbacks\": [\"" item "\"]}"

TEST(a_fallback_that_contradicts_the_observed_backend_is_a_warning)
{
    char *p = problems_of("f", "backend", FALLBACK("flash", "attention:flash->sdpa"), NULL);
    CHECK_CONTAINS(p, "fallback \"attention:flash->sdpa\" says sdpa ran for attention");
    CHECK_CONTAINS(p, "backend.attention.observed is \"flash\"");
    free(p);
    p = problems_of("f", "backend", FALLBACK("sdpa", "attention:flash->sdpa"), NULL);
    CHECK(strstr(p, "fallback") == NULL); /* what the fallback says ran, ran */
    free(p);
    /* a recipe that fell back names the recipe that ran, in any order */
    p = problems_of(
        "f", "backend",
        "{\"precision\": {\"requested\": \"fp8\", \"observed\": \"fp8+bf16\"}, \"attention\": {\"observed\": "
        "\"ref_c\"}, \"fallbacks\": [\"precision:fp8->bf16+fp8\"]}",
        NULL);
    CHECK(strstr(p, "fallback") == NULL);
    free(p);
}

/* ---- Item 1: quality has a direction of its own, and one metric at a time -------------- */

#define QUAL(metric, achieved) "{\"metric\": \"" metric "\", \"achieved\": " achieved "}"

/* The comparison of a and b under a policy whose gate metric is quality.achieved
 * (freeing a and b); the caller frees it. */
static mcpp_comparison *compare_quality(mcpp_receipt *a, mcpp_receipt *b)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_gate_settings g = MCPP_GATE_SETTINGS_INIT;
    g.metric = "quality.achieved";
    g.higher_is_better = 1; /* what the gate would assume of a plain number: quality must not take it */
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, p, a, b), MCPP_OK);
    mcpp_policy_free(p);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    return c;
}

TEST(quality_compares_in_its_own_direction_and_never_across_metrics)
{
    /* log-perplexity 2.1 -> 2.6 is worse (lower is better), and the gate fails */
    mcpp_comparison *c = compare_quality(mk("a", "quality", QUAL("log_perplexity", "2.1"), NULL),
                                         mk("b", "quality", QUAL("log_perplexity", "2.6"), NULL));
    const mcpp_metric_result *m = c ? mcpp_comparison_metric(c) : NULL;
    CHECK(m != NULL);
    if (m) {
        CHECK_STR_EQ(m->metric, "log_perplexity");
        CHECK_INT_EQ(m->higher_is_better, 0);
        CHECK(m->rel_delta > 0.2);
    }
    if (c)
        CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_FAILED);
    mcpp_comparison_free(c);
    /* accuracy 0.70 -> 0.75 is better (higher is better) */
    c = compare_quality(mk("a", "quality", QUAL("eval_accuracy", "0.70"), NULL),
                        mk("b", "quality", QUAL("eval_accuracy", "0.75"), NULL));
    m = c ? mcpp_comparison_metric(c) : NULL;
    CHECK(m != NULL && m->higher_is_better == 1);
    if (c)
        CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_PASSED);
    mcpp_comparison_free(c);
    /* log-perplexity against eval accuracy: never one number, and the pair qualifies */
    c = compare_quality(mk("a", "quality", QUAL("log_perplexity", "2.1"), NULL),
                        mk("b", "quality", QUAL("eval_accuracy", "0.60"), NULL));
    CHECK(c && mcpp_comparison_metric(c) == NULL);
    if (c) {
        CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_UNDETERMINED);
        CHECK_STR_EQ(mcpp_verdict_name(mcpp_comparison_verdict(c)), "qualified");
        CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "log_perplexity");
        size_t r = row_of(c, "quality");
        CHECK(r != (size_t)-1);
        if (r != (size_t)-1)
            CHECK_CONTAINS(mcpp_comparison_row_reason(c, r), "different quality metrics");
    }
    mcpp_comparison_free(c);
    /* a benchmark's own row: MLPerf's LoRA logs its eval loss as eval_accuracy (lower is better) */
#define LORA "{\"suite\": \"mlperf-training\", \"name\": \"llama2_70b_lora\"}"
    c = compare_quality(mk("a", "quality", QUAL("eval_accuracy", "0.93"), "benchmark", LORA, NULL),
                        mk("b", "quality", QUAL("eval_accuracy", "0.92"), "benchmark", LORA, NULL));
    m = c ? mcpp_comparison_metric(c) : NULL;
    CHECK(m != NULL && m->higher_is_better == 0);
    if (c)
        CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_PASSED); /* 0.93 -> 0.92 is the better loss */
    mcpp_comparison_free(c);
}

TEST(throughput_at_unequal_quality_is_qualified_and_says_so)
{
    /* tokens/s (the headline) of two runs that reached different quality */
    expect(mk("a", "quality", QUAL("log_perplexity", "2.1"), NULL),
           mk("b", "quality", QUAL("log_perplexity", "2.6"), NULL), MCPP_VERDICT_QUALIFIED, "quality", MCPP_DIM_QUALIFY,
           "throughput at unequal quality: log_perplexity 2.1 vs 2.6 (lower is better: cand's quality is worse)");
    /* the same quality: nothing to qualify */
    expect(mk("a", "quality", QUAL("log_perplexity", "2.1"), NULL),
           mk("b", "quality", QUAL("log_perplexity", "2.1"), NULL), MCPP_VERDICT_COMPARABLE, "quality", MCPP_DIM_MATCH,
           "same quality");
    /* both reached the same target: equal quality in the time-to-train sense */
    expect(mk("a", "quality", "{\"metric\": \"eval_accuracy\", \"target\": 0.72, \"achieved\": 0.725}", NULL),
           mk("b", "quality", "{\"metric\": \"eval_accuracy\", \"target\": 0.72, \"achieved\": 0.731}", NULL),
           MCPP_VERDICT_COMPARABLE, "quality", MCPP_DIM_MATCH, "both reached quality.target 0.72");
    /* one benchmark of one suite, both ended ok, no target stated: the suite fixes the target */
    expect(mk("a", "quality", QUAL("eval_accuracy", "0.93"), "benchmark", LORA, NULL),
           mk("b", "quality", QUAL("eval_accuracy", "0.92"), "benchmark", LORA, NULL), MCPP_VERDICT_COMPARABLE,
           "quality", MCPP_DIM_MATCH, "the suite fixes the quality to reach");
    /* a quality on one side only */
    expect(mk("a", "quality", QUAL("log_perplexity", "2.1"), NULL), mk("b", NULL), MCPP_VERDICT_QUALIFIED, "quality",
           MCPP_DIM_QUALIFY, "absent on cand");
    /* neither states one: the row is not applicable */
    expect(mk("a", NULL), mk("b", NULL), MCPP_VERDICT_COMPARABLE, "quality", MCPP_DIM_MATCH, "neither side states it");
    /* a metric the registry does not know is never compared, and loading it says so */
    char *p = problems_of("q", "quality", QUAL("vibes", "3"), NULL);
    CHECK_CONTAINS(p, "\"vibes\" is not in the quality metric registry");
    free(p);
    p = problems_of("q", "quality", "{\"achieved\": 3}", NULL);
    CHECK_CONTAINS(p, "a quality value needs its metric");
    free(p);
}

/* ---- Items 3 and 11: a lane's headline never blends starting lines ------------------ */

#define METRICS(warmup)                                                                                                \
    "{\"window\": {\"warmup_steps\": " warmup ", \"measured_steps\": 8}, \"step_time_s\": {\"samples\": "              \
    "[0.100, 0.101, 0.099, 0.100, 0.102, 0.098, 0.100, 0.101]}}"
#define WORKLOAD(useful)                                                                                               \
    "{\"seq_len\": 128, \"micro_batch\": 2, \"global_batch\": 2, \"tokens_per_step\": 256, "                           \
    "\"useful_tokens_per_step\": " useful ", \"data\": {\"path\": \"synthetic\"}}"

TEST(a_lane_headline_never_blends_starting_lines_and_says_what_it_pools)
{
    /* seven runs: three alike, and one each on another starting line */
    mcpp_receipt *rs[7] = {
        mk("clean-1", NULL),
        mk("clean-2", NULL),
        mk("clean-3", NULL),
        mk("cold-boot", "startup", "{\"state\": \"cold_boot\"}", NULL),
        mk("step0-no-warmup", "metrics", METRICS("0"), "run", "{\"position\": {\"step\": 0}}", NULL),
        mk("torch-2.5", "software", "{\"framework\": \"pytorch\", \"version\": \"2.5.0\"}", NULL),
        mk("other-denominator", "workload", WORKLOAD("200"), NULL),
    };
    /* each pair qualifies, naming the starting line */
    static const char *const dims[] = {"startup", "window", "software", "denominator"};
    static const char *const why[] = {"startup.state differs: warm_cache vs cold_boot",
                                      "metrics.window.warmup_steps differs: 5 vs 0", "absent on base",
                                      "workload.useful_tokens_per_step differs: 256 vs 200"};
    for (int i = 0; i < 4; i++) {
        mcpp_comparison *c = NULL;
        CHECK_INT_EQ(mcpp_compare(&c, NULL, rs[0], rs[3 + i]), MCPP_OK);
        CHECK_STR_EQ(mcpp_verdict_name(mcpp_comparison_verdict(c)), "qualified");
        size_t r = row_of(c, dims[i]);
        CHECK(r != (size_t)-1);
        if (r != (size_t)-1)
            CHECK_CONTAINS(mcpp_comparison_row_reason(c, r), why[i]);
        mcpp_comparison_free(c);
    }
    /* the frontier keeps each starting line in its own lane: the clean lane pools exactly its three runs */
    mcpp_frontier *f = frontier_of(rs, 7);
    CHECK_INT_EQ((int)mcpp_frontier_lane_count(f), 5);
    size_t clean = (size_t)-1;
    for (size_t l = 0; l < mcpp_frontier_lane_count(f); l++) {
        for (size_t k = 0; k < mcpp_frontier_lane_receipt_count(f, l); k++)
            if (strcmp(mcpp_frontier_lane_receipt_id(f, l, k), "clean-1") == 0)
                clean = l;
        if (mcpp_frontier_lane_receipt_count(f, l) != 3)
            CHECK_INT_EQ((int)mcpp_frontier_lane_receipt_count(f, l), 1);
    }
    CHECK(clean != (size_t)-1);
    if (clean != (size_t)-1) {
        CHECK_INT_EQ((int)mcpp_frontier_lane_receipt_count(f, clean), 3);
        CHECK_INT_EQ(mcpp_frontier_lane_status(f, clean), (int)MCPP_LANE_STABLE);
    }
    /* the claim says which runs its headline pools and which it set aside */
    mcpp_claim_result *claim = NULL;
    CHECK_INT_EQ(mcpp_claim_check(&claim, NULL, (const mcpp_receipt *const *)rs, 7, "startup=warm_cache", NULL, 2560),
                 MCPP_OK);
    char *text = NULL;
    if (claim && mcpp_claim_result_render(&text, claim, MCPP_OUTPUT_TEXT) == MCPP_OK) {
        CHECK_CONTAINS(text, "pools 3 runs: clean-1, clean-2, clean-3; sets aside 0");
        free(text);
    }
    text = NULL;
    if (claim && mcpp_claim_result_render(&text, claim, MCPP_OUTPUT_JSON) == MCPP_OK) {
        CHECK_CONTAINS(text, "\"pooled\": [\"clean-1\", \"clean-2\", \"clean-3\"], \"set_aside\": []");
        free(text);
    }
    mcpp_claim_result_free(claim);
    mcpp_frontier_free(f);
    free_all(rs, 7);
    /* ten warm-up steps against twenty is one starting line */
    expect(mk("a", "metrics", METRICS("10"), NULL), mk("b", "metrics", METRICS("20"), NULL), MCPP_VERDICT_COMPARABLE,
           "window", MCPP_DIM_MATCH, "same on both sides");
}

/* ---- Item 5: per-family timings against the stack and the step ------------------------ */

TEST(per_family_timings_must_fit_the_stack_and_the_step)
{
    /* 5.9 s of families inside steps of about 0.1 s */
    char *p =
        problems_of("t", "metrics",
                    "{\"step_time_s\": {\"samples\": [0.100, 0.101, 0.099]}, \"per_family_ms\": {\"A\": 5900}}", NULL);
    CHECK_CONTAINS(p, "the families take 5900 ms per step together, longer than the longest measured step (101 ms)");
    free(p);
    /* E-block time on an A-only stack */
    p = problems_of(
        "t", "metrics",
        "{\"step_time_s\": {\"samples\": [0.100, 0.101, 0.099]}, \"per_family_ms\": {\"A\": 60, \"E\": 20}}", NULL);
    CHECK_CONTAINS(p, "20 ms per step in E blocks, but lane.pattern \"A\" has no E block");
    free(p);
    /* timings that fit say nothing */
    p = problems_of("t", "metrics",
                    "{\"step_time_s\": {\"samples\": [0.100, 0.101, 0.099]}, \"per_family_ms\": {\"A\": 80}}", NULL);
    CHECK(strstr(p, "per_family_ms") == NULL);
    free(p);
}

/* ---- Item 6: generated launch arguments against the lane they came from ------------------ */

#define LAUNCH(args) "{\"generated_args\": [" args "]}"

TEST(generated_launch_args_must_describe_their_lane)
{
    char *p = problems_of("g", "launch", LAUNCH("\"--num-layers 56\", \"--tensor-model-parallel-size 2\""), NULL);
    CHECK_CONTAINS(p, "generated argument \"--num-layers 56\" contradicts lane.depth 4");
    CHECK_CONTAINS(p, "generated argument \"--tensor-model-parallel-size 2\" contradicts topology.tp 1");
    free(p);
    p = problems_of("g", "launch", LAUNCH("\"--hybrid-override-pattern M*M*\""), NULL);
    CHECK_CONTAINS(p, "is a hybrid layer pattern, but lane.pattern \"A\" has attention blocks only");
    free(p);
    p = problems_of("g", "launch",
                    LAUNCH("\"--num-layers 4\", \"--tensor-model-parallel-size 1\", \"--seq-length 128\""), NULL);
    CHECK(strstr(p, "generated argument") == NULL); /* arguments that describe the lane say nothing */
    free(p);
    /* the same arguments in another order are the same launch: one lane, comparable */
    expect(mk("a", "launch", LAUNCH("\"--num-layers 4\", \"--seq-length 128\""), NULL),
           mk("b", "launch", LAUNCH("\"--seq-length 128\", \"--num-layers 4\""), NULL), MCPP_VERDICT_COMPARABLE,
           "launch", MCPP_DIM_MATCH, "same on both sides");
    expect(mk("a", "launch", LAUNCH("\"--num-layers 4\", \"--seq-length 128\""), NULL),
           mk("b", "launch", LAUNCH("\"--seq-length 128\", \"--num-layers 4\", \"--sequence-parallel\""), NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "launch", MCPP_DIM_MISMATCH, NULL);
    mcpp_receipt *a = mk("a", "launch", LAUNCH("\"--num-layers 4\", \"--seq-length 128\""), NULL);
    mcpp_receipt *b = mk("b", "launch", LAUNCH("\"--seq-length 128\", \"--num-layers 4\""), NULL);
    expect_one_lane(a, b);
}

/* ---- Item 9: goodput as fractions, each its own path ----------------------------------- */

TEST(goodput_fractions_have_their_own_paths_and_seconds_are_not_compared)
{
    mcpp_receipt *r = mk("g", "metrics",
                         "{\"step_time_s\": {\"samples\": [0.100, 0.101, 0.099]}, \"goodput\": {\"allocated_s\": 10, "
                         "\"kernel_busy_s\": 6, \"useful_s\": 4, \"badput_s\": {\"compile\": 3}}}",
                         NULL);
    static const char *const names[] = {"goodput.useful_fraction", "goodput.kernel_busy_fraction",
                                        "goodput.badput_fraction"};
    static const double want[] = {0.4, 0.6, 0.3};
    for (int k = 0; k < 3; k++) {
        mcpp_metric m;
        CHECK_INT_EQ(mcpp_receipt_metric_find(&m, r, names[k]), MCPP_OK);
        char path[64];
        snprintf(path, sizeof path, "metrics.%s", names[k]);
        CHECK_STR_EQ(m.path, path); /* one path (and one pandas column) each */
        CHECK(m.value > want[k] - 1e-12 && m.value < want[k] + 1e-12);
    }
    mcpp_receipt_free(r);
    /* naming the seconds as the metric of an analysis is refused with the fraction to use */
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_gate_settings g = MCPP_GATE_SETTINGS_INIT;
    g.metric = "goodput.useful_s";
    CHECK(mcpp_policy_set_gate(p, &g) != MCPP_OK);
    CHECK_CONTAINS(mcpp_error_last()->message, "name goodput.useful_fraction");
    g.metric = "metrics.goodput.kernel_busy_s";
    CHECK(mcpp_policy_set_gate(p, &g) != MCPP_OK);
    g.metric = "goodput.badput_s.compile"; /* time lost stays a metric: less is better however long the run */
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    mcpp_policy_free(p);
}

/* ---- Item 10: CUDA graphs have one spelling --------------------------------------------- */

TEST(cuda_graphs_have_one_spelling)
{
    /* off in launch.cuda_graphs and false in the pinned policy are the same launch */
    expect(mk("a", "launch", "{\"cuda_graphs\": \"off\", \"fixed_policy\": {\"NCCL_ALGO\": \"Ring\"}}", NULL),
           mk("b", "launch", "{\"fixed_policy\": {\"NCCL_ALGO\": \"Ring\", \"cuda_graphs\": false}}", NULL),
           MCPP_VERDICT_COMPARABLE, "launch", MCPP_DIM_MATCH, "same on both sides");
    /* full against false is another launch, whichever field says it */
    expect(mk("a", "launch", "{\"cuda_graphs\": \"full\", \"fixed_policy\": {\"NCCL_ALGO\": \"Ring\"}}", NULL),
           mk("b", "launch", "{\"fixed_policy\": {\"NCCL_ALGO\": \"Ring\", \"cuda_graphs\": false}}", NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "launch", MCPP_DIM_MISMATCH, NULL);
    mcpp_receipt *a =
        mk("a", "launch", "{\"cuda_graphs\": \"off\", \"fixed_policy\": {\"NCCL_ALGO\": \"Ring\"}}", NULL);
    mcpp_receipt *b = mk("b", "launch", "{\"fixed_policy\": {\"NCCL_ALGO\": \"Ring\", \"cuda_graphs\": false}}", NULL);
    expect_one_lane(a, b);
    /* full in one field and false in the other, in one receipt: refused */
    char *p =
        problems_of("c", "launch", "{\"cuda_graphs\": \"full\", \"fixed_policy\": {\"cuda_graphs\": false}}", NULL);
    CHECK_CONTAINS(p, "launch.cuda_graphs is full but launch.fixed_policy.cuda_graphs says false");
    free(p);
}

/* ---- Item 12: padding waste, grouped routing and FP8 experts ---------------------------- */

TEST(padding_waste_is_a_metric_and_routing_states_groups_and_expert_precision)
{
    mcpp_receipt *r = mk("w", "workload", WORKLOAD("200"), NULL);
    mcpp_metric m;
    CHECK_INT_EQ(mcpp_receipt_metric_find(&m, r, "padding_waste_fraction"), MCPP_OK);
    CHECK(m.value > 0.21874 && m.value < 0.21876); /* 56 of 256 tokens per step were padding */
    CHECK_INT_EQ((int)m.direction, (int)MCPP_DIRECTION_LOWER);
    CHECK_STR_EQ(m.path, "metrics.padding_waste_fraction");
    mcpp_receipt_free(r);
#define MOE(extra) "{\"mode\": \"token_choice\", \"num_experts\": 8, \"top_k\": 2" extra "}"
#define MOE_LANE "{\"family\": \"tiny-moe\", \"pattern\": \"AE\", \"depth\": 4, \"d_model\": 64, \"heads\": 4}"
    /* group-limited routing against ungrouped, FP8 experts against the default: another model run */
    expect(mk("a", "lane", MOE_LANE, "routing", MOE(", \"groups\": 8, \"group_top_k\": 2"), NULL),
           mk("b", "lane", MOE_LANE, "routing", MOE(", \"groups\": 4, \"group_top_k\": 2"), NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "routing", MCPP_DIM_MISMATCH, "routing.groups differs: 8 vs 4");
    /* stated on one side only: no evidence the routing is the same (missing is never a match) */
    expect(mk("a", "lane", MOE_LANE, "routing", MOE(""), NULL),
           mk("b", "lane", MOE_LANE, "routing", MOE(", \"groups\": 4, \"group_top_k\": 2"), NULL),
           MCPP_VERDICT_INSUFFICIENT, "routing", MCPP_DIM_MISSING, "routing.groups is absent on base");
    expect(mk("a", "lane", MOE_LANE, "routing", MOE(", \"expert_precision\": \"fp8\""), NULL),
           mk("b", "lane", MOE_LANE, "routing", MOE(", \"expert_precision\": \"bf16\""), NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "routing", MCPP_DIM_MISMATCH, "routing.expert_precision differs");
    expect(mk("a", "lane", MOE_LANE, "routing", MOE(", \"expert_precision\": \"fp8+bf16\""), NULL),
           mk("b", "lane", MOE_LANE, "routing", MOE(", \"expert_precision\": \"bf16+fp8\""), NULL),
           MCPP_VERDICT_COMPARABLE, "routing", MCPP_DIM_MATCH, NULL);
    char *p = problems_of("g", "lane", MOE_LANE, "routing", MOE(", \"groups\": 2, \"group_top_k\": 3"), NULL);
    CHECK_CONTAINS(p, "expected at most routing.groups (2), got 3");
    free(p);
}

/* ---- Item 11: what happened inside the measured window ----------------------------------- */

#define WINDOW(warmup, extra)                                                                                          \
    "{\"window\": {\"warmup_steps\": " warmup ", \"measured_steps\": 8" extra "}, \"step_time_s\": {"                  \
    "\"samples\": [0.100, 0.101, 0.099, 0.100, 0.102, 0.098, 0.100, 0.101]}}"

TEST(recompiles_and_graph_captures_inside_the_window_qualify)
{
    expect(mk("a", "metrics", WINDOW("5", ", \"recompiles\": 0, \"graph_recaptures\": 0"), NULL),
           mk("b", "metrics", WINDOW("5", ", \"recompiles\": 3, \"graph_recaptures\": 0"), NULL),
           MCPP_VERDICT_QUALIFIED, "compile_detail", MCPP_DIM_QUALIFY, "metrics.window.recompiles differs: 0 vs 3");
    expect(mk("a", "metrics", WINDOW("5", ", \"recompiles\": 0, \"graph_recaptures\": 0"), NULL),
           mk("b", "metrics", WINDOW("5", ", \"recompiles\": 0, \"graph_recaptures\": 2"), NULL),
           MCPP_VERDICT_QUALIFIED, "compile_detail", MCPP_DIM_QUALIFY, "graph_recaptures differs: 0 vs 2");
    /* twenty warm-up steps against none: another starting line (the window dimension) */
    expect(mk("a", "metrics", WINDOW("20", ""), NULL), mk("b", "metrics", WINDOW("0", ""), NULL),
           MCPP_VERDICT_QUALIFIED, "window", MCPP_DIM_QUALIFY, "metrics.window.warmup_steps differs: 20 vs 0");
}

/* Issue 47 item 11: the measured window's capture has fields (its UTC times,
 * the steps a profiler captured), checked against the window's own steps, and
 * a profiled window is not silently comparable with an unprofiled one. */
TEST(the_measured_windows_capture_has_fields_checked_against_its_steps)
{
    /* eight steps of 0.1 s inside 0.85 s: clean */
    char *p = problems_of("t", "metrics",
                          WINDOW("5", ", \"began\": \"2026-11-29T10:00:00.100Z\", \"ended\": "
                                      "\"2026-11-29T10:00:00.950Z\", \"profiled_steps\": 0"),
                          NULL);
    CHECK(strstr(p, "metrics.window") == NULL);
    free(p);
    /* the same in another offset: one instant, still clean */
    p = problems_of("t", "metrics",
                    WINDOW("5", ", \"began\": \"2026-11-29T11:00:00.100+01:00\", \"ended\": "
                                "\"2026-11-29T10:00:00.950Z\""),
                    NULL);
    CHECK(strstr(p, "metrics.window") == NULL);
    free(p);
    /* ended before it began */
    p = problems_of("t", "metrics",
                    WINDOW("5", ", \"began\": \"2026-11-29T10:00:01.000Z\", \"ended\": \"2026-11-29T10:00:00.950Z\""),
                    NULL);
    CHECK_CONTAINS(p, "metrics.window.ended: expected a time no earlier than metrics.window.began");
    free(p);
    /* a window of 0.3 s cannot hold 0.8 s of steps */
    p = problems_of("t", "metrics",
                    WINDOW("5", ", \"began\": \"2026-11-29T10:00:00.100Z\", \"ended\": \"2026-11-29T10:00:00.400Z\""),
                    NULL);
    CHECK_CONTAINS(p, "the measured window lasted 0.300 s (began 2026-11-29T10:00:00.100Z), less than its 8 "
                      "measured steps (0.801 s)");
    free(p);
    /* whole seconds: a window of "0 s" may hold them (the times' own resolution) */
    p = problems_of("t", "metrics",
                    WINDOW("5", ", \"began\": \"2026-11-29T10:00:00Z\", \"ended\": \"2026-11-29T10:00:00Z\""), NULL);
    CHECK(strstr(p, "metrics.window") == NULL);
    free(p);
    p = problems_of("t", "metrics", WINDOW("5", ", \"began\": \"yesterday\""), NULL);
    CHECK_CONTAINS(p, "metrics.window.began: expected an RFC 3339 time");
    free(p);
    p = problems_of("t", "metrics", WINDOW("5", ", \"profiled_steps\": 9"), NULL);
    CHECK_CONTAINS(p, "metrics.window.profiled_steps: expected at most metrics.window.measured_steps (8), got 9");
    free(p);
    /* four of the eight steps under a profiler against none: qualified, never silently comparable */
    expect(mk("a", "metrics", WINDOW("5", ", \"profiled_steps\": 0"), NULL),
           mk("b", "metrics", WINDOW("5", ", \"profiled_steps\": 4"), NULL), MCPP_VERDICT_QUALIFIED, "compile_detail",
           MCPP_DIM_QUALIFY, "metrics.window.profiled_steps differs: 0 vs 4");
    /* the times alone are when, not what: two windows at other times are one lane */
    expect(mk("a", "metrics",
              WINDOW("5", ", \"began\": \"2026-11-29T10:00:00.100Z\", \"ended\": \"2026-11-29T10:00:00.950Z\""), NULL),
           mk("b", "metrics",
              WINDOW("5", ", \"began\": \"2026-11-30T09:00:00.100Z\", \"ended\": \"2026-11-30T09:00:00.990Z\""), NULL),
           MCPP_VERDICT_COMPARABLE, "window", MCPP_DIM_MATCH, "same on both sides");
}

int main(void)
{
    RUN(quality_compares_in_its_own_direction_and_never_across_metrics);
    RUN(throughput_at_unequal_quality_is_qualified_and_says_so);
    RUN(a_lane_headline_never_blends_starting_lines_and_says_what_it_pools);
    RUN(a_precision_recipe_is_a_set_everywhere);
    RUN(one_table_of_requests_feeds_validation_fallbacks_and_the_frontier);
    RUN(runs_that_asked_for_eight_per_node_and_got_four_are_no_stable_lane);
    RUN(a_fallback_that_contradicts_the_observed_backend_is_a_warning);
    RUN(per_family_timings_must_fit_the_stack_and_the_step);
    RUN(generated_launch_args_must_describe_their_lane);
    RUN(goodput_fractions_have_their_own_paths_and_seconds_are_not_compared);
    RUN(cuda_graphs_have_one_spelling);
    RUN(padding_waste_is_a_metric_and_routing_states_groups_and_expert_precision);
    RUN(recompiles_and_graph_captures_inside_the_window_qualify);
    RUN(the_measured_windows_capture_has_fields_checked_against_its_steps);
    TEST_MAIN_END();
}
