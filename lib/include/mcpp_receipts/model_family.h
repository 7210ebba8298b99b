/*
 * mcpp_receipts/model_family.h — the model-family registry: a family name fixes a
 * block pattern (or only the letters a pattern may use), a depth, and so the
 * count of each block kind in the tiled stack. NAM56R is AEMEAEMEAEMR at depth
 * 52: 13 A, 13 M, 22 E, 4 R. The shipped registry is data/families.tsv (built
 * into the library, installed under share/mcpp_receipts/), parsed once on
 * first use and safe from any thread.
 *
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_MODEL_FAMILY_H
#define MCPP_RECEIPTS_MODEL_FAMILY_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcpp_model_family {
    char name[32];
    char pattern[64]; /* "" when the family fixes only depth and letters */
    char letters[8];  /* block letters the pattern may use, e.g. "AM"      */
    int64_t depth;
    int64_t blocks[4]; /* A, M, E, R in the tiled stack (pattern families) */
} mcpp_model_family;

/* The registered family `name`; MCPP_ENOTFOUND when there is none. */
MCPP_API int mcpp_model_family_find(mcpp_model_family *out, const char *name);
/* The registered family whose pattern tiled to `depth` is `pattern` (so
 * AEMEAEMEAEMR at 52 gives NAM56R); MCPP_ENOTFOUND when none. */
MCPP_API int mcpp_model_family_for_pattern(mcpp_model_family *out, const char *pattern, int64_t depth);
/*
 * The canonical form of a block pattern tiled to a depth: the shortest
 * prefix that tiles the same stack, and the stack's depth. The 52-letter
 * expanded pattern of a Megatron config and "AEMEAEMEAEMR" at depth 52 are
 * one stack: both give ("AEMEAEMEAEMR", 52). depth <= 0 means "the pattern as
 * written" (depth = its length). Returns the canonical pattern's length
 * (written into out, NUL-terminated, when it fits cap; 0 for an empty
 * pattern); *depth_out gets the depth.
 */
MCPP_API size_t mcpp_pattern_canonical(char *out, size_t cap, int64_t *depth_out, const char *pattern,
                                       int64_t depth);
/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/* Counts of A, M, E, R when `pattern` is tiled (repeated, the last repeat cut
 * short) to `depth` layers. */
MCPP_EXPERIMENTAL void mcpp_model_family_block_counts(int64_t out[4], const char *pattern, int64_t depth);

/* ==== end of EXPERIMENTAL API ==== */

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_MODEL_FAMILY_H */
