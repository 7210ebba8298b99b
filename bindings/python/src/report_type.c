/*
 * report_type.c — _core.Report: a frontier or a gate report kept in C, whose
 * lanes (candidates) are rendered as JSON one at a time when Python reads them.
 *
 * Why: a report parsed whole into dicts and lists took 5.7 KiB a lane in
 * Python (a 10^4-lane frontier: 55 MiB), on top of the whole JSON text handed
 * over (2.7-3.9 KB a lane, in a C block that doubled as it grew, then copied
 * into a str). The C report is ~1.5-2.5 KiB a lane and already made; the
 * Python layer (mcpp_receipts/_results.py) reads the outline once and a lane
 * when it is asked for, so only the lanes in use exist as Python objects.
 *
 * The object owns its report and holds the receipts and the policy it was
 * made from: the text, Markdown and HTML renderings are made from them on
 * request (the HTML page draws the receipts).
 */
#include <string.h>

#include "core.h"

typedef enum report_kind { REPORT_FRONTIER, REPORT_GATE } report_kind;

typedef struct mcpp_py_report {
    PyObject_HEAD report_kind kind;
    mcpp_frontier *frontier;   /* REPORT_FRONTIER: owned          */
    mcpp_gate_report *gate;    /* REPORT_GATE: owned              */
    PyObject *receipts;        /* tuple: a frontier's receipts, a gate's baselines (for the HTML page) */
    PyObject *keep;            /* the other receipts and the policy it borrows, or None */
    const mcpp_policy *policy; /* borrowed from `keep` (NULL: the default) */
    mcpp_policy *owned_policy; /* when the call made its own (a policy file path) */
} mcpp_py_report;

static void report_dealloc(mcpp_py_report *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    mcpp_frontier_free(self->frontier);
    mcpp_gate_report_free(self->gate);
    mcpp_policy_free(self->owned_policy);
    Py_XDECREF(self->receipts);
    Py_XDECREF(self->keep);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static Py_ssize_t report_len(mcpp_py_report *self)
{
    return (Py_ssize_t)(self->kind == REPORT_FRONTIER ? mcpp_frontier_lane_count(self->frontier)
                                                      : mcpp_gate_report_count(self->gate));
}

/* A heap text of the library as a str (NULL with an exception when rc < 0). */
static PyObject *text_result(mcpp_py_report *self, int rc, char *text)
{
    mcpp_py_state *st = mcpp_py_state_of_type(Py_TYPE(self));
    PyObject *s = rc < 0 ? mcpp_py_raise(st, rc) : PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    mcpp_free(text);
    return s;
}

static PyObject *report_outline(mcpp_py_report *self, PyObject *ignored)
{
    (void)ignored;
    char *text = NULL;
    int rc = self->kind == REPORT_FRONTIER ? mcpp_frontier_render_json_outline(&text, self->frontier)
                                           : mcpp_gate_report_render_json_outline(&text, self->gate);
    return text_result(self, rc, text);
}

static PyObject *report_item(mcpp_py_report *self, PyObject *arg)
{
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= report_len(self)) {
        PyErr_SetString(PyExc_IndexError, "report item index out of range");
        return NULL;
    }
    char *text = NULL;
    int rc = self->kind == REPORT_FRONTIER ? mcpp_frontier_render_lane_json(&text, self->frontier, (size_t)i)
                                           : mcpp_gate_report_render_candidate_json(&text, self->gate, (size_t)i);
    return text_result(self, rc, text);
}

/* The index of the lane with this key or short key (a frontier) or of the
 * first candidate with this id (a gate); -1 when none. */
static PyObject *report_find(mcpp_py_report *self, PyObject *arg)
{
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name)
        return NULL;
    if (self->kind == REPORT_FRONTIER) {
        size_t at = 0;
        return PyLong_FromSsize_t(mcpp_frontier_find_lane(&at, self->frontier, name) == MCPP_OK ? (Py_ssize_t)at : -1);
    }
    size_t n = mcpp_gate_report_count(self->gate);
    for (size_t i = 0; i < n; i++)
        if (strcmp(mcpp_gate_report_candidate_id(self->gate, i), name) == 0)
            return PyLong_FromSize_t(i);
    return PyLong_FromLong(-1);
}

/* The HTML report page: the frontier's, or the gate's (its section, then the
 * baselines' lanes, candidates left out), as mcpp-receipts report and gate
 * --output html=FILE write it. */
