/*
 * bench_ingest.c — how fast receipts are ingested, and how much memory a
 * loaded receipt holds.
 *
 * Generates N varied receipts (patterns, routing, 10-30 step samples,
 * strings, extra) as JSON text in memory, each twice with the same content:
 * in schema 2 and in schema 1 (which the library upgrades while loading).
 * Then times, best of 3 each, over the same bytes in the same run:
 *   baseline   cJSON_ParseWithLength + cJSON_Delete (what a raw parse costs)
 *   mcpp /2    mcpp_receipt_load_buffer + mcpp_receipt_free on the schema-2 text
 *              (pre-scan + parse + bind + validate + pack + free)
 *   mcpp /1    the same on the schema-1 text (plus the upgrade)
 *   tree /2    mcpp /2 with the direct JSON reader switched off (cJSON tree +
 *              bind.c, the path before issue 16 and the fallback now)
 * and reports receipts/s, MB/s and the ratio, plus the heap bytes per loaded
 * receipt with all N held at once (mallinfo2 delta / N), and how many
 * receipts the direct reader handed back to the tree path. All sides run in
 * interleaved batches of 500 receipts, best of 3 per batch, in thread CPU time,
 * so a busy shared machine slows both alike.
 *
 *   bench_ingest [--count N]      (default 100000)
 *   bench_ingest --profile R      loads the schema-2 texts R times over and
 *                                 nothing else (for perf record), prints
 *                                 receipts/s
 */
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "mcpp_receipts.h"
#include "io/json_bind_reader.h" /* the reader's test hooks */

typedef struct text {
    char *data;
    size_t len;
} text;

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}
static double rnd01(void) { return (double)(rnd() % 1000000) / 1000000.0; }

/* CPU time of this thread: the benchmark is single-threaded and the machine shared. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* linear interpolation between closest ranks, as the library documents */
static double pct(const double *s, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n)
        return s[n - 1];
    return s[lo] + (s[lo + 1] - s[lo]) * (pos - (double)lo);
}

static const char *const patterns[] = {"AEMEAEMEAEMR", "AMAMAMAM", "AAAA", "AEAEAEAE",
                                       "MMMAMMMA", "AEMEAEMEAEMEAEMR", "AMER", "MAMAMAMAMAMR"};
/* NAM56R and NAM52 are registered families: their depth is fixed (52) */
static const char *const families[] = {"NAM56R", "NAM52", "NAM52", "MOE8", "MAMBA3",
                                       "NAM64R", "AMER4", "HYB12"};
static const char *const moe_lanes[] = {"padded", "jagged", "block_sparse"};
static const char *const postures[] = {"eager", "partial", "regional", "whole_model",
                                       "graph_replay"};
static const char *const gpus[] = {"H100-SXM5-80GB", "H200-SXM5-141GB", "A100-SXM4-80GB",
                                   "B200"};

static void add(char **p, char *end, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add(char **p, char *end, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*p, (size_t)(end - *p), fmt, ap);
    va_end(ap);
    if (n > 0 && *p + n < end)
        *p += n;
}

