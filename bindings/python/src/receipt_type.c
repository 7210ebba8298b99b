/*
 * receipt_type.c — _core.Receipt: an immutable receipt seen from Python.
 *
 * The C type holds the mcpp_receipt and does the work that must be fast or
 * exact: field reads by dotted path, canonical JSON/YAML, equality and hashing
 * by canonical JSON, pickling. The pure-Python subclass mcpp_receipts.Receipt
 * adds section attributes (r.routing.top_k), to_dict() and the HTML view.
 */
#include <string.h>

#include "core.h"

static PyObject *string_to_object(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "strict");
}

PyObject *mcpp_py_value_to_object(mcpp_py_state *st, const mcpp_value *v)
{
    switch (v->type) {
    case MCPP_TYPE_ABSENT:
        Py_RETURN_NONE;
    case MCPP_TYPE_BOOL:
        return PyBool_FromLong(v->boolean);
    case MCPP_TYPE_INT:
        return PyLong_FromLongLong((long long)v->integer);
    case MCPP_TYPE_DOUBLE:
        return PyFloat_FromDouble(v->number);
    case MCPP_TYPE_STRING:
    case MCPP_TYPE_ENUM:
        return string_to_object(v->string);
    case MCPP_TYPE_STRING_LIST: {
        /* Tuples, not lists: a receipt is read-only all the way down. */
        PyObject *t = PyTuple_New((Py_ssize_t)v->count);
        for (size_t i = 0; t && i < v->count; i++) {
            PyObject *item = string_to_object(v->strings[i]);
            if (!item) {
                Py_CLEAR(t);
                break;
            }
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, item);
        }
        return t;
    }
    case MCPP_TYPE_DOUBLE_LIST: {
        PyObject *t = PyTuple_New((Py_ssize_t)v->count);
        for (size_t i = 0; t && i < v->count; i++) {
            PyObject *item = PyFloat_FromDouble(v->doubles[i]);
            if (!item) {
                Py_CLEAR(t);
                break;
            }
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, item);
        }
        return t;
    }
    case MCPP_TYPE_OBJECT: {
        if (!v->string)
            Py_RETURN_NONE;
        PyObject *text = string_to_object(v->string);
        if (!text)
            return NULL;
        PyObject *obj = PyObject_CallOneArg(st->json_loads, text);
        Py_DECREF(text);
        return obj;
    }
    }
    PyErr_Format(PyExc_SystemError, "mcpp_receipts: unknown value type %d", (int)v->type);
    return NULL;
}

PyObject *mcpp_py_receipt_wrap(mcpp_py_state *st, mcpp_receipt *receipt)
{
    PyTypeObject *cls = (PyTypeObject *)st->receipt_class;
    mcpp_py_receipt *self = (mcpp_py_receipt *)cls->tp_alloc(cls, 0);
    if (!self) {
        mcpp_receipt_free(receipt);
        return NULL;
    }
    self->receipt = receipt;
    self->hash = -1;
    /* A Python subclass is GC-tracked by default, but a receipt holds no
     * Python references and cannot be part of a cycle: keeping 10^5 of them
     * out of the collector's lists saves its traversals. */
    if (PyObject_IS_GC((PyObject *)self))
        PyObject_GC_UnTrack(self);
    return (PyObject *)self;
}

int mcpp_py_receipt_check(mcpp_py_state *st, PyObject *obj)
{
    return PyObject_TypeCheck(obj, st->receipt_type);
}

