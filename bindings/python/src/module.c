/*
 * module.c — the mcpp_receipts._core module: multi-phase initialisation, the
 * module state (types, exception classes, helpers) and the function table.
 * Pattern: CPython's Modules/xxlimited.c.
 */
#include <string.h>

#include "core.h"

mcpp_py_state *mcpp_py_state_of_type(PyTypeObject *type)
{
    PyObject *module = PyType_GetModuleByDef(type, &mcpp_py_module_def);
    if (!module)
        return NULL;
    return (mcpp_py_state *)PyModule_GetState(module);
}

static mcpp_py_state *module_state(PyObject *module)
{
    return (mcpp_py_state *)PyModule_GetState(module);
}

/* ---- small module functions --------------------------------------------------- */

PyDoc_STRVAR(set_receipt_class_doc,
             "_set_receipt_class(cls)\n--\n\n"
             "Makes load()/loads()/load_dir()/Builder.finish() return instances of\n"
             "`cls`, a subclass of _core.Receipt that adds no instance state.");

static PyObject *set_receipt_class(PyObject *module, PyObject *cls)
{
    mcpp_py_state *st = module_state(module);
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, st->receipt_type) ||
        ((PyTypeObject *)cls)->tp_basicsize != st->receipt_type->tp_basicsize) {
        PyErr_SetString(PyExc_TypeError,
                        "_set_receipt_class() needs a subclass of _core.Receipt with __slots__ = ()");
        return NULL;
    }
    Py_XSETREF(st->receipt_class, Py_NewRef(cls));
    Py_RETURN_NONE;
}

PyDoc_STRVAR(schema_fields_doc,
             "schema_fields()\n--\n\n"
             "The schema as a tuple of (path, type, enum_names, doc), in schema order.\n"
             "type is one of 'bool', 'int', 'float', 'str', 'enum', 'list[str]',\n"
             "'list[float]', 'object'.");

static const char *type_name(mcpp_type t)
{
    switch (t) {
    case MCPP_TYPE_BOOL: return "bool";
    case MCPP_TYPE_INT: return "int";
    case MCPP_TYPE_DOUBLE: return "float";
    case MCPP_TYPE_STRING: return "str";
    case MCPP_TYPE_ENUM: return "enum";
    case MCPP_TYPE_STRING_LIST: return "list[str]";
    case MCPP_TYPE_DOUBLE_LIST: return "list[float]";
    case MCPP_TYPE_OBJECT: return "object";
    case MCPP_TYPE_ABSENT: break;
    }
    return "absent";
}

static PyObject *schema_fields(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    int n = mcpp_schema_field_count();
    PyObject *t = PyTuple_New(n > 0 ? n : 0);
    for (int id = 0; t && id < n; id++) {
        const mcpp_field_info *info = mcpp_schema_field_at(id);
        PyObject *enums;
        if (info->enum_names) {
            Py_ssize_t ne = 0;
            while (info->enum_names[ne])
                ne++;
            enums = PyTuple_New(ne);
            for (Py_ssize_t i = 0; enums && i < ne; i++) {
                PyObject *s = PyUnicode_FromString(info->enum_names[i]);
                if (!s)
                    Py_CLEAR(enums);
                else
                    PyTuple_SET_ITEM(enums, i, s);
            }
        } else {
            enums = Py_NewRef(Py_None);
        }
        PyObject *row = enums ? Py_BuildValue("(ssNz)", info->path, type_name(info->type), enums,
                                              info->doc)
                              : NULL;
        if (!row) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, id, row);
    }
    return t;
}

PyDoc_STRVAR(library_version_doc,
             "library_version()\n--\n\nThe version string of the C library in use.");

static PyObject *library_version(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    return PyUnicode_FromString(mcpp_version_string());
}

PyDoc_STRVAR(load_doc,
             "load(path)\n--\n\n"
             "Loads and validates one receipt file (JSON or YAML by extension).\n"
             "Raises ParseError / ValidationError (with .path, .line, .column, .field)\n"
             "or FileError.");
PyDoc_STRVAR(loads_doc,
             "loads(text, format='json', name=None)\n--\n\n"
             "Parses a receipt from str or bytes; format is 'json', 'yaml' or 'auto'.\n"
             "`name` is used as the file name in error messages.");
PyDoc_STRVAR(load_dir_doc,
             "load_dir(path, recursive=True, threads=None)\n--\n\n"
             "Loads every *.json, *.yaml, *.yml under `path` (sorted, hidden entries\n"
             "skipped) on `threads` C threads (None: one per CPU, at most 8). Returns\n"
             "(receipts, errors): a list of Receipt and a list of exception instances\n"
             "for the files that failed.");
PyDoc_STRVAR(receipt_from_canonical_doc,
             "_receipt_from_canonical(text, source=None)\n--\n\nUnpickles a Receipt.");
PyDoc_STRVAR(compare_doc,
             "_compare(base, cand, policy=None, formats='j')\n--\n\n"
             "Renderings of the comparison (j=json, t=text, m=markdown).");
