/*
 * errors.c — the exception classes of mcpp_receipts and the one place where
 * library status codes and mcpp_error_last() become Python exceptions.
 *
 *   Error                       base of everything the library raises
 *   ParseError(Error, ValueError)       the input is not a well-formed document
 *                                       (syntax, encoding, duplicate keys, limits,
 *                                       YAML features we refuse)
 *   ValidationError(Error, ValueError)  well-formed, but not a valid receipt
 *   PolicyError(Error)                  a policy is invalid or failed, or hit
 *                                       a sandbox bound (kind "policy_limit")
 *   FileError(Error, OSError)           a file could not be read or written;
 *                                       .errno/.strerror/.filename as OSError has
 *   ArgumentError(Error, ValueError)    a bad argument: an unknown shipped policy,
 *                                       a bad claim selector, an unknown column
 *   FieldTypeError(Error, TypeError)    Builder.set() of a value of the wrong type
 *                                       for the field (.field names it)
 *   UnknownFieldError(Error, KeyError)  a path that is no field of the schema
 *                                       (Builder.set, receipt["..."]), with the
 *                                       nearest field or the section's fields
 *
 * Each instance carries .code, .kind, .path (the file), .line, .column and
 * .field, None where the library did not know them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"

static char *dup_or_null(const char *s)
{
    if (!s || !*s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

void mcpp_py_error_capture(mcpp_py_error *out, int status)
{
    const mcpp_error *e = mcpp_error_last();
    memset(out, 0, sizeof *out);
    /* A failing call always sets the thread's error; fall back to the status
     * when some path forgot, so no exception ever lacks a message. */
    out->code = (e->code != MCPP_OK) ? e->code : status;
    out->kind = dup_or_null(e->code != MCPP_OK ? e->kind : NULL);
    out->kind_id = mcpp_error_kind_of(e);
    out->message = dup_or_null(e->code != MCPP_OK ? e->message : NULL);
    if (e->code != MCPP_OK) {
        out->file = dup_or_null(e->file);
        out->field = dup_or_null(e->field);
        out->line = e->line;
        out->column = e->column;
    }
}

void mcpp_py_error_clear(mcpp_py_error *err)
{
    if (!err)
        return;
    free(err->kind);
    free(err->message);
    free(err->file);
    free(err->field);
    memset(err, 0, sizeof *err);
}

/* Kinds that mean "this is not a well-formed document" rather than "this
 * document is not a valid receipt". */
static int kind_is_parse(mcpp_error_kind kind)
{
    switch (kind) {
    case MCPP_ERROR_KIND_SYNTAX:
    case MCPP_ERROR_KIND_ENCODING:
    case MCPP_ERROR_KIND_DUPLICATE_KEY:
    case MCPP_ERROR_KIND_LIMIT:
    case MCPP_ERROR_KIND_YAML_FEATURE:
        return 1;
    default:
        return 0;
    }
}

static PyObject *class_for(mcpp_py_state *st, const mcpp_py_error *err)
{
    switch (err->code) {
    case MCPP_EINVALID:
        return kind_is_parse(err->kind_id) ? st->parse_error : st->validation_error;
    case MCPP_ELIMIT: /* a policy's sandbox bound, or a document's size/depth limit */
        return err->kind_id == MCPP_ERROR_KIND_POLICY_LIMIT ? st->policy_error : st->parse_error;
    case MCPP_EPOLICY:
        return st->policy_error;
    case MCPP_EIO:
        return st->file_error;
    case MCPP_EARG:
        return st->argument_error;
    default:
        return st->error;
    }
}

static int set_str_attr(PyObject *obj, const char *name, const char *value)
{
    PyObject *v = value ? PyUnicode_DecodeUTF8(value, (Py_ssize_t)strlen(value), "replace")
                        : Py_NewRef(Py_None);
    if (!v)
        return -1;
    int rc = PyObject_SetAttrString(obj, name, v);
    Py_DECREF(v);
    return rc;
}

static int set_int_attr(PyObject *obj, const char *name, int value, int none_when_zero)
{
    PyObject *v = (none_when_zero && value == 0) ? Py_NewRef(Py_None) : PyLong_FromLong(value);
    if (!v)
        return -1;
    int rc = PyObject_SetAttrString(obj, name, v);
    Py_DECREF(v);
    return rc;
}

/* The OS's errno for a file the library could not read: the C error carries
 * no errno, so ask the OS again about the same path (stat, then open). 0 when
 * the file now reads fine or no path is known. */
