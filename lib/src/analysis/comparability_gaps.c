/*
 * comparability_gaps.c — what a receipt lacks to be compared at all: the
 * must-match dimensions (and required fields) of a policy it does not state.
 * Such a receipt validates, but every comparison with it is insufficient and
 * its lane is insufficient whatever its numbers (issue 27: an empty receipt
 * validated silently). `validate` warns with this list; the builders offer
 * it before finish.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_internal.h"
#include "util/error_internal.h"

/* The fields of the policy dimension `name`, ", "-joined; nothing when it is
 * not a dimension (a required field, a rule). */
static void put_dimension_fields(mcpp_strbuf *b, const mcpp_policy *p, const char *name)
{
    for (size_t i = 0; i < p->n_dims; i++) {
        if (strcmp(p->dims[i].name, name) != 0) continue;
        mcpp_sb_puts(b, " (");
        for (size_t f = 0; f < p->dims[i].n_fields; f++) {
            if (f) mcpp_sb_puts(b, ", ");
            mcpp_sb_puts(b, p->dims[i].paths[f]);
        }
        mcpp_sb_putc(b, ')');
        return;
    }
}

int mcpp_receipt_comparability_gaps(char **out, const mcpp_policy *policy, const mcpp_receipt *receipt)
{
    MCPP_CHECK_ARG(out && receipt, "mcpp_receipt_comparability_gaps: NULL argument");
    *out = NULL;
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    mcpp_comparison *c = NULL;
    int rc = mcpp_compare(&c, p, receipt, receipt);
    if (rc != MCPP_OK) return rc;
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 256);
    size_t n = 0;
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++) {
        if (mcpp_comparison_row_status(c, i) != MCPP_DIM_MISSING) continue;
        const char *dim = mcpp_comparison_row_dimension(c, i);
        mcpp_sb_puts(&b, n++ ? "; " : "");
        mcpp_sb_puts(&b, dim);
        put_dimension_fields(&b, p, dim);
    }
    rc = mcpp_comparison_explain(c);
    mcpp_comparison_free(c);
    if (rc == MCPP_OK && n) return mcpp_sb_finish(&b, out);
    mcpp_sb_free(&b);
    return rc;
}

int mcpp_builder_comparability_gaps(char **out, const mcpp_policy *policy, const mcpp_builder *b)
{
    MCPP_CHECK_ARG(out && b, "mcpp_builder_comparability_gaps: NULL argument");
    *out = NULL;
    mcpp_receipt *r = NULL;
    int rc = mcpp_builder_finish(&r, NULL, b); /* the builder stays usable */
    if (rc != MCPP_OK) return rc;
    rc = mcpp_receipt_comparability_gaps(out, policy, r);
    mcpp_receipt_free(r);
    return rc;
}
