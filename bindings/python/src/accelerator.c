/*
 * accelerator.c — _core._accelerator(raw_name): what the library's accelerator
 * table (data/accelerators.tsv, mcpp_receipts/accelerator.h) makes of a name a
 * runtime reports, so Python probes (mcpp_receipts.torch) name hardware with
 * the same canonical id that compare() and frontier() use.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"

PyObject *mcpp_py_accelerator(PyObject *module, PyObject *arg)
{
    const char *raw = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (!raw) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "_accelerator(): name must be a str");
        return NULL;
    }
    mcpp_accelerator a;
    int rc = mcpp_accelerator_canonicalize(&a, NULL, raw);
    if (rc != MCPP_OK)
        return mcpp_py_raise((mcpp_py_state *)PyModule_GetState(module), rc);
    return Py_BuildValue("{s:s,s:s,s:s,s:s,s:d,s:s,s:O,s:O}", "id", a.id, "vendor", a.vendor,
                         "model", a.model, "form_factor", a.form_factor, "memory_gb", a.memory_gb,
                         "memory_type", a.memory_type, "matched", a.matched ? Py_True : Py_False,
                         "model_only", a.model_only ? Py_True : Py_False);
}
