/*
 * analysis.c — compare, frontier, claim and gate for Python. Each runs the C
 * analysis and its renderers with the GIL released and hands back the
 * rendered texts (JSON for the rich Python objects, text and Markdown for
 * people); the pure-Python layer parses the JSON into Comparison, Frontier
 * and friends. The receipts are kept alive by a tuple we hold for the call.
 */
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core.h"

static mcpp_py_state *module_state(PyObject *module)
{
    return (mcpp_py_state *)PyModule_GetState(module);
}

/* Which renderings the caller asked for: a str of letters, 'j' JSON, 't' text,
 * 'm' Markdown, 'h' the HTML report page (frontier and gate only), in the order
 * of the returned tuple. */
typedef struct renderings {
    char codes[4];
    size_t n;
    char *text[4];
} renderings;

static int renderings_parse(renderings *r, const char *codes)
{
    memset(r, 0, sizeof *r);
    size_t n = strlen(codes);
    if (n > 3) /* n == 0: run the analysis only (leak checks, timing) */
        goto bad;
    for (size_t i = 0; i < n; i++)
        if (!strchr("jtmh", codes[i])) goto bad;
    memcpy(r->codes, codes, n);
    r->n = n;
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "formats must be up to 3 of 'j' (json), 't' (text), 'm' (markdown), 'h' (html)");
    return -1;
}

/* 'h' maps to no text format: a renderer without a page answers MCPP_EARG. */
static mcpp_output_format format_of(char code)
{
    return code == 'j'   ? MCPP_OUTPUT_JSON
           : code == 't' ? MCPP_OUTPUT_TEXT
           : code == 'm' ? MCPP_OUTPUT_MARKDOWN
                         : (mcpp_output_format)-1;
}

/* The HTML report page of a frontier built from `items` (the same page as
 * `mcpp-receipts report`), with a gate section when `gate` is given. */
static int render_page(char **out, const mcpp_frontier *fr, const mcpp_receipt *const *items, size_t n,
                       const mcpp_gate_report *gate)
{
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.title = gate ? "Merge gate" : NULL;
    o.receipts = items;
    o.n_receipts = n;
    o.gate = gate;
    return mcpp_frontier_render_html(out, fr, &o);
}

/* Above this many bytes of report text, a call hands the heap it freed back
 * to the system (below). */
#define TRIM_AFTER_TEXT_BYTES ((size_t)4 << 20)

/* The C side of a large call frees its lanes, entries and text on the worker
 * threads' malloc arenas, and glibc keeps those pages: a 10^4-pair gate left
 * ~70 MiB resident after it returned. Python builds the report's objects in
 * its own mmap'd arenas, so nothing would reuse them; they only raised the
 * process's peak while the report was parsed and copied. */
static void give_back_freed_heap(size_t text_bytes)
{
#if defined(__GLIBC__)
    if (text_bytes >= TRIM_AFTER_TEXT_BYTES)
        malloc_trim(0);
#else
    (void)text_bytes;
#endif
}

static void renderings_clear(renderings *r)
{
    for (size_t i = 0; i < r->n; i++) {
        mcpp_free(r->text[i]);
        r->text[i] = NULL;
    }
}

/* Texts at least this long are handed over a piece at a time (below). */
#define HANDOVER_PIECE_BYTES ((size_t)1 << 20)

/* The report text `*text` as a str. A large ASCII text (a report whose
 * names are ASCII) is copied into the str from its end a piece at a time, the
 * C block shrunk behind each piece and freed at the end, so the two copies
 * never coexist whole: a 10^5-pair gate's 392 MB of JSON took 374 MiB more at
 * its peak. Other texts are decoded as UTF-8 in one go. */
static PyObject *text_to_str(char **text)
{
    size_t n = strlen(*text);
    const unsigned char *bytes = (const unsigned char *)*text;
    size_t i = 0;
    if (n >= 2 * HANDOVER_PIECE_BYTES)
        while (i < n && bytes[i] < 0x80)
            i++;
    if (n < 2 * HANDOVER_PIECE_BYTES || i < n)
        return PyUnicode_DecodeUTF8(*text, (Py_ssize_t)n, "replace");
    PyObject *s = PyUnicode_New((Py_ssize_t)n, 127);
    if (!s)
        return NULL;
    char *to = (char *)PyUnicode_1BYTE_DATA(s);
    for (size_t left = n; left > 0;) {
        size_t piece = left < HANDOVER_PIECE_BYTES ? left : HANDOVER_PIECE_BYTES;
        left -= piece;
        memcpy(to + left, *text + left, piece);
        char *shrunk = left ? realloc(*text, left) : NULL;
        if (shrunk)
            *text = shrunk;
    }
    mcpp_free(*text); /* no longer a whole text: nothing may read it */
    *text = NULL;
    return s;
}

