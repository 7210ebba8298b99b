/*
 * store_fixture.h — receipts for the store tests: the example NAM52 receipt
 * with its id, created_at, git commit and tokens_per_s replaced, so tests can
 * make as many distinct, valid receipts as they need.
 */
#ifndef MCPP_TEST_STORE_FIXTURE_H
#define MCPP_TEST_STORE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"

static char *fixture_base;

static char *read_file_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text) text[n] = '\0';
    fclose(f);
    return text;
}

/* Replaces the first `from` in *text with `to` (reallocating). */
static void replace_once(char **text, const char *from, const char *to)
{
    char *at = strstr(*text, from);
    if (!at) {
        fprintf(stderr, "fixture: '%s' not found\n", from);
        abort();
    }
    size_t head = (size_t)(at - *text), nf = strlen(from), nt = strlen(to), tail = strlen(at + nf);
    char *out = malloc(head + nt + tail + 1);
    memcpy(out, *text, head);
    memcpy(out + head, to, nt);
    memcpy(out + head + nt, at + nf, tail + 1);
    free(*text);
    *text = out;
}

/* JSON text of a receipt; free with free(). */
static char *fixture_text(const char *id, const char *created_at, const char *commit, double tokens_per_s)
{
    if (!fixture_base && !(fixture_base = read_file_text(MCPP_STORE_EXAMPLE))) {
        fprintf(stderr, "fixture: cannot read %s\n", MCPP_STORE_EXAMPLE);
        abort();
    }
    char *t = strdup(fixture_base), buf[128];
    snprintf(buf, sizeof buf, "\"id\": \"%s\"", id);
    replace_once(&t, "\"id\": \"nam52-dense-2026-03-12\"", buf);
    snprintf(buf, sizeof buf, "\"created_at\": \"%s\"", created_at);
    replace_once(&t, "\"created_at\": \"2026-03-12T21:03:57Z\"", buf);
    snprintf(buf, sizeof buf, "\"git_commit\": \"%s\"", commit);
    replace_once(&t, "\"git_commit\": \"4e81b7c0d2a95f63e1b8a7c4d09f2e5b6a3c1d87\"", buf);
    snprintf(buf, sizeof buf, "\"tokens_per_s\": %.17g", tokens_per_s);
    replace_once(&t, "\"tokens_per_s\": 559304.3", buf);
    /* Without its denominator any tokens_per_s is consistent with the step times. */
    replace_once(&t, "\"useful_tokens_per_step\": 1029120,", "");
    return t;
}

/* A loaded receipt (aborts on failure: the fixture is the test's own). */
static mcpp_receipt *fixture_receipt(const char *id, const char *created_at, const char *commit, double tokens_per_s)
{
    char *t = fixture_text(id, created_at, commit, tokens_per_s);
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_buffer(&r, NULL, t, strlen(t), MCPP_FORMAT_JSON, id, NULL) != MCPP_OK) {
        fprintf(stderr, "fixture: %s\n", mcpp_error_last()->message);
        abort();
    }
    free(t);
    return r;
}

/* A receipt numbered i: id "<prefix>-<i>", one run a minute, commit by i/10. */
static mcpp_receipt *fixture_numbered(const char *prefix, size_t i, double tokens_per_s)
{
    char id[96], created[64], commit[80];
    snprintf(id, sizeof id, "%s-%06zu", prefix, i);
    snprintf(created, sizeof created, "2026-04-%02zuT%02zu:%02zu:00Z", 1 + (i / 1440) % 28, (i / 60) % 24, i % 60);
    snprintf(commit, sizeof commit, "c%07zu0000000000000000000000000000000", i / 10);
    return fixture_receipt(id, created, commit, tokens_per_s);
}

/* An add leaves its rows' lane summaries to the first frontier (or check)
 * after it: a frontier on the writable store `s` saves them, for tests that
 * damage or read the lane_summaries table itself. */
static inline void fixture_save_summaries(mcpp_store *s)
{
    mcpp_frontier *f = NULL;
    if (mcpp_store_frontier(&f, s, NULL) != MCPP_OK) {
        fprintf(stderr, "fixture: frontier: %s\n", mcpp_error_last()->message);
        abort();
    }
    mcpp_frontier_free(f);
}

#endif /* MCPP_TEST_STORE_FIXTURE_H */
