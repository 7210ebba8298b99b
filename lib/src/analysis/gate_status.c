/*
 * gate_status.c — runs their own tool marked as not ok never count in a gate
 * (docs/gate.md, "Failed runs"). A receipt whose status.outcome is "failed" or
 * "partial" (MLPerf's `Result is : INVALID`, a hyperfine command that exited
 * non-zero) measured something other than the code under test: pooled as a
 * baseline it moved an unchanged benchmark by 7%, and as the candidate it
 * "passed, better by 26%". The gate leaves such baselines and history runs out
 * and names them; a candidate of that kind is undetermined, never passed.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/gate_internal.h"
#include "receipt/fields.h"
#include "util/alloc.h"
#include "util/error_internal.h"

const char *mcpp_gate_run_status(const mcpp_policy *p, const mcpp_receipt *r)
{
    mcpp_value v;
    if (p->id_outcome < 0 || mcpp_value_at_field(r, p->id_outcome, &v) != MCPP_OK)
        return NULL;
    return v.type == MCPP_TYPE_ENUM || v.type == MCPP_TYPE_STRING ? v.string : NULL;
}

int mcpp_gate_run_ok(const mcpp_policy *p, const mcpp_receipt *r)
{
    const char *outcome = mcpp_gate_run_status(p, r);
    return !outcome || strcmp(outcome, "ok") == 0;
}

static const char *const SIDES[] = {"baseline", "history", "candidate"};

static size_t side_index(const char *side)
{
    size_t s = 0;
    while (s + 1 < sizeof SIDES / sizeof *SIDES && strcmp(SIDES[s], side) != 0)
        s++;
    return s;
}

int mcpp_gate_left_out_add(mcpp_gate_report *r, const mcpp_policy *p, const mcpp_receipt *x, const char *side)
{
    const char *xid = mcpp_receipt_id(x);
    /* a baseline left out for each of several candidates (and a run loaded
     * twice, JSON and YAML) is named once: a set, since with C candidates and F
     * failed baselines a scan of the list cost C x F^2 */
    mcpp_id_set *seen = &r->left_out_ids[side_index(side)];
    if (xid && mcpp_id_set_contains(seen, xid))
        return MCPP_OK;
    MCPP_CHECK_ARRAY(r->left_out, r->cap_left_out, r->n_left_out + 1, MCPP_ARRAY_MAX_ITEMS);
    const char *status = mcpp_gate_run_status(p, x);
    int failed = 0;
    gate_left_out *e = &r->left_out[r->n_left_out];
    e->id = mcpp_strdup(xid ? xid : "", &failed);
    e->status = mcpp_strdup(status ? status : "", &failed);
    e->side = side;
    if (failed || (xid && mcpp_id_set_add(seen, e->id) != 0)) {
        free(e->id);
        free(e->status);
        return mcpp_error_nomem();
    }
    r->n_left_out++;
    return MCPP_OK;
}

int mcpp_gate_keep_ok(const mcpp_receipt ***out, size_t *n_out, mcpp_gate_report *r, const mcpp_policy *p,
                      const mcpp_receipt *const *in, size_t n, const char *side)
{
    *out = malloc((n ? n : 1) * sizeof **out);
    *n_out = 0;
    if (!*out)
        return mcpp_error_nomem();
    for (size_t i = 0; i < n; i++) {
        if (mcpp_gate_run_ok(p, in[i])) {
            (*out)[(*n_out)++] = in[i];
        } else {
            int rc = mcpp_gate_left_out_add(r, p, in[i], side);
            if (rc)
                return rc;
        }
    }
    return MCPP_OK;
}

void mcpp_gate_left_out_reason(const mcpp_gate_report *r, mcpp_strbuf *reason)
{
    for (size_t s = 0; s < sizeof SIDES / sizeof *SIDES; s++) {
        size_t n = 0, shown = 0;
        for (size_t i = 0; i < r->n_left_out; i++)
            n += strcmp(r->left_out[i].side, SIDES[s]) == 0;
        if (!n)
            continue;
        mcpp_sb_printf(reason, "; %zu %s run%s left out, their status.outcome not ok (", n, SIDES[s],
                       n == 1 ? "" : "s");
        for (size_t i = 0; i < r->n_left_out && shown < 3; i++) {
            if (strcmp(r->left_out[i].side, SIDES[s]) != 0)
                continue;
            mcpp_sb_printf(reason, "%s%s: %s", shown++ ? ", " : "", r->left_out[i].id, r->left_out[i].status);
        }
        mcpp_sb_puts(reason, n > shown ? ", ...)" : ")");
    }
}

void mcpp_gate_left_out_free(mcpp_gate_report *r)
{
    for (size_t s = 0; s < sizeof SIDES / sizeof *SIDES; s++)
        mcpp_id_set_free(&r->left_out_ids[s]);
    for (size_t i = 0; i < r->n_left_out; i++) {
        free(r->left_out[i].id);
        free(r->left_out[i].status);
    }
    free(r->left_out);
}