static PyObject *renderings_to_tuple(renderings *r)
{
    PyObject *t = PyTuple_New((Py_ssize_t)r->n);
    for (size_t i = 0; t && i < r->n; i++) {
        PyObject *s = text_to_str(&r->text[i]);
        if (!s) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
    }
    return t;
}

/* A borrowed C view of a sequence of Receipts; `keep` holds them alive. */
typedef struct receipt_array {
    PyObject *keep;
    const mcpp_receipt **items;
    size_t n;
} receipt_array;

static int receipt_array_from(mcpp_py_state *st, PyObject *seq, receipt_array *out)
{
    memset(out, 0, sizeof *out);
    if (mcpp_py_receipt_check(st, seq)) {
        PyErr_SetString(PyExc_TypeError, "expected a sequence of receipts, got a single Receipt");
        return -1;
    }
    out->keep = PySequence_Tuple(seq);
    if (!out->keep)
        return -1;
    out->n = (size_t)PyTuple_GET_SIZE(out->keep);
    out->items = malloc((out->n ? out->n : 1) * sizeof *out->items);
    if (!out->items) {
        Py_CLEAR(out->keep);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < out->n; i++) {
        out->items[i] = mcpp_py_receipt_get(st, PyTuple_GET_ITEM(out->keep, (Py_ssize_t)i));
        if (!out->items[i]) {
            free(out->items);
            out->items = NULL;
            Py_CLEAR(out->keep);
            return -1;
        }
    }
    return 0;
}

static void receipt_array_clear(receipt_array *a)
{
    free(a->items);
    Py_XDECREF(a->keep);
    memset(a, 0, sizeof *a);
}

/* ---- the shape every analysis call has ------------------------------------------- */

/* What one call holds from its arguments to its result: the renderings asked
 * for, the receipt sequences as C arrays, the policy, and the error captured
 * while the GIL was released. */
typedef struct analysis_call {
    mcpp_py_state *st;
    renderings out;
    receipt_array seqs[2];
    const mcpp_policy *policy;
    mcpp_policy *owned_policy;
    mcpp_py_error err;
} analysis_call;

/* Checks the arguments in the order their errors are raised: the formats,
 * then each sequence given (seq0, seq1; NULL for none), then the policy.
 * On failure an exception is set and nothing is held. */
static int analysis_begin(analysis_call *c, mcpp_py_state *st, const char *codes, PyObject *seq0, PyObject *seq1,
                          PyObject *policy_obj)
{
    memset(c, 0, sizeof *c);
    c->st = st;
    if (renderings_parse(&c->out, codes) < 0)
        return -1;
    PyObject *seqs[2] = {seq0, seq1};
    for (size_t i = 0; i < 2 && seqs[i]; i++)
        if (receipt_array_from(st, seqs[i], &c->seqs[i]) < 0)
            goto fail;
    if (mcpp_py_policy_resolve(st, policy_obj, &c->policy, &c->owned_policy) < 0)
        goto fail;
    return 0;
fail:
    receipt_array_clear(&c->seqs[0]);
    receipt_array_clear(&c->seqs[1]);
    return -1;
}

/* Releases what analysis_begin took and returns the renderings as a tuple,
 * or raises the captured error when rc < 0. */
static PyObject *analysis_end(analysis_call *c, int rc)
{
    mcpp_policy_free(c->owned_policy);
    receipt_array_clear(&c->seqs[0]);
    receipt_array_clear(&c->seqs[1]);
    size_t text_bytes = 0;
    for (size_t i = 0; i < c->out.n; i++)
        text_bytes += c->out.text[i] ? strlen(c->out.text[i]) : 0;
    PyObject *result = rc < 0 ? mcpp_py_raise_captured(c->st, &c->err) : renderings_to_tuple(&c->out);
    mcpp_py_error_clear(&c->err);
    renderings_clear(&c->out);
    give_back_freed_heap(text_bytes);
    return result;
}

/* About what a lane's JSON takes: a report kept in C (below) of this many
 * lanes gives the freed heap back as a rendered one of as much text would. */
#define LANE_TEXT_BYTES 3000

