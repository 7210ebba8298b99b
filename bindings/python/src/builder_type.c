/*
 * builder_type.c — _core.Builder: emit a receipt field by field from a
 * training script. set(path, value) dispatches on the schema's declared type
 * of `path`, so a wrong type fails at the line that set it, not at finish().
 */
#include <string.h>

#include "core.h"

typedef struct mcpp_py_builder {
    PyObject_HEAD
    mcpp_builder *builder; /* owned */
    PyObject *paths;       /* set of the paths set() has set, for repr(); NULL until the first */
} mcpp_py_builder;

static mcpp_py_state *state_of(mcpp_py_builder *self)
{
    return mcpp_py_state_of_type(Py_TYPE(self));
}

/* The exception for a failed builder call. It reaches the caller at once, so
 * the C builder's sticky record of it is cleared: a notebook that catches the
 * error and sets the field again can still finish. */
static PyObject *raise_builder_error(mcpp_py_builder *self, int rc)
{
    mcpp_py_raise(state_of(self), rc);
    mcpp_builder_clear_errors(self->builder);
    return NULL;
}

/* The builder again, for chaining, after a call that returned rc; or the
 * exception for a failed call. */
static PyObject *chain_or_raise(mcpp_py_builder *self, int rc)
{
    return rc < 0 ? raise_builder_error(self, rc) : Py_NewRef(self);
}

static PyObject *builder_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs && PyDict_GET_SIZE(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "Builder() takes no arguments");
        return NULL;
    }
    mcpp_py_builder *self = (mcpp_py_builder *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    int rc = mcpp_builder_new(&self->builder);
    if (rc < 0) {
        Py_DECREF(self);
        return mcpp_py_raise(mcpp_py_state_of_type(type), rc);
    }
    return (PyObject *)self;
}

static void builder_dealloc(mcpp_py_builder *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    mcpp_builder_free(self->builder);
    Py_XDECREF(self->paths);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

/* Free-form subtrees take any JSON-able Python value. */
static int is_free_form_path(const char *path)
{
    return strncmp(path, "extra.", 6) == 0 || strncmp(path, "launch.fixed_policy.", 20) == 0;
}

/* json.dumps(value, default=...) where default turns numpy scalars
 * (np.float32, np.int64, np.bool_) into Python numbers; a value that still is
 * not JSON raises FieldTypeError naming the path. */
static PyObject *dumps_for_path(mcpp_py_state *st, const char *path, PyObject *value)
{
    PyObject *kwargs = Py_BuildValue("{s:O}", "default", st->json_default);
    if (!kwargs)
        return NULL;
    PyObject *args = PyTuple_Pack(1, value);
    PyObject *text = args ? PyObject_Call(st->json_dumps, args, kwargs) : NULL;
    Py_XDECREF(args);
    Py_DECREF(kwargs);
    if (!text && (PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_ValueError))) {
        PyObject *type, *cause, *tb;
        PyErr_Fetch(&type, &cause, &tb);
        PyErr_NormalizeException(&type, &cause, &tb);
        PyObject *why = cause ? PyObject_Str(cause) : NULL;
        const char *why_text = why ? PyUnicode_AsUTF8(why) : NULL;
        PyErr_Clear();
        PyErr_Format(st->field_type_error,
                     "%s: the value is not JSON (%s); free-form fields take numbers, str, bool, None, "
                     "lists and dicts", path, why_text ? why_text : "?");
        mcpp_py_annotate_error("type", path);
        Py_XDECREF(why);
        Py_XDECREF(type);
        Py_XDECREF(tb);
        Py_XDECREF(cause);
    }
    return text;
}

/* default= of json.dumps: numpy scalars become the Python number or bool
 * they hold (np.float32(0.5) -> 0.5); anything else is not JSON. */
static PyObject *json_default(PyObject *Py_UNUSED(module), PyObject *obj)
{
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.", 6) == 0 && PyObject_HasAttrString(obj, "item"))
        return PyObject_CallMethod(obj, "item", NULL);
    PyErr_Format(PyExc_TypeError, "Object of type %.100s is not JSON serializable", Py_TYPE(obj)->tp_name);
    return NULL;
}

static PyMethodDef json_default_def = {"_json_default", json_default, METH_O, "numpy scalars as JSON numbers"};

int mcpp_py_builder_init(PyObject *module, mcpp_py_state *st)
{
    st->json_default = PyCFunction_NewEx(&json_default_def, module, NULL);
    return st->json_default ? 0 : -1;
}

