/*
 * gate_access.c — reading a gate report's explanations (lane, pooled
 * baselines and their files, differences and fired rules, reason codes) and
 * recording the inputs that could not be gated (compare.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/gate_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"

static const gate_explain *why(const mcpp_gate_report *r, size_t i)
{
    return r && i < r->n ? &r->entries[i].why : NULL;
}

static const gate_difference *difference(const mcpp_gate_report *r, size_t i, size_t k)
{
    const gate_explain *w = why(r, i);
    return w && k < w->n_diffs ? &w->diffs[k] : NULL;
}

static const gate_baseline *pooled(const mcpp_gate_report *r, size_t i, size_t k)
{
    const gate_explain *w = why(r, i);
    return w && k < w->n_pooled ? &w->pooled[k] : NULL;
}

const char *mcpp_gate_report_entry_reason_code(const mcpp_gate_report *r, size_t i)
{
    return why(r, i) ? why(r, i)->reason_code : NULL;
}

const char *mcpp_gate_report_entry_lane_key(const mcpp_gate_report *r, size_t i)
{
    return why(r, i) ? why(r, i)->lane_key : NULL;
}

const char *mcpp_gate_report_entry_lane_label(const mcpp_gate_report *r, size_t i)
{
    return why(r, i) ? why(r, i)->lane_label : NULL;
}

const char *mcpp_gate_report_entry_lane_display_label(const mcpp_gate_report *r, size_t i)
{
    return why(r, i) ? why(r, i)->lane_display : NULL;
}

const char *mcpp_gate_report_entry_path(const mcpp_gate_report *r, size_t i)
{
    return why(r, i) ? why(r, i)->path : NULL;
}

size_t mcpp_gate_report_entry_verdict_count(const mcpp_gate_report *r, size_t i, mcpp_verdict verdict)
{
    const gate_explain *w = why(r, i);
    return w && (unsigned)verdict < 4 ? w->by_verdict[verdict] : 0;
}

const char *mcpp_gate_report_entry_baseline_id(const mcpp_gate_report *r, size_t i, size_t k)
{
    return pooled(r, i, k) ? pooled(r, i, k)->id : NULL;
}

const char *mcpp_gate_report_entry_baseline_path(const mcpp_gate_report *r, size_t i, size_t k)
{
    return pooled(r, i, k) ? pooled(r, i, k)->path : NULL;
}

int mcpp_gate_report_entry_baseline_verdict(const mcpp_gate_report *r, size_t i, size_t k)
{
    return pooled(r, i, k) ? (int)pooled(r, i, k)->verdict : -1;
}

size_t mcpp_gate_report_entry_pooled_listed(const mcpp_gate_report *r, size_t i)
{
    return why(r, i) ? why(r, i)->n_pooled : 0;
}

size_t mcpp_gate_report_entry_baselines_unexamined(const mcpp_gate_report *r, size_t i)
{
    return why(r, i) ? why(r, i)->unexamined : 0;
}

size_t mcpp_gate_report_entry_difference_count(const mcpp_gate_report *r, size_t i)
{
    return why(r, i) ? why(r, i)->n_diffs : 0;
}

size_t mcpp_gate_report_entry_differences_omitted(const mcpp_gate_report *r, size_t i)
{
    return why(r, i) ? why(r, i)->differences_more : 0;
}

const char *mcpp_gate_report_difference_dimension(const mcpp_gate_report *r, size_t i, size_t k)
{
    return difference(r, i, k) ? difference(r, i, k)->dimension : NULL;
}

int mcpp_gate_report_difference_status(const mcpp_gate_report *r, size_t i, size_t k)
{
    return difference(r, i, k) ? (int)difference(r, i, k)->status : -1;
}

const char *mcpp_gate_report_difference_base(const mcpp_gate_report *r, size_t i, size_t k)
{
    return difference(r, i, k) ? difference(r, i, k)->base : NULL;
}

const char *mcpp_gate_report_difference_cand(const mcpp_gate_report *r, size_t i, size_t k)
{
    return difference(r, i, k) ? difference(r, i, k)->cand : NULL;
}

const char *mcpp_gate_report_difference_reason(const mcpp_gate_report *r, size_t i, size_t k)
{
    return difference(r, i, k) ? difference(r, i, k)->reason : NULL;
}

int mcpp_gate_report_difference_is_rule(const mcpp_gate_report *r, size_t i, size_t k)
{
    return difference(r, i, k) ? difference(r, i, k)->is_rule : -1;
}

int mcpp_gate_report_difference_pooled(const mcpp_gate_report *r, size_t i, size_t k)
{
    return difference(r, i, k) ? difference(r, i, k)->pooled : -1;
}

size_t mcpp_gate_report_difference_baselines(const mcpp_gate_report *r, size_t i, size_t k)
{
    return difference(r, i, k) ? difference(r, i, k)->count : 0;
}

/* ---- Inputs that were not gated -------------------------------------------------------- */