static int render_page(char **out, mcpp_py_report *self, const mcpp_receipt *const *items, size_t n)
{
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.title = self->gate ? "Merge gate" : NULL;
    o.receipts = items;
    o.n_receipts = n;
    o.gate = self->gate;
    if (self->frontier)
        return mcpp_frontier_render_html(out, self->frontier, &o);
    mcpp_frontier *fr = NULL;
    int rc = mcpp_frontier_build(&fr, self->policy, items, n);
    if (rc == 0)
        rc = mcpp_frontier_render_html(out, fr, &o);
    mcpp_frontier_free(fr);
    return rc;
}

/* render(code): 'j' JSON, 't' text, 'm' Markdown, 'h' the HTML page. */
static PyObject *report_render(mcpp_py_report *self, PyObject *arg)
{
    const char *code = PyUnicode_AsUTF8(arg);
    if (!code)
        return NULL;
    mcpp_output_format format = code[0] == 'j'   ? MCPP_OUTPUT_JSON
                                : code[0] == 't' ? MCPP_OUTPUT_TEXT
                                                 : MCPP_OUTPUT_MARKDOWN;
    if (!strchr("jtmh", code[0]) || !code[0] || code[1]) {
        PyErr_SetString(PyExc_ValueError, "format must be one of 'j' (json), 't' (text), 'm' (markdown), 'h' (html)");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(self->receipts);
    mcpp_py_state *st = mcpp_py_state_of_type(Py_TYPE(self));
    const mcpp_receipt **items = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *items);
    if (!items)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++)
        if (!(items[i] = mcpp_py_receipt_get(st, PyTuple_GET_ITEM(self->receipts, i)))) {
            PyMem_Free(items);
            return NULL;
        }
    char *text = NULL;
    int rc;
    mcpp_py_error err = {0};
    Py_BEGIN_ALLOW_THREADS if (code[0] == 'h') rc = render_page(&text, self, items, (size_t)n);
    else if (self->frontier) rc = mcpp_frontier_render(&text, self->frontier, format);
    else rc = mcpp_gate_report_render(&text, self->gate, format);
    if (rc < 0)
        mcpp_py_error_capture(&err, rc);
    Py_END_ALLOW_THREADS PyMem_Free(items);
    PyObject *s =
        rc < 0 ? mcpp_py_raise_captured(st, &err) : PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    mcpp_py_error_clear(&err);
    mcpp_free(text);
    return s;
}

static PyMethodDef report_methods[] = {
    {"outline", (PyCFunction)report_outline, METH_NOARGS,
     "outline()\n--\n\nThe report's JSON document with an empty lanes (candidates) array."},
    {"item", (PyCFunction)report_item, METH_O, "item(i)\n--\n\nLane (candidate) i's JSON object."},
    {"find", (PyCFunction)report_find, METH_O,
     "find(name)\n--\n\nThe index of the lane with this key or short key, or of the first candidate "
     "with this id; -1 when none."},
    {"render", (PyCFunction)report_render, METH_O,
     "render(code)\n--\n\nThe report as 'j' JSON, 't' text, 'm' Markdown or 'h' the HTML page."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot report_slots[] = {
    {Py_tp_doc, (void *)"A frontier or gate report kept in C (made by _frontier_report and _gate_report)."},
    {Py_tp_dealloc, report_dealloc},
    {Py_tp_methods, report_methods},
    {Py_sq_length, report_len},
    {0, NULL},
};

static PyType_Spec report_spec = {
    .name = "mcpp_receipts._core.Report",
    .basicsize = sizeof(mcpp_py_report),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = report_slots,
};

PyObject *mcpp_py_report_wrap(mcpp_py_state *st, mcpp_frontier *frontier, mcpp_gate_report *gate, PyObject *receipts,
                              PyObject *keep, const mcpp_policy *policy, mcpp_policy *owned_policy)
{
    mcpp_py_report *self = PyObject_New(mcpp_py_report, st->report_type);
    if (!self) {
        mcpp_frontier_free(frontier);
        mcpp_gate_report_free(gate);
        mcpp_policy_free(owned_policy);
        return NULL;
    }
    self->kind = frontier ? REPORT_FRONTIER : REPORT_GATE;
    self->frontier = frontier;
    self->gate = gate;
    self->receipts = Py_NewRef(receipts);
    self->keep = Py_NewRef(keep);
    self->policy = policy;
    self->owned_policy = owned_policy;
    return (PyObject *)self;
}

PyType_Spec *mcpp_py_report_spec(void) { return &report_spec; }
