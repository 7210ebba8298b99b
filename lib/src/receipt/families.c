/*
 * families.c — the model-family registry: rows of the shipped
 * data/families.tsv (compiled in), parsed once under pthread_once, and the
 * block counts of a pattern tiled to a depth (and lane.blocks derived from
 * them for the builder and for schema-1 inputs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/model_family.h"
#include "util/error_internal.h"
#include "receipt/data_files.h"
#include "receipt/load_ctx.h"
#include "receipt/schema.h"

#define MAX_FAMILIES 64

static mcpp_model_family registry[MAX_FAMILIES];
static size_t registry_count;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

void mcpp_model_family_block_counts(int64_t out[4], const char *pattern, int64_t depth)
{
    static const char letters[] = "AMER";
    size_t len = pattern ? strlen(pattern) : 0;
    memset(out, 0, 4 * sizeof out[0]);
    if (len == 0 || depth <= 0)
        return;
    int64_t full = depth / (int64_t)len, rest = depth % (int64_t)len;
    for (size_t i = 0; i < len; i++) {
        const char *at = strchr(letters, pattern[i]);
        if (at && *at)
            out[at - letters] += full + ((int64_t)i < rest ? 1 : 0);
    }
}

size_t mcpp_pattern_canonical(char *out, size_t cap, int64_t *depth_out, const char *pattern, int64_t depth)
{
    size_t len = pattern ? strlen(pattern) : 0;
    if (depth <= 0) depth = (int64_t)len;
    if (depth_out) *depth_out = depth;
    if (cap) out[0] = '\0';
    if (len == 0) return 0;
    /* the smallest period of the stack: letter i of the stack is pattern[i % len]; the two
     * indexes i % len and i % p are stepped, not divided (two 64-bit divisions a letter
     * were a quarter of a 10^5-receipt frontier: each receipt's lane key asks for this) */
    size_t period = len;
    for (size_t p = 1; p < len; p++) {
        int64_t i = (int64_t)p;
        size_t at = p, in_period = 0; /* i % len and i % p */
        while (i < depth && pattern[at] == pattern[in_period]) {
            i++;
            if (++at == len)
                at = 0;
            if (++in_period == p)
                in_period = 0;
        }
        if (i >= depth) {
            period = p;
            break;
        }
    }
    if (period < cap) {
        memcpy(out, pattern, period);
        out[period] = '\0';
    }
    return period;
}

/* One row: FAMILY PATTERN DEPTH LETTERS (tab-separated); 0 when well formed. */
static int parse_row(mcpp_model_family *f, char *line)
{
    char *cols[4];
    int n = 0;
    for (char *p = line; n < 4; n++) {
        cols[n] = p;
        char *tab = strchr(p, '\t');
        if (!tab) {
            n++;
            break;
        }
        *tab = '\0';
        p = tab + 1;
    }
    if (n != 4 || strlen(cols[0]) >= sizeof f->name || strlen(cols[1]) >= sizeof f->pattern ||
        strlen(cols[3]) >= sizeof f->letters)
        return -1;
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", cols[0]);
    if (strcmp(cols[1], "*") != 0)
        snprintf(f->pattern, sizeof f->pattern, "%s", cols[1]);
    f->depth = strtoll(cols[2], NULL, 10);
    snprintf(f->letters, sizeof f->letters, "%s", cols[3]);
    mcpp_model_family_block_counts(f->blocks, f->pattern, f->depth);
    return f->depth > 0 ? 0 : -1;
}

/* One row into the registry; stops the reading when it is full. */
static int add_row(char *line, void *unused)
{
    (void)unused;
    if (parse_row(&registry[registry_count], line) == 0)
        registry_count++;
    return registry_count == MAX_FAMILIES;
}

static void load_registry(void) { mcpp_data_rows(mcpp_data_families_tsv, mcpp_data_families_tsv_len, add_row, NULL); }

int mcpp_model_family_find(mcpp_model_family *out, const char *name)
{
    if (!out || !name)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "out and name must not be NULL");
    pthread_once(&registry_once, load_registry);
    for (size_t i = 0; i < registry_count; i++) {
        if (strcmp(registry[i].name, name) == 0) {
            *out = registry[i];
            return MCPP_OK;
        }
    }
    return MCPP_ENOTFOUND;
}

int mcpp_model_family_for_pattern(mcpp_model_family *out, const char *pattern, int64_t depth)
{
    if (!out || !pattern)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "out and pattern must not be NULL");
    pthread_once(&registry_once, load_registry);
    for (size_t i = 0; i < registry_count; i++) {
        if (registry[i].pattern[0] && strcmp(registry[i].pattern, pattern) == 0 &&
            registry[i].depth == depth) {
            *out = registry[i];
            return MCPP_OK;
        }
    }
    return MCPP_ENOTFOUND;
}

void mcpp_derive_block_counts(mcpp_receipt *staging)
{
    static const int ids[4] = {MCPP_F_lane_blocks_A, MCPP_F_lane_blocks_M, MCPP_F_lane_blocks_E,
                               MCPP_F_lane_blocks_R};
    if (!mcpp_present(staging, MCPP_F_lane_pattern) || !mcpp_present(staging, MCPP_F_lane_depth))
        return;
    for (int k = 0; k < 4; k++)
        if (mcpp_present(staging, ids[k]))
            return;
    int64_t counts[4];
    mcpp_model_family_block_counts(counts, staging->f.lane_pattern, staging->f.lane_depth);
    for (int k = 0; k < 4; k++) {
        if (counts[k] == 0)
            continue;
        mcpp_int_slot_write(mcpp_field_ptr(&staging->f, ids[k]), mcpp_schema_entries[ids[k]].storage, counts[k]);
        mcpp_set_present(staging, ids[k]);
    }
}
