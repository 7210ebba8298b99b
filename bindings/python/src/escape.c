/*
 * escape.c — text from a receipt, a policy or an error, made safe for a
 * terminal or a notebook the way the CLI makes it (mcpp_output_escape, TEXT:
 * control characters, DEL and bytes that are not UTF-8 as \xNN, C1 controls
 * and bidi overrides as \uXXXX; docs/output-safety.md). Every repr, str and
 * exception message of the binding goes through here, so printing a hostile
 * receipt in a REPL or a notebook cannot move the cursor, retitle the
 * terminal or reverse the text around it.
 */
#include <string.h>

#include "core.h"

/* Appends the escaped `s[0..n)` (one line) to `out`; -1 on failure. */
static int put_line(PyObject *parts, const char *s, size_t n)
{
    char *line = PyMem_Malloc(n + 1);
    if (!line) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(line, s, n);
    line[n] = '\0';
    char *text = NULL;
    int rc = mcpp_output_escape(&text, line, MCPP_OUTPUT_TEXT);
    PyMem_Free(line);
    if (rc != MCPP_OK) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *u = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    mcpp_free(text);
    if (!u) return -1;
    rc = PyList_Append(parts, u);
    Py_DECREF(u);
    return rc;
}

PyObject *mcpp_py_escaped(const char *s, int keep_newlines)
{
    if (!s) s = "";
    PyObject *parts = PyList_New(0);
    if (!parts) return NULL;
    const char *line = s;
    for (;;) {
        const char *end = keep_newlines ? strchr(line, '\n') : NULL;
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (put_line(parts, line, n) < 0) {
            Py_DECREF(parts);
            return NULL;
        }
        if (!end) break;
        line = end + 1;
    }
    PyObject *sep = PyUnicode_FromString("\n");
    PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    return joined;
}

PyObject *mcpp_py_escape_text(PyObject *module, PyObject *arg)
{
    (void)module;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "escape_text() takes a str");
        return NULL;
    }
    Py_ssize_t n = 0;
    const char *s = PyUnicode_AsUTF8AndSize(arg, &n);
    if (!s) {
        /* lone surrogates: escape the replacement-decoded bytes instead */
        PyErr_Clear();
        PyObject *bytes = PyUnicode_AsEncodedString(arg, "utf-8", "backslashreplace");
        if (!bytes) return NULL;
        PyObject *out = mcpp_py_escaped(PyBytes_AS_STRING(bytes), 0);
        Py_DECREF(bytes);
        return out;
    }
    if ((size_t)n != strlen(s)) { /* an embedded NUL: escape it like any control character */
        PyObject *parts = PyList_New(0);
        if (!parts) return NULL;
        const char *at = s, *end = s + n;
        while (at <= end) {
            PyObject *piece = mcpp_py_escaped(at, 0);
            if (!piece || PyList_Append(parts, piece) < 0) {
                Py_XDECREF(piece);
                Py_DECREF(parts);
                return NULL;
            }
            Py_DECREF(piece);
            at += strlen(at) + 1;
        }
        PyObject *sep = PyUnicode_FromString("\\x00");
        PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
        Py_XDECREF(sep);
        Py_DECREF(parts);
        return joined;
    }
    return mcpp_py_escaped(s, 0);
}
