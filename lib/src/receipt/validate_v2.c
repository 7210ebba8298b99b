/*
 * validate_v2.c — cross-field rules of the fields schema 2 added: the family
 * registry (pattern, depth and block counts of a registered family), block
 * counts against the tiled pattern, precision recipes, run index, features,
 * sections a source does not record, accelerator names the alias table does
 * not know, and schema-1 inputs that state schema-2 fields.
 */
#include <stdio.h>
#include <string.h>

#include "mcpp_receipts/accelerator.h"
#include "mcpp_receipts/model_family.h"
#include "receipt/cjson_inline.h"
#include "receipt/load_ctx.h"
#include "receipt/schema.h"

#define P(id) mcpp_present(r, MCPP_F_##id)

static const int block_fields[4] = {MCPP_F_lane_blocks_A, MCPP_F_lane_blocks_M,
                                    MCPP_F_lane_blocks_E, MCPP_F_lane_blocks_R};
static const char block_letters[] = "AMER";

/* Stated lane.blocks against the counts of the pattern tiled to depth. Where
 * the counts come from (`family`, NULL for the receipt's own pattern) is
 * formatted into the message only when one disagrees: every valid receipt
 * passes here, and an snprintf each was ~1% of a load. */
static void check_block_counts(mcpp_load_ctx *ctx, const mcpp_receipt *r, const int64_t want[4],
                               const char *family, const char *pattern, int64_t depth)
{
    int any = P(lane_blocks_A) || P(lane_blocks_M) || P(lane_blocks_E) || P(lane_blocks_R);
    if (!any)
        return;
    char why[160];
    why[0] = '\0';
    for (int k = 0; k < 4; k++) {
        int id = block_fields[k];
        int64_t stated = mcpp_present(r, id) ? mcpp_int_slot_read(mcpp_field_cptr(&r->f, id), mcpp_schema_entries[id].storage) : 0;
        if (stated == want[k])
            continue;
        if (!why[0] && family)
            snprintf(why, sizeof why, "registered family %s: \"%s\" at depth %lld", family,
                     pattern, (long long)depth);
        else if (!why[0])
            snprintf(why, sizeof why, "pattern \"%s\" tiled to depth %lld", pattern,
                     (long long)depth);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency",
                         mcpp_schema_entries[id].info.path, !mcpp_present(r, id),
                         "expected %lld %c blocks (%s), got %lld", (long long)want[k],
                         block_letters[k], why, (long long)stated);
    }
}

/* Whether the receipt's pattern is the family's stack: written short and
 * tiled, or expanded to every layer (Megatron style), compared canonically
 * (mcpp_pattern_canonical). A depth not stated is the family's, unless the
 * pattern is written out longer than that. */
static int same_stack(const mcpp_model_family *fam, const mcpp_receipt *r)
{
    const mcpp_fields *f = &r->f;
    char mine[128], theirs[128];
    int64_t len = (int64_t)strlen(f->lane_pattern), d;
    int64_t depth = P(lane_depth) ? f->lane_depth : len > fam->depth ? len : fam->depth;
    size_t n = mcpp_pattern_canonical(mine, sizeof mine, &d, f->lane_pattern, depth);
    size_t m = mcpp_pattern_canonical(theirs, sizeof theirs, &d, fam->pattern, fam->depth);
    return n < sizeof mine && m < sizeof theirs && strcmp(mine, theirs) == 0;
}

