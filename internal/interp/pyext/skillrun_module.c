/*
 * _skillrun: skillrun's host functions for Python scripts, linked into
 * python.wasm (build-python.sh copies this file into CPython's Modules/
 * and names it in Modules/Setup.local).
 *
 * Python scripts reach the host through this module only: sitecustomize
 * builds subprocess on exec (a script starting python3, node, sh or one
 * of the shell's commands gets another run in the same sandbox, never a
 * host process), and a YAML module's executor.py calls its tools with
 * tool_call (since BUILD 8). The functions keep ABI.md's memory convention: the
 * request goes out by pointer and length, the host answers with the
 * length of its response envelope, and take copies it into a bytes
 * object of exactly that size.
 */
#define PY_SSIZE_T_CLEAN
#include "Python.h"

#include <stdint.h>

__attribute__((import_module("skillrun"), import_name("exec")))
int32_t skillrun_host_exec(const void *req, uint32_t len);

__attribute__((import_module("skillrun"), import_name("tool_call")))
int32_t skillrun_host_tool_call(const void *req, uint32_t len);

__attribute__((import_module("skillrun"), import_name("take")))
int32_t skillrun_host_take(void *buf, uint32_t cap);

/* take fetches the response of the call that returned n. */
static PyObject *
take(int32_t n)
{
    if (n < 0) {
        PyErr_Format(PyExc_OSError, "skillrun: host call failed (%d)", (int)n);
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (out == NULL) {
        return NULL;
    }
    int32_t got = skillrun_host_take(PyBytes_AS_STRING(out), (uint32_t)n);
    if (got != n) {
        Py_DECREF(out);
        PyErr_Format(PyExc_OSError, "skillrun: take returned %d, want %d", (int)got, (int)n);
        return NULL;
    }
    return out;
}

PyDoc_STRVAR(exec_doc,
"exec(request: bytes) -> bytes\n\n"
"Call the exec host function with a JSON request and return its JSON\n"
"response envelope (see skillrun's ABI.md).");

/* call sends the request in arg to the host function f and returns its
   response envelope. */
static PyObject *
call(int32_t (*f)(const void *, uint32_t), PyObject *arg)
{
    Py_buffer req;
    if (PyObject_GetBuffer(arg, &req, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (req.len > INT32_MAX) {
        PyBuffer_Release(&req);
        PyErr_SetString(PyExc_ValueError, "skillrun: request too large");
        return NULL;
    }
    int32_t n = f(req.buf, (uint32_t)req.len);
    PyBuffer_Release(&req);
    return take(n);
}

static PyObject *
skillrun_exec(PyObject *module, PyObject *arg)
{
    return call(skillrun_host_exec, arg);
}

PyDoc_STRVAR(tool_call_doc,
"tool_call(request: bytes) -> bytes\n\n"
"Call the tool_call host function with a JSON request\n"
"({\"name\": ..., \"input\": {...}}) and return its JSON response envelope.\n"
"The host checks the run's tools grant.");

static PyObject *
skillrun_tool_call(PyObject *module, PyObject *arg)
{
    return call(skillrun_host_tool_call, arg);
}

static PyMethodDef skillrun_methods[] = {
    {"exec", skillrun_exec, METH_O, exec_doc},
    {"tool_call", skillrun_tool_call, METH_O, tool_call_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef skillrun_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_skillrun",
    .m_doc = "skillrun's host functions (ABI.md), for sitecustomize.",
    .m_size = 0,
    .m_methods = skillrun_methods,
};

PyMODINIT_FUNC
PyInit__skillrun(void)
{
    return PyModuleDef_Init(&skillrun_module);
}