static int set_json_value(mcpp_py_builder *self, const char *path, PyObject *value)
{
    PyObject *text = dumps_for_path(state_of(self), path, value);
    if (!text)
        return -1;
    const char *ctext = PyUnicode_AsUTF8(text);
    int rc = ctext ? mcpp_builder_set_json(self->builder, path, ctext) : -1;
    Py_DECREF(text);
    if (!ctext)
        return -1;
    if (rc < 0) {
        raise_builder_error(self, rc);
        return -1;
    }
    return 0;
}

static int type_error(mcpp_py_builder *self, const char *path, const char *expected, PyObject *value)
{
    return mcpp_py_field_type_error(state_of(self), path, expected, value);
}

static int has_float(PyObject *value);

/* Sets one list field from any iterable, replacing what was there. */
static int set_list(mcpp_py_builder *self, const char *path, mcpp_type type, PyObject *value)
{
    if (PyUnicode_Check(value) || PyBytes_Check(value))
        return type_error(self, path, "a list", value);
    if (!PySequence_Check(value) && !PyIter_Check(value) && !PyObject_HasAttrString(value, "__iter__"))
        return type_error(self, path, "a list", value);
    PyObject *seq = PySequence_Fast(value, "expected a list");
    if (!seq)
        return -1;
    int rc = mcpp_builder_unset(self->builder, path);
    for (Py_ssize_t i = 0; rc == 0 && i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (type == MCPP_TYPE_STRING_LIST) {
            if (!PyUnicode_Check(item)) {
                Py_DECREF(seq);
                return type_error(self, path, "a list of str", item);
            }
            const char *s = PyUnicode_AsUTF8(item);
            if (!s) {
                Py_DECREF(seq);
                return -1;
            }
            rc = mcpp_builder_append_string(self->builder, path, s);
        } else {
            if (PyBool_Check(item) || PyUnicode_Check(item) || !(PyIndex_Check(item) || has_float(item))) {
                Py_DECREF(seq);
                return type_error(self, path, "a list of float", item);
            }
            double d = PyFloat_AsDouble(item);
            if (d == -1.0 && PyErr_Occurred()) {
                Py_DECREF(seq);
                return -1;
            }
            rc = mcpp_builder_add_step_sample(self->builder, d);
        }
    }
    Py_DECREF(seq);
    if (rc < 0) {
        raise_builder_error(self, rc);
        return -1;
    }
    return 0;
}

/* Numbers come as Python ints and floats, numpy scalars (np.int64, np.float32)
 * or anything else with __index__ / __float__; bools are not numbers here. */
static int is_numpy_bool(PyObject *value)
{
    const char *name = Py_TYPE(value)->tp_name;
    return strcmp(name, "numpy.bool_") == 0 || strcmp(name, "numpy.bool") == 0;
}

static int is_booleanish(PyObject *value)
{
    return PyBool_Check(value) || is_numpy_bool(value) || PyUnicode_Check(value) ||
           PyBytes_Check(value);
}

static int has_float(PyObject *value)
{
    PyNumberMethods *nb = Py_TYPE(value)->tp_as_number;
    return nb && nb->nb_float;
}

static int set_from_index(mcpp_py_builder *self, const char *path, PyObject *value)
{
    PyObject *index = PyNumber_Index(value);
    if (!index)
        return -1;
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow) {
        PyErr_Format(PyExc_OverflowError, "%s: value does not fit in 64 bits", path);
        return -1;
    }
    if (n == -1 && PyErr_Occurred())
        return -1;
    int rc = mcpp_builder_set_int(self->builder, path, (int64_t)n);
    if (rc < 0) {
        raise_builder_error(self, rc);
        return -1;
    }
    return 0;
}

static int set_from_float(mcpp_py_builder *self, const char *path, PyObject *value)
{
    double d = PyFloat_AsDouble(value); /* __float__, else __index__ */
    if (d == -1.0 && PyErr_Occurred())
        return -1;
    int rc = mcpp_builder_set_double(self->builder, path, d);
    if (rc < 0) {
        raise_builder_error(self, rc);
        return -1;
    }
    return 0;
}