static int errno_of_file(const char *path)
{
    struct stat info;
    if (!path)
        return 0;
    if (stat(path, &info) != 0)
        return errno;
    if (S_ISDIR(info.st_mode))
        return EISDIR;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

/* The errno whose text the library's message quotes ("write failed: No space
 * left on device"), or 0: the cause of a failed write, which probing the
 * file for reading cannot give. */
static int errno_in_message(const char *message)
{
    for (int code = 1; message && code < 134; code++) {
        const char *text = strerror(code);
        if (text && strncmp(text, "Unknown error", 13) != 0 && strstr(message, text))
            return code;
    }
    return 0;
}

/* OSError's own attributes on a FileError, as open() would set them: the
 * errno the message names (a write: a full disk, a read-only directory), else
 * why the file cannot be opened for reading. Without a cause (or a file name)
 * they stay unset: OSError's str() shows errno, strerror and filename as soon
 * as filename is set, and printed "[Errno None] None: 'path'" instead of the
 * message (issue 48). */
static int set_os_error_attrs(PyObject *exc, const mcpp_py_error *err)
{
    if (!err->file || !*err->file || strstr(err->file, "://")) /* a store's URL (PostgreSQL) is no file */
        return 0;
    int code = errno_in_message(err->message);
    if (!code)
        code = errno_of_file(err->file);
    if (!code)
        return 0;
    PyObject *number = PyLong_FromLong(code);
    int rc = number ? PyObject_SetAttrString(exc, "errno", number) : -1;
    Py_XDECREF(number);
    if (rc == 0)
        rc = set_str_attr(exc, "strerror", strerror(code));
    if (rc == 0)
        rc = set_str_attr(exc, "filename", err->file);
    return rc;
}

PyObject *mcpp_py_error_to_exception(mcpp_py_state *st, const mcpp_py_error *err)
{
    const char *message = err->message ? err->message : mcpp_status_name(err->code);
    PyObject *cls = class_for(st, err);
    /* escaped as the CLI prints it: a message quotes receipt and policy text */
    PyObject *text = mcpp_py_escaped(message, 1);
    if (!text)
        return NULL;
    PyObject *exc = PyObject_CallOneArg(cls, text);
    Py_DECREF(text);
    if (!exc)
        return NULL;
    if (set_int_attr(exc, "code", err->code, 0) < 0 ||
        set_str_attr(exc, "kind", err->kind ? err->kind : mcpp_status_name(err->code)) < 0 ||
        set_str_attr(exc, "path", err->file) < 0 || set_str_attr(exc, "field", err->field) < 0 ||
        set_int_attr(exc, "line", err->line, 1) < 0 ||
        set_int_attr(exc, "column", err->column, 1) < 0 ||
        (cls == st->file_error && set_os_error_attrs(exc, err) < 0)) {
        Py_DECREF(exc);
        return NULL;
    }
    return exc;
}

PyObject *mcpp_py_raise_captured(mcpp_py_state *st, const mcpp_py_error *err)
{
    if (err->code == MCPP_ENOMEM)
        return PyErr_NoMemory();
    PyObject *exc = mcpp_py_error_to_exception(st, err);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *mcpp_py_raise(mcpp_py_state *st, int status)
{
    mcpp_py_error err;
    mcpp_py_error_capture(&err, status);
    mcpp_py_raise_captured(st, &err);
    mcpp_py_error_clear(&err);
    return NULL;
}

static PyObject *new_class(PyObject *module, const char *name, PyObject *bases, const char *doc)
{
    PyObject *cls = PyErr_NewExceptionWithDoc(name, doc, bases, NULL);
    if (!cls)
        return NULL;
    /* Defaults so that `except mr.Error as e: e.line` works on every instance,
     * including ones user code raises itself. */
    static const char *const attrs[] = {"code", "kind", "path", "field", "line", "column", NULL};
    for (size_t i = 0; attrs[i]; i++) {
        if (PyObject_SetAttrString(cls, attrs[i], Py_None) < 0) {
            Py_DECREF(cls);
            return NULL;
        }
    }
    if (PyModule_AddObjectRef(module, strrchr(name, '.') + 1, cls) < 0) {
        Py_DECREF(cls);
        return NULL;
    }
    return cls;
}

int mcpp_py_errors_init(PyObject *module, mcpp_py_state *st)
{
    PyObject *bases = NULL;
    st->error = new_class(module, "mcpp_receipts.Error", PyExc_Exception,
                          "Base class of every error raised by mcpp_receipts.\n\n"
                          "Attributes: code (library status), kind (stable category such as\n"
                          "'syntax', 'type', 'unknown_field'), path (the file), line, column\n"
                          "and field (dotted path); None where unknown.");
    if (!st->error)
        return -1;

    if (!(bases = PyTuple_Pack(2, st->error, PyExc_ValueError)))
        return -1;
    st->parse_error = new_class(module, "mcpp_receipts.ParseError", bases,
                                "The input is not a well-formed JSON/YAML document (syntax,\n"
                                "encoding, duplicate keys, size or depth limits, refused YAML\n"
                                "features).");
    st->validation_error = st->parse_error
                               ? new_class(module, "mcpp_receipts.ValidationError", bases,
                                           "The document is well-formed but not a valid\n"
                                           "mcpp.receipt/2 (wrong type, bad enum, unknown\n"
                                           "field, inconsistent values, ...).")
                               : NULL;
    Py_DECREF(bases);
    if (!st->validation_error)
        return -1;

    st->policy_error = new_class(module, "mcpp_receipts.PolicyError", st->error,
                                 "A policy file is invalid or a policy rule failed.");
    if (!st->policy_error)
        return -1;

    if (!(bases = PyTuple_Pack(2, st->error, PyExc_OSError)))
        return -1;
    st->file_error = new_class(module, "mcpp_receipts.FileError", bases,
                               "A file could not be read or written; errno, strerror and\n"
                               "filename are set as on any OSError.");
    Py_DECREF(bases);
    if (!st->file_error)
        return -1;

    if (!(bases = PyTuple_Pack(2, st->error, PyExc_ValueError)))
        return -1;
    st->argument_error = new_class(module, "mcpp_receipts.ArgumentError", bases,
                                   "A bad argument: an unknown shipped policy, a bad claim\n"
                                   "selector, an unknown column name, ...");
    Py_DECREF(bases);
    if (!st->argument_error)
        return -1;

    if (!(bases = PyTuple_Pack(2, st->error, PyExc_TypeError)))
        return -1;
    st->field_type_error = new_class(module, "mcpp_receipts.FieldTypeError", bases,
                                     "Builder.set() got a value of the wrong type for the field\n"
                                     "(or a value under extra. that is not JSON); .field names it.");
    Py_DECREF(bases);
    if (!st->field_type_error)
        return -1;

    if (!(bases = PyTuple_Pack(2, st->error, PyExc_KeyError)))
        return -1;
    st->unknown_field_error = new_class(module, "mcpp_receipts.UnknownFieldError", bases,
                                        "A dotted path that is no field of the receipt schema\n"
                                        "(Builder.set, receipt[path]); the message names the nearest\n"
                                        "field, or the fields of a section.");
    Py_DECREF(bases);
    if (!st->unknown_field_error)
        return -1;
    /* KeyError's str() is the repr of its key; this message is a sentence. */
    PyObject *plain_str = PyObject_GetAttrString(PyExc_Exception, "__str__");
    int rc = plain_str ? PyObject_SetAttrString(st->unknown_field_error, "__str__", plain_str) : -1;
    Py_XDECREF(plain_str);
    return rc;
}

void mcpp_py_annotate_error(const char *kind, const char *path)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && (set_str_attr(value, "kind", kind) < 0 || set_str_attr(value, "field", path) < 0))
        PyErr_Clear();
    PyErr_Restore(type, value, tb);
}