/* The overall reason once inputs are recorded: the unread ones come first,
 * since the candidates' verdict does not cover them. */
static int restate_reason(mcpp_gate_report *r)
{
    size_t unread = 0, skipped = 0;
    for (size_t k = 0; k < r->n_inputs; k++) {
        if (r->inputs[k].skipped_on_request) skipped++;
        else unread++;
    }
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 256);
    if (unread)
        mcpp_sb_printf(&b, "%zu input%s could not be read and %s not gated; ", unread, unread == 1 ? "" : "s",
                       unread == 1 ? "was" : "were");
    if (skipped)
        mcpp_sb_printf(&b, "%zu invalid input%s skipped on request (--skip-invalid); ", skipped,
                       skipped == 1 ? "" : "s");
    mcpp_sb_puts(&b, "of the rest: ");
    mcpp_sb_puts(&b, r->gated_reason);
    char *text = NULL;
    int rc = mcpp_sb_finish(&b, &text);
    if (rc != 0) return rc;
    free(r->reason);
    r->reason = text;
    return 0;
}

int mcpp_gate_report_add_input_error(mcpp_gate_report *r, const char *path, const char *message,
                                     int skipped_on_request)
{
    MCPP_CHECK_ARG(r && message, "mcpp_gate_report_add_input_error: NULL report or message");
    if (!r->gated_reason && !(r->gated_reason = mcpp_strdup(r->reason, NULL)))
        return mcpp_error_nomem();
    MCPP_CHECK_ARRAY(r->inputs, r->cap_inputs, r->n_inputs + 1, MCPP_ARRAY_MAX_ITEMS);
    gate_input_error *in = &r->inputs[r->n_inputs];
    int failed = 0;
    in->path = mcpp_strdup(path, &failed);
    in->message = mcpp_strdup(message, &failed);
    in->skipped_on_request = skipped_on_request != 0;
    if (failed) {
        free(in->path);
        free(in->message);
        return mcpp_error_nomem();
    }
    r->n_inputs++;
    if (!skipped_on_request) r->outcome = MCPP_GATE_ERROR;
    return restate_reason(r);
}

size_t mcpp_gate_report_input_error_count(const mcpp_gate_report *r)
{
    return r ? r->n_inputs : 0;
}

const char *mcpp_gate_report_input_error_path(const mcpp_gate_report *r, size_t k)
{
    return r && k < r->n_inputs ? r->inputs[k].path : NULL;
}

const char *mcpp_gate_report_input_error_message(const mcpp_gate_report *r, size_t k)
{
    return r && k < r->n_inputs ? r->inputs[k].message : NULL;
}

int mcpp_gate_report_input_error_skipped(const mcpp_gate_report *r, size_t k)
{
    return r && k < r->n_inputs ? r->inputs[k].skipped_on_request : -1;
}
