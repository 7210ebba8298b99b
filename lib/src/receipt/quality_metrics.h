/*
 * quality_metrics.h — the quality metric registry (data/quality_metrics.tsv,
 * compiled in): which way a quality.metric is better (private).
 *
 * A quality metric has a direction of its own: a loss or a perplexity is
 * better lower, an accuracy higher (issue 47 item 1). Comparisons of
 * quality.achieved take it from here, never from the gate's settings.
 */
#ifndef MCPP_RECEIPT_QUALITY_METRICS_H
#define MCPP_RECEIPT_QUALITY_METRICS_H

#include "mcpp_receipts/receipt.h"

/* The direction of quality metric `metric` (case-insensitive) for a receipt
 * of benchmark `benchmark` (benchmark.name, may be NULL: a row naming a
 * benchmark overrides the general one). 1 when the registry knows it, else 0
 * (*out untouched). */
int mcpp_quality_direction(mcpp_direction *out, const char *metric, const char *benchmark);

/* Of receipt r (quality.metric, benchmark.name). */
int mcpp_quality_direction_of(mcpp_direction *out, const mcpp_receipt *r);

#endif /* MCPP_RECEIPT_QUALITY_METRICS_H */
