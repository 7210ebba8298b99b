/*
 * core.h — what the files of the CPython extension mcpp_receipts._core share:
 * the module state (types, exception classes, helpers), the one error mapper,
 * and the constructors each file exports to the others.
 *
 * Style follows CPython's Modules/xxlimited.c and Modules/_bz2module.c:
 * multi-phase init, heap types created per module, no static PyObject state.
 */
#ifndef MCPP_PY_CORE_H
#define MCPP_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "mcpp_receipts.h"

/* Everything the module owns; reached from a type through PyType_GetModuleByDef
 * so Python subclasses of our types still find it. */
typedef struct mcpp_py_state {
    PyTypeObject *receipt_type;  /* _core.Receipt (the C base type)                  */
    PyTypeObject *builder_type;  /* _core.Builder                                    */
    PyTypeObject *policy_type;   /* _core.Policy                                     */
    PyTypeObject *report_type;   /* _core.Report: a frontier or gate kept in C       */
    PyObject *receipt_class;     /* what load() instantiates: the pure-Python subclass
                                    registered by mcpp_receipts/__init__.py, or the base */
    PyObject *error;             /* mcpp_receipts.Error                              */
    PyObject *parse_error;       /* ParseError(Error, ValueError)                    */
    PyObject *validation_error;  /* ValidationError(Error, ValueError)               */
    PyObject *policy_error;      /* PolicyError(Error)                               */
    PyObject *file_error;        /* FileError(Error, OSError)                        */
    PyObject *argument_error;    /* ArgumentError(Error, ValueError)                 */
    PyObject *field_type_error;  /* FieldTypeError(Error, TypeError)                 */
    PyObject *unknown_field_error; /* UnknownFieldError(Error, KeyError)             */
    PyObject *json_default;      /* the default= of json.dumps in Builder.set(): numpy scalars */
    PyObject *json_loads;        /* json.loads, for OBJECT values and renderer output */
    PyObject *json_dumps;        /* json.dumps, for Builder.set() of dicts/lists      */
} mcpp_py_state;

extern PyModuleDef mcpp_py_module_def;

/* The state of the module that defined `type` (or one of its bases). */
mcpp_py_state *mcpp_py_state_of_type(PyTypeObject *type);

/* ---- Errors (errors.c) ------------------------------------------------------ */

/*
 * A copy of mcpp_error taken on the thread that failed, so it can cross a
 * Py_BEGIN_ALLOW_THREADS section or be kept for ReceiptSet.errors. Strings are
 * malloc'ed (NULL when unknown); release with mcpp_py_error_clear.
 */
typedef struct mcpp_py_error {
    int code;
    mcpp_error_kind kind_id; /* what the exception class is chosen by */
    char *kind;
    char *message;
    char *file;
    char *field;
    int line;
    int column;
} mcpp_py_error;

/* Snapshots mcpp_error_last() of the calling thread (status used when the
 * library left no message). Needs no GIL. */
void mcpp_py_error_capture(mcpp_py_error *out, int status);
void mcpp_py_error_clear(mcpp_py_error *err);

/* THE mapping from library failures to Python exceptions: returns a new
 * exception instance (or NULL with an exception set). */
PyObject *mcpp_py_error_to_exception(mcpp_py_state *st, const mcpp_py_error *err);

/* Raises for `status` from mcpp_error_last(); returns NULL for `return`. */
PyObject *mcpp_py_raise(mcpp_py_state *st, int status);

/* `s` escaped as the CLI escapes text for a terminal (mcpp_output_escape,
 * TEXT), line by line when `keep_newlines` (escape.c); NULL reads as "". */
PyObject *mcpp_py_escaped(const char *s, int keep_newlines);
/* _core.escape_text(str) -> str: the same for the Python layer (one line). */
PyObject *mcpp_py_escape_text(PyObject *module, PyObject *arg);
/* Raises a captured error; returns NULL. */
PyObject *mcpp_py_raise_captured(mcpp_py_state *st, const mcpp_py_error *err);

int mcpp_py_errors_init(PyObject *module, mcpp_py_state *st);
/* Sets .kind and .field on the exception being raised. */
void mcpp_py_annotate_error(const char *kind, const char *path);
/* Makes the default= hook Builder.set() gives json.dumps (builder_type.c). */
int mcpp_py_builder_init(PyObject *module, mcpp_py_state *st);
/* Raises FieldTypeError "PATH expects EXPECTED, got TYPE" (.field = path); -1. */
int mcpp_py_field_type_error(mcpp_py_state *st, const char *path, const char *expected, PyObject *value);
/* Raises UnknownFieldError for a path that is no schema field: names the
 * fields of a section ("hardware"), else the nearest field; NULL. */
PyObject *mcpp_py_unknown_field(mcpp_py_state *st, const char *path);

/* ---- Receipt (receipt_type.c) --------------------------------------------- */

typedef struct mcpp_py_receipt {
    PyObject_HEAD
    mcpp_receipt *receipt; /* owned; never NULL once constructed                  */
    Py_hash_t hash;        /* -1 until computed from the canonical JSON           */
} mcpp_py_receipt;

extern PyType_Spec mcpp_py_receipt_spec;

/* Wraps `receipt` (takes ownership, also on failure) in the registered
 * Receipt class. */
PyObject *mcpp_py_receipt_wrap(mcpp_py_state *st, mcpp_receipt *receipt);

