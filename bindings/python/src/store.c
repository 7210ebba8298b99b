/*
 * store.c — the functions behind mcpp_receipts.Store (_store.py): add,
 * query, remove, count, check, export and history on a receipt store file.
 * Each call opens the store, works with the GIL released and closes it;
 * only wrapping receipts into Python objects holds the GIL.
 */
#include "core.h"

static mcpp_py_state *module_state(PyObject *module)
{
    return (mcpp_py_state *)PyModule_GetState(module);
}

/* Raises the captured error and frees it; returns NULL. */
static PyObject *raise_captured(PyObject *module, mcpp_py_error *err)
{
    mcpp_py_raise_captured(module_state(module), err);
    mcpp_py_error_clear(err);
    return NULL;
}

static int open_store(mcpp_store **out, const char *path, unsigned flags, mcpp_py_error *err)
{
    int rc = mcpp_store_open(out, path, flags);
    if (rc) mcpp_py_error_capture(err, rc);
    return rc;
}

/* ---- _store_add(path, receipts) -> (added, unchanged, skipped_removed) ------------- */

PyObject *mcpp_py_store_add(PyObject *module, PyObject *args)
{
    PyObject *path = NULL, *items = NULL;
    if (!PyArg_ParseTuple(args, "O&O:_store_add", PyUnicode_FSConverter, &path, &items)) return NULL;
    PyObject *seq = PySequence_Fast(items, "_store_add: receipts must be a sequence");
    PyObject *result = NULL;
    const mcpp_receipt **receipts = NULL;
    if (!seq) goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    receipts = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *receipts);
    if (!receipts) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (!(receipts[i] = mcpp_py_receipt_get(module_state(module), PySequence_Fast_GET_ITEM(seq, i)))) goto done;
    mcpp_store_add_result res = {0, 0, 0};
    mcpp_py_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    mcpp_store *store = NULL;
    rc = open_store(&store, PyBytes_AS_STRING(path), MCPP_STORE_CREATE, &err);
    if (!rc && (rc = mcpp_store_add(&res, store, receipts, (size_t)n))) mcpp_py_error_capture(&err, rc);
    mcpp_store_close(store);
    Py_END_ALLOW_THREADS
    if (rc) raise_captured(module, &err);
    else result = Py_BuildValue("(nnn)", (Py_ssize_t)res.added, (Py_ssize_t)res.unchanged,
                                (Py_ssize_t)res.skipped_removed);
done:
    PyMem_Free(receipts);
    Py_XDECREF(seq);
    Py_DECREF(path);
    return result;
}

/* ---- _store_query(path, lane, where, since, until, limit, newest) -> [Receipt] ------ */

typedef struct receipt_array {
    mcpp_receipt **items;
    size_t n, cap;
} receipt_array;

static int collect_receipt(void *ctx, mcpp_receipt *receipt)
{
    receipt_array *a = ctx;
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 256;
        mcpp_receipt **grown = realloc(a->items, cap * sizeof *grown);
        if (!grown) {
            mcpp_receipt_free(receipt);
            return MCPP_ENOMEM;
        }
        a->items = grown;
        a->cap = cap;
    }
    a->items[a->n++] = receipt;
    return MCPP_OK;
}