/* One receipt; `schema` 1 or 2 changes only the layout, never the content. */
static text make_receipt(size_t i, int schema)
{
    char buf[8192], *p = buf, *end = buf + sizeof buf;
    size_t k = rnd() % 8;
    const char *pattern = patterns[k];
    int has_e = strchr(pattern, 'E') != NULL;
    const char *gpu = gpus[rnd() % 4];
    size_t n = 10 + rnd() % 21;
    double samples[32], sorted[32];
    double base = 0.2 + rnd01() * 2.0;
    for (size_t s = 0; s < n; s++)
        samples[s] = (double)(int64_t)((base * (0.97 + 0.06 * rnd01())) * 10000) / 10000.0;
    memcpy(sorted, samples, n * sizeof(double));
    qsort(sorted, n, sizeof(double), cmp_double);

    add(&p, end, "{\n  \"schema\": \"mcpp.receipt/%d\",\n  \"id\": \"bench-%zu-%08x\",\n", schema, i,
        rnd());
    add(&p, end, "  \"created_at\": \"2026-11-%02uT%02u:%02u:%02uZ\",\n", 1 + rnd() % 28,
        rnd() % 24, rnd() % 60, rnd() % 60);
    add(&p, end,
        "  \"source\": {\"tool\": \"mcpp-step\", \"git_commit\": \"%08x%04x\", \"host\": "
        "\"node-%03u\"},\n",
        rnd(), rnd() & 0xffff, rnd() % 512);
    add(&p, end,
        "  \"lane\": {\"name\": \"%s lane %zu\", \"family\": \"%s\", \"pattern\": \"%s\", "
        "\"depth\": %u, \"params_total\": %u000000, \"params_active\": %u000000},\n",
        families[k], i % 97, families[k], pattern,
        strncmp(families[k], "NAM5", 4) == 0 ? 52u : 24 + 8 * (rnd() % 6),
        4000 + rnd() % 3000, 900 + rnd() % 1000);
    unsigned seq = 1024u << (rnd() % 4), mb = 1 + rnd() % 8;
    add(&p, end,
        "  \"workload\": {\"seq_len\": %u, \"micro_batch\": %u, \"global_batch\": %u, "
        "\"tokens_per_step\": %u, \"useful_tokens_per_step\": %u, \"data\": {\"path\": \"%s\"}},\n",
        seq, mb, mb * 64, seq * mb * 64, seq * mb * 60, rnd() % 2 ? "real" : "synthetic");
    if (has_e)
        add(&p, end,
            "  \"routing\": {\"mode\": \"%s\", \"score\": \"%s\", \"num_experts\": %u, "
            "\"top_k\": %u, \"capacity_factor\": %.2f, \"overflow\": \"drop\"},\n",
            rnd() % 2 ? "token_choice" : "expert_choice", rnd() % 2 ? "softmax" : "sigmoid",
            64u, 1 + rnd() % 8, 1.0 + (rnd() % 50) / 100.0);
    add(&p, end,
        "  \"compile\": {\"posture\": \"%s\", \"warmup\": \"explicit\", \"graph_breaks\": %u, "
        "\"compile_s\": %.1f},\n",
        postures[rnd() % 5], rnd() % 4, 30 + rnd01() * 200);
    add(&p, end, "  \"backend\": {\"precision\": %s, \"attention\": {\"requested\": "
                 "\"flash\", \"observed\": \"flash\"}",
        schema == 1 ? "\"bf16\"" : "{\"observed\": \"bf16\"}");
    if (has_e) {
        const char *lane = moe_lanes[rnd() % 3];
        add(&p, end, ", \"moe\": {\"requested\": \"%s\", \"observed\": \"%s\"}", lane, lane);
    }
    add(&p, end, ", \"fallbacks\": [%s]},\n", rnd() % 4 ? "" : "\"attention:flash->sdpa\"");
    add(&p, end,
        "  \"hardware\": {\"requested\": {\"accelerator\": \"%s\", \"count\": 8}, \"observed\": "
        "{\"accelerator\": \"%s\", \"count\": 8, \"memory_gib\": 79.6}},\n",
        gpu, gpu);
    add(&p, end,
        "  \"topology\": {\"substrate\": \"cuda\", \"nodes\": 1, \"tp\": %u, \"pp\": 1, \"dp\": "
        "%u, \"sp\": false, \"fsdp\": true},\n",
        1u << (rnd() % 3), 8u);
    add(&p, end, "  \"startup\": {\"state\": \"%s\"},\n", rnd() % 2 ? "warm_cache" : "cold_boot");
    add(&p, end,
        "  \"metrics\": {\n    \"window\": {\"warmup_steps\": 10, \"measured_steps\": %zu},\n"
        "    \"step_time_s\": {\"samples\": [",
        n);
    for (size_t s = 0; s < n; s++)
        add(&p, end, "%s%.4f", s ? ", " : "", samples[s]);
    add(&p, end, "], \"median\": %.17g, \"p10\": %.17g, \"p90\": %.17g},\n", pct(sorted, n, 0.5),
        pct(sorted, n, 0.1), pct(sorted, n, 0.9));
    add(&p, end,
        "    \"tokens_per_s\": %.1f,\n    \"per_family_ms\": {\"A\": %.2f, \"M\": %.2f, \"E\": "
        "%.2f}\n  },\n",
        (double)(seq * mb * 60) / pct(sorted, n, 0.5), rnd01() * 400, rnd01() * 400,
        rnd01() * 600);
    add(&p, end, "  \"status\": {\"outcome\": \"ok\", \"stability\": \"stable\"},\n");
    add(&p, end, "  \"extra\": {\"run\": %zu, \"team\": \"perf-%u\"}\n}\n", i, rnd() % 16);
    text t;
    t.len = (size_t)(p - buf);
    t.data = malloc(t.len);
    memcpy(t.data, buf, t.len);
    return t;
}