static int set_value(mcpp_py_builder *self, const char *path, PyObject *value)
{
    int rc;
    if (value == Py_None) {
        rc = mcpp_builder_unset(self->builder, path);
        goto done;
    }
    int id = mcpp_schema_field_id(path);
    if (id < 0) {
        if (is_free_form_path(path))
            return set_json_value(self, path, value);
        mcpp_py_unknown_field(state_of(self), path);
        return -1;
    }
    const mcpp_field_info *info = mcpp_schema_field_at(id);
    switch (info->type) {
    case MCPP_TYPE_BOOL:
        if (!PyBool_Check(value) && !is_numpy_bool(value))
            return type_error(self, path, "a bool", value);
        rc = mcpp_builder_set_bool(self->builder, path, PyObject_IsTrue(value) == 1);
        break;
    case MCPP_TYPE_INT:
        if (is_booleanish(value) || !(PyIndex_Check(value) || has_float(value)))
            return type_error(self, path, "an int", value);
        if (!PyIndex_Check(value)) /* np.float32(6.0): the C setter takes integral numbers */
            return set_from_float(self, path, value);
        return set_from_index(self, path, value);
    case MCPP_TYPE_DOUBLE:
        if (is_booleanish(value) || !(PyIndex_Check(value) || has_float(value)))
            return type_error(self, path, "a float", value);
        return set_from_float(self, path, value);
    case MCPP_TYPE_STRING:
    case MCPP_TYPE_ENUM: {
        if (!PyUnicode_Check(value))
            return type_error(self, path, "a str", value);
        const char *s = PyUnicode_AsUTF8(value);
        if (!s)
            return -1;
        rc = mcpp_builder_set_string(self->builder, path, s);
        break;
    }
    case MCPP_TYPE_STRING_LIST:
    case MCPP_TYPE_DOUBLE_LIST:
        return set_list(self, path, info->type, value);
    case MCPP_TYPE_OBJECT:
    default:
        return set_json_value(self, path, value);
    }
done:
    if (rc < 0) {
        raise_builder_error(self, rc);
        return -1;
    }
    return 0;
}

/* Records (or, on unset, forgets) a path for repr(). */
static int note_path(mcpp_py_builder *self, PyObject *path, int is_set)
{
    if (!self->paths && !(self->paths = PySet_New(NULL)))
        return -1;
    return is_set ? PySet_Add(self->paths, path) : (PySet_Discard(self->paths, path) < 0 ? -1 : 0);
}

PyDoc_STRVAR(builder_set_doc,
             "set(path, value)\n--\n\n"
             "Sets the field at dotted `path`, checked against the schema's type:\n"
             "bool, int, float (numpy scalars and anything with __index__ or\n"
             "__float__ count as numbers), str (also enums), list of str, list of float, or any\n"
             "JSON-able value under 'extra.' and 'launch.fixed_policy.'. None unsets.\n"
             "Returns the builder, so calls chain.");

static PyObject *builder_set(mcpp_py_builder *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "set() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "set(): path must be a str");
        return NULL;
    }
    const char *path = PyUnicode_AsUTF8(args[0]);
    if (!path || set_value(self, path, args[1]) < 0 || note_path(self, args[0], args[1] != Py_None) < 0)
        return NULL;
    return Py_NewRef(self);
}

PyDoc_STRVAR(builder_update_doc,
             "update(mapping=None, /, **fields)\n--\n\n"
             "set() for each item; keys are dotted paths (use the mapping form for\n"
             "them). Returns the builder.");

static PyObject *builder_update(mcpp_py_builder *self, PyObject *args, PyObject *kwargs)
{
    PyObject *mapping = NULL;
    if (!PyArg_ParseTuple(args, "|O:update", &mapping))
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        PyObject *src = pass == 0 ? mapping : kwargs;
        if (!src || src == Py_None)
            continue;
        PyObject *items = PyMapping_Items(src);
        if (!items)
            return NULL;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
            PyObject *kv = PyList_GET_ITEM(items, i);
            PyObject *key = PyTuple_GetItem(kv, 0);
            const char *path = key && PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
            PyObject *value = PyTuple_GetItem(kv, 1);
            if (!path || set_value(self, path, value) < 0 || note_path(self, key, value != Py_None) < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "update(): keys must be str paths");
                Py_DECREF(items);
                return NULL;
            }
        }
        Py_DECREF(items);
    }
    return Py_NewRef(self);
}

PyDoc_STRVAR(builder_append_doc,
             "append(path, value)\n--\n\n"
             "Appends a str to a list field such as 'status.caveats' or\n"
             "'backend.fallbacks'. Returns the builder.");

static PyObject *builder_append(mcpp_py_builder *self, PyObject *args)
{
    const char *path, *value;
    if (!PyArg_ParseTuple(args, "ss:append", &path, &value))
        return NULL;
    return chain_or_raise(self, mcpp_builder_append_string(self->builder, path, value));
}

PyDoc_STRVAR(builder_add_step_sample_doc,
             "add_step_sample(seconds)\n--\n\n"
             "Appends one measured step time to metrics.step_time_s.samples.\n"
             "Returns the builder.");

