/*
 * loading.c — load() and loads(): one receipt from a file or from text
 * (load_dir() is in load_dir.c). Parsing and validation run with the GIL
 * released; only the wrapping into a Python object holds it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static mcpp_py_state *module_state(PyObject *module)
{
    return (mcpp_py_state *)PyModule_GetState(module);
}

/* ---- load(path) ------------------------------------------------------------ */

PyObject *mcpp_py_load(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames)
{
    if (nargs != 1 || (kwnames && PyTuple_GET_SIZE(kwnames) != 0)) {
        PyErr_SetString(PyExc_TypeError, "load() takes exactly one argument: path");
        return NULL;
    }
    PyObject *path = NULL;
    if (!PyUnicode_FSConverter(args[0], &path))
        return NULL;
    mcpp_receipt *r = NULL;
    mcpp_py_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_receipt_load_file(&r, NULL, PyBytes_AS_STRING(path), NULL);
    if (rc < 0)
        mcpp_py_error_capture(&err, rc);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (rc < 0) {
        mcpp_py_raise_captured(module_state(module), &err);
        mcpp_py_error_clear(&err);
        return NULL;
    }
    return mcpp_py_receipt_wrap(module_state(module), r);
}

/* ---- loads(text, format="json", name=None) ----------------------------------- */

static int format_from_name(const char *name, mcpp_format *out)
{
    if (!name || strcmp(name, "auto") == 0)
        *out = MCPP_FORMAT_AUTO;
    else if (strcmp(name, "json") == 0)
        *out = MCPP_FORMAT_JSON;
    else if (strcmp(name, "yaml") == 0 || strcmp(name, "yml") == 0)
        *out = MCPP_FORMAT_YAML;
    else {
        PyErr_Format(PyExc_ValueError, "format must be 'json', 'yaml' or 'auto', not '%s'",
                     name);
        return -1;
    }
    return 0;
}

static mcpp_receipt *load_buffer(mcpp_py_state *st, const char *buf, Py_ssize_t len,
                                 mcpp_format format, const char *name)
{
    mcpp_receipt *r = NULL;
    mcpp_py_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_receipt_load_buffer(&r, NULL, buf, (size_t)len, format, name, NULL);
    if (rc < 0)
        mcpp_py_error_capture(&err, rc);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        mcpp_py_raise_captured(st, &err);
        mcpp_py_error_clear(&err);
        return NULL;
    }
    return r;
}

PyObject *mcpp_py_loads(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames)
{
    static const char *const names[] = {"text", "format", "name"};
    PyObject *vals[3] = {NULL, NULL, NULL};
    if (nargs > 3) {
        PyErr_SetString(PyExc_TypeError, "loads() takes at most 3 arguments");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        vals[i] = args[i];
    for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); k++) {
        const char *kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        int found = 0;
        for (int j = 0; kw && j < 3; j++) {
            if (strcmp(kw, names[j]) == 0) {
                if (vals[j]) {
                    PyErr_Format(PyExc_TypeError, "loads() got multiple values for '%s'", kw);
                    return NULL;
                }
                vals[j] = args[nargs + k];
                found = 1;
            }
        }
        if (!found) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "loads() got an unexpected keyword '%s'", kw);
            return NULL;
        }
    }
    if (!vals[0]) {
        PyErr_SetString(PyExc_TypeError, "loads() missing required argument 'text'");
        return NULL;
    }

    const char *buf;
    Py_ssize_t len;
    if (PyUnicode_Check(vals[0])) {
        buf = PyUnicode_AsUTF8AndSize(vals[0], &len);
    } else if (PyBytes_Check(vals[0])) {
        buf = PyBytes_AS_STRING(vals[0]);
        len = PyBytes_GET_SIZE(vals[0]);
    } else {
        PyErr_Format(PyExc_TypeError, "loads(): text must be str or bytes, not %.100s",
                     Py_TYPE(vals[0])->tp_name);
        return NULL;
    }
    if (!buf)
        return NULL;

    mcpp_format format = MCPP_FORMAT_JSON;
    if (vals[1] && vals[1] != Py_None) {
        const char *f = PyUnicode_Check(vals[1]) ? PyUnicode_AsUTF8(vals[1]) : NULL;
        if (!f) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "loads(): format must be a str");
            return NULL;
        }
        if (format_from_name(f, &format) < 0)
            return NULL;
    }
    const char *name = "<string>";
    if (vals[2] && vals[2] != Py_None) {
        name = PyUnicode_Check(vals[2]) ? PyUnicode_AsUTF8(vals[2]) : NULL;
        if (!name) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "loads(): name must be a str");
            return NULL;
        }
    }
    /* The str/bytes object stays alive (and immutable) while the GIL is
     * released: we hold the argument reference for the whole call. */
    mcpp_py_state *st = module_state(module);
    mcpp_receipt *r = load_buffer(st, buf, len, format, name);
    return r ? mcpp_py_receipt_wrap(st, r) : NULL;
}

PyObject *mcpp_py_receipt_from_canonical(PyObject *module, PyObject *args)
{
    const char *text, *source = NULL;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "s#|z:_receipt_from_canonical", &text, &len, &source))
        return NULL;
    mcpp_py_state *st = module_state(module);
    mcpp_receipt *r = load_buffer(st, text, len, MCPP_FORMAT_JSON, source ? source : "<pickle>");
    return r ? mcpp_py_receipt_wrap(st, r) : NULL;
}
