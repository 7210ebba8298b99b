/*
 * loading.c — load(), loads() and load_dir(): receipts from files, text and
 * directory trees. Parsing and validation run with the GIL released; only the
 * wrapping into Python objects holds it.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- load_dir(path, recursive=True, threads=None) ------------------------------ */

typedef struct path_list {
    char **items;
    size_t count, cap;
} path_list;

static void path_list_free(path_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

static int path_list_push(path_list *l, char *item)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        char **items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return -1;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count++] = item;
    return 0;
}

static int has_receipt_extension(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcmp(dot, ".json") == 0 || strcmp(dot, ".yaml") == 0 ||
                   strcmp(dot, ".yml") == 0);
}

static char *join_path(const char *dir, const char *name)
{
    size_t ld = strlen(dir), ln = strlen(name);
    int slash = ld > 0 && dir[ld - 1] != '/';
    char *p = malloc(ld + (size_t)slash + ln + 1);
    if (!p)
        return NULL;
    memcpy(p, dir, ld);
    if (slash)
        p[ld] = '/';
    memcpy(p + ld + (size_t)slash, name, ln + 1);
    return p;
}

/* Collects receipt files under `dir`; hidden entries (".git", editor swap
 * files) are skipped. Returns 0, -2 when out of memory, or -1 with the
 * failure in *err when `dir` itself cannot be opened. A sub-directory that
 * cannot be opened is collected like a file, so that loading it fails and it
 * shows up in ReceiptSet.errors instead of vanishing. */
static int collect(path_list *out, const char *dir, int recursive, int depth, mcpp_py_error *err)
{
    DIR *d = opendir(dir);
    if (!d && depth > 0) {
        char *copy = strdup(dir);
        if (!copy || path_list_push(out, copy) < 0) {
            free(copy);
            return -2;
        }
        return 0;
    }
    if (!d) {
        const char *why = strerror(errno);
        memset(err, 0, sizeof *err);
        err->code = MCPP_EIO;
        err->kind = strdup("io");
        err->file = strdup(dir);
        size_t n = strlen(dir) + strlen(why) + 64;
        err->message = malloc(n);
        if (err->message)
            snprintf(err->message, n, "%s: cannot open directory: %s", dir, why);
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *full = join_path(dir, e->d_name);
        if (!full) {
            rc = -2;
            break;
        }
        struct stat sb;
        if (stat(full, &sb) != 0) {
            /* A dangling link named like a receipt: let loading report it. */
            if (has_receipt_extension(e->d_name) && path_list_push(out, full) == 0)
                continue;
            free(full);
            continue;
        }
        if (S_ISDIR(sb.st_mode)) {
            if (recursive && depth < 64)
                rc = collect(out, full, recursive, depth + 1, err);
            free(full);
        } else if (S_ISREG(sb.st_mode) && has_receipt_extension(e->d_name)) {
            if (path_list_push(out, full) < 0) {
                free(full);
                rc = -2;
            }
        } else {
            free(full);
        }
    }
    closedir(d);
    return rc;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One file's outcome, filled without the GIL. */
typedef struct load_slot {
    mcpp_receipt *receipt;
    mcpp_py_error error;
} load_slot;

/* Files are independent, so worker threads take the next unclaimed index
 * until none are left; each slot is written by exactly one worker. The
 * library's last error is thread-local, so each worker captures its own. */
typedef struct load_job {
    char **paths;
    load_slot *slots;
    size_t count;
    atomic_size_t next;
} load_job;

static void *load_worker(void *arg)
{
    load_job *job = arg;
    size_t i;
    while ((i = atomic_fetch_add(&job->next, 1)) < job->count) {
        int rc = mcpp_receipt_load_file(&job->slots[i].receipt, NULL, job->paths[i], NULL);
        if (rc < 0)
            mcpp_py_error_capture(&job->slots[i].error, rc);
    }
    return NULL;
}

/* Runs the job on `threads` threads (the calling one included); falls back
 * to fewer when a thread cannot be started. */
static void load_all(load_job *job, size_t threads)
{
    pthread_t extra[63];
    size_t started = 0;
    if (threads > job->count / 16 + 1)
        threads = job->count / 16 + 1; /* small directories: not worth a thread */
    for (size_t t = 1; t < threads && t <= 63; t++) {
        if (pthread_create(&extra[started], NULL, load_worker, job) != 0)
            break;
        started++;
    }
    load_worker(job);
    for (size_t t = 0; t < started; t++)
        pthread_join(extra[t], NULL);
}

static size_t default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return (size_t)(n > 8 ? 8 : n);
}