const mcpp_receipt *mcpp_py_receipt_get(mcpp_py_state *st, PyObject *obj)
{
    if (!mcpp_py_receipt_check(st, obj) || !((mcpp_py_receipt *)obj)->receipt) {
        PyErr_Format(PyExc_TypeError, "expected an mcpp_receipts.Receipt, got %.100s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return ((mcpp_py_receipt *)obj)->receipt;
}

static void receipt_dealloc(mcpp_py_receipt *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    mcpp_receipt_free(self->receipt);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static mcpp_py_state *state_of(mcpp_py_receipt *self)
{
    return mcpp_py_state_of_type(Py_TYPE(self));
}

/* Canonical text of the receipt as a Python str. */
static PyObject *canonical_text(mcpp_py_receipt *self, mcpp_format format)
{
    char *text = NULL;
    size_t len = 0;
    int rc = mcpp_receipt_write(&text, &len, self->receipt, format);
    if (rc < 0)
        return mcpp_py_raise(state_of(self), rc);
    PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "strict");
    mcpp_free(text);
    return s;
}

static PyObject *receipt_get_path(mcpp_py_receipt *self, PyObject *path, int missing_is_keyerror,
                                  PyObject *dflt)
{
    const char *cpath = PyUnicode_AsUTF8(path);
    if (!cpath)
        return NULL;
    mcpp_value v = MCPP_VALUE_INIT;
    int rc = mcpp_receipt_get(self->receipt, cpath, &v);
    if (rc == MCPP_ENOTFOUND) {
        mcpp_error_clear();
        if (missing_is_keyerror) /* names a section's fields, or the nearest field */
            return mcpp_py_unknown_field(state_of(self), cpath);
        return Py_NewRef(dflt);
    }
    if (rc < 0)
        return mcpp_py_raise(state_of(self), rc);
    if (v.type == MCPP_TYPE_ABSENT && dflt)
        return Py_NewRef(dflt);
    return mcpp_py_value_to_object(state_of(self), &v);
}

static PyObject *receipt_subscript(mcpp_py_receipt *self, PyObject *key)
{
    if (!PyUnicode_Check(key)) {
        PyErr_Format(PyExc_TypeError, "receipt fields are addressed by dotted path strings, not %.100s",
                     Py_TYPE(key)->tp_name);
        return NULL;
    }
    return receipt_get_path(self, key, 1, NULL);
}

PyDoc_STRVAR(receipt_get_doc,
             "get(path, default=None)\n--\n\n"
             "The value of the field at dotted `path` (e.g. 'routing.top_k'), or `default`\n"
             "when this receipt lacks it or the schema has no such field.");

static PyObject *receipt_get(mcpp_py_receipt *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_Format(PyExc_TypeError, "get() takes 1 or 2 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "get(): path must be a str");
        return NULL;
    }
    return receipt_get_path(self, args[0], 0, nargs > 1 ? args[1] : Py_None);
}

/* `path in receipt`: true when the receipt has a value there. */
static int receipt_contains(mcpp_py_receipt *self, PyObject *key)
{
    if (!PyUnicode_Check(key))
        return 0;
    const char *cpath = PyUnicode_AsUTF8(key);
    if (!cpath)
        return -1;
    mcpp_value v = MCPP_VALUE_INIT;
    int rc = mcpp_receipt_get(self->receipt, cpath, &v);
    if (rc < 0) {
        mcpp_error_clear();
        return 0;
    }
    return v.type != MCPP_TYPE_ABSENT;
}

PyDoc_STRVAR(receipt_to_json_doc, "to_json()\n--\n\n"
                                  "The canonical JSON text (schema order, shortest numbers).");

static PyObject *receipt_to_json(mcpp_py_receipt *self, PyObject *Py_UNUSED(ignored))
{
    return canonical_text(self, MCPP_FORMAT_JSON);
}

PyDoc_STRVAR(receipt_to_yaml_doc, "to_yaml()\n--\n\nThe canonical YAML text.");

static PyObject *receipt_to_yaml(mcpp_py_receipt *self, PyObject *Py_UNUSED(ignored))
{
    return canonical_text(self, MCPP_FORMAT_YAML);
}

PyDoc_STRVAR(receipt_render_doc,
             "render(format='text')\n--\n\n"
             "The receipt for people ('text', what `mcpp-receipts show` prints), as\n"
             "canonical JSON ('json') or in a fenced block ('markdown').");

static PyObject *receipt_render(mcpp_py_receipt *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"format", NULL};
    const char *name = "text";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|s:render", kwlist, &name))
        return NULL;
    mcpp_output_format format;
    if (mcpp_output_format_parse(&format, name) != MCPP_OK) {
        mcpp_error_clear();
        PyErr_Format(PyExc_ValueError, "format must be 'text', 'json' or 'markdown', not '%s'",
                     name);
        return NULL;
    }
    char *text = NULL;
    int rc = mcpp_receipt_render(&text, self->receipt, (int)format);
    if (rc < 0)
        return mcpp_py_raise(state_of(self), rc);
    PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "strict");
    mcpp_free(text);
    return s;
}

PyDoc_STRVAR(receipt_flat_doc,
             "_flat()\n--\n\n"
             "Every present schema field as {dotted path: value}, in schema order.");