/* Like analysis_end, but hands over the report itself, kept in C
 * (report_type.c): it takes the first sequence's receipts (the frontier's, or
 * the gate's baselines, which its HTML page draws) and holds `keep` (the other
 * receipts and the policy object) and the policy the call made. */
static PyObject *analysis_end_report(analysis_call *c, int rc, mcpp_frontier *fr, mcpp_gate_report *gate,
                                     PyObject *keep)
{
    if (rc < 0 || !keep) {
        mcpp_frontier_free(fr);
        mcpp_gate_report_free(gate);
        Py_XDECREF(keep);
        return rc < 0 ? analysis_end(c, rc) : NULL;
    }
    size_t lanes = fr ? mcpp_frontier_lane_count(fr) : mcpp_gate_report_count(gate);
    PyObject *report = mcpp_py_report_wrap(c->st, fr, gate, c->seqs[0].keep, keep, c->policy, c->owned_policy);
    c->owned_policy = NULL;
    Py_DECREF(keep);
    Py_XDECREF(analysis_end(c, 0)); /* no renderings: an empty tuple */
    give_back_freed_heap(lanes * LANE_TEXT_BYTES);
    return report;
}

/* ---- compare ---------------------------------------------------------------------- */

PyObject *mcpp_py_compare(PyObject *module, PyObject *args)
{
    PyObject *base_obj, *cand_obj, *policy_obj = Py_None;
    const char *codes = "j";
    if (!PyArg_ParseTuple(args, "OO|Os:_compare", &base_obj, &cand_obj, &policy_obj, &codes))
        return NULL;
    mcpp_py_state *st = module_state(module);
    const mcpp_receipt *base = mcpp_py_receipt_get(st, base_obj);
    const mcpp_receipt *cand = base ? mcpp_py_receipt_get(st, cand_obj) : NULL;
    analysis_call c;
    if (!cand || analysis_begin(&c, st, codes, NULL, NULL, policy_obj) < 0)
        return NULL;

    mcpp_comparison *cmp = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_compare(&cmp, c.policy, base, cand);
    for (size_t i = 0; rc == 0 && i < c.out.n; i++)
        rc = mcpp_comparison_render(&c.out.text[i], cmp, format_of(c.out.codes[i]));
    if (rc < 0)
        mcpp_py_error_capture(&c.err, rc);
    mcpp_comparison_free(cmp);
    Py_END_ALLOW_THREADS
    return analysis_end(&c, rc);
}

/* ---- frontier ----------------------------------------------------------------------- */

PyObject *mcpp_py_frontier(PyObject *module, PyObject *args)
{
    PyObject *seq, *policy_obj = Py_None;
    const char *codes = "j";
    if (!PyArg_ParseTuple(args, "O|Os:_frontier", &seq, &policy_obj, &codes))
        return NULL;
    analysis_call c;
    if (analysis_begin(&c, module_state(module), codes, seq, NULL, policy_obj) < 0)
        return NULL;

    mcpp_frontier *fr = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_frontier_build(&fr, c.policy, c.seqs[0].items, c.seqs[0].n);
    for (size_t i = 0; rc == 0 && i < c.out.n; i++)
        rc = c.out.codes[i] == 'h' ? render_page(&c.out.text[i], fr, c.seqs[0].items, c.seqs[0].n, NULL)
                                   : mcpp_frontier_render(&c.out.text[i], fr, format_of(c.out.codes[i]));
    if (rc < 0)
        mcpp_py_error_capture(&c.err, rc);
    mcpp_frontier_free(fr);
    Py_END_ALLOW_THREADS
    return analysis_end(&c, rc);
}

/* _frontier_report(receipts, policy=None): the frontier kept in C. */
PyObject *mcpp_py_frontier_report(PyObject *module, PyObject *args)
{
    PyObject *seq, *policy_obj = Py_None;
    if (!PyArg_ParseTuple(args, "O|O:_frontier_report", &seq, &policy_obj))
        return NULL;
    analysis_call c;
    if (analysis_begin(&c, module_state(module), "", seq, NULL, policy_obj) < 0)
        return NULL;
    mcpp_frontier *fr = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = mcpp_frontier_build(&fr, c.policy, c.seqs[0].items, c.seqs[0].n);
    if (rc < 0)
        mcpp_py_error_capture(&c.err, rc);
    Py_END_ALLOW_THREADS return analysis_end_report(&c, rc, fr, NULL, rc < 0 ? NULL : PyTuple_Pack(1, policy_obj));
}