void mcpp_validate_family(mcpp_load_ctx *ctx, const mcpp_receipt *r, int has_e)
{
    const mcpp_fields *f = &r->f;
    int64_t counts[4];
    if (P(lane_pattern) && P(lane_depth)) {
        mcpp_model_family_block_counts(counts, f->lane_pattern, f->lane_depth);
        check_block_counts(ctx, r, counts, NULL, f->lane_pattern, f->lane_depth);
    }
    mcpp_model_family fam;
    if (!P(lane_family) || mcpp_model_family_find(&fam, f->lane_family) != MCPP_OK)
        return;
    const char *path = mcpp_schema_entries[MCPP_F_lane_family].info.path;
    if (fam.pattern[0] && P(lane_pattern) && !same_stack(&fam, r))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", path, 0,
                         "registered family %s has pattern \"%s\", got lane.pattern \"%s\"",
                         fam.name, fam.pattern, f->lane_pattern);
    if (fam.pattern[0] && P(lane_pattern) && !P(lane_depth) && strlen(f->lane_pattern) > strlen(fam.pattern) &&
        (int64_t)strlen(f->lane_pattern) != fam.depth)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", path, 0,
                         "registered family %s has depth %lld, the expanded lane.pattern has %zu blocks",
                         fam.name, (long long)fam.depth, strlen(f->lane_pattern));
    if (P(lane_depth) && f->lane_depth != fam.depth)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", path, 0,
                         "registered family %s has depth %lld, got lane.depth %lld", fam.name,
                         (long long)fam.depth, (long long)f->lane_depth);
    if (P(lane_pattern) && !fam.pattern[0]) {
        for (const char *p = f->lane_pattern; *p; p++) {
            if (!strchr(fam.letters, *p)) {
                mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", path, 0,
                                 "registered family %s uses only the blocks %s, got '%c' in "
                                 "lane.pattern \"%s\"%s",
                                 fam.name, fam.letters, *p, f->lane_pattern,
                                 has_e && *p == 'E' ? " (a dense family has no E blocks)" : "");
                break;
            }
        }
    }
    if (fam.pattern[0] && !P(lane_pattern))
        check_block_counts(ctx, r, fam.blocks, fam.name, fam.pattern, fam.depth);
}

/* Recipe grammar: FORMAT ("+" FORMAT)*, each format once. */
static void check_precision(mcpp_load_ctx *ctx, int id, const char *value)
{
    static const char *const formats[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "fp8_e4m3",
                                          "fp8_e5m2", "mxfp8", "mxfp4", "nvfp4", "fp4", NULL};
    char part[32];
    const char *s = value;
    int seen[16] = {0};
    for (;;) {
        size_t n = strcspn(s, "+");
        int index = -1;
        if (n > 0 && n < sizeof part) {
            memcpy(part, s, n);
            part[n] = '\0';
            index = mcpp_enum_index(formats, part);
        }
        if (index < 0 || seen[index]++) {
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "enum", mcpp_schema_entries[id].info.path,
                             0,
                             "expected a precision or a recipe of them joined by '+' (fp32, "
                             "tf32, bf16, fp16, fp8, fp8_e4m3, fp8_e5m2, mxfp8, mxfp4, nvfp4, "
                             "fp4; each once), got \"%s\"",
                             value);
            return;
        }
        if (s[n] == '\0')
            return;
        s += n + 1;
    }
}

/* Whether the shipped table knows `name`. Receipts of one fleet repeat a few
 * names, and canonicalising (normalise, then scan the aliases) was a tenth of
 * a load, so each thread remembers the last few names it was asked about. */
static int accelerator_known(const char *name)
{
    enum { SLOTS = 8, LONGEST = 63 };
    static _Thread_local struct {
        char name[LONGEST + 1];
        int known;
    } cache[SLOTS];
    static _Thread_local unsigned next;
    size_t len = strlen(name);
    for (int i = 0; len <= LONGEST && i < SLOTS; i++)
        if (cache[i].name[0] && strcmp(cache[i].name, name) == 0)
            return cache[i].known;
    mcpp_accelerator a;
    int known = mcpp_accelerator_canonicalize(&a, NULL, name) != MCPP_OK || a.matched;
    if (len <= LONGEST && len > 0) {
        unsigned slot = next++ % SLOTS;
        memcpy(cache[slot].name, name, len + 1);
        cache[slot].known = known;
    }
    return known;
}

static void check_accelerator(mcpp_load_ctx *ctx, int id, const char *name)
{
    mcpp_accelerator a;
    if (!accelerator_known(name) && mcpp_accelerator_canonicalize(&a, NULL, name) == MCPP_OK)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "unknown_accelerator",
                         mcpp_schema_entries[id].info.path, 0,
                         "\"%s\" is not in the accelerator alias table: compared by its "
                         "normalised name \"%s\"",
                         name, a.id);
}

/* CUDA graphs have one spelling, launch.cuda_graphs (issue 47 item 10): a
 * pinned launch policy that says otherwise (full in one field, false in the
 * other) is a receipt that contradicts itself. Comparisons read the pinned
 * one where launch.cuda_graphs is absent (receipt/fields.c). */
