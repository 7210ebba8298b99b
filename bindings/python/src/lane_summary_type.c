/*
 * lane_summary_type.c — _core.LaneSummary (a mergeable summary of one lane,
 * frontier.h) and the module functions a distributed frontier is made of: the
 * summaries of a partition, a frontier or a claim from summaries, and which
 * lanes of a partition a claim's selector fails on.
 *
 * The gate's share: each baseline's verdicts against the candidates on a
 * worker, and the gate over the kept baselines with the others tallied.
 *
 * A summary borrows its policy in C, so the Python object holds a reference
 * to its Policy (None: the library's built-in default, shared by all).
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

typedef struct mcpp_py_lane_summary {
    PyObject_HEAD
    mcpp_lane_summary *summary; /* owned; never NULL once constructed */
    PyObject *policy;           /* the Policy it borrows, or None      */
} mcpp_py_lane_summary;

/* The C policy of a Policy object, NULL for None (the built-in default). */
static int policy_of(mcpp_py_state *st, PyObject *obj, const mcpp_policy **out)
{
    *out = NULL;
    if (obj == Py_None)
        return 0;
    if (!PyObject_TypeCheck(obj, st->policy_type)) {
        PyErr_Format(PyExc_TypeError, "policy must be an mcpp_receipts.Policy or None, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = ((mcpp_py_policy *)obj)->policy;
    return 0;
}

/* Wraps `summary` (owned, also on failure) in an instance of `cls`. */
static PyObject *wrap(PyTypeObject *cls, mcpp_lane_summary *summary, PyObject *policy)
{
    mcpp_py_lane_summary *self = (mcpp_py_lane_summary *)cls->tp_alloc(cls, 0);
    if (!self) {
        mcpp_lane_summary_free(summary);
        return NULL;
    }
    self->summary = summary;
    self->policy = Py_NewRef(policy);
    return (PyObject *)self;
}

static PyObject *summary_new(PyTypeObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"policy", "metric", NULL};
    PyObject *policy_obj = Py_None;
    const char *metric = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|Oz:LaneSummary", kwlist, &policy_obj, &metric))
        return NULL;
    mcpp_py_state *st = mcpp_py_state_of_type(cls);
    const mcpp_policy *p;
    if (policy_of(st, policy_obj, &p) < 0)
        return NULL;
    mcpp_lane_summary *s = NULL;
    int rc = mcpp_lane_summary_new(&s, p, metric);
    if (rc < 0)
        return mcpp_py_raise(st, rc);
    return wrap(cls, s, policy_obj);
}

static void summary_dealloc(mcpp_py_lane_summary *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    mcpp_lane_summary_free(self->summary);
    Py_XDECREF(self->policy);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

/* Whether obj is a LaneSummary (of any instance of this module, or of a
 * subclass): its type or a base has our deallocator. */
static int is_summary(PyObject *obj)
{
    for (PyTypeObject *t = Py_TYPE(obj); t; t = t->tp_base)
        if (t->tp_dealloc == (destructor)summary_dealloc)
            return 1;
    return 0;
}

static int summary_check(PyObject *obj)
{
    if (is_summary(obj))
        return 1;
    PyErr_Format(PyExc_TypeError, "expected a LaneSummary, got %.100s", Py_TYPE(obj)->tp_name);
    return 0;
}

/* ---- methods ------------------------------------------------------------------------- */

static PyObject *summary_add(mcpp_py_lane_summary *self, PyObject *receipt)
{
    mcpp_py_state *st = mcpp_py_state_of_type(Py_TYPE(self));
    const mcpp_receipt *r = mcpp_py_receipt_get(st, receipt);
    if (!r)
        return NULL;
    int rc = mcpp_lane_summary_add(self->summary, r);
    if (rc < 0)
        return mcpp_py_raise(st, rc);
    Py_RETURN_NONE;
}

static PyObject *summary_merge(mcpp_py_lane_summary *self, PyObject *other)
{
    mcpp_py_state *st = mcpp_py_state_of_type(Py_TYPE(self));
    if (!summary_check(other))
        return NULL;
    int rc = mcpp_lane_summary_merge(self->summary, ((mcpp_py_lane_summary *)other)->summary);
    if (rc < 0)
        return mcpp_py_raise(st, rc);
    Py_RETURN_NONE;
}

static PyObject *summary_serialize(mcpp_py_lane_summary *self, PyObject *Py_UNUSED(ignored))
{
    char *text = NULL;
    int rc = mcpp_lane_summary_serialize(&text, self->summary);
    if (rc < 0)
        return mcpp_py_raise(mcpp_py_state_of_type(Py_TYPE(self)), rc);
    PyObject *s = PyUnicode_FromString(text);
    mcpp_free(text);
    return s;
}

static PyObject *summary_deserialize(PyTypeObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"text", "policy", NULL};
    const char *text;
    Py_ssize_t len;
    PyObject *policy_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#|O:deserialize", kwlist, &text, &len, &policy_obj))
        return NULL;
    mcpp_py_state *st = mcpp_py_state_of_type(cls);
    const mcpp_policy *p;
    if (policy_of(st, policy_obj, &p) < 0)
        return NULL;
    mcpp_lane_summary *s = NULL;
    int rc = mcpp_lane_summary_deserialize(&s, p, text, (size_t)len);
    if (rc < 0)
        return mcpp_py_raise(st, rc);
    return wrap(cls, s, policy_obj);
}

/* A JSON text from the library as a Python object. */
static PyObject *json_result(mcpp_py_state *st, int rc, char *text)
{
    if (rc < 0)
        return mcpp_py_raise(st, rc);
    PyObject *obj = PyObject_CallFunction(st->json_loads, "s", text);
    mcpp_free(text);
    return obj;
}

static PyObject *summary_duplicate_ids(mcpp_py_lane_summary *self, PyObject *Py_UNUSED(ignored))
{
    char *text = NULL;
    int rc = mcpp_lane_summary_duplicate_ids(&text, self->summary);
    return json_result(mcpp_py_state_of_type(Py_TYPE(self)), rc, text);
}

static PyObject *summary_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !is_summary(a) || !is_summary(b))
        Py_RETURN_NOTIMPLEMENTED;
    int eq = mcpp_lane_summary_equal(((mcpp_py_lane_summary *)a)->summary, ((mcpp_py_lane_summary *)b)->summary);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