/* ---- claim ---------------------------------------------------------------------------- */

PyObject *mcpp_py_claim(PyObject *module, PyObject *args)
{
    PyObject *seq, *policy_obj = Py_None;
    const char *selector, *metric = NULL, *codes = "j", *unit = NULL;
    double value;
    if (!PyArg_ParseTuple(args, "Oszd|Osz:_claim", &seq, &selector, &metric, &value, &policy_obj,
                          &codes, &unit))
        return NULL;
    analysis_call c;
    if (analysis_begin(&c, module_state(module), codes, seq, NULL, policy_obj) < 0)
        return NULL;

    mcpp_claim_result *res = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_claim_check(&res, c.policy, c.seqs[0].items, c.seqs[0].n, selector, metric, value);
    if (rc == 0 && unit) /* a claim that states its unit is refused on another */
        rc = mcpp_claim_result_check_unit(res, unit);
    for (size_t i = 0; rc == 0 && i < c.out.n; i++)
        rc = mcpp_claim_result_render(&c.out.text[i], res, format_of(c.out.codes[i]));
    if (rc < 0)
        mcpp_py_error_capture(&c.err, rc);
    mcpp_claim_result_free(res);
    Py_END_ALLOW_THREADS
    return analysis_end(&c, rc);
}

/* ---- gate ------------------------------------------------------------------------------- */

/* The (path, message) pairs of inputs skipped on request, as borrowed UTF-8
 * (alive while `skipped` is): 0, or -1 with a Python error set. */
static int skipped_inputs(PyObject *skipped, const char ***paths, const char ***messages, Py_ssize_t *n)
{
    *paths = *messages = NULL;
    *n = 0;
    if (skipped == Py_None) return 0;
    if (!PyList_Check(skipped)) {
        PyErr_SetString(PyExc_TypeError, "_gate: skipped must be a list of (path, message) tuples");
        return -1;
    }
    Py_ssize_t len = PyList_GET_SIZE(skipped);
    *paths = PyMem_Calloc((size_t)len + 1, sizeof **paths);
    *messages = PyMem_Calloc((size_t)len + 1, sizeof **messages);
    if (!*paths || !*messages) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PyList_GET_ITEM(skipped, i);
        const char *path = NULL, *message = NULL;
        if (!PyArg_ParseTuple(item, "zs:_gate skipped item", &path, &message)) return -1;
        (*paths)[i] = path;
        (*messages)[i] = message;
    }
    *n = len;
    return 0;
}

/* The gate of the call's sequences and `history`, the inputs skipped on
 * request (errors="skip") listed in it: they show in every format, and the
 * outcome comes from the rest. Runs without the GIL. */
static int gate_with_skipped(mcpp_gate_report **rep, const analysis_call *c, const receipt_array *history,
                             const char **paths, const char **messages, Py_ssize_t n_skipped)
{
    const receipt_array *base = &c->seqs[0], *cand = &c->seqs[1];
    int rc = mcpp_gate_run_with_history(rep, c->policy, base->items, base->n, cand->items, cand->n, history->items,
                                        history->n);
    for (Py_ssize_t i = 0; rc == 0 && i < n_skipped; i++)
        rc = mcpp_gate_report_add_input_error(*rep, paths[i], messages[i], 1);
    return rc;
}

/* What a gate call takes besides its sequences: the history and the skipped
 * inputs; 0, or -1 with an exception set and nothing held. */
static int gate_begin(analysis_call *c, PyObject *module, const char *codes, PyObject *bseq, PyObject *cseq,
                      PyObject *policy_obj, PyObject *skipped, PyObject *hseq, receipt_array *history,
                      const char ***paths, const char ***messages, Py_ssize_t *n_skipped)
{
    memset(history, 0, sizeof *history);
    *paths = *messages = NULL;
    *n_skipped = 0;
    if (hseq != Py_None && receipt_array_from(module_state(module), hseq, history) < 0)
        return -1;
    if (skipped_inputs(skipped, paths, messages, n_skipped) < 0 ||
        analysis_begin(c, module_state(module), codes, bseq, cseq, policy_obj) < 0) {
        PyMem_Free(*paths);
        PyMem_Free(*messages);
        receipt_array_clear(history);
        return -1;
    }
    return 0;
}

/* _gate_report(baselines, candidates, policy=None, skipped=None, history=None):
 * the gate report kept in C. */