static void check_cuda_graphs(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    static const char *const names[] = {"off", "partial", "full"};
    if (!mcpp_present(r, MCPP_F_launch_cuda_graphs) || !mcpp_present(r, MCPP_F_launch_fixed_policy))
        return;
    const cJSON *pinned = NULL;
    for (const cJSON *m = r->f.launch_fixed_policy.staged ? r->f.launch_fixed_policy.staged->child : NULL; m;
         m = m->next)
        if (m->string && strcmp(m->string, "cuda_graphs") == 0)
            pinned = m;
    if (!pinned)
        return;
    int stated = r->f.launch_cuda_graphs;
    const char *said = cJSON_IsFalse(pinned)    ? "false"
                       : cJSON_IsTrue(pinned)   ? "true"
                       : cJSON_IsString(pinned) ? pinned->valuestring
                                                : "another value";
    int agree = cJSON_IsTrue(pinned)     ? stated > 0
                : cJSON_IsFalse(pinned)  ? stated == 0
                : cJSON_IsString(pinned) ? strcmp(pinned->valuestring, names[stated]) == 0
                                         : 0;
    if (!agree)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", "launch.cuda_graphs", 0,
                         "launch.cuda_graphs is %s but launch.fixed_policy.cuda_graphs says %s: CUDA graph capture "
                         "has one spelling, launch.cuda_graphs",
                         names[stated], said);
}

static void check_features(mcpp_load_ctx *ctx, const cJSON *features)
{
    char path[300];
    for (const cJSON *m = features ? features->child : NULL; m; m = m->next) {
        if (mcpp_cj_is_bool(m) || mcpp_cj_is_string(m) || mcpp_cj_is_number(m))
            continue;
        snprintf(path, sizeof path, "features.%s", m->string);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", path, 0,
                         "expected true, false, a string or a number (a feature's setting)");
    }
}

static void check_not_recorded(mcpp_load_ctx *ctx, const mcpp_string_list *l)
{
    char path[64];
    for (size_t i = 0; i < l->count; i++) {
        int field, section;
        if (mcpp_schema_lookup(MCPP_S_ROOT, l->items[i], &field, &section) == 0 && section > 0)
            continue;
        snprintf(path, sizeof path, "source.not_recorded[%zu]", i);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "enum", path, 0,
                         "expected the name of a top-level section (e.g. compile, startup), got "
                         "\"%s\"",
                         l->items[i]);
    }
}

void mcpp_validate_v2(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    const mcpp_fields *f = &r->f;
    if (ctx->schema_version == 1) {
        for (int id = 0; id < MCPP_FIELD_COUNT; id++)
            if (mcpp_present(r, id) && mcpp_schema1_lacks(id))
                mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "unknown_field",
                                 mcpp_schema_entries[id].info.path, 1,
                                 "not a field of schema %s (it is new in %s)", MCPP_SCHEMA_ID_V1,
                                 MCPP_SCHEMA_ID);
    }
    if (P(backend_precision_requested))
        check_precision(ctx, MCPP_F_backend_precision_requested, f->backend_precision_requested);
    if (P(backend_precision_observed))
        check_precision(ctx, MCPP_F_backend_precision_observed, f->backend_precision_observed);
    if (P(routing_expert_precision))
        check_precision(ctx, MCPP_F_routing_expert_precision, f->routing_expert_precision);
    if (P(routing_group_top_k) && !P(routing_groups))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "missing", "routing.groups", 1,
                         "required because routing.group_top_k is stated: the groups it chooses from");
    else if (P(routing_group_top_k) && f->routing_group_top_k > f->routing_groups)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", "routing.group_top_k", 0,
                         "expected at most routing.groups (%lld), got %lld", (long long)f->routing_groups,
                         (long long)f->routing_group_top_k);
    if (P(hardware_requested_accelerator))
        check_accelerator(ctx, MCPP_F_hardware_requested_accelerator,
                          f->hardware_requested_accelerator);
    if (P(hardware_observed_accelerator))
        check_accelerator(ctx, MCPP_F_hardware_observed_accelerator,
                          f->hardware_observed_accelerator);
    if (P(run_index) && P(run_of) && f->run_index > f->run_of)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", "run.index", 0,
                         "expected at most run.of (%lld), got %lld", (long long)f->run_of,
                         (long long)f->run_index);
    if (P(features))
        check_features(ctx, f->features.staged);
    check_cuda_graphs(ctx, r);
    mcpp_validate_window(ctx, r);
    if (P(source_not_recorded))
        check_not_recorded(ctx, &f->source_not_recorded);
}