/* ---- getters ------------------------------------------------------------------------- */

static PyObject *summary_key_get(mcpp_py_lane_summary *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromString(mcpp_lane_summary_key(self->summary));
}

static PyObject *summary_count_get(mcpp_py_lane_summary *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(mcpp_lane_summary_receipt_count(self->summary));
}

static PyObject *summary_status_get(mcpp_py_lane_summary *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromString(mcpp_lane_status_name(mcpp_lane_summary_status(self->summary)));
}

static PyObject *summary_reasons_get(mcpp_py_lane_summary *self, void *Py_UNUSED(closure))
{
    size_t n = mcpp_lane_summary_reason_count(self->summary);
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; t && i < n; i++) {
        PyObject *s = PyUnicode_FromString(mcpp_lane_summary_reason(self->summary, i));
        if (!s)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
    }
    return t;
}

static PyObject *summary_headline_get(mcpp_py_lane_summary *self, void *Py_UNUSED(closure))
{
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    if (mcpp_lane_summary_headline(&h, self->summary) != MCPP_OK) {
        mcpp_error_clear();
        Py_RETURN_NONE;
    }
    return Py_BuildValue("{s:s,s:O,s:d,s:(dd),s:d,s:n,s:n,s:d,s:O}", "metric", h.metric, "higher_is_better",
                         h.higher_is_better ? Py_True : Py_False, "median", h.median, "interval", h.interval_low,
                         h.interval_high, "confidence", h.confidence, "n", (Py_ssize_t)h.n, "n_runs",
                         (Py_ssize_t)h.n_runs, "rel_spread", h.rel_spread, "from_steps",
                         h.from_steps ? Py_True : Py_False);
}

static PyObject *summary_policy_get(mcpp_py_lane_summary *self, void *Py_UNUSED(closure))
{
    return Py_NewRef(self->policy);
}

/* ---- module functions: a partition's summaries, frontier and claim from summaries ---- */

/* A C array view of a sequence of Receipts; *keep holds them alive. */
static const mcpp_receipt **receipts_view(mcpp_py_state *st, PyObject *seq, PyObject **keep, size_t *n)
{
    *keep = PySequence_Tuple(seq);
    if (!*keep)
        return NULL;
    *n = (size_t)PyTuple_GET_SIZE(*keep);
    const mcpp_receipt **items = PyMem_Malloc((*n ? *n : 1) * sizeof *items);
    for (size_t i = 0; items && i < *n; i++) {
        if (!(items[i] = mcpp_py_receipt_get(st, PyTuple_GET_ITEM(*keep, (Py_ssize_t)i)))) {
            PyMem_Free(items);
            items = NULL;
        }
    }
    if (!items) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        Py_CLEAR(*keep);
    }
    return items;
}

