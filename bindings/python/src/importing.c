/*
 * importing.c — _core._import_results(format, paths, out_dir, commit): other tools'
 * results as receipts (mcpp_receipts/import.h). The import itself is pure C
 * and runs without the GIL; the receipts come back as Receipt objects.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"

/* paths: a list of str (os.fspath is applied in Python). Fills c_paths with
 * borrowed UTF-8 pointers that live as long as `paths`. */
static int borrow_paths(PyObject *paths, const char ***out, Py_ssize_t *n)
{
    *n = PyList_GET_SIZE(paths);
    *out = PyMem_Calloc((size_t)*n + 1, sizeof **out);
    if (!*out) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *p = PyList_GET_ITEM(paths, i);
        if (!PyUnicode_Check(p) || !((*out)[i] = PyUnicode_AsUTF8(p))) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "paths must be str or os.PathLike");
            PyMem_Free(*out);
            return -1;
        }
    }
    return 0;
}

static PyObject *receipts_of(mcpp_py_state *st, const mcpp_receipt_set *set)
{
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < mcpp_receipt_set_count(set); i++) {
        mcpp_receipt *copy = NULL;
        if (mcpp_receipt_clone(&copy, mcpp_receipt_set_at(set, i)) != MCPP_OK) {
            Py_DECREF(list);
            return mcpp_py_raise(st, mcpp_error_last()->code);
        }
        PyObject *r = mcpp_py_receipt_wrap(st, copy);
        if (!r || PyList_Append(list, r) < 0) {
            Py_XDECREF(r);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(r);
    }
    return list;
}

PyObject *mcpp_py_import_results(PyObject *module, PyObject *args)
{
    mcpp_py_state *st = (mcpp_py_state *)PyModule_GetState(module);
    const char *format_name, *out_dir = NULL, *commit = NULL;
    PyObject *paths;
    if (!PyArg_ParseTuple(args, "sO!zz:_import_results", &format_name, &PyList_Type, &paths, &out_dir, &commit))
        return NULL;
    mcpp_import_format format;
    if (mcpp_import_format_from_name(&format, format_name) != MCPP_OK) {
        PyErr_SetString(PyExc_ValueError, mcpp_error_last()->message);
        return NULL;
    }
    const char **c_paths = NULL;
    Py_ssize_t n = 0;
    if (borrow_paths(paths, &c_paths, &n) < 0)
        return NULL;
    mcpp_receipt_set *set = NULL;
    mcpp_py_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mcpp_import_files_at_commit(&set, format, c_paths, (size_t)n, commit);
    if (rc == MCPP_OK && out_dir)
        rc = mcpp_import_write_dir(NULL, set, out_dir);
    if (rc != MCPP_OK)
        mcpp_py_error_capture(&err, rc);
    Py_END_ALLOW_THREADS
    PyMem_Free(c_paths);
    PyObject *result = rc == MCPP_OK ? receipts_of(st, set) : mcpp_py_raise_captured(st, &err);
    mcpp_py_error_clear(&err);
    mcpp_receipt_set_free(set);
    return result;
}
