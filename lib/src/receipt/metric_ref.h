/*
 * metric_ref.h — a metric reference: which metric an analysis (compare,
 * gate, frontier headline, claim) reads, resolved once from the name the
 * caller gave. The policy keeps one for its gate metric, so it lives in
 * receipt/ (it only reads the schema and the well-known metrics), below
 * both policy/ and analysis/.
 */
#ifndef MCPP_METRIC_REF_H
#define MCPP_METRIC_REF_H

/* The gate/headline metric that means "each receipt's primary metric". */
#define MCPP_METRIC_PRIMARY "primary"

typedef enum mcpp_metric_ref_kind {
    MCPP_METRIC_REF_NAMED = 0,   /* a metric by name, found with mcpp_receipt_metric_find */
    MCPP_METRIC_REF_PRIMARY = 1, /* each receipt's mcpp_receipt_metric_primary           */
    MCPP_METRIC_REF_FIELD = 2    /* a number field of the schema that is no metric        */
} mcpp_metric_ref_kind;

/* A metric reference, resolved once per analysis. Borrows `text`. */
typedef struct mcpp_metric_ref {
    mcpp_metric_ref_kind kind;
    const char *text;     /* as asked: "metrics.tokens_per_s", "time_to_train_s", "primary" */
    const char *name;     /* NAMED: the metric's name; FIELD: the schema path; PRIMARY: NULL */
    int field_id;         /* FIELD: the schema field, else -1 */
    int higher_is_better; /* FIELD only: its direction (a metric's comes from the receipt) */
} mcpp_metric_ref;

/* Parses `text` (see metric_ref.c). MCPP_EARG for an empty name, control
 * characters, or a schema field that is not a number. */
int mcpp_metric_ref_init(mcpp_metric_ref *out, const char *text, int higher_is_better);

/* Useful tokens per second over one step (or the median step): the builder
 * derives metrics.tokens_per_s with it, and the analyses turn step times into
 * rates with it, so a built receipt states what a frontier would derive.
 * 0 when either input is not > 0 (metrics.c). */
double mcpp_tokens_per_s_from_steps(double useful_tokens_per_step, double step_seconds);

#endif /* MCPP_METRIC_REF_H */