static PyObject *lane_summaries(PyObject *module, PyObject *args)
{
    PyObject *seq, *policy_obj, *cls;
    const char *metric;
    if (!PyArg_ParseTuple(args, "OOzO!:_lane_summaries", &seq, &policy_obj, &metric, &PyType_Type, &cls))
        return NULL;
    mcpp_py_state *st = PyModule_GetState(module);
    const mcpp_policy *p;
    PyObject *keep;
    size_t n;
    if (policy_of(st, policy_obj, &p) < 0)
        return NULL;
    const mcpp_receipt **items = receipts_view(st, seq, &keep, &n);
    if (!items)
        return NULL;
    mcpp_lane_summary **sums = NULL;
    size_t n_sums = 0, duplicates = 0;
    mcpp_py_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_lane_summaries_build(&sums, &n_sums, &duplicates, p, metric, items, n);
    if (rc < 0)
        mcpp_py_error_capture(&err, rc);
    Py_END_ALLOW_THREADS
    PyMem_Free(items);
    Py_DECREF(keep);
    if (rc < 0) {
        PyObject *none = mcpp_py_raise_captured(st, &err);
        mcpp_py_error_clear(&err);
        return none;
    }
    PyObject *list = PyList_New((Py_ssize_t)n_sums);
    for (size_t i = 0; i < n_sums; i++) {
        PyObject *o = list ? wrap((PyTypeObject *)cls, sums[i], policy_obj) : NULL;
        if (!o) {
            Py_CLEAR(list); /* wrap freed sums[i] */
            for (size_t j = i + 1; j < n_sums; j++) mcpp_lane_summary_free(sums[j]);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, o);
    }
    free(sums); /* the summaries now belong to the Python objects */
    return list ? Py_BuildValue("(Nn)", list, (Py_ssize_t)duplicates) : NULL;
}

/* The C summaries of a sequence of LaneSummary objects; *keep holds them. */
static const mcpp_lane_summary **summaries_view(PyObject *seq, PyObject **keep, size_t *n)
{
    *keep = PySequence_Tuple(seq);
    if (!*keep)
        return NULL;
    *n = (size_t)PyTuple_GET_SIZE(*keep);
    const mcpp_lane_summary **items = PyMem_Malloc((*n ? *n : 1) * sizeof *items);
    for (size_t i = 0; items && i < *n; i++) {
        PyObject *o = PyTuple_GET_ITEM(*keep, (Py_ssize_t)i);
        if (!summary_check(o)) {
            PyMem_Free(items);
            items = NULL;
        } else {
            items[i] = ((mcpp_py_lane_summary *)o)->summary;
        }
    }
    if (!items) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        Py_CLEAR(*keep);
    }
    return items;
}

/* Renders with `render` in each format of `codes` ('j', 't', 'm'): a tuple of str. */
typedef int (*render_fn)(char **out, const void *result, mcpp_output_format format);

static PyObject *renderings(mcpp_py_state *st, render_fn render, const void *result, const char *codes)
{
    size_t n = strlen(codes);
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; t && i < n; i++) {
        mcpp_output_format f = codes[i] == 'j' ? MCPP_OUTPUT_JSON : codes[i] == 't' ? MCPP_OUTPUT_TEXT
                                                                                      : MCPP_OUTPUT_MARKDOWN;
        char *text = NULL;
        int rc = strchr("jtm", codes[i]) ? render(&text, result, f) : MCPP_EARG;
        PyObject *s = rc < 0 ? NULL : PyUnicode_FromString(text);
        mcpp_free(text);
        if (!s) {
            if (!PyErr_Occurred())
                mcpp_py_raise(st, rc);
            Py_CLEAR(t);
        } else {
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
        }
    }
    return t;
}

static int render_frontier(char **out, const void *f, mcpp_output_format format)
{
    return mcpp_frontier_render(out, f, format);
}

static int render_claim(char **out, const void *r, mcpp_output_format format)
{
    return mcpp_claim_result_render(out, r, format);
}