int mcpp_py_field_type_error(mcpp_py_state *st, const char *path, const char *expected, PyObject *value)
{
    PyErr_Format(st->field_type_error, "%s expects %s, got %.100s", path, expected, Py_TYPE(value)->tp_name);
    mcpp_py_annotate_error("type", path);
    return -1;
}

/* ", a section with the fields a, b, c" for a path that is a section ("hardware"),
 * else "" ; at most `cap` bytes. */
static void section_fields(char *buf, size_t cap, const char *path)
{
    size_t len = strlen(path), used = 0, shown = 0, count = (size_t)mcpp_schema_field_count();
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        const mcpp_field_info *f = mcpp_schema_field_at((int)i);
        if (!f || strncmp(f->path, path, len) != 0 || f->path[len] != '.')
            continue;
        if (shown++ == 0)
            used += (size_t)snprintf(buf + used, cap - used, " is a section, not a field: read a field of it such as ");
        else if (shown <= 4 && used < cap)
            used += (size_t)snprintf(buf + used, cap - used, ", ");
        if (shown <= 4 && used < cap)
            used += (size_t)snprintf(buf + used, cap - used, "'%s'", f->path);
        if (used >= cap)
            break;
    }
    if (shown > 4 && used < cap)
        snprintf(buf + used, cap - used, " (%zu fields)", shown);
}

PyObject *mcpp_py_unknown_field(mcpp_py_state *st, const char *path)
{
    char section[512], near[128];
    section_fields(section, sizeof section, path);
    if (section[0])
        PyErr_Format(st->unknown_field_error, "'%s'%s", path, section);
    else if (mcpp_schema_field_suggest(near, sizeof near, path) == MCPP_OK)
        PyErr_Format(st->unknown_field_error, "'%s' is not a field of the receipt schema; did you mean '%s'?",
                     path, near);
    else
        PyErr_Format(st->unknown_field_error, "'%s' is not a field of the receipt schema", path);
    mcpp_py_annotate_error("unknown_field", path);
    return NULL;
}
