/*
 * fixtures.h — receipts for the comparison tests, made from one inline JSON
 * base receipt by text substitutions (so each scenario states exactly what
 * differs from the base).
 */
#ifndef MCPP_COMPARE_FIXTURES_H
#define MCPP_COMPARE_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"

static const char FIXTURE_BASE[] =
    "{\"schema\":\"mcpp.receipt/1\",\"id\":\"base-1\","
    "\"lane\":{\"name\":\"NAM56R hybrid MoE lane\",\"family\":\"NAM56R\",\"pattern\":\"AEMEAEMEAEMR\",\"depth\":52,\"params_total\":56210000000},"
    "\"workload\":{\"seq_len\":4096,\"micro_batch\":1,\"global_batch\":64,\"tokens_per_step\":262144,"
    "\"useful_tokens_per_step\":262144,\"data\":{\"path\":\"real\",\"dataset\":\"fineweb-edu\"}},"
    "\"routing\":{\"mode\":\"token_choice\",\"score\":\"sigmoid\",\"num_experts\":64,\"top_k\":2,\"shared_experts\":1,"
    "\"capacity_factor\":1.25,\"overflow\":\"drop\"},"
    "\"compile\":{\"posture\":\"regional\",\"warmup\":\"explicit\",\"graph_breaks\":0},"
    "\"backend\":{\"precision\":\"bf16\",\"attention\":{\"requested\":\"flash\",\"observed\":\"flash\"},"
    "\"moe\":{\"requested\":\"jagged\",\"observed\":\"jagged\"},\"mamba\":{\"requested\":\"triton\",\"observed\":\"triton\"},"
    "\"recurrent\":{\"requested\":\"cuda\",\"observed\":\"cuda\"},\"verification\":{\"status\":\"passed\",\"max_rel_err\":0.001}},"
    "\"hardware\":{\"requested\":{\"accelerator\":\"NVIDIA H100 80GB HBM3\",\"count\":8},"
    "\"observed\":{\"accelerator\":\"NVIDIA H100 80GB HBM3\",\"count\":8,\"driver\":\"550.54\",\"runtime\":\"12.4\"}},"
    "\"topology\":{\"substrate\":\"cuda\",\"nodes\":1,\"tp\":1,\"pp\":1,\"ep\":8,\"cp\":1,\"dp\":8,\"sp\":false,\"fsdp\":false},"
    "\"startup\":{\"state\":\"warm_cache\"},"
    "\"metrics\":{\"step_time_s\":{\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]},\"tokens_per_s\":262144},"
    "\"status\":{\"outcome\":\"ok\",\"stability\":\"stable\"}}";

/* Replaces the first occurrence of each pairs[2k] by pairs[2k+1]; aborts when
 * a pattern is absent, so a fixture cannot silently stop saying what it says. */
static inline char *fixture_text(const char *const *pairs, size_t n_pairs)
{
    char *text = malloc(sizeof FIXTURE_BASE);
    if (!text) abort();
    memcpy(text, FIXTURE_BASE, sizeof FIXTURE_BASE);
    for (size_t k = 0; k + 1 < n_pairs * 2; k += 2) {
        const char *from = pairs[k], *to = pairs[k + 1];
        char *at = strstr(text, from);
        if (!at) {
            fprintf(stderr, "fixture: pattern not found: %s\n", from);
            abort();
        }
        size_t pre = (size_t)(at - text), fl = strlen(from), tl = strlen(to), total = strlen(text);
        char *nt = malloc(total - fl + tl + 1);
        if (!nt) abort();
        memcpy(nt, text, pre);
        memcpy(nt + pre, to, tl);
        memcpy(nt + pre + tl, at + fl, total - pre - fl + 1);
        free(text);
        text = nt;
    }
    return text;
}

/* A receipt with the substitutions applied; aborts if it does not load (the
 * fixtures must be valid receipts for the tests to mean anything). */
static inline mcpp_receipt *fixture(const char *const *pairs, size_t n_pairs)
{
    char *text = fixture_text(pairs, n_pairs);
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_buffer(&r, NULL, text, strlen(text), MCPP_FORMAT_JSON, "fixture", NULL) != MCPP_OK) {
        fprintf(stderr, "fixture does not load: %s\n%s\n", mcpp_error_last()->message, text);
        abort();
    }
    free(text);
    return r;
}

#define FIX(...)                                                                      \
    fixture((const char *const[]){__VA_ARGS__},                                       \
            sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *) / 2)

/* n receipts of n lanes that differ in seq_len only (1000 + i), ids
 * "<prefix><i>": a sweep, each lane adjacent to every other. */
static inline void fixture_seq_sweep(mcpp_receipt **rs, int n, const char *id_prefix)
{
    for (int i = 0; i < n; i++) {
        char id[48], seq[32];
        snprintf(id, sizeof id, "\"id\":\"%s%d\"", id_prefix, i);
        snprintf(seq, sizeof seq, "\"seq_len\":%d", 1000 + i);
        rs[i] = FIX("\"id\":\"base-1\"", id, "\"seq_len\":4096", seq);
    }
}

/* Step samples scaled by `factor` (a slower candidate has factor > 1). */
static inline const char *samples_scaled(char *buf, size_t cap, double factor)
{
    static const double s[8] = {1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01};
    size_t off = (size_t)snprintf(buf, cap, "\"samples\":[");
    for (int i = 0; i < 8; i++) off += (size_t)snprintf(buf + off, cap - off, "%s%.6f", i ? "," : "", s[i] * factor);
    snprintf(buf + off, cap - off, "]");
    return buf;
}

#endif /* MCPP_COMPARE_FIXTURES_H */