/* The frontier of `seq` (LaneSummary objects); NULL with an exception set. */
static mcpp_frontier *frontier_of(PyObject *module, PyObject *seq, PyObject *policy_obj, Py_ssize_t duplicates,
                                  const mcpp_policy **p)
{
    mcpp_py_state *st = PyModule_GetState(module);
    PyObject *keep;
    size_t n;
    if (duplicates < 0) {
        PyErr_SetString(PyExc_ValueError, "duplicates must be >= 0");
        return NULL;
    }
    if (policy_of(st, policy_obj, p) < 0)
        return NULL;
    const mcpp_lane_summary **items = summaries_view(seq, &keep, &n);
    if (!items)
        return NULL;
    mcpp_frontier *f = NULL;
    int rc = mcpp_frontier_from_summaries(&f, *p, items, n, (size_t)duplicates);
    PyMem_Free(items);
    Py_DECREF(keep);
    if (rc < 0)
        mcpp_py_raise(st, rc);
    return f;
}

static PyObject *frontier_from_summaries(PyObject *module, PyObject *args)
{
    PyObject *seq, *policy_obj = Py_None;
    Py_ssize_t duplicates = 0;
    const char *codes = "j";
    if (!PyArg_ParseTuple(args, "O|Ons:_frontier_from_summaries", &seq, &policy_obj, &duplicates, &codes))
        return NULL;
    const mcpp_policy *p;
    mcpp_frontier *f = frontier_of(module, seq, policy_obj, duplicates, &p);
    if (!f)
        return NULL;
    PyObject *t = renderings(PyModule_GetState(module), render_frontier, f, codes);
    mcpp_frontier_free(f);
    return t;
}

/* lane_holds of mcpp_claim_check_frontier: 0 for the lanes whose keys are in `failing`. */
static unsigned char *lane_holds(const mcpp_frontier *f, PyObject *failing)
{
    size_t L = mcpp_frontier_lane_count(f);
    unsigned char *holds = PyMem_Malloc(L + 1);
    if (!holds)
        return (unsigned char *)PyErr_NoMemory();
    memset(holds, 1, L + 1);
    for (size_t l = 0; l < L; l++) {
        PyObject *key = PyUnicode_FromString(mcpp_frontier_lane_key(f, l));
        int in = key ? PySequence_Contains(failing, key) : -1;
        Py_XDECREF(key);
        if (in < 0) {
            PyMem_Free(holds);
            return NULL;
        }
        holds[l] = (unsigned char)!in;
    }
    return holds;
}

static PyObject *claim_from_summaries(PyObject *module, PyObject *args)
{
    PyObject *seq, *failing, *policy_obj = Py_None;
    const char *selector, *metric, *codes = "j";
    double value;
    Py_ssize_t duplicates = 0;
    if (!PyArg_ParseTuple(args, "OOszd|Ons:_claim_from_summaries", &seq, &failing, &selector, &metric, &value,
                          &policy_obj, &duplicates, &codes))
        return NULL;
    const mcpp_policy *p;
    mcpp_frontier *f = frontier_of(module, seq, policy_obj, duplicates, &p);
    if (!f)
        return NULL;
    unsigned char *holds = failing == Py_None ? NULL : lane_holds(f, failing);
    PyObject *t = NULL;
    if (failing == Py_None || holds) {
        mcpp_claim_result *r = NULL;
        int rc = mcpp_claim_check_frontier(&r, p, f, holds, selector, metric, value);
        t = rc < 0 ? mcpp_py_raise(PyModule_GetState(module), rc)
                   : renderings(PyModule_GetState(module), render_claim, r, codes);
        mcpp_claim_result_free(r);
    }
    PyMem_Free(holds);
    mcpp_frontier_free(f);
    return t;
}

/* The set of lane keys with a receipt for which the selector's terms fail. */
static PyObject *selector_failing_lanes(PyObject *module, PyObject *args)
{
    PyObject *seq, *policy_obj = Py_None;
    const char *selector;
    if (!PyArg_ParseTuple(args, "Os|O:_selector_failing_lanes", &seq, &selector, &policy_obj))
        return NULL;
    mcpp_py_state *st = PyModule_GetState(module);
    const mcpp_policy *p;
    PyObject *keep;
    size_t n;
    if (policy_of(st, policy_obj, &p) < 0)
        return NULL;
    const mcpp_receipt **items = receipts_view(st, seq, &keep, &n);
    if (!items)
        return NULL;
    unsigned char *holds = PyMem_Malloc(n ? n : 1);
    PyObject *failing = holds ? PySet_New(NULL) : PyErr_NoMemory();
    int rc = failing ? mcpp_claim_selector_holds(holds, selector, items, n) : MCPP_OK;
    if (rc < 0) {
        Py_CLEAR(failing);
        mcpp_py_raise(st, rc);
    }
    for (size_t i = 0; failing && i < n; i++) {
        char *key = NULL;
        if (holds[i])
            continue;
        if ((rc = mcpp_lane_key(&key, p, items[i])) < 0) {
            Py_CLEAR(failing);
            mcpp_py_raise(st, rc);
            break;
        }
        PyObject *k = PyUnicode_FromString(key);
        mcpp_free(key);
        if (!k || PySet_Add(failing, k) < 0)
            Py_CLEAR(failing);
        Py_XDECREF(k);
    }
    PyMem_Free(holds);
    PyMem_Free(items);
    Py_DECREF(keep);
    return failing;
}