/* Receipt.metric(name), Receipt.metric_list(), Receipt.primary_metric (receipt_metrics.c). */
PyObject *mcpp_py_receipt_metric(PyObject *self, PyObject *arg);
PyObject *mcpp_py_receipt_metric_list(PyObject *self, PyObject *ignored);
PyObject *mcpp_py_receipt_primary_metric(PyObject *self, void *closure);

/* True when `obj` is a Receipt (or subclass) of this module. */
int mcpp_py_receipt_check(mcpp_py_state *st, PyObject *obj);

/* Borrowed mcpp_receipt of a Receipt object; sets TypeError and returns NULL
 * for anything else. */
const mcpp_receipt *mcpp_py_receipt_get(mcpp_py_state *st, PyObject *obj);

/* Converts a borrowed field view to a Python value (None when absent). */
PyObject *mcpp_py_value_to_object(mcpp_py_state *st, const mcpp_value *value);

/* ---- Builder (builder_type.c), Policy (policy_type.c) ---------------------- */

extern PyType_Spec mcpp_py_builder_spec;

typedef struct mcpp_py_policy {
    PyObject_HEAD
    mcpp_policy *policy; /* owned */
    PyObject *source;    /* str path of the policy file, or None */
} mcpp_py_policy;

extern PyType_Spec mcpp_py_policy_spec;

/* The mcpp_policy of `obj`, or of the default policy when obj is None (then
 * *owned receives a policy the caller frees; otherwise *owned is NULL). */
int mcpp_py_policy_resolve(mcpp_py_state *st, PyObject *obj, const mcpp_policy **out,
                           mcpp_policy **owned);

/* ---- Module-level functions (loading.c, analysis.c) ------------------------ */


PyObject *mcpp_py_load(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames);
PyObject *mcpp_py_loads(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames);
PyObject *mcpp_py_receipt_from_canonical(PyObject *module, PyObject *args);
/* load_dir.c */
PyObject *mcpp_py_load_dir(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames);

/* ---- json_arena.c: cJSON's blocks from a per-thread arena during a load ---- */

typedef struct mcpp_py_json_arena {
    char *base;
    size_t cap, used;
} mcpp_py_json_arena;

/* Once, at module initialisation: cJSON allocates through the arena hooks. */
void mcpp_py_json_arena_install(void);
/* Opens an arena of `cap` bytes for the calling thread (0, or -1 when out of
 * memory: then cJSON simply uses malloc). Every tree built while it is open
 * must be deleted before the next rewind or close. */
int mcpp_py_json_arena_open(mcpp_py_json_arena *a, size_t cap);
void mcpp_py_json_arena_rewind(mcpp_py_json_arena *a);
void mcpp_py_json_arena_close(mcpp_py_json_arena *a);

/* analysis.c: each returns a tuple of renderings (JSON, text, Markdown as asked). */
PyObject *mcpp_py_compare(PyObject *module, PyObject *args);
PyObject *mcpp_py_frontier(PyObject *module, PyObject *args);
PyObject *mcpp_py_claim(PyObject *module, PyObject *args);
PyObject *mcpp_py_gate(PyObject *module, PyObject *args);
/* _frontier_report and _gate_report: the report kept in C, a _core.Report (report_type.c). */
PyObject *mcpp_py_frontier_report(PyObject *module, PyObject *args);
PyObject *mcpp_py_gate_report(PyObject *module, PyObject *args);

/* text_join.c: _ascii_join(chunks) -> str, the text written once. */
PyObject *mcpp_py_ascii_join(PyObject *module, PyObject *chunks);

/* ---- report_type.c: _core.Report ----------------------------------------- */

PyType_Spec *mcpp_py_report_spec(void);
/* Wraps a frontier or a gate report (owned, also on failure, as is
 * `owned_policy`): `receipts` is the tuple its HTML page draws, `keep` what
 * else it borrows, `policy` the policy it was made under (NULL: the default). */
PyObject *mcpp_py_report_wrap(mcpp_py_state *st, mcpp_frontier *frontier, mcpp_gate_report *gate, PyObject *receipts,
                              PyObject *keep, const mcpp_policy *policy, mcpp_policy *owned_policy);
PyObject *mcpp_py_lane_key(PyObject *module, PyObject *args);

/* policy_search.c: _find_policy(name, from_dir) -> path or None, and
 * _policy_search_path(from_dir) -> the directories, one per line. */
PyObject *mcpp_py_find_policy(PyObject *module, PyObject *args);
PyObject *mcpp_py_policy_search_path(PyObject *module, PyObject *args);

/* lane_summary_type.c: adds _core.LaneSummary and the distributed-frontier
 * functions (_lane_summaries, _frontier_from_summaries, ...) to the module. */
int mcpp_py_lane_summary_init(PyObject *module);

/* ---- The receipt store (store.c): the functions behind mcpp_receipts.Store ---- */

PyObject *mcpp_py_store_add(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_query(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_remove(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_count(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_location_shown(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_check(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_removed(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_export(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_history(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_frontier(PyObject *module, PyObject *args);
PyObject *mcpp_py_store_site(PyObject *module, PyObject *args);

/* importing.c: _import_results(format, paths, out_dir) -> list of receipts. */
PyObject *mcpp_py_import_results(PyObject *module, PyObject *args);

/* accelerator.c: _accelerator(raw_name) -> dict (id, vendor, model, form_factor,
 * memory_gb, memory_type, matched, model_only) from the shipped table. */
PyObject *mcpp_py_accelerator(PyObject *module, PyObject *arg);

#endif /* MCPP_PY_CORE_H */
