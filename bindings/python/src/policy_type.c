/*
 * policy_type.c — _core.Policy: a comparability policy (policy.h, policy_lua.h), either
 * the built-in default or one compiled from a sandboxed Lua file. Read-only
 * from Python; its settings are exposed for display and for tests.
 */
#include <string.h>

#include "core.h"

static mcpp_py_policy *policy_alloc(PyTypeObject *type, mcpp_policy *policy, PyObject *source)
{
    mcpp_py_policy *self = (mcpp_py_policy *)type->tp_alloc(type, 0);
    if (!self) {
        mcpp_policy_free(policy);
        return NULL;
    }
    self->policy = policy;
    self->source = Py_NewRef(source ? source : Py_None);
    return self;
}

static void policy_dealloc(mcpp_py_policy *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    mcpp_policy_free(self->policy);
    Py_XDECREF(self->source);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

PyDoc_STRVAR(policy_default_doc, "default()\n--\n\nThe built-in default policy (the same as policy/default.lua).");

static PyObject *policy_default(PyTypeObject *cls, PyObject *Py_UNUSED(ignored))
{
    mcpp_policy *p = NULL;
    int rc = mcpp_policy_default(&p);
    if (rc < 0)
        return mcpp_py_raise(mcpp_py_state_of_type(cls), rc);
    return (PyObject *)policy_alloc(cls, p, NULL);
}

/* Fills *limits from the optional time_limit_ms / total_time_limit_ms
 * arguments (None: the library's defaults). */
static int limits_from_args(mcpp_lua_limits *limits, PyObject *call_ms, PyObject *total_ms)
{
    mcpp_lua_limits_default(limits);
    if (call_ms && call_ms != Py_None) {
        long long v = PyLong_AsLongLong(call_ms);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v <= 0) {
            PyErr_SetString(PyExc_ValueError, "time_limit_ms must be > 0");
            return -1;
        }
        limits->max_call_ms = v;
    }
    if (total_ms && total_ms != Py_None) {
        long long v = PyLong_AsLongLong(total_ms);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v <= 0 && v != -1) {
            PyErr_SetString(PyExc_ValueError, "total_time_limit_ms must be > 0, or -1 for no bound");
            return -1;
        }
        limits->max_total_ms = v;
    }
    return 0;
}

#define LIMITS_DOC                                                                              \
    "time_limit_ms bounds each rule call (and the load) in wall-clock time\n"                  \
    "(default 1000); total_time_limit_ms bounds all of the policy's Lua time\n"                 \
    "(default 1500, -1 for none; see reset_time_budget()). A rule past a bound\n"              \
    "raises PolicyError naming the rule and the bound."

PyDoc_STRVAR(policy_from_file_doc,
             "from_file(path, *, time_limit_ms=None, total_time_limit_ms=None)\n--\n\n"
             "Loads a sandboxed Lua policy file. Raises PolicyError (with .path and\n"
             ".line) when it is invalid, FileError when it cannot be read.\n" LIMITS_DOC);

static PyObject *policy_from_file(PyTypeObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"path", "time_limit_ms", "total_time_limit_ms", NULL};
    PyObject *path = NULL, *call_ms = NULL, *total_ms = NULL;
    mcpp_lua_limits limits;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|$OO:from_file", kwlist, PyUnicode_FSConverter,
                                     &path, &call_ms, &total_ms))
        return NULL;
    if (limits_from_args(&limits, call_ms, total_ms) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    mcpp_policy *p = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_policy_load_lua_file(&p, PyBytes_AS_STRING(path), &limits);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        Py_DECREF(path);
        return mcpp_py_raise(mcpp_py_state_of_type(cls), rc);
    }
    PyObject *source = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(path));
    Py_DECREF(path);
    if (!source) {
        mcpp_policy_free(p);
        return NULL;
    }
    PyObject *self = (PyObject *)policy_alloc(cls, p, source);
    Py_DECREF(source);
    return self;
}

PyDoc_STRVAR(policy_from_string_doc,
             "from_string(text, name=None, *, time_limit_ms=None, total_time_limit_ms=None)\n--\n\n"
             "Compiles a Lua policy from text; `name` is used in error messages and\n"
             "includes resolve next to it.\n" LIMITS_DOC);

