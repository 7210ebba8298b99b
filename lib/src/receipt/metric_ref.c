/*
 * metric_ref.c — what an analysis means by the metric it was asked for,
 * decided once per analysis: "primary" (each receipt's headline metric), a
 * metric by name ("tokens_per_s", "time_to_train_s", "BM_Sort/1024.real_time"),
 * a well-known metric by its schema path ("metrics.tokens_per_s", the spelling
 * of schema 1, still accepted everywhere), or a plain number field of the
 * schema that is no metric (its direction then comes from the gate settings).
 */
#include <string.h>

#include "receipt/metric_ref.h"
#include "receipt/schema.h"
#include "util/error_internal.h"

/* The well-known metric stored at schema field `id`, or NULL. */
static const char *well_known_at(int id)
{
    for (size_t k = 0; k < mcpp_well_known_metric_count; k++)
        if (mcpp_well_known_metrics[k].field == id) return mcpp_well_known_metrics[k].name;
    return NULL;
}

/* Goodput is compared as fractions of the allocated time, never as seconds
 * (docs/verdicts.md): more useful seconds over a longer allocation is not
 * better goodput, so naming the seconds is refused with the fraction to use
 * (issue 47 item 9). The badput seconds (compile, data, ...) stay metrics:
 * less time lost is better however long the run. */
static int goodput_seconds_refused(const char *text)
{
    const char *fraction = strstr(text, "useful_s")        ? "goodput.useful_fraction"
                           : strstr(text, "kernel_busy_s") ? "goodput.kernel_busy_fraction"
                                                           : "goodput.useful_fraction or goodput.badput_fraction";
    return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                         "'%s' is seconds of one run's allocation, which grow with how long it ran: goodput is "
                         "compared as fractions of the allocated time, name %s",
                         text, fraction);
}

int mcpp_metric_ref_init(mcpp_metric_ref *out, const char *text, int higher_is_better)
{
    memset(out, 0, sizeof *out);
    out->text = text;
    out->field_id = -1;
    out->higher_is_better = higher_is_better ? 1 : 0;
    if (!text || !*text)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                             "a metric name must not be empty");
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                                 "a metric name must not contain control characters");
    if (strcmp(text, MCPP_METRIC_PRIMARY) == 0 || strcmp(text, "metrics.primary") == 0) {
        out->kind = MCPP_METRIC_REF_PRIMARY;
        return MCPP_OK;
    }
    if (strcmp(text, "metrics.step_time_s") == 0) text = "metrics.step_time_s.median";
    const char *bare = strncmp(text, "metrics.", 8) == 0 ? text + 8 : text;
    if (strcmp(bare, "goodput.useful_s") == 0 || strcmp(bare, "goodput.kernel_busy_s") == 0 ||
        strcmp(bare, "goodput.allocated_s") == 0)
        return goodput_seconds_refused(text);
    int id = mcpp_schema_field_id(text);
    if (id < 0 && strncmp(text, "metrics.", 8) == 0) /* a schema path with a typo, not a name */
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_UNKNOWN_FIELD, NULL, NULL, 0, 0,
                             "'%s' is not a field of schema %s: name a metric without the \"metrics.\" "
                             "prefix (\"%s\"), or \"primary\"", text, MCPP_SCHEMA_ID, text + 8);
    if (id < 0) { /* not a schema path: a metric name, found in each receipt */
        out->kind = MCPP_METRIC_REF_NAMED;
        out->name = out->text;
        return MCPP_OK;
    }
    const char *well_known = well_known_at(id);
    if (well_known) {
        out->kind = MCPP_METRIC_REF_NAMED;
        out->name = well_known;
        return MCPP_OK;
    }
    const mcpp_field_info *info = mcpp_schema_field_at(id);
    if (!info || (info->type != MCPP_TYPE_DOUBLE && info->type != MCPP_TYPE_INT))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_TYPE, NULL, NULL, 0, 0,
                             "'%s' is a field of schema %s but not a number field: name a metric (such "
                             "as tokens_per_s or time_to_train_s), a number field, or \"primary\"",
                             text, MCPP_SCHEMA_ID);
    out->kind = MCPP_METRIC_REF_FIELD;
    out->field_id = id;
    out->name = info->path;
    return MCPP_OK;
}