static PyObject *builder_add_step_sample(mcpp_py_builder *self, PyObject *arg)
{
    double seconds = PyFloat_AsDouble(arg);
    if (seconds == -1.0 && PyErr_Occurred())
        return NULL;
    return chain_or_raise(self, mcpp_builder_add_step_sample(self->builder, seconds));
}

PyDoc_STRVAR(builder_add_artifact_doc,
             "add_artifact(kind, uri)\n--\n\n"
             "Records an artifact (trace, report, log). Returns the builder.");

static PyObject *builder_add_artifact(mcpp_py_builder *self, PyObject *args)
{
    const char *kind, *uri;
    if (!PyArg_ParseTuple(args, "ss:add_artifact", &kind, &uri))
        return NULL;
    return chain_or_raise(self, mcpp_builder_add_artifact(self->builder, kind, uri));
}

PyDoc_STRVAR(builder_add_metric_doc,
             "add_metric(name, unit, direction, value, aggregate=None, sample_kind=None,\n"
             "           samples=())\n--\n\n"
             "Appends a named metric to metrics.named. direction is 'higher' or 'lower'\n"
             "(which is better); samples (numbers) need sample_kind ('step', 'block',\n"
             "'run', 'repetition', 'round', 'iteration') and aggregate ('single',\n"
             "'median', 'mean', 'min', 'max', 'sum', 'geomean'). Returns the builder.");

/* samples as a C array (caller frees); -1 with a Python error on failure */
static int samples_from(PyObject *obj, double **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    PyObject *seq = PySequence_Fast(obj, "add_metric(): samples must be a sequence of numbers");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    double *s = n ? PyMem_Malloc((size_t)n * sizeof *s) : NULL;
    if (n && !s) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        s[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (s[i] == -1.0 && PyErr_Occurred()) {
            PyMem_Free(s);
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    *out = s;
    *n_out = (size_t)n;
    return 0;
}

static PyObject *builder_add_metric(mcpp_py_builder *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"name", "unit", "direction", "value", "aggregate", "sample_kind",
                             "samples", NULL};
    const char *name, *unit, *direction, *aggregate = NULL, *sample_kind = NULL;
    double value;
    PyObject *samples_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sssd|zzO:add_metric", kwlist, &name, &unit,
                                     &direction, &value, &aggregate, &sample_kind, &samples_obj))
        return NULL;
    mcpp_direction dir;
    if (strcmp(direction, "higher") == 0)
        dir = MCPP_DIRECTION_HIGHER;
    else if (strcmp(direction, "lower") == 0)
        dir = MCPP_DIRECTION_LOWER;
    else {
        PyErr_Format(PyExc_ValueError,
                     "add_metric(): direction must be 'higher' or 'lower', got '%s'", direction);
        return NULL;
    }
    double *samples = NULL;
    size_t n = 0;
    if (samples_obj && samples_obj != Py_None && samples_from(samples_obj, &samples, &n) < 0)
        return NULL;
    int rc = mcpp_builder_add_metric(self->builder, name, unit, dir, value, aggregate,
                                     sample_kind, samples, n);
    PyMem_Free(samples);
    return chain_or_raise(self, rc);
}

PyDoc_STRVAR(builder_unset_doc, "unset(path)\n--\n\nRemoves a field again. Returns the builder.");

static PyObject *builder_unset(mcpp_py_builder *self, PyObject *arg)
{
    const char *path = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (!path) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "unset(): path must be a str");
        return NULL;
    }
    int rc = mcpp_builder_unset(self->builder, path);
    if (rc >= 0 && note_path(self, arg, 0) < 0)
        return NULL;
    return chain_or_raise(self, rc);
}

/* <mcpp_receipts.Builder: 3 fields set: lane.pattern, workload.seq_len, ...> */
static PyObject *builder_repr(mcpp_py_builder *self)
{
    Py_ssize_t n = self->paths ? PySet_GET_SIZE(self->paths) : 0;
    if (n == 0)
        return PyUnicode_FromString("<mcpp_receipts.Builder: no fields set>");
    PyObject *sorted = PySequence_List(self->paths);
    if (!sorted || PyList_Sort(sorted) < 0) {
        Py_XDECREF(sorted);
        return NULL;
    }
    PyObject *shown = PyList_GetSlice(sorted, 0, 8);
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = shown && sep ? PyUnicode_Join(sep, shown) : NULL;
    PyObject *out = joined ? PyUnicode_FromFormat("<mcpp_receipts.Builder: %zd field%s set: %U%s>", n,
                                                  n == 1 ? "" : "s", joined, n > 8 ? ", ..." : "")
                           : NULL;
    Py_XDECREF(joined);
    Py_XDECREF(sep);
    Py_XDECREF(shown);
    Py_DECREF(sorted);
    return out;
}

