/*
 * gate_junit.c — the gate report as JUnit XML for CI test views: one
 * testcase per candidate and metric (a failure for a regression, skipped for
 * undetermined) and one erroring testcase per input that could not be read.
 * Text is escaped as for HTML (render/html.h), which is valid XML 1.0: control
 * characters never reach the document as such.
 */
#include "analysis/gate_internal.h"
#include "render/gate_words.h"
#include "render/html.h"
#include "util/error_internal.h"

/* One testcase: candidate `e` on one metric (`g` NULL: the candidate had no
 * comparable baseline, so no metric was decided). The case is named after the
 * metric that was compared ("tokens_per_s"), not the policy's word for it
 * ("primary"), so a CI test view says what was gated. */
static void put_case(mcpp_strbuf *b, const mcpp_gate_report *r, const char *metric_name, const gate_entry *e,
                     const gate_metric_entry *g)
{
    if (g && g->has_result && g->result.metric && *g->result.metric)
        metric_name = g->result.metric;
    mcpp_gate_outcome outcome = g ? g->outcome : e->outcome;
    const char *reason = g ? g->reason : e->reason;
    const char *code = g ? (g->skipped ? "skipped" : g->code) : e->why.reason_code;
    mcpp_sb_puts(b, "  <testcase classname=\"");
    mcpp_sb_html(b, e->why.lane_display);
    mcpp_sb_puts(b, "\" name=\"");
    mcpp_sb_html(b, e->id);
    mcpp_sb_putc(b, ' ');
    mcpp_sb_html(b, metric_name);
    mcpp_sb_puts(b, "\" file=\"");
    mcpp_sb_html(b, e->why.path);
    mcpp_sb_puts(b, "\">\n");
    /* inconclusive: a failure only under gate.on_inconclusive = "fail" */
    int fails = outcome == MCPP_GATE_FAILED || (outcome == MCPP_GATE_INCONCLUSIVE && r->inconclusive_fails);
    const char *element = fails ? "failure"
                          : outcome == MCPP_GATE_UNDETERMINED || outcome == MCPP_GATE_INCONCLUSIVE ||
                                  (g && g->skipped) || gate_entry_is_new_lane(e)
                              ? "skipped"
                              : NULL;
    if (element) {
        mcpp_sb_printf(b, "    <%s type=\"%s\" message=\"", element, code ? code : "");
        mcpp_sb_html(b, reason);
        mcpp_sb_printf(b, "\"/>\n");
    }
    mcpp_sb_puts(b, "    <system-out>");
    mcpp_sb_html(b, e->reason);
    if (g && g->has_result) {
        mcpp_sb_puts(b, "\nchange: ");
        mcpp_sb_change_words(b, mcpp_metric_improvement(g->result.rel_delta, g->result.higher_is_better));
    }
    mcpp_sb_printf(b, "\npooled baselines: %zu", e->baselines);
    for (size_t k = 0; k < e->why.n_diffs; k++) {
        mcpp_sb_puts(b, e->why.diffs[k].pooled ? "\nqualifies: " : "\nblocks: ");
        mcpp_sb_gate_difference(b, &e->why.diffs[k], mcpp_sb_html);
    }
    mcpp_sb_puts(b, "</system-out>\n  </testcase>\n");
}

/* The metric(s) of one candidate: one testcase each. */
static void put_metric_cases(mcpp_strbuf *b, const mcpp_gate_report *r, const gate_entry *e)
{
    if (e->n_metrics == 0)
        put_case(b, r, r->metric_name, e, NULL);
    for (size_t k = 0; k < e->n_metrics; k++)
        put_case(b, r, e->metrics[k].name, e, &e->metrics[k]);
}

/* Testcases of the candidates by outcome (a candidate with no metric is one case). */
static void count_cases(const mcpp_gate_report *r, size_t *cases, size_t *failures, size_t *skipped)
{
    *cases = *failures = *skipped = 0;
    for (size_t i = 0; i < r->n; i++) {
        const gate_entry *e = &r->entries[i];
        if (e->n_metrics == 0) {
            (*cases)++;
            *skipped += e->outcome == MCPP_GATE_UNDETERMINED || gate_entry_is_new_lane(e);
            *failures += e->outcome == MCPP_GATE_FAILED;
        }
        for (size_t k = 0; k < e->n_metrics; k++) {
            (*cases)++;
            mcpp_gate_outcome o = e->metrics[k].outcome;
            int inconclusive = o == MCPP_GATE_INCONCLUSIVE && !e->metrics[k].skipped;
            *failures += o == MCPP_GATE_FAILED || (inconclusive && r->inconclusive_fails);
            *skipped +=
                e->metrics[k].skipped || o == MCPP_GATE_UNDETERMINED || (inconclusive && !r->inconclusive_fails);
        }
    }
}

static void gate_render_junit(mcpp_strbuf *b, const mcpp_gate_report *r)
{
    size_t cases, failures, skipped, errors = 0;
    count_cases(r, &cases, &failures, &skipped);
    for (size_t k = 0; k < r->n_inputs; k++) errors += !r->inputs[k].skipped_on_request;
    mcpp_sb_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcpp-receipts gate\" tests=\"%zu\" "
                      "failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n",
                   cases + r->n_inputs, failures, errors, skipped + r->n_inputs - errors);
    mcpp_sb_printf(b, "<testsuite name=\"merge gate (%s)\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n",
                   mcpp_gate_outcome_name(r->outcome), cases + r->n_inputs, failures, errors,
                   skipped + r->n_inputs - errors);
    mcpp_sb_puts(b, "  <properties>\n    <property name=\"policy\" value=\"");
    mcpp_sb_html(b, r->policy_name);
    mcpp_sb_printf(b, "\"/>\n    <property name=\"policy_digest\" value=\"%s\"/>\n  </properties>\n",
                   r->policy_digest);
    for (size_t i = 0; i < r->n; i++) put_metric_cases(b, r, &r->entries[i]);
    for (size_t k = 0; k < r->n_inputs; k++) {
        const gate_input_error *in = &r->inputs[k];
        mcpp_sb_puts(b, "  <testcase classname=\"inputs\" name=\"");
        mcpp_sb_html(b, in->path ? in->path : "(input)");
        mcpp_sb_printf(b, "\">\n    <%s message=\"", in->skipped_on_request ? "skipped" : "error type=\"input\"");
        mcpp_sb_html(b, in->message);
        mcpp_sb_puts(b, "\"/>\n  </testcase>\n");
    }
    mcpp_sb_puts(b, "</testsuite>\n</testsuites>\n");
}

int mcpp_gate_report_render_junit(char **out, const mcpp_gate_report *r)
{
    MCPP_CHECK_ARG(out && r, "mcpp_gate_report_render_junit: NULL argument");
    *out = NULL;
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 4096);
    gate_render_junit(&b, r);
    return mcpp_sb_finish(&b, out);
}