PyObject *mcpp_py_gate_report(PyObject *module, PyObject *args)
{
    PyObject *bseq, *cseq, *policy_obj = Py_None, *skipped = Py_None, *hseq = Py_None;
    if (!PyArg_ParseTuple(args, "OO|OOO:_gate_report", &bseq, &cseq, &policy_obj, &skipped, &hseq))
        return NULL;
    analysis_call c;
    receipt_array history;
    const char **paths, **messages;
    Py_ssize_t n_skipped;
    if (gate_begin(&c, module, "", bseq, cseq, policy_obj, skipped, hseq, &history, &paths, &messages, &n_skipped) < 0)
        return NULL;
    mcpp_gate_report *rep = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = gate_with_skipped(&rep, &c, &history, paths, messages, n_skipped);
    if (rc < 0)
        mcpp_py_error_capture(&c.err, rc);
    Py_END_ALLOW_THREADS PyMem_Free(paths);
    PyMem_Free(messages);
    /* the report may borrow what it was made from: the candidates, the history and the policy stay */
    PyObject *keep = rc < 0 ? NULL : PyTuple_Pack(3, c.seqs[1].keep, history.keep ? history.keep : Py_None, policy_obj);
    receipt_array_clear(&history);
    return analysis_end_report(&c, rc, NULL, rep, keep);
}

PyObject *mcpp_py_gate(PyObject *module, PyObject *args)
{
    PyObject *bseq, *cseq, *policy_obj = Py_None, *skipped = Py_None, *hseq = Py_None;
    const char *codes = "j";
    if (!PyArg_ParseTuple(args, "OO|OsOO:_gate", &bseq, &cseq, &policy_obj, &codes, &skipped, &hseq))
        return NULL;
    analysis_call c;
    receipt_array history;
    const char **paths, **messages;
    Py_ssize_t n_skipped;
    if (gate_begin(&c, module, codes, bseq, cseq, policy_obj, skipped, hseq, &history, &paths, &messages, &n_skipped) <
        0)
        return NULL;
    const receipt_array *base = &c.seqs[0];

    mcpp_gate_report *rep = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = gate_with_skipped(&rep, &c, &history, paths, messages, n_skipped);
    for (size_t i = 0; rc == 0 && i < c.out.n; i++) {
        if (c.out.codes[i] != 'h') {
            rc = mcpp_gate_report_render(&c.out.text[i], rep, format_of(c.out.codes[i]));
            continue;
        }
        /* the CLI's gate page: the gate section, then the baselines' lanes
         * (candidates left out, so a regression does not unsettle its baselines) */
        mcpp_frontier *fr = NULL;
        rc = mcpp_frontier_build(&fr, c.policy, base->items, base->n);
        if (rc == 0) rc = render_page(&c.out.text[i], fr, base->items, base->n, rep);
        mcpp_frontier_free(fr);
    }
    if (rc < 0)
        mcpp_py_error_capture(&c.err, rc);
    mcpp_gate_report_free(rep);
    Py_END_ALLOW_THREADS
    PyMem_Free(paths);
    PyMem_Free(messages);
    receipt_array_clear(&history);
    return analysis_end(&c, rc);
}

/* ---- lane key ------------------------------------------------------------------------------ */

PyObject *mcpp_py_lane_key(PyObject *module, PyObject *args)
{
    PyObject *robj, *policy_obj = Py_None;
    if (!PyArg_ParseTuple(args, "O|O:lane_key", &robj, &policy_obj))
        return NULL;
    mcpp_py_state *st = module_state(module);
    const mcpp_receipt *r = mcpp_py_receipt_get(st, robj);
    if (!r)
        return NULL;
    /* None is the library's built-in default (NULL), not a new default policy
     * per call: making one cost ~100 us, 90% of to_pandas() on 2,000 receipts */
    const mcpp_policy *policy = NULL;
    mcpp_policy *owned = NULL;
    if (policy_obj != Py_None && mcpp_py_policy_resolve(st, policy_obj, &policy, &owned) < 0)
        return NULL;
    char *key = NULL;
    int rc = mcpp_lane_key(&key, policy, r);
    mcpp_policy_free(owned);
    if (rc < 0)
        return mcpp_py_raise(st, rc);
    char short_key[32];
    rc = mcpp_lane_key_short(short_key, sizeof short_key, key);
    PyObject *result = rc < 0 ? mcpp_py_raise(st, rc) : Py_BuildValue("(ss)", key, short_key);
    mcpp_free(key);
    return result;
}