static PyObject *receipt_flat(mcpp_py_receipt *self, PyObject *Py_UNUSED(ignored))
{
    mcpp_py_state *st = state_of(self);
    PyObject *d = PyDict_New();
    int n = mcpp_schema_field_count();
    for (int id = 0; d && id < n; id++) {
        mcpp_value v = MCPP_VALUE_INIT;
        if (mcpp_receipt_get_field(self->receipt, id, &v) < 0 || v.type == MCPP_TYPE_ABSENT)
            continue;
        const mcpp_field_info *info = mcpp_schema_field_at(id);
        PyObject *value = mcpp_py_value_to_object(st, &v);
        if (!value || PyDict_SetItemString(d, info->path, value) < 0) {
            Py_XDECREF(value);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(value);
    }
    mcpp_error_clear();
    return d;
}

PyDoc_STRVAR(receipt_write_doc,
             "write(path, format=None)\n--\n\n"
             "Writes the receipt to `path` atomically. `format` is 'json' or 'yaml';\n"
             "None picks from the file extension.");

static int parse_format(PyObject *obj, mcpp_format *out)
{
    if (obj == NULL || obj == Py_None) {
        *out = MCPP_FORMAT_AUTO;
        return 0;
    }
    const char *s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    if (s && strcmp(s, "json") == 0)
        *out = MCPP_FORMAT_JSON;
    else if (s && (strcmp(s, "yaml") == 0 || strcmp(s, "yml") == 0))
        *out = MCPP_FORMAT_YAML;
    else {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "format must be 'json', 'yaml' or None");
        return -1;
    }
    return 0;
}

static PyObject *receipt_write(mcpp_py_receipt *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"path", "format", NULL};
    PyObject *path = NULL, *fmt = Py_None;
    mcpp_format format;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|O:write", kwlist, PyUnicode_FSConverter,
                                     &path, &fmt))
        return NULL;
    if (parse_format(fmt, &format) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_receipt_write_file(self->receipt, PyBytes_AS_STRING(path), format);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (rc < 0)
        return mcpp_py_raise(state_of(self), rc);
    Py_RETURN_NONE;
}

static PyObject *receipt_richcompare(PyObject *a, PyObject *b, int op)
{
    mcpp_py_state *st = mcpp_py_state_of_type(Py_TYPE(a));
    if ((op != Py_EQ && op != Py_NE) || !st || !mcpp_py_receipt_check(st, b))
        Py_RETURN_NOTIMPLEMENTED;
    char *ta = NULL, *tb = NULL;
    size_t la = 0, lb = 0;
    int rc = mcpp_receipt_write(&ta, &la, ((mcpp_py_receipt *)a)->receipt, MCPP_FORMAT_JSON);
    if (rc == 0)
        rc = mcpp_receipt_write(&tb, &lb, ((mcpp_py_receipt *)b)->receipt, MCPP_FORMAT_JSON);
    int equal = rc == 0 && la == lb && memcmp(ta, tb, la) == 0;
    mcpp_free(ta);
    mcpp_free(tb);
    if (rc < 0)
        return mcpp_py_raise(st, rc);
    return PyBool_FromLong(op == Py_EQ ? equal : !equal);
}

static Py_hash_t receipt_hash(mcpp_py_receipt *self)
{
    if (self->hash != -1)
        return self->hash;
    PyObject *text = canonical_text(self, MCPP_FORMAT_JSON);
    if (!text)
        return -1;
    Py_hash_t h = PyObject_Hash(text);
    Py_DECREF(text);
    self->hash = h;
    return h;
}

PyDoc_STRVAR(receipt_reduce_doc, "Pickles as canonical JSON plus the source name.");

static PyObject *receipt_reduce(mcpp_py_receipt *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *module = PyType_GetModuleByDef(Py_TYPE(self), &mcpp_py_module_def);
    if (!module)
        return NULL;
    PyObject *ctor = PyObject_GetAttrString(module, "_receipt_from_canonical");
    if (!ctor)
        return NULL;
    PyObject *text = canonical_text(self, MCPP_FORMAT_JSON);
    if (!text) {
        Py_DECREF(ctor);
        return NULL;
    }
    PyObject *source = string_to_object(mcpp_receipt_source_name(self->receipt));
    PyObject *result = source ? Py_BuildValue("(N(NN))", ctor, text, source) : NULL;
    if (!result) {
        Py_DECREF(ctor);
        Py_DECREF(text);
        Py_XDECREF(source);
    }
    return result;
}

/* <Receipt ID lane=NAME pattern=PATTERN tokens_per_s=N>, every receipt
 * string escaped as the CLI escapes it (escape.c). */