/* Parses load_dir(path, recursive=True, threads=None). Returns 0, or -1 with
 * a Python exception set. */
static int parse_load_dir_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                               PyObject **path_arg, int *recursive, size_t *threads)
{
    PyObject *threads_arg = nargs > 2 ? args[2] : Py_None;
    *path_arg = nargs > 0 ? args[0] : NULL;
    *recursive = 1;
    if (nargs > 3) {
        PyErr_SetString(PyExc_TypeError, "load_dir() takes at most 3 positional arguments");
        return -1;
    }
    if (nargs > 1 && (*recursive = PyObject_IsTrue(args[1])) < 0)
        return -1;
    for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); k++) {
        const char *kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (kw && strcmp(kw, "recursive") == 0 && nargs < 2) {
            if ((*recursive = PyObject_IsTrue(args[nargs + k])) < 0)
                return -1;
        } else if (kw && strcmp(kw, "threads") == 0 && nargs < 3) {
            threads_arg = args[nargs + k];
        } else if (kw && strcmp(kw, "path") == 0 && nargs < 1) {
            *path_arg = args[nargs + k];
        } else {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "load_dir() got an unexpected keyword '%s'", kw);
            return -1;
        }
    }
    if (!*path_arg) {
        PyErr_SetString(PyExc_TypeError, "load_dir() missing required argument 'path'");
        return -1;
    }
    *threads = default_threads();
    if (threads_arg != Py_None) {
        Py_ssize_t t = PyLong_AsSsize_t(threads_arg);
        if (t == -1 && PyErr_Occurred())
            return -1;
        if (t < 1 || t > 64) {
            PyErr_SetString(PyExc_ValueError, "load_dir(): threads must be 1..64 or None");
            return -1;
        }
        *threads = (size_t)t;
    }
    return 0;
}

PyObject *mcpp_py_load_dir(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    PyObject *path_arg;
    int recursive;
    size_t threads;
    if (parse_load_dir_args(args, nargs, kwnames, &path_arg, &recursive, &threads) < 0)
        return NULL;
    PyObject *path = NULL;
    if (!PyUnicode_FSConverter(path_arg, &path))
        return NULL;

    mcpp_py_state *st = module_state(module);
    path_list files = {0};
    load_slot *slots = NULL;
    mcpp_py_error dir_err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = collect(&files, PyBytes_AS_STRING(path), recursive, 0, &dir_err);
    if (rc == 0) {
        qsort(files.items, files.count, sizeof *files.items, compare_paths);
        slots = calloc(files.count ? files.count : 1, sizeof *slots);
        if (!slots)
            rc = -2;
    }
    if (rc == 0) {
        load_job job = {files.items, slots, files.count, 0};
        load_all(&job, threads);
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(path);

    PyObject *receipts = NULL, *errors = NULL, *result = NULL;
    if (rc == -2) {
        PyErr_NoMemory();
        goto cleanup;
    }
    if (rc < 0) {
        mcpp_py_raise_captured(st, &dir_err);
        goto cleanup;
    }
    if (!(receipts = PyList_New(0)) || !(errors = PyList_New(0)))
        goto cleanup;
    for (size_t i = 0; i < files.count; i++) {
        PyObject *item;
        PyObject *list;
        if (slots[i].receipt) {
            item = mcpp_py_receipt_wrap(st, slots[i].receipt);
            slots[i].receipt = NULL; /* wrap took it */
            list = receipts;
        } else {
            item = mcpp_py_error_to_exception(st, &slots[i].error);
            list = errors;
        }
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            goto cleanup;
        }
        Py_DECREF(item);
    }
    result = PyTuple_Pack(2, receipts, errors);

cleanup:
    for (size_t i = 0; slots && i < files.count; i++) {
        mcpp_receipt_free(slots[i].receipt);
        mcpp_py_error_clear(&slots[i].error);
    }
    free(slots);
    path_list_free(&files);
    mcpp_py_error_clear(&dir_err);
    Py_XDECREF(receipts);
    Py_XDECREF(errors);
    return result;
}