PyDoc_STRVAR(builder_finish_doc,
             "finish()\n--\n\n"
             "Validates what was set and returns the Receipt (derives the id, the\n"
             "step-time statistics and metrics.tokens_per_s = useful tokens per step /\n"
             "median step time, as frontier() derives it). The builder stays usable.\n"
             "Raises ValidationError.");

static PyObject *builder_finish(mcpp_py_builder *self, PyObject *Py_UNUSED(ignored))
{
    mcpp_receipt *r = NULL;
    int rc = mcpp_builder_finish(&r, NULL, self->builder);
    if (rc < 0)
        return mcpp_py_raise(state_of(self), rc);
    return mcpp_py_receipt_wrap(state_of(self), r);
}

PyDoc_STRVAR(builder_comparability_gaps_doc,
             "comparability_gaps()\n--\n\n"
             "What the receipt built so far lacks to be compared at all under the\n"
             "default policy: the must-match dimensions it does not state, as\n"
             "'pattern (lane.pattern, lane.depth); ...', or None when nothing is\n"
             "missing. `mcpp-receipts validate` warns with the same text. Raises\n"
             "ValidationError when finish() would.");

static PyObject *builder_comparability_gaps(mcpp_py_builder *self, PyObject *Py_UNUSED(ignored))
{
    char *gaps = NULL;
    int rc = mcpp_builder_comparability_gaps(&gaps, NULL, self->builder);
    if (rc < 0)
        return mcpp_py_raise(state_of(self), rc);
    if (!gaps)
        Py_RETURN_NONE;
    PyObject *out = PyUnicode_FromString(gaps);
    free(gaps);
    return out;
}

PyDoc_STRVAR(builder_write_doc,
             "write(path, format=None)\n--\n\n"
             "finish() and write the receipt to `path` atomically ('json'/'yaml', or\n"
             "None for the file extension). Returns the Receipt.");

static PyObject *builder_write(mcpp_py_builder *self, PyObject *args, PyObject *kwargs)
{
    PyObject *receipt = builder_finish(self, NULL);
    if (!receipt)
        return NULL;
    PyObject *write = PyObject_GetAttrString(receipt, "write");
    PyObject *res = write ? PyObject_Call(write, args, kwargs) : NULL;
    Py_XDECREF(write);
    if (!res) {
        Py_DECREF(receipt);
        return NULL;
    }
    Py_DECREF(res);
    return receipt;
}

static PyMethodDef builder_methods[] = {
    {"set", (PyCFunction)(void (*)(void))builder_set, METH_FASTCALL, builder_set_doc},
    {"update", (PyCFunction)(void (*)(void))builder_update, METH_VARARGS | METH_KEYWORDS,
     builder_update_doc},
    {"append", (PyCFunction)builder_append, METH_VARARGS, builder_append_doc},
    {"add_step_sample", (PyCFunction)builder_add_step_sample, METH_O, builder_add_step_sample_doc},
    {"add_artifact", (PyCFunction)builder_add_artifact, METH_VARARGS, builder_add_artifact_doc},
    {"add_metric", (PyCFunction)(void (*)(void))builder_add_metric, METH_VARARGS | METH_KEYWORDS,
     builder_add_metric_doc},
    {"unset", (PyCFunction)builder_unset, METH_O, builder_unset_doc},
    {"finish", (PyCFunction)builder_finish, METH_NOARGS, builder_finish_doc},
    {"comparability_gaps", (PyCFunction)builder_comparability_gaps, METH_NOARGS,
     builder_comparability_gaps_doc},
    {"write", (PyCFunction)(void (*)(void))builder_write, METH_VARARGS | METH_KEYWORDS,
     builder_write_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(builder_doc,
             "Builder()\n--\n\n"
             "Collects receipt fields, then finish() validates them into a Receipt.\n\n"
             "    b = mr.Builder()\n"
             "    b.set('lane.pattern', 'AEMEAEMEAEMR').set('workload.seq_len', 4096)\n"
             "    for t in step_times: b.add_step_sample(t)\n"
             "    receipt = b.write('run.json')");

static PyType_Slot builder_slots[] = {
    {Py_tp_doc, (void *)builder_doc},
    {Py_tp_new, builder_new},
    {Py_tp_dealloc, builder_dealloc},
    {Py_tp_methods, builder_methods},
    {Py_tp_repr, builder_repr},
    {0, NULL},
};

PyType_Spec mcpp_py_builder_spec = {
    .name = "mcpp_receipts._core.Builder",
    .basicsize = sizeof(mcpp_py_builder),
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = builder_slots,
};