/* The verdict names of one baseline against each candidate. */
static PyObject *verdicts(PyObject *module, PyObject *args)
{
    PyObject *base_obj, *seq, *policy_obj = Py_None;
    if (!PyArg_ParseTuple(args, "OO|O:_verdicts", &base_obj, &seq, &policy_obj))
        return NULL;
    mcpp_py_state *st = PyModule_GetState(module);
    const mcpp_policy *p;
    PyObject *keep;
    size_t n;
    const mcpp_receipt *base = mcpp_py_receipt_get(st, base_obj);
    if (!base || policy_of(st, policy_obj, &p) < 0)
        return NULL;
    const mcpp_receipt **cands = receipts_view(st, seq, &keep, &n);
    if (!cands)
        return NULL;
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; t && i < n; i++) {
        mcpp_verdict v;
        int rc = mcpp_compare_verdict(&v, p, base, cands[i]);
        PyObject *name = rc < 0 ? mcpp_py_raise(st, rc) : PyUnicode_FromString(mcpp_verdict_name(v));
        if (!name)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, name);
    }
    PyMem_Free(cands);
    Py_DECREF(keep);
    return t;
}

static int render_gate(char **out, const void *r, mcpp_output_format format)
{
    return mcpp_gate_report_render(out, r, format);
}

/* dropped: a sequence of (not_comparable, insufficient) pairs, one per candidate. */
static size_t *dropped_counts(PyObject *seq, size_t n_cands)
{
    PyObject *fast = PySequence_Fast(seq, "dropped must be a sequence of pairs");
    if (!fast)
        return NULL;
    size_t *counts = NULL;
    if ((size_t)PySequence_Fast_GET_SIZE(fast) != n_cands) {
        PyErr_SetString(PyExc_ValueError, "dropped needs one pair per candidate");
    } else if ((counts = PyMem_Calloc(2 * n_cands + 1, sizeof *counts)) == NULL) {
        PyErr_NoMemory();
    }
    for (size_t i = 0; counts && i < n_cands; i++) {
        Py_ssize_t a, b;
        if (!PyArg_Parse(PySequence_Fast_GET_ITEM(fast, (Py_ssize_t)i), "(nn)", &a, &b) || a < 0 || b < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "dropped counts must be >= 0");
            PyMem_Free(counts);
            counts = NULL;
        } else {
            counts[2 * i] = (size_t)a;
            counts[2 * i + 1] = (size_t)b;
        }
    }
    Py_DECREF(fast);
    return counts;
}

static PyObject *gate_filtered(PyObject *module, PyObject *args)
{
    PyObject *bseq, *cseq, *dseq, *policy_obj = Py_None, *bkeep = NULL, *ckeep = NULL, *t = NULL;
    const char *codes = "j";
    if (!PyArg_ParseTuple(args, "OOO|Os:_gate_filtered", &bseq, &cseq, &dseq, &policy_obj, &codes))
        return NULL;
    mcpp_py_state *st = PyModule_GetState(module);
    const mcpp_policy *p;
    size_t nb = 0, nc = 0;
    size_t *dropped = NULL;
    const mcpp_receipt **bs = NULL, **cs = NULL;
    if (policy_of(st, policy_obj, &p) < 0 || !(bs = receipts_view(st, bseq, &bkeep, &nb)) ||
        !(cs = receipts_view(st, cseq, &ckeep, &nc)) || !(dropped = dropped_counts(dseq, nc)))
        goto done;
    mcpp_gate_report *r = NULL;
    int rc = mcpp_gate_run_filtered(&r, p, bs, nb, cs, nc, dropped);
    t = rc < 0 ? mcpp_py_raise(st, rc) : renderings(st, render_gate, r, codes);
    mcpp_gate_report_free(r);
done:
    PyMem_Free(dropped);
    PyMem_Free(bs);
    PyMem_Free(cs);
    Py_XDECREF(bkeep);
    Py_XDECREF(ckeep);
    return t;
}

