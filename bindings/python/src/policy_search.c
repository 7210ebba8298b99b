/*
 * policy_search.c — the search behind Policy.shipped and Policy.search_path
 * (mcpp_policy_find / mcpp_policy_search_path): the package's own policy
 * directory, the installed one, then MCPP_POLICY_PATH, the same order as a
 * Lua `include`.
 */
#include "core.h"

PyObject *mcpp_py_find_policy(PyObject *module, PyObject *args)
{
    const char *name, *from_dir;
    if (!PyArg_ParseTuple(args, "ss:_find_policy", &name, &from_dir))
        return NULL;
    char *path = NULL;
    int rc = mcpp_policy_find(&path, name, from_dir);
    if (rc == MCPP_ENOTFOUND)
        Py_RETURN_NONE;
    if (rc < 0)
        return mcpp_py_raise((mcpp_py_state *)PyModule_GetState(module), rc);
    PyObject *result = PyUnicode_DecodeFSDefault(path);
    mcpp_free(path);
    return result;
}

PyObject *mcpp_py_policy_search_path(PyObject *module, PyObject *args)
{
    const char *from_dir;
    if (!PyArg_ParseTuple(args, "s:_policy_search_path", &from_dir))
        return NULL;
    char *dirs = NULL;
    int rc = mcpp_policy_search_path(&dirs, from_dir);
    if (rc < 0)
        return mcpp_py_raise((mcpp_py_state *)PyModule_GetState(module), rc);
    PyObject *result = PyUnicode_DecodeFSDefault(dirs);
    mcpp_free(dirs);
    return result;
}