static PyObject *wrap_all(PyObject *module, receipt_array *a)
{
    PyObject *list = PyList_New((Py_ssize_t)a->n);
    for (size_t i = 0; i < a->n; i++) {
        PyObject *item = list ? mcpp_py_receipt_wrap(module_state(module), a->items[i]) : NULL;
        if (!list) mcpp_receipt_free(a->items[i]);
        a->items[i] = NULL; /* wrap took it, also on failure */
        if (list && !item) Py_CLEAR(list);
        if (list) PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

PyObject *mcpp_py_store_query(PyObject *module, PyObject *args)
{
    PyObject *path = NULL;
    mcpp_store_query q = {NULL, NULL, NULL, NULL, 0, 0};
    Py_ssize_t limit = 0;
    if (!PyArg_ParseTuple(args, "O&zzzznp:_store_query", PyUnicode_FSConverter, &path, &q.lane, &q.where, &q.since,
                          &q.until, &limit, &q.newest))
        return NULL;
    q.limit = limit > 0 ? (size_t)limit : 0;
    receipt_array found = {NULL, 0, 0};
    mcpp_py_error err = {0};
    int rc;
    size_t refused = 0;
    Py_BEGIN_ALLOW_THREADS
    mcpp_store *store = NULL;
    rc = open_store(&store, PyBytes_AS_STRING(path), MCPP_STORE_READ_ONLY, &err);
    if (!rc && (rc = mcpp_store_query_each(store, &q, collect_receipt, &found))) mcpp_py_error_capture(&err, rc);
    refused = mcpp_store_images_refused(store);
    mcpp_store_close(store);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    /* damaged or forged images were read from their bodies: the answer
     * stands, the file needs a look (as the CLI warns on stderr) */
    if (!rc && refused &&
        PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                         "%zd stored image(s) failed validation and were read from their bodies instead "
                         "(Store.check() names them, Store.check(repair=True) rewrites them)",
                         (Py_ssize_t)refused) < 0) {
        for (size_t i = 0; i < found.n; i++) mcpp_receipt_free(found.items[i]);
        free(found.items);
        mcpp_py_error_clear(&err);
        return NULL;
    }
    PyObject *list = rc ? raise_captured(module, &err) : wrap_all(module, &found);
    for (size_t i = 0; i < found.n; i++) mcpp_receipt_free(found.items[i]);
    free(found.items);
    return list;
}

/* ---- _store_remove, _store_count --------------------------------------------------- */

PyObject *mcpp_py_store_remove(PyObject *module, PyObject *args)
{
    PyObject *path = NULL;
    const char *id = NULL, *reason = NULL;
    if (!PyArg_ParseTuple(args, "O&ss:_store_remove", PyUnicode_FSConverter, &path, &id, &reason)) return NULL;
    mcpp_py_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    mcpp_store *store = NULL;
    rc = open_store(&store, PyBytes_AS_STRING(path), 0, &err);
    if (!rc && (rc = mcpp_store_remove(store, id, reason))) mcpp_py_error_capture(&err, rc);
    mcpp_store_close(store);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (rc) return raise_captured(module, &err);
    Py_RETURN_NONE;
}

PyObject *mcpp_py_store_count(PyObject *module, PyObject *args)
{
    PyObject *path = NULL;
    if (!PyArg_ParseTuple(args, "O&:_store_count", PyUnicode_FSConverter, &path)) return NULL;
    size_t live = 0, removed = 0;
    mcpp_py_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    mcpp_store *store = NULL;
    rc = open_store(&store, PyBytes_AS_STRING(path), MCPP_STORE_READ_ONLY, &err);
    if (!rc && (rc = mcpp_store_count(&live, &removed, store))) mcpp_py_error_capture(&err, rc);
    mcpp_store_close(store);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (rc) return raise_captured(module, &err);
    return Py_BuildValue("(nn)", (Py_ssize_t)live, (Py_ssize_t)removed);
}

/* _store_location_shown(location) -> str: the library's rule for showing a
 * location (mcpp_store_location_shown: no password in a postgresql:// URL),
 * for repr(Store) and the binding's own messages. */
PyObject *mcpp_py_store_location_shown(PyObject *module, PyObject *args)
{
    const char *location = NULL;
    if (!PyArg_ParseTuple(args, "s:_store_location_shown", &location))
        return NULL;
    char *shown = NULL;
    if (mcpp_store_location_shown(&shown, location) != MCPP_OK)
        return PyErr_NoMemory();
    PyObject *out = PyUnicode_DecodeFSDefault(shown);
    mcpp_free(shown);
    return out;
}

/* ---- text results: _store_check, _store_export, _store_removed, _store_history,
 * _store_frontier ------ */

typedef enum text_kind { TEXT_CHECK, TEXT_REPAIR, TEXT_EXPORT, TEXT_REMOVED, TEXT_HISTORY, TEXT_FRONTIER } text_kind;

typedef struct text_request {
    text_kind kind;
    mcpp_store_query query;           /* export                   */
    const char *format;               /* export, history, frontier */
    const char *lane, *metric;        /* history                  */
    mcpp_changepoint_settings cfg;    /* history                  */
} text_request;

static int produce_text(char **out, mcpp_store *store, const text_request *r)
{
    switch (r->kind) {
    case TEXT_CHECK: return mcpp_store_check(out, store);
    case TEXT_REPAIR: return mcpp_store_repair(out, store);
    case TEXT_EXPORT: return mcpp_store_export(out, store, &r->query, r->format);
    case TEXT_REMOVED: return mcpp_store_removed_render(out, store);
    default: break;
    }
    mcpp_output_format format = MCPP_OUTPUT_JSON;
    int rc = mcpp_output_format_parse(&format, r->format);
    if (r->kind == TEXT_FRONTIER) {
        mcpp_frontier *f = NULL;
        if (!rc) rc = mcpp_store_frontier(&f, store, NULL);
        if (!rc) rc = mcpp_frontier_render(out, f, format);
        mcpp_frontier_free(f);
        return rc;
    }
    mcpp_history *history = NULL;
    if (!rc) rc = mcpp_history_build(&history, store, r->lane, r->metric, &r->cfg);
    if (!rc) rc = mcpp_history_render(out, history, format);
    mcpp_history_free(history);
    return rc;
}

static PyObject *text_call(PyObject *module, PyObject *path, const text_request *r)
{
    char *text = NULL;
    mcpp_py_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    mcpp_store *store = NULL;
    /* the frontier saves lane summaries it had to rebuild when it may write;
     * a repair must write */
    if (r->kind == TEXT_REPAIR)
        rc = open_store(&store, PyBytes_AS_STRING(path), 0, &err);
    else if (r->kind != TEXT_FRONTIER || mcpp_store_open(&store, PyBytes_AS_STRING(path), 0) != MCPP_OK)
        rc = open_store(&store, PyBytes_AS_STRING(path), MCPP_STORE_READ_ONLY, &err);
    else
        rc = MCPP_OK;
    if (!rc && (rc = produce_text(&text, store, r))) mcpp_py_error_capture(&err, rc);
    mcpp_store_close(store);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    PyObject *result = NULL;
    int checking = r->kind == TEXT_CHECK || r->kind == TEXT_REPAIR;
    if (rc && checking && text) /* damaged: the report goes with the error */
        result = Py_BuildValue("(Os)", Py_False, text);
    else if (rc) raise_captured(module, &err);
    else result = checking ? Py_BuildValue("(Os)", Py_True, text) : PyUnicode_FromString(text);
    mcpp_py_error_clear(&err);
    mcpp_free(text);
    return result;
}

PyObject *mcpp_py_store_check(PyObject *module, PyObject *args)
{
    PyObject *path = NULL;
    int repair = 0;
    if (!PyArg_ParseTuple(args, "O&|p:_store_check", PyUnicode_FSConverter, &path, &repair)) return NULL;
    text_request r = {.kind = repair ? TEXT_REPAIR : TEXT_CHECK};
    return text_call(module, path, &r);
}

PyObject *mcpp_py_store_removed(PyObject *module, PyObject *args)
{
    PyObject *path = NULL;
    if (!PyArg_ParseTuple(args, "O&:_store_removed", PyUnicode_FSConverter, &path)) return NULL;
    text_request r = {.kind = TEXT_REMOVED};
    return text_call(module, path, &r);
}

PyObject *mcpp_py_store_export(PyObject *module, PyObject *args)
{
    PyObject *path = NULL;
    text_request r = {.kind = TEXT_EXPORT};
    Py_ssize_t limit = 0;
    if (!PyArg_ParseTuple(args, "O&szzzznp:_store_export", PyUnicode_FSConverter, &path, &r.format, &r.query.lane,
                          &r.query.where, &r.query.since, &r.query.until, &limit, &r.query.newest))
        return NULL;
    r.query.limit = limit > 0 ? (size_t)limit : 0;
    return text_call(module, path, &r);
}

PyObject *mcpp_py_store_history(PyObject *module, PyObject *args)
{
    PyObject *path = NULL;
    text_request r = {.kind = TEXT_HISTORY};
    mcpp_changepoint_settings_default(&r.cfg);
    Py_ssize_t min_segment = (Py_ssize_t)r.cfg.min_segment;
    if (!PyArg_ParseTuple(args, "O&zzsddn:_store_history", PyUnicode_FSConverter, &path, &r.lane, &r.metric,
                          &r.format, &r.cfg.penalty_per_log_n, &r.cfg.min_rel_change, &min_segment))
        return NULL;
    r.cfg.min_segment = min_segment > 0 ? (size_t)min_segment : 1;
    return text_call(module, path, &r);
}

PyObject *mcpp_py_store_frontier(PyObject *module, PyObject *args)
{
    PyObject *path = NULL;
    text_request r = {.kind = TEXT_FRONTIER};
    if (!PyArg_ParseTuple(args, "O&s:_store_frontier", PyUnicode_FSConverter, &path, &r.format)) return NULL;
    return text_call(module, path, &r);
}

/* ---- _store_site(path, dir, title, commit_url) -> (pages, written, unchanged, removed) ---- */

PyObject *mcpp_py_store_site(PyObject *module, PyObject *args)
{
    PyObject *path = NULL, *dir = NULL;
    mcpp_site_options options = MCPP_SITE_OPTIONS_INIT;
    if (!PyArg_ParseTuple(args, "O&O&zz:_store_site", PyUnicode_FSConverter, &path, PyUnicode_FSConverter, &dir,
                          &options.title, &options.commit_url))
        return NULL;
    mcpp_site_result res = {0, 0, 0, 0};
    mcpp_py_error err = {0};
    int rc;
    PyThreadState *unlocked = PyEval_SaveThread(); /* Py_BEGIN_ALLOW_THREADS, spelled out for the formatter */
    mcpp_store *store = NULL;
    /* writable when it can be, so lane summaries rebuilt for the frontier are saved */
    if (mcpp_store_open(&store, PyBytes_AS_STRING(path), 0) == MCPP_OK)
        rc = MCPP_OK;
    else
        rc = open_store(&store, PyBytes_AS_STRING(path), MCPP_STORE_READ_ONLY, &err);
    if (!rc && (rc = mcpp_site_write(&res, store, PyBytes_AS_STRING(dir), &options)))
        mcpp_py_error_capture(&err, rc);
    mcpp_store_close(store);
    PyEval_RestoreThread(unlocked);
    Py_DECREF(path);
    Py_DECREF(dir);
    if (rc)
        return raise_captured(module, &err);
    return Py_BuildValue("(nnnn)", (Py_ssize_t)res.pages, (Py_ssize_t)res.written, (Py_ssize_t)res.unchanged,
                         (Py_ssize_t)res.removed);
}
