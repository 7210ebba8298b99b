/*
 * receipt_metrics.c — the named metrics of a receipt seen from Python:
 * Receipt.metric(name), Receipt.metric_list() and Receipt.primary_metric, as
 * plain dicts built from the library's mcpp_metric view.
 */
#include "core.h"

static int set_item(PyObject *d, const char *key, PyObject *value)
{
    if (!value)
        return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

static PyObject *text_or_none(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

/* {name, unit, direction, value, aggregate, sample_kind, samples, well_known, path} */
static PyObject *metric_to_dict(const mcpp_metric *m)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    PyObject *samples = PyTuple_New((Py_ssize_t)m->sample_count);
    for (size_t i = 0; samples && i < m->sample_count; i++) {
        PyObject *x = PyFloat_FromDouble(mcpp_metric_sample(m, i));
        if (!x) {
            Py_CLEAR(samples);
            break;
        }
        PyTuple_SET_ITEM(samples, (Py_ssize_t)i, x);
    }
    if (set_item(d, "name", text_or_none(m->name)) < 0 ||
        set_item(d, "unit", text_or_none(m->unit)) < 0 ||
        set_item(d, "direction", PyUnicode_FromString(m->direction == MCPP_DIRECTION_LOWER
                                                          ? "lower"
                                                          : "higher")) < 0 ||
        set_item(d, "value", PyFloat_FromDouble(m->value)) < 0 ||
        set_item(d, "aggregate", text_or_none(m->aggregate)) < 0 ||
        set_item(d, "sample_kind", text_or_none(m->sample_kind)) < 0 ||
        set_item(d, "samples", samples) < 0 ||
        set_item(d, "well_known", PyBool_FromLong(m->well_known)) < 0 ||
        set_item(d, "path", text_or_none(m->path)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *mcpp_py_receipt_metric(PyObject *self, PyObject *arg)
{
    const mcpp_receipt *r = ((mcpp_py_receipt *)self)->receipt;
    const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (!name) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "metric(): name must be a str");
        return NULL;
    }
    mcpp_metric m;
    if (mcpp_receipt_metric_find(&m, r, name) != MCPP_OK) {
        PyErr_Format(PyExc_KeyError, "%s", name);
        return NULL;
    }
    return metric_to_dict(&m);
}

PyObject *mcpp_py_receipt_metric_list(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    const mcpp_receipt *r = ((mcpp_py_receipt *)self)->receipt;
    size_t n = mcpp_receipt_metric_count(r);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        mcpp_metric m;
        PyObject *d = mcpp_receipt_metric_at(&m, r, i) == MCPP_OK ? metric_to_dict(&m) : NULL;
        if (!d) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, d);
    }
    return list;
}

PyObject *mcpp_py_receipt_primary_metric(PyObject *self, void *Py_UNUSED(closure))
{
    return text_or_none(mcpp_receipt_metric_primary(((mcpp_py_receipt *)self)->receipt));
}
