/*
 * text_join.c — _core._ascii_join(chunks): the str of an iterable of ASCII
 * str chunks, written into one growing str.
 *
 * Why: to_json() of a large report wrote json's chunks into a StringIO, whose
 * getvalue() copies its whole buffer into a new str, and "".join(list) holds
 * every chunk beside the result: either way the text existed twice (a
 * 10^4-lane frontier's 32 MB of JSON took 62 MiB). Here the str grows by
 * PyUnicode_Resize (realloc: a large block is remapped, not copied, and pages
 * not yet written take no memory), each chunk is dropped once copied, and the
 * str is shrunk to its length at the end. json.dumps escapes every non-ASCII
 * character (ensure_ascii), so its chunks are ASCII; any other chunk is refused.
 */
#include <string.h>

#include "core.h"

PyObject *mcpp_py_ascii_join(PyObject *module, PyObject *chunks)
{
    (void)module;
    PyObject *it = PyObject_GetIter(chunks);
    if (!it)
        return NULL;
    Py_ssize_t cap = 1 << 16, len = 0;
    PyObject *text = PyUnicode_New(cap, 127);
    for (PyObject *chunk; text && (chunk = PyIter_Next(it));) {
        if (!PyUnicode_Check(chunk) || !PyUnicode_IS_ASCII(chunk)) {
            PyErr_Format(PyExc_ValueError, "_ascii_join: every chunk must be an ASCII str, got %.100s",
                         Py_TYPE(chunk)->tp_name);
            Py_DECREF(chunk);
            Py_CLEAR(text);
            break;
        }
        Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);
        while (text && len + n > cap) {
            cap *= 2;
            if (PyUnicode_Resize(&text, cap) < 0)
                text = NULL; /* freed by PyUnicode_Resize */
        }
        if (text) {
            memcpy(PyUnicode_1BYTE_DATA(text) + len, PyUnicode_1BYTE_DATA(chunk), (size_t)n);
            len += n;
        }
        Py_DECREF(chunk);
    }
    Py_DECREF(it);
    if (!text || PyErr_Occurred()) {
        Py_XDECREF(text);
        return NULL;
    }
    if (PyUnicode_Resize(&text, len) < 0)
        return NULL;
    return text;
}
