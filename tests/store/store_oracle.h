/*
 * store_oracle.h — what "no silent divergence" means for a damaged store,
 * shared by the bit-flip test (test_store_bitflip.c) and the store fuzz
 * target (tests/fuzz/fuzz_store.c).
 *
 * The bodies are the truth. After any damage to anything else (images, row
 * columns, lane summaries), either the answers are still the bodies'
 * answers — a query returns the receipts the bodies hold, `frontier --store`
 * (from the summaries) equals the frontier built from the receipts — or
 * `store check` reports a problem. Answers that changed while check says ok
 * are a silent divergence. Any call may fail loudly (an error is not silent).
 */
#ifndef MCPP_TEST_STORE_ORACLE_H
#define MCPP_TEST_STORE_ORACLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"

typedef enum oracle_result {
    ORACLE_SAME,     /* answers are the bodies' and check is ok */
    ORACLE_CAUGHT,   /* check reports a problem (or a call failed loudly) */
    ORACLE_SILENT    /* answers differ from the bodies' and check says ok */
} oracle_result;

/* Appends s to a growing heap string. */
static void oracle_append(char **all, size_t *used, size_t *cap, const char *s, size_t n)
{
    if (*used + n + 1 > *cap) {
        while (*used + n + 1 > *cap) *cap = *cap ? 2 * *cap : 4096;
        *all = realloc(*all, *cap);
        if (!*all) abort();
    }
    memcpy(*all + *used, s, n);
    *used += n;
    (*all)[*used] = '\0';
}

/* Canonical JSON of every receipt a query of the store returns (images
 * where accepted), or NULL when the query failed. */
static char *oracle_query_text(mcpp_store *s)
{
    mcpp_receipt_set *set = NULL;
    if (mcpp_store_query_set(&set, s, NULL) != MCPP_OK) return NULL;
    char *all = NULL;
    size_t used = 0, cap = 0;
    oracle_append(&all, &used, &cap, "", 0);
    for (size_t i = 0; i < mcpp_receipt_set_count(set); i++) {
        char *json = NULL;
        size_t len = 0;
        if (mcpp_receipt_write(&json, &len, mcpp_receipt_set_items(set)[i], MCPP_FORMAT_JSON) != MCPP_OK) abort();
        oracle_append(&all, &used, &cap, json, len);
        mcpp_free(json);
    }
    mcpp_receipt_set_free(set);
    return all;
}

/* The same from the bodies alone, in the query's order: export reads only
 * the bodies (unpacked, never an image) and writes them one per line. */
static char *oracle_body_text(const char *path)
{
    mcpp_store *s = NULL;
    char *lines = NULL, *all = NULL;
    size_t used = 0, cap = 0;
    if (mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY) != MCPP_OK ||
        mcpp_store_export(&lines, s, NULL, "jsonl") != MCPP_OK) {
        mcpp_store_close(s);
        return NULL;
    }
    mcpp_store_close(s);
    oracle_append(&all, &used, &cap, "", 0);
    for (char *line = lines, *next; all && *line; line = next) {
        char *end = strchr(line, '\n');
        next = end ? end + 1 : line + strlen(line);
        mcpp_receipt *r = NULL;
        char *json = NULL;
        size_t len = 0;
        if (mcpp_receipt_load_buffer(&r, NULL, line, (size_t)(next - line), MCPP_FORMAT_JSON, "body", NULL) !=
            MCPP_OK) {
            free(all);
            all = NULL;
            break;
        }
        if (mcpp_receipt_write(&json, &len, r, MCPP_FORMAT_JSON) != MCPP_OK) abort();
        oracle_append(&all, &used, &cap, json, len);
        mcpp_free(json);
        mcpp_receipt_free(r);
    }
    mcpp_free(lines);
    return all;
}

/* The frontier's JSON: from the summaries (`policy` NULL) or from the receipts. */
static char *oracle_frontier_text(mcpp_store *s, const mcpp_policy *policy)
{
    mcpp_frontier *f = NULL;
    char *text = NULL;
    if (mcpp_store_frontier(&f, s, policy) == MCPP_OK) mcpp_frontier_render(&text, f, MCPP_OUTPUT_JSON);
    mcpp_frontier_free(f);
    return text;
}

static int oracle_same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Judges the store at `path` as it is now (opened read-only: nothing is rebuilt or saved). */
static oracle_result oracle_judge(const char *path)
{
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY) != MCPP_OK) return ORACLE_CAUGHT;
    mcpp_policy *policy = NULL;
    if (mcpp_policy_default(&policy) != MCPP_OK) abort();
    char *query = oracle_query_text(s), *bodies = oracle_body_text(path);
    char *cached = oracle_frontier_text(s, NULL), *rebuilt = oracle_frontier_text(s, policy);
    char *report = NULL;
    int check_ok = mcpp_store_check(&report, s) == MCPP_OK;
    int same = oracle_same(query, bodies) && oracle_same(cached, rebuilt);
    int loud = !query || !bodies || !cached || !rebuilt;
    oracle_result result = !check_ok || loud ? ORACLE_CAUGHT : same ? ORACLE_SAME : ORACLE_SILENT;
    if (result == ORACLE_SILENT)
        fprintf(stderr, "silent divergence: check says ok, but %s differ\n",
                oracle_same(query, bodies) ? "the frontiers (summaries vs receipts)" : "query and bodies");
    mcpp_free(report);
    free(query);
    free(bodies);
    mcpp_free(cached);
    mcpp_free(rebuilt);
    mcpp_policy_free(policy);
    mcpp_store_close(s);
    mcpp_error_clear();
    return result;
}

#endif /* MCPP_TEST_STORE_ORACLE_H */