static PyObject *policy_from_string(PyTypeObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"text", "name", "time_limit_ms", "total_time_limit_ms", NULL};
    const char *text, *name = NULL;
    PyObject *call_ms = NULL, *total_ms = NULL;
    Py_ssize_t len;
    mcpp_lua_limits limits;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#|z$OO:from_string", kwlist, &text, &len, &name,
                                     &call_ms, &total_ms) ||
        limits_from_args(&limits, call_ms, total_ms) < 0)
        return NULL;
    mcpp_policy *p = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_policy_load_lua_buffer(&p, text, (size_t)len, name, &limits);
    Py_END_ALLOW_THREADS
    if (rc < 0)
        return mcpp_py_raise(mcpp_py_state_of_type(cls), rc);
    return (PyObject *)policy_alloc(cls, p, NULL);
}

PyDoc_STRVAR(policy_reset_time_budget_doc,
             "reset_time_budget()\n--\n\n"
             "Starts a new total_time_limit_ms budget for this policy's Lua rules: for\n"
             "a notebook or service that keeps one policy across many commands.");

static PyObject *policy_reset_time_budget(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    mcpp_policy_lua_reset_budget(((mcpp_py_policy *)self)->policy);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(policy_set_gate_metric_doc,
             "_set_gate_metric(metric)\n--\n\n"
             "Gates on `metric` alone (\"primary\", a metric name or a schema path),\n"
             "keeping the allowance and confidence. For a fresh policy that no\n"
             "analysis holds yet: mcpp_receipts.compare/gate/frontier(metric=...) make one.");

static PyObject *policy_set_gate_metric(PyObject *self, PyObject *arg)
{
    const char *metric = PyUnicode_AsUTF8(arg);
    if (!metric)
        return NULL;
    mcpp_policy *p = ((mcpp_py_policy *)self)->policy;
    mcpp_gate_settings g = *mcpp_policy_gate(p);
    g.metric = metric;
    int rc = mcpp_policy_set_gate(p, &g);
    if (rc != MCPP_OK)
        return mcpp_py_raise(mcpp_py_state_of_type(Py_TYPE(self)), rc);
    Py_RETURN_NONE;
}

static PyObject *str_or_none(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

static PyObject *policy_name_get(mcpp_py_policy *self, void *Py_UNUSED(closure))
{
    return str_or_none(mcpp_policy_name(self->policy));
}

static PyObject *policy_source_get(mcpp_py_policy *self, void *Py_UNUSED(closure))
{
    return Py_NewRef(self->source);
}

static PyObject *policy_dimensions_get(mcpp_py_policy *self, void *Py_UNUSED(closure))
{
    size_t n = mcpp_policy_dimension_count(self->policy);
    PyObject *result = PyDict_New();
    for (size_t i = 0; result && i < n; i++) {
        size_t nf = mcpp_policy_dimension_field_count(self->policy, i);
        PyObject *fields = PyTuple_New((Py_ssize_t)nf);
        for (size_t f = 0; fields && f < nf; f++) {
            PyObject *s = str_or_none(mcpp_policy_dimension_field(self->policy, i, f));
            if (!s)
                Py_CLEAR(fields);
            else
                PyTuple_SET_ITEM(fields, (Py_ssize_t)f, s);
        }
        int role = mcpp_policy_dimension_role(self->policy, i);
        PyObject *entry = fields ? Py_BuildValue("{s:s,s:N}", "role",
                                                 mcpp_role_name((mcpp_role)role), "fields", fields)
                                 : NULL;
        if (!entry ||
            PyDict_SetItemString(result, mcpp_policy_dimension_name(self->policy, i), entry) < 0)
            Py_CLEAR(result);
        Py_XDECREF(entry);
    }
    return result;
}

static PyObject *policy_required_get(mcpp_py_policy *self, void *Py_UNUSED(closure))
{
    size_t n = mcpp_policy_required_count(self->policy);
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; t && i < n; i++) {
        PyObject *s = str_or_none(mcpp_policy_required_at(self->policy, i));
        if (!s)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
    }
    return t;
}

/* {suite: {'run_to_run', 'run_to_run_df'}} of the suites the policy declares noise for. */
static PyObject *suite_noise_dict(const mcpp_policy *p)
{
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && i < mcpp_policy_suite_noise_count(p); i++) {
        double sd, df;
        const char *suite = mcpp_policy_suite_noise_at(p, i, &sd, &df);
        PyObject *entry = Py_BuildValue("{s:d,s:d}", "run_to_run", sd, "run_to_run_df", df);
        if (!entry || PyDict_SetItemString(d, suite, entry) < 0) Py_CLEAR(d);
        Py_XDECREF(entry);
    }
    return d;
}