static PyObject *receipt_repr(mcpp_py_receipt *self)
{
    mcpp_value name = MCPP_VALUE_INIT, pattern = MCPP_VALUE_INIT, tps = MCPP_VALUE_INIT;
    const char *lane = "?", *pat = "?";
    if (mcpp_receipt_get(self->receipt, "lane.name", &name) == 0 && name.string)
        lane = name.string;
    if (mcpp_receipt_get(self->receipt, "lane.pattern", &pattern) == 0 && pattern.string)
        pat = pattern.string;
    int have_tps = mcpp_receipt_get(self->receipt, "metrics.tokens_per_s", &tps) == 0 &&
                   tps.type == MCPP_TYPE_DOUBLE;
    mcpp_error_clear();
    PyObject *id = mcpp_py_escaped(mcpp_receipt_id(self->receipt), 0);
    PyObject *lane_s = id ? mcpp_py_escaped(lane, 0) : NULL;
    PyObject *pat_s = lane_s ? mcpp_py_escaped(pat, 0) : NULL;
    PyObject *num = pat_s && have_tps ? PyFloat_FromDouble(tps.number) : NULL;
    PyObject *r = NULL;
    if (pat_s && have_tps && num)
        r = PyUnicode_FromFormat("<Receipt %U lane=%U pattern=%U tokens_per_s=%R>", id, lane_s, pat_s, num);
    else if (pat_s && !have_tps)
        r = PyUnicode_FromFormat("<Receipt %U lane=%U pattern=%U>", id, lane_s, pat_s);
    Py_XDECREF(id);
    Py_XDECREF(lane_s);
    Py_XDECREF(pat_s);
    Py_XDECREF(num);
    return r;
}

static PyObject *receipt_id_get(mcpp_py_receipt *self, void *Py_UNUSED(closure))
{
    return string_to_object(mcpp_receipt_id(self->receipt));
}

static PyObject *receipt_source_get(mcpp_py_receipt *self, void *Py_UNUSED(closure))
{
    return string_to_object(mcpp_receipt_source_name(self->receipt));
}

PyDoc_STRVAR(receipt_metric_doc,
             "metric(name)\n--\n\n"
             "The metric `name` as a dict: name, unit, direction ('higher'/'lower'),\n"
             "value, aggregate, sample_kind, samples (tuple), well_known, path.\n"
             "Well-known metrics (tokens_per_s, step_time_s, goodput.*) and the\n"
             "entries of metrics.named alike. Raises KeyError when not stated.");

PyDoc_STRVAR(receipt_metric_list_doc,
             "metric_list()\n--\n\n"
             "Every metric the receipt states, as dicts like metric() returns:\n"
             "well-known ones first, then metrics.named in order.");

static PyMethodDef receipt_methods[] = {
    {"get", (PyCFunction)(void (*)(void))receipt_get, METH_FASTCALL, receipt_get_doc},
    {"to_json", (PyCFunction)receipt_to_json, METH_NOARGS, receipt_to_json_doc},
    {"metric", (PyCFunction)mcpp_py_receipt_metric, METH_O, receipt_metric_doc},
    {"metric_list", (PyCFunction)mcpp_py_receipt_metric_list, METH_NOARGS,
     receipt_metric_list_doc},
    {"to_yaml", (PyCFunction)receipt_to_yaml, METH_NOARGS, receipt_to_yaml_doc},
    {"_flat", (PyCFunction)receipt_flat, METH_NOARGS, receipt_flat_doc},
    {"render", (PyCFunction)(void (*)(void))receipt_render, METH_VARARGS | METH_KEYWORDS,
     receipt_render_doc},
    {"write", (PyCFunction)(void (*)(void))receipt_write, METH_VARARGS | METH_KEYWORDS,
     receipt_write_doc},
    {"__reduce__", (PyCFunction)receipt_reduce, METH_NOARGS, receipt_reduce_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef receipt_getset[] = {
    {"primary_metric", (getter)mcpp_py_receipt_primary_metric, NULL,
     "name of the headline metric (metrics.primary, else tokens_per_s, else step_time_s)",
     NULL},
    {"id", (getter)receipt_id_get, NULL,
     "The receipt id (stated, or derived from a content hash).", NULL},
    {"filename", (getter)receipt_source_get, NULL,
     "The file (or name) the receipt was loaded from; None when built.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(receipt_doc,
             "An immutable, validated mcpp.receipt/2.\n\n"
             "Made by load(), loads(), load_dir() or Builder.finish(); not directly.\n"
             "r['routing.top_k'] reads a field by dotted path (None when absent,\n"
             "KeyError when the schema has no such field).");

static PyType_Slot receipt_slots[] = {
    {Py_tp_doc, (void *)receipt_doc},
    {Py_tp_dealloc, receipt_dealloc},
    {Py_tp_repr, receipt_repr},
    {Py_tp_hash, receipt_hash},
    {Py_tp_richcompare, receipt_richcompare},
    {Py_tp_methods, receipt_methods},
    {Py_tp_getset, receipt_getset},
    {Py_mp_subscript, receipt_subscript},
    {Py_sq_contains, receipt_contains},
    {0, NULL},
};

PyType_Spec mcpp_py_receipt_spec = {
    .name = "mcpp_receipts._core.Receipt",
    .basicsize = sizeof(mcpp_py_receipt),
    .itemsize = 0,
    /* BASETYPE so the pure-Python layer can add notebook niceties; no
     * instantiation from Python: receipts come from loading or building. */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = receipt_slots,
};