/* CPU seconds to load and free texts[lo, hi); -1 when one does not load. */
static double load_pass(const text *texts, size_t lo, size_t hi)
{
    double t0 = cpu_s();
    for (size_t i = lo; i < hi; i++) {
        mcpp_receipt *r = NULL;
        if (mcpp_receipt_load_buffer(&r, NULL, texts[i].data, texts[i].len, MCPP_FORMAT_JSON, NULL,
                                     NULL) != MCPP_OK)
            return -1;
        mcpp_receipt_free(r);
    }
    return cpu_s() - t0;
}

/* CPU seconds to parse and delete texts[lo, hi) with raw cJSON; -1 on failure. */
static double cjson_pass(const text *texts, size_t lo, size_t hi)
{
    double t0 = cpu_s();
    for (size_t i = lo; i < hi; i++) {
        cJSON *root = cJSON_ParseWithLength(texts[i].data, texts[i].len);
        if (!root)
            return -1;
        cJSON_Delete(root);
    }
    return cpu_s() - t0;
}

/* Summed per-batch best times of each path. */
typedef struct timings {
    double cjson, mcpp, v1, tree;
} timings;

static void keep_best(double *best, double t)
{
    if (t < *best)
        *best = t;
}

/* Interleaved batches: for each batch of receipts, the raw-cJSON pass and the
 * mcpp passes run back to back three times and each keeps its best; the totals
 * are sums of per-batch bests. On a shared machine this keeps both sides under
 * the same load, and thread CPU time ignores descheduling. 0 on success. */
static int time_batches(timings *out, const text *texts, const text *texts_v1, size_t count,
                        size_t batch)
{
    memset(out, 0, sizeof *out);
    for (size_t lo = 0; lo < count; lo += batch) {
        size_t hi = lo + batch < count ? lo + batch : count;
        timings best = {1e30, 1e30, 1e30, 1e30};
        for (int rep = 0; rep < 3; rep++) {
            double c = cjson_pass(texts, lo, hi), m = load_pass(texts, lo, hi);
            double v1 = load_pass(texts_v1, lo, hi);
            mcpp_json_reader_disabled = 1;
            double tree = load_pass(texts, lo, hi);
            mcpp_json_reader_disabled = 0;
            if (c < 0 || m < 0 || v1 < 0 || tree < 0)
                return 1;
            keep_best(&best.cjson, c);
            keep_best(&best.mcpp, m);
            keep_best(&best.v1, v1);
            keep_best(&best.tree, tree);
        }
        out->cjson += best.cjson;
        out->mcpp += best.mcpp;
        out->v1 += best.v1;
        out->tree += best.tree;
    }
    return 0;
}

/* Heap bytes per receipt with all of them loaded at once (mallinfo2 delta). */
static double bytes_per_loaded_receipt(const text *texts, size_t count)
{
    mcpp_receipt **held = calloc(count, sizeof *held);
    struct mallinfo2 before = mallinfo2();
    for (size_t i = 0; i < count; i++)
        mcpp_receipt_load_buffer(&held[i], NULL, texts[i].data, texts[i].len, MCPP_FORMAT_JSON,
                                 NULL, NULL);
    struct mallinfo2 after = mallinfo2();
    for (size_t i = 0; i < count; i++)
        mcpp_receipt_free(held[i]);
    free(held);
    return (double)(after.uordblks - before.uordblks) / (double)count;
}

/* Every generated receipt must load: a benchmark of failures measures nothing. */
static int check_all_load(const text *texts, const text *texts_v1, size_t count)
{
    for (size_t i = 0; i < 2 * count; i++) {
        const text *t = i < count ? &texts[i] : &texts_v1[i - count];
        mcpp_receipt *r = NULL;
        if (mcpp_receipt_load_buffer(&r, NULL, t->data, t->len, MCPP_FORMAT_JSON, "bench",
                                     NULL) != MCPP_OK) {
            fprintf(stderr, "receipt %zu does not load: %s\n%.*s\n", i % count,
                    mcpp_error_last()->message, (int)t->len, t->data);
            return 1;
        }
        mcpp_receipt_free(r);
    }
    return 0;
}