static PyObject *policy_noise_get(mcpp_py_policy *self, void *Py_UNUSED(closure))
{
    const mcpp_noise_settings *n = mcpp_policy_noise(self->policy);
    PyObject *suites = suite_noise_dict(self->policy);
    if (!suites) return NULL;
    return Py_BuildValue("{s:d,s:L,s:d,s:d,s:d,s:N}", "max_rel_spread", n->max_rel_spread, "min_runs",
                         (long long)n->min_runs, "noise_floor", n->noise_floor, "run_to_run", n->run_to_run,
                         "run_to_run_df", n->run_to_run_df, "suites", suites);
}

/* The gate's metrics: [{metric, direction ("higher", "lower" or None: the
 * receipts'), max_regression, confidence}]. */
static PyObject *gate_metric_list(const mcpp_policy *p)
{
    size_t n = mcpp_policy_gate_metric_count(p);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        mcpp_gate_settings m = MCPP_GATE_SETTINGS_INIT;
        mcpp_policy_gate_metric_at(&m, p, i);
        PyObject *d = Py_BuildValue("{s:s,s:z,s:d,s:d}", "metric", m.metric, "direction",
                                    m.higher_is_better < 0 ? NULL : m.higher_is_better ? "higher" : "lower",
                                    "max_regression", m.max_regression, "confidence", m.confidence);
        if (!d) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, d);
    }
    return list;
}

static PyObject *policy_gate_get(mcpp_py_policy *self, void *Py_UNUSED(closure))
{
    const mcpp_gate_settings *g = mcpp_policy_gate(self->policy);
    PyObject *metrics = gate_metric_list(self->policy);
    if (!metrics)
        return NULL;
    return Py_BuildValue("{s:z,s:O,s:d,s:d,s:N}", "metric", g->metric, "higher_is_better",
                         g->higher_is_better ? Py_True : Py_False, "max_regression",
                         g->max_regression, "confidence", g->confidence, "metrics", metrics);
}

static PyObject *policy_adjacency_get(mcpp_py_policy *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(mcpp_policy_adjacency_width(self->policy));
}

static PyObject *policy_rules_get(mcpp_py_policy *self, void *Py_UNUSED(closure))
{
    size_t n = mcpp_policy_rule_count(self->policy);
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; t && i < n; i++) {
        PyObject *s = str_or_none(mcpp_policy_rule_name(self->policy, i));
        if (!s)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
    }
    return t;
}

static PyObject *policy_repr(mcpp_py_policy *self)
{
    const char *name = mcpp_policy_name(self->policy);
    PyObject *shown = mcpp_py_escaped(name ? name : "?", 0); /* a policy names itself: escape it */
    if (!shown)
        return NULL;
    PyObject *r = self->source != Py_None ? PyUnicode_FromFormat("<Policy %U from %R>", shown, self->source)
                                          : PyUnicode_FromFormat("<Policy %U>", shown);
    Py_DECREF(shown);
    return r;
}