/* ---- type and registration ------------------------------------------------------------ */

static PyMethodDef summary_methods[] = {
    {"add", (PyCFunction)summary_add, METH_O, "add(receipt)\n--\n\nAdds one receipt of this lane."},
    {"merge", (PyCFunction)summary_merge, METH_O,
     "merge(other)\n--\n\nMerges another summary of the same lane, policy and metric into this one."},
    {"serialize", (PyCFunction)summary_serialize, METH_NOARGS,
     "serialize()\n--\n\nCanonical JSON text; equal summaries give equal text."},
    {"deserialize", (PyCFunction)(void (*)(void))summary_deserialize, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "deserialize(text, policy=None)\n--\n\nReads serialize() text back under `policy`."},
    {"duplicate_ids", (PyCFunction)summary_duplicate_ids, METH_NOARGS,
     "duplicate_ids()\n--\n\nSorted receipt ids held more than once."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef summary_getset[] = {
    {"key", (getter)summary_key_get, NULL, "The canonical lane key ('' while empty).", NULL},
    {"receipt_count", (getter)summary_count_get, NULL, "Receipts summarised.", NULL},
    {"status", (getter)summary_status_get, NULL, "'stable' or 'unstable'.", NULL},
    {"reasons", (getter)summary_reasons_get, NULL, "Why the lane is unstable (empty when stable).", NULL},
    {"headline", (getter)summary_headline_get, NULL, "The headline as a dict, or None without values.", NULL},
    {"policy", (getter)summary_policy_get, NULL, "The Policy it was made under (None: the default).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot summary_slots[] = {
    {Py_tp_doc, (void *)"LaneSummary(policy=None, metric=None)\n--\n\n"
                        "A mergeable summary of one lane's receipts (counts, reasons, headline values)."},
    {Py_tp_new, summary_new},
    {Py_tp_dealloc, summary_dealloc},
    {Py_tp_richcompare, summary_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_methods, summary_methods},
    {Py_tp_getset, summary_getset},
    {0, NULL},
};

static PyType_Spec summary_spec = {
    .name = "mcpp_receipts._core.LaneSummary",
    .basicsize = sizeof(mcpp_py_lane_summary),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = summary_slots,
};

static PyMethodDef module_functions[] = {
    {"_lane_summaries", lane_summaries, METH_VARARGS,
     "_lane_summaries(receipts, policy, metric, cls)\n--\n\n"
     "([cls instances], duplicates): the lane summaries of a partition."},
    {"_frontier_from_summaries", frontier_from_summaries, METH_VARARGS,
     "_frontier_from_summaries(summaries, policy=None, duplicates=0, formats='j')\n--\n\n"
     "Renderings of the frontier of lane summaries."},
    {"_claim_from_summaries", claim_from_summaries, METH_VARARGS,
     "_claim_from_summaries(summaries, failing, selector, metric, value, policy=None, duplicates=0, "
     "formats='j')\n--\n\nRenderings of a claim on the frontier of summaries; `failing`: lane keys the "
     "selector's terms fail on (None when the selector is a lane key)."},
    {"_selector_failing_lanes", selector_failing_lanes, METH_VARARGS,
     "_selector_failing_lanes(receipts, selector, policy=None)\n--\n\n"
     "The set of lane keys with a receipt the selector's terms do not hold for."},
    {"_verdicts", verdicts, METH_VARARGS,
     "_verdicts(baseline, candidates, policy=None)\n--\n\nThe verdict of the baseline against each candidate."},
    {"_gate_filtered", gate_filtered, METH_VARARGS,
     "_gate_filtered(baselines, candidates, dropped, policy=None, formats='j')\n--\n\n"
     "Renderings of the gate over kept baselines; dropped: (not_comparable, insufficient) per candidate."},
    {NULL, NULL, 0, NULL},
};

int mcpp_py_lane_summary_init(PyObject *module)
{
    PyObject *type = PyType_FromModuleAndSpec(module, &summary_spec, NULL);
    if (!type)
        return -1;
    int rc = PyModule_AddObjectRef(module, "LaneSummary", type);
    Py_DECREF(type);
    if (rc < 0)
        return -1;
    return PyModule_AddFunctions(module, module_functions);
}