PyDoc_STRVAR(frontier_doc,
             "_frontier(receipts, policy=None, formats='j')\n--\n\n"
             "Renderings of the frontier of a sequence of receipts.");
PyDoc_STRVAR(claim_doc,
             "_claim(receipts, selector, metric, value, policy=None, formats='j', unit=None)\n--\n\n"
             "Renderings of a claim check.");
PyDoc_STRVAR(gate_doc,
             "_gate(baselines, candidates, policy=None, formats='j', skipped=None)\n--\n\n"
             "Renderings of a gate run.");
PyDoc_STRVAR(lane_key_doc,
             "lane_key(receipt, policy=None)\n--\n\n"
             "(key, short_key): the canonical lane key of a receipt under a policy.");

PyDoc_STRVAR(import_results_doc,
             "_import_results(format, paths, out_dir, commit)\n--\n\n"
             "Imports other tools' results (all or nothing), each receipt naming\n"
             "`commit` unless it is None; writes them into out_dir unless it is None.\n"
             "A list of receipts.");

PyDoc_STRVAR(suggest_field_doc,
             "_suggest_field(path)\n--\n\n"
             "The schema path closest to `path` (as the library's \"did you mean\"), or None.");

static PyObject *suggest_field(PyObject *Py_UNUSED(module), PyObject *arg)
{
    const char *path = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (!path) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "_suggest_field(): path must be a str");
        return NULL;
    }
    char near[128];
    if (mcpp_schema_field_suggest(near, sizeof near, path) != MCPP_OK)
        Py_RETURN_NONE;
    return PyUnicode_FromString(near);
}

static PyMethodDef module_methods[] = {
    {"load", (PyCFunction)(void (*)(void))mcpp_py_load, METH_FASTCALL | METH_KEYWORDS, load_doc},
    {"loads", (PyCFunction)(void (*)(void))mcpp_py_loads, METH_FASTCALL | METH_KEYWORDS, loads_doc},
    {"load_dir", (PyCFunction)(void (*)(void))mcpp_py_load_dir, METH_FASTCALL | METH_KEYWORDS, load_dir_doc},
    {"_receipt_from_canonical", mcpp_py_receipt_from_canonical, METH_VARARGS, receipt_from_canonical_doc},
    {"_compare", mcpp_py_compare, METH_VARARGS, compare_doc},
    {"_frontier", mcpp_py_frontier, METH_VARARGS, frontier_doc},
    {"_claim", mcpp_py_claim, METH_VARARGS, claim_doc},
    {"_gate", mcpp_py_gate, METH_VARARGS, gate_doc},
    {"_ascii_join", mcpp_py_ascii_join, METH_O,
     "_ascii_join(chunks)\n--\n\nThe str of an iterable of ASCII str chunks, never held twice (to_json())."},
    {"_frontier_report", mcpp_py_frontier_report, METH_VARARGS,
     "_frontier_report(receipts, policy=None)\n--\n\nThe frontier kept in C, read lane by lane (a Report)."},
    {"_gate_report", mcpp_py_gate_report, METH_VARARGS,
     "_gate_report(baselines, candidates, policy=None, skipped=None, history=None)\n--\n\n"
     "The gate report kept in C, read candidate by candidate (a Report)."},
    {"lane_key", mcpp_py_lane_key, METH_VARARGS, lane_key_doc},
    {"_find_policy", mcpp_py_find_policy, METH_VARARGS, "_find_policy(name, from_dir) -> path or None"},
    {"_policy_search_path", mcpp_py_policy_search_path, METH_VARARGS,
     "_policy_search_path(from_dir) -> directories, one per line"},
    {"_import_results", mcpp_py_import_results, METH_VARARGS, import_results_doc},
    {"_accelerator", mcpp_py_accelerator, METH_O,
     "_accelerator(name) -> dict: the canonical accelerator the library's table makes of name"},
    {"schema_fields", schema_fields, METH_NOARGS, schema_fields_doc},
    {"escape_text", mcpp_py_escape_text, METH_O,
     "escape_text(text) -> str: text made terminal-safe as the CLI prints it (control characters as \\xNN, "
     "C1 controls and bidi overrides as \\uXXXX)"},
    {"_suggest_field", suggest_field, METH_O, suggest_field_doc},
    {"library_version", library_version, METH_NOARGS, library_version_doc},
    {"_set_receipt_class", set_receipt_class, METH_O, set_receipt_class_doc},
    /* the receipt store: documented on mcpp_receipts.Store (_store.py) */
    {"_store_add", mcpp_py_store_add, METH_VARARGS, "_store_add(path, receipts) -> (added, unchanged, skipped)"},
    {"_store_query", mcpp_py_store_query, METH_VARARGS,
     "_store_query(path, lane, where, since, until, limit, newest) -> [Receipt]"},
    {"_store_remove", mcpp_py_store_remove, METH_VARARGS, "_store_remove(path, id, reason)"},
    {"_store_count", mcpp_py_store_count, METH_VARARGS, "_store_count(path) -> (live, removed)"},
    {"_store_location_shown", mcpp_py_store_location_shown, METH_VARARGS,
     "_store_location_shown(location) -> the location without a password"},
    {"_store_check", mcpp_py_store_check, METH_VARARGS, "_store_check(path, repair=False) -> (ok, report)"},
    {"_store_removed", mcpp_py_store_removed, METH_VARARGS, "_store_removed(path) -> JSON lines"},
    {"_store_export", mcpp_py_store_export, METH_VARARGS,
     "_store_export(path, format, lane, where, since, until, limit, newest) -> str"},
    {"_store_frontier", mcpp_py_store_frontier, METH_VARARGS,
     "_store_frontier(path, format) -> str: the frontier of every stored receipt from the store's lane summaries"},
    {"_store_site", mcpp_py_store_site, METH_VARARGS,
     "_store_site(path, dir, title, commit_url) -> (pages, written, unchanged, removed): the history site"},
    {"_store_history", mcpp_py_store_history, METH_VARARGS,
     "_store_history(path, lane, metric, format, penalty, min_change, min_segment) -> str"},
    {NULL, NULL, 0, NULL},
};