static void print_results(const timings *best, size_t count, size_t batch, size_t total_bytes,
                          size_t total_bytes_v1, unsigned long fallbacks, double per_receipt)
{
    double mb = (double)total_bytes / 1e6;
    printf("bench_ingest: %zu receipts, %.1f MB of JSON (%.0f bytes each on average)\n"
           "timing: thread CPU time, batches of %zu interleaved, best of 3 per batch, summed\n\n",
           count, mb, (double)total_bytes / (double)count, batch);
    printf("| path                                     | receipts/s | MB/s   | vs raw cJSON |\n");
    printf("|------------------------------------------|-----------:|-------:|-------------:|\n");
    printf("| raw cJSON_ParseWithLength + cJSON_Delete | %10.0f | %6.1f | %11.2fx |\n",
           (double)count / best->cjson, mb / best->cjson, 1.0);
    printf("| mcpp_receipt_load_buffer + free (/2)     | %10.0f | %6.1f | %11.2fx |\n",
           (double)count / best->mcpp, mb / best->mcpp, best->cjson / best->mcpp);
    printf("| mcpp_receipt_load_buffer + free (/1)     | %10.0f | %6.1f | %11.2fx |\n",
           (double)count / best->v1, (double)total_bytes_v1 / 1e6 / best->v1,
           best->cjson / best->v1);
    printf("| tree path (reader off) (/2)              | %10.0f | %6.1f | %11.2fx |\n",
           (double)count / best->tree, mb / best->tree, best->cjson / best->tree);
    printf("\ndirect reader vs tree path, same receipts: %.2fx the receipts/s; handed back to "
           "the tree path: %lu of %zu loads\n",
           best->tree / best->mcpp, fallbacks, 2 * count);
    printf("\nschema 2 vs schema 1, same content: %.2fx the receipts/s (target >= 0.90: %s)\n",
           best->v1 / best->mcpp, best->v1 / best->mcpp >= 0.90 ? "met" : "MISSED");
    printf("\nmemory per loaded receipt (all %zu held, mallinfo2 delta): %.0f bytes (%.2f KiB)\n",
           count, per_receipt, per_receipt / 1024.0);
    printf("targets: >= 1.5x raw cJSON: %s; <= 2 KiB per receipt: %s\n",
           best->cjson / best->mcpp >= 1.5 ? "met" : "MISSED", per_receipt <= 2048 ? "met" : "MISSED");
}

int main(int argc, char **argv)
{
    size_t count = 100000, profile = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--count") == 0 && i + 1 < argc)
            count = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
            profile = (size_t)strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: bench_ingest [--count N] [--profile ROUNDS]\n");
            return 2;
        }
    }
    if (count == 0)
        count = 1;
    text *texts = malloc(count * sizeof *texts), *texts_v1 = malloc(count * sizeof *texts_v1);
    size_t total_bytes = 0, total_bytes_v1 = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t state = rng_state; /* the same draws for both layouts */
        texts[i] = make_receipt(i, 2);
        rng_state = state;
        texts_v1[i] = make_receipt(i, 1);
        total_bytes += texts[i].len;
        total_bytes_v1 += texts_v1[i].len;
    }
    if (profile) {
        double t = 0;
        for (size_t round = 0; round < profile; round++) {
            double one = load_pass(texts, 0, count);
            if (one < 0)
                return 1;
            t += one;
        }
        printf("direct path: %.0f receipts/s (thread CPU time, %zu x %zu loads)\n", (double)(count * profile) / t,
               profile, count);
        return 0;
    }
    unsigned long fallbacks_before = mcpp_json_reader_fallbacks;
    if (check_all_load(texts, texts_v1, count))
        return 1;
    unsigned long fallbacks = mcpp_json_reader_fallbacks - fallbacks_before;
    const size_t batch = 500;
    timings best;
    if (time_batches(&best, texts, texts_v1, count, batch))
        return 1;
    double per_receipt = bytes_per_loaded_receipt(texts, count);
    print_results(&best, count, batch, total_bytes, total_bytes_v1, fallbacks, per_receipt);
    for (size_t i = 0; i < count; i++) {
        free(texts[i].data);
        free(texts_v1[i].data);
    }
    free(texts);
    free(texts_v1);
    return 0;
}
