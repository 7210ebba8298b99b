/*
 * quality_check.c — what a run trained to, as the `quality` dimension and as
 * the metric quality.achieved (issue 47 item 1).
 *
 * A quality metric has a direction of its own (receipt/quality_metrics.h:
 * loss and perplexity lower, accuracy higher); two different quality metrics
 * are never one number; and throughput measured at unequal quality is at
 * most qualified, saying which side reached the better quality (the notes:
 * a tax "may buy quality"; convergence-adjusted productivity).
 */
#include <string.h>
#include <strings.h>

#include "analysis/compare_internal.h"
#include "receipt/field_ids.h"
#include "receipt/quality_metrics.h"

int mcpp_quality_metric_ident(mcpp_metric_ident *ident, const mcpp_receipt *r)
{
    mcpp_direction dir;
    const char *metric = mcpp_field_string(r, MCPP_F_quality_metric);
    if (!metric || !mcpp_quality_direction_of(&dir, r))
        return 0;
    ident->name = metric; /* the quality metric itself: two of them never compare as one */
    ident->unit = NULL;
    ident->higher_is_better = dir == MCPP_DIRECTION_HIGHER;
    return 1;
}

static int number(const mcpp_receipt *r, int id, double *out)
{
    mcpp_value v;
    if (!mcpp_field_get(r, id, &v))
        return 0;
    if (v.type == MCPP_TYPE_DOUBLE)
        *out = v.number;
    else if (v.type == MCPP_TYPE_INT)
        *out = (double)v.integer;
    else
        return 0;
    return 1;
}

/* 1 when both are results of one benchmark of one suite that ended ok and
 * neither states a target: the suite fixes the quality to reach (an MLPerf
 * Training run stops when it reaches its target, and its log does not say
 * the target), so the quality each reached on the way is not a difference. */
static int suite_fixes_target(const mcpp_receipt *b, const mcpp_receipt *c)
{
    const char *sb = mcpp_field_string(b, MCPP_F_benchmark_suite), *sc = mcpp_field_string(c, MCPP_F_benchmark_suite);
    const char *nb = mcpp_field_string(b, MCPP_F_benchmark_name), *nc = mcpp_field_string(c, MCPP_F_benchmark_name);
    mcpp_value ob, oc;
    return sb && sc && nb && nc && strcmp(sb, sc) == 0 && strcmp(nb, nc) == 0 &&
           mcpp_field_get(b, MCPP_F_status_outcome, &ob) && mcpp_field_get(c, MCPP_F_status_outcome, &oc) &&
           ob.string && oc.string && strcmp(ob.string, "ok") == 0 && strcmp(oc.string, "ok") == 0;
}

/* 1 when `achieved` meets `target` in direction `dir`. */
static int meets(double achieved, double target, mcpp_direction dir)
{
    return dir == MCPP_DIRECTION_LOWER ? achieved <= target : achieved >= target;
}

/* `field` is absent on a side: the pair qualifies, since throughput at a quality
 * only one side (or neither) `verb`s is not one number. */
static mcpp_dim_status absent_qualifies(mcpp_strbuf *why, const char *field, int has_base, int has_cand,
                                        const char *verb)
{
    mcpp_sb_printf(why, "qualifies: %s is absent on %s: throughput at a quality %s %s", field,
                   mcpp_absent_sides(has_base, has_cand), !has_base && !has_cand ? "neither side" : "only one side",
                   verb);
    return MCPP_DIM_QUALIFY;
}

mcpp_dim_status mcpp_quality_status(const mcpp_receipt *b, const mcpp_receipt *c, mcpp_strbuf *why)
{
    mcpp_strbuf discard;
    if (!why) {
        mcpp_sb_init_discard(&discard);
        why = &discard;
    }
    const char *mb = mcpp_field_string(b, MCPP_F_quality_metric), *mc = mcpp_field_string(c, MCPP_F_quality_metric);
    double ab = 0, ac = 0, tb = 0, tc = 0;
    int has_ab = number(b, MCPP_F_quality_achieved, &ab), has_ac = number(c, MCPP_F_quality_achieved, &ac);
    int has_tb = number(b, MCPP_F_quality_target, &tb), has_tc = number(c, MCPP_F_quality_target, &tc);
    if (!mb || !mc)
        return absent_qualifies(why, "quality.metric", mb != NULL, mc != NULL, "names");
    if (strcasecmp(mb, mc) != 0) {
        mcpp_sb_printf(why, "qualifies: trained to different quality metrics, %s vs %s: never compared as one number",
                       mb, mc);
        return MCPP_DIM_QUALIFY;
    }
    if (has_tb && has_tc && tb != tc) {
        mcpp_sb_printf(why, "qualifies: quality.target differs: %g vs %g", tb, tc);
        return MCPP_DIM_QUALIFY;
    }
    if (!has_ab || !has_ac)
        return absent_qualifies(why, "quality.achieved", has_ab, has_ac, "states");
    if (ab == ac) {
        mcpp_sb_puts(why, "same quality on both sides");
        return MCPP_DIM_MATCH;
    }
    mcpp_direction db, dc;
    int known = mcpp_quality_direction_of(&db, b) && mcpp_quality_direction_of(&dc, c) && db == dc;
    if (known && has_tb && has_tc && meets(ab, tb, db) && meets(ac, tc, dc)) {
        mcpp_sb_printf(why, "both reached quality.target %g (%s, %s is better)", tb, mb,
                       db == MCPP_DIRECTION_LOWER ? "lower" : "higher");
        return MCPP_DIM_MATCH;
    }
    if (!has_tb && !has_tc && suite_fixes_target(b, c)) {
        mcpp_sb_printf(why, "both ran %s to its end (ok): the suite fixes the quality to reach",
                       mcpp_field_string(b, MCPP_F_benchmark_name));
        return MCPP_DIM_MATCH;
    }
    mcpp_sb_printf(why, "qualifies: throughput at unequal quality: %s %g vs %g", mb, ab, ac);
    if (known) {
        int cand_better = db == MCPP_DIRECTION_LOWER ? ac < ab : ac > ab;
        mcpp_sb_printf(why, " (%s is better: cand's quality is %s)", db == MCPP_DIRECTION_LOWER ? "lower" : "higher",
                       cand_better ? "better" : "worse");
    } else {
        mcpp_sb_printf(why, " (%s is not in the quality registry: which is better is unknown)", mb);
    }
    mcpp_sb_puts(why, "; a speed-up may have been bought with quality");
    return MCPP_DIM_QUALIFY;
}