/* ---- multi-phase init ------------------------------------------------------------ */

static int add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **slot)
{
    *slot = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, NULL);
    if (!*slot)
        return -1;
    return PyModule_AddType(module, *slot);
}

static int module_exec(PyObject *module)
{
    mcpp_py_state *st = module_state(module);
    if (add_type(module, &mcpp_py_receipt_spec, &st->receipt_type) < 0 ||
        add_type(module, &mcpp_py_builder_spec, &st->builder_type) < 0 ||
        add_type(module, &mcpp_py_policy_spec, &st->policy_type) < 0 ||
        add_type(module, mcpp_py_report_spec(), &st->report_type) < 0)
        return -1;
    st->receipt_class = Py_NewRef((PyObject *)st->receipt_type);
    mcpp_py_json_arena_install();
    if (mcpp_py_errors_init(module, st) < 0 || mcpp_py_lane_summary_init(module) < 0 ||
        mcpp_py_builder_init(module, st) < 0)
        return -1;

    PyObject *json = PyImport_ImportModule("json");
    if (!json)
        return -1;
    st->json_loads = PyObject_GetAttrString(json, "loads");
    st->json_dumps = PyObject_GetAttrString(json, "dumps");
    Py_DECREF(json);
    if (!st->json_loads || !st->json_dumps)
        return -1;

    if (PyModule_AddStringConstant(module, "SCHEMA", MCPP_SCHEMA_ID) < 0 ||
        PyModule_AddStringConstant(module, "__version__", MCPP_VERSION_STRING) < 0)
        return -1;
    return 0;
}

static int module_traverse(PyObject *module, visitproc visit, void *arg)
{
    mcpp_py_state *st = module_state(module);
    Py_VISIT(st->receipt_type);
    Py_VISIT(st->builder_type);
    Py_VISIT(st->policy_type);
    Py_VISIT(st->report_type);
    Py_VISIT(st->receipt_class);
    Py_VISIT(st->error);
    Py_VISIT(st->parse_error);
    Py_VISIT(st->validation_error);
    Py_VISIT(st->policy_error);
    Py_VISIT(st->file_error);
    Py_VISIT(st->argument_error);
    Py_VISIT(st->field_type_error);
    Py_VISIT(st->unknown_field_error);
    Py_VISIT(st->json_default);
    Py_VISIT(st->json_loads);
    Py_VISIT(st->json_dumps);
    return 0;
}

static int module_clear(PyObject *module)
{
    mcpp_py_state *st = module_state(module);
    Py_CLEAR(st->receipt_type);
    Py_CLEAR(st->builder_type);
    Py_CLEAR(st->policy_type);
    Py_CLEAR(st->report_type);
    Py_CLEAR(st->receipt_class);
    Py_CLEAR(st->error);
    Py_CLEAR(st->parse_error);
    Py_CLEAR(st->validation_error);
    Py_CLEAR(st->policy_error);
    Py_CLEAR(st->file_error);
    Py_CLEAR(st->argument_error);
    Py_CLEAR(st->field_type_error);
    Py_CLEAR(st->unknown_field_error);
    Py_CLEAR(st->json_default);
    Py_CLEAR(st->json_loads);
    Py_CLEAR(st->json_dumps);
    return 0;
}

static void module_free(void *module)
{
    module_clear((PyObject *)module);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

PyDoc_STRVAR(module_doc,
             "mcpp_receipts._core — the C extension under mcpp_receipts.\n\n"
             "Use the package (import mcpp_receipts as mr); this module is its engine.");

PyModuleDef mcpp_py_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mcpp_receipts._core",
    .m_doc = module_doc,
    .m_size = sizeof(mcpp_py_state),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__core(void);

PyMODINIT_FUNC PyInit__core(void)
{
    return PyModuleDef_Init(&mcpp_py_module_def);
}
