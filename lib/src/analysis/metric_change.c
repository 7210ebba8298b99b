/*
 * metric_change.c — the sign convention of metric_change.h: one number,
 * the improvement (positive better, magnitude the metric's own relative
 * change), and the words every renderer prints for it.
 */
#include <math.h>

#include "analysis/metric_change.h"

double mcpp_metric_improvement(double rel, int higher_is_better)
{
    return higher_is_better ? rel : -rel;
}

void mcpp_metric_improvement_interval(const mcpp_metric_result *m, double *low, double *high)
{
    double a = mcpp_metric_improvement(m->interval_low, m->higher_is_better);
    double b = mcpp_metric_improvement(m->interval_high, m->higher_is_better);
    *low = a < b ? a : b;
    *high = a < b ? b : a;
}

/* Rounded to the 0.1% the words print, so "worse by 0.0%" is never said. */
static int rounds_to_zero(double u)
{
    return !isfinite(u) || fabs(u) < 0.0005;
}

const char *mcpp_change_word(double u)
{
    if (!isfinite(u)) return "unknown";
    return rounds_to_zero(u) ? "unchanged" : u > 0 ? "better" : "worse";
}

void mcpp_sb_change_words(mcpp_strbuf *b, double u)
{
    if (rounds_to_zero(u)) mcpp_sb_puts(b, mcpp_change_word(u));
    else mcpp_sb_printf(b, "%s by %.1f%%", mcpp_change_word(u), fabs(u) * 100);
}

void mcpp_sb_signed_change(mcpp_strbuf *b, double rel)
{
    if (!isfinite(rel)) mcpp_sb_puts(b, "unknown");
    else mcpp_sb_printf(b, "%+.1f%%", rel * 100 == 0 ? 0.0 : rel * 100);
}

void mcpp_sb_interval_words(mcpp_strbuf *b, const mcpp_metric_result *m)
{
    double lo = m->interval_low < m->interval_high ? m->interval_low : m->interval_high;
    double hi = m->interval_low < m->interval_high ? m->interval_high : m->interval_low;
    mcpp_sb_signed_change(b, lo);
    mcpp_sb_puts(b, " .. ");
    mcpp_sb_signed_change(b, hi);
}