int mcpp_py_policy_resolve(mcpp_py_state *st, PyObject *obj, const mcpp_policy **out,
                           mcpp_policy **owned)
{
    *owned = NULL;
    *out = NULL;
    if (obj == NULL || obj == Py_None) {
        int rc = mcpp_policy_default(owned);
        if (rc < 0) {
            mcpp_py_raise(st, rc);
            return -1;
        }
        *out = *owned;
        return 0;
    }
    if (!PyObject_TypeCheck(obj, st->policy_type)) {
        PyErr_Format(PyExc_TypeError, "policy must be an mcpp_receipts.Policy or None, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = ((mcpp_py_policy *)obj)->policy;
    return 0;
}

PyDoc_STRVAR(policy_test_file_text_doc,
             "_test_file(path, format)\n--\n\n"
             "Runs the cases of a case file (mcpp.policy-cases/1) under this policy and\n"
             "returns the report rendered as 'text' or 'json'. Failing cases are not errors.");

static PyObject *policy_test_file(mcpp_py_policy *self, PyObject *args)
{
    PyObject *path = NULL;
    const char *format_name;
    if (!PyArg_ParseTuple(args, "O&s:_test_file", PyUnicode_FSConverter, &path, &format_name))
        return NULL;
    mcpp_output_format format;
    if (mcpp_output_format_parse(&format, format_name) != MCPP_OK) {
        mcpp_error_clear();
        Py_DECREF(path);
        PyErr_Format(PyExc_ValueError, "format must be 'text' or 'json', not '%s'", format_name);
        return NULL;
    }
    mcpp_policy_test_report *report = NULL;
    char *text = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_policy_test_file(&report, self->policy, PyBytes_AS_STRING(path));
    if (rc == MCPP_OK)
        rc = mcpp_policy_test_report_render(&text, report, (int)format);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    mcpp_policy_test_report_free(report);
    if (rc < 0)
        return mcpp_py_raise(mcpp_py_state_of_type(Py_TYPE(self)), rc);
    PyObject *s = PyUnicode_FromString(text);
    mcpp_free(text);
    return s;
}

static PyMethodDef policy_methods[] = {
    {"_test_file", (PyCFunction)policy_test_file, METH_VARARGS, policy_test_file_text_doc},
    {"default", (PyCFunction)policy_default, METH_NOARGS | METH_CLASS, policy_default_doc},
    {"from_file", (PyCFunction)(void (*)(void))policy_from_file, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     policy_from_file_doc},
    {"reset_time_budget", policy_reset_time_budget, METH_NOARGS, policy_reset_time_budget_doc},
    {"_set_gate_metric", policy_set_gate_metric, METH_O, policy_set_gate_metric_doc},
    {"from_string", (PyCFunction)(void (*)(void))policy_from_string,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, policy_from_string_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef policy_getset[] = {
    {"name", (getter)policy_name_get, NULL, "The policy's name.", NULL},
    {"source", (getter)policy_source_get, NULL, "The file it came from, or None.", NULL},
    {"dimensions", (getter)policy_dimensions_get, NULL,
     "{dimension: {'role': 'must_match'|'qualify'|'ignore', 'fields': (...)}}", NULL},
    {"required_fields", (getter)policy_required_get, NULL, "Fields both receipts must have.",
     NULL},
    {"noise", (getter)policy_noise_get, NULL,
     "{'max_rel_spread', 'min_runs', 'noise_floor', 'run_to_run', 'run_to_run_df', "
     "'suites': {suite: {'run_to_run', 'run_to_run_df'}}}",
     NULL},
    {"gate", (getter)policy_gate_get, NULL,
     "{'metric', 'higher_is_better', 'max_regression', 'confidence', 'metrics': [{'metric', "
     "'direction', 'max_regression', 'confidence'}]}", NULL},
    {"adjacency_width", (getter)policy_adjacency_get, NULL,
     "Lanes are adjacent when their keys differ in at most this many dimensions.", NULL},
    {"rules", (getter)policy_rules_get, NULL, "Names of the custom (Lua) rules.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(policy_doc,
             "A comparability policy: which dimensions must match, which only qualify,\n"
             "required fields, noise bounds and the merge gate. Make one with\n"
             "Policy.default(), Policy.from_file(path) or Policy.from_string(text).");

static PyType_Slot policy_slots[] = {
    {Py_tp_doc, (void *)policy_doc},
    {Py_tp_dealloc, policy_dealloc},
    {Py_tp_repr, policy_repr},
    {Py_tp_methods, policy_methods},
    {Py_tp_getset, policy_getset},
    {0, NULL},
};

PyType_Spec mcpp_py_policy_spec = {
    .name = "mcpp_receipts._core.Policy",
    .basicsize = sizeof(mcpp_py_policy),
    .itemsize = 0,
    /* BASETYPE: the package adds Policy.shipped() in Python. */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = policy_slots,
};
