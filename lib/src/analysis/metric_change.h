/*
 * metric_change.h — the one sign convention for a metric's change, used by
 * every renderer (compare, gate, claim, report): in words "better by 3.1%" /
 * "worse by 37.0%", in JSON the signed `improvement` (positive is better).
 */
#ifndef MCPP_METRIC_CHANGE_H
#define MCPP_METRIC_CHANGE_H

#include "mcpp_receipts/compare.h"
#include "util/strbuf.h"

/* The change of a metric in its favourable sense: positive is better,
 * negative is worse, the magnitude the relative change of the metric itself
 * (rel for higher-is-better metrics, -rel for lower-is-better ones). */
double mcpp_metric_improvement(double rel, int higher_is_better);
/* The interval of mcpp_metric_improvement, low <= high. */
void mcpp_metric_improvement_interval(const mcpp_metric_result *m, double *low, double *high);
/* "better by 3.1%", "worse by 37.0%", "unchanged": the words every renderer
 * uses for an improvement u. */
void mcpp_sb_change_words(mcpp_strbuf *b, double u);
/* A raw relative change of the metric as a signed percentage: "+12.3%". */
void mcpp_sb_signed_change(mcpp_strbuf *b, double rel);
/* The interval of the raw change, low to high: "-16.7% .. -8.1%" (the
 * metric itself moved by that much; its direction says which is better). */
void mcpp_sb_interval_words(mcpp_strbuf *b, const mcpp_metric_result *m);
/* "better", "worse" or "unchanged" (static). */
const char *mcpp_change_word(double u);

#endif /* MCPP_METRIC_CHANGE_H */
