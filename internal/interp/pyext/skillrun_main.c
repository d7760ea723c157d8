/* The entry points of skillrun's python.wasm.
 *
 * python.wasm is linked as a WASI reactor (-mexec-model=reactor) with
 * three exports of its own:
 *
 *   _start          what a WASI command's _start does (wasi-libc's
 *                   crt1-command.c): constructors, main, destructors. A
 *                   fresh `python3 script.py` run, as before.
 *   skillrun_init   initialises CPython and imports the modules nearly
 *                   every script imports. The host runs it once and keeps
 *                   the instance's memory as a snapshot (sandbox.Snapshot).
 *   skillrun_run    called on an instance restored from that snapshot:
 *                   takes this run's arguments, environment, working
 *                   directory and mounts, reseeds `random`, and runs the
 *                   script as `python3 script.py ARGS` would, returning
 *                   its exit code.
 *
 * A command cannot be snapshotted: wasm-ld wraps every export of a command
 * in constructors and destructors, so an init export would be undone when
 * it returned. A reactor's exports are plain functions.
 *
 * What the snapshot fixes for every run started from it, and why it is
 * not observable otherwise, is in internal/interp/snapshot.go.
 */
#define PY_SSIZE_T_CLEAN
#include "Python.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

extern void __wasm_call_ctors(void);
extern void __wasm_call_dtors(void);
extern int __main_void(void);
extern void __wasilibc_deinitialize_environ(void);
extern void __wasilibc_initialize_environ(void);
extern int __wasilibc_register_preopened_fd(int fd, const char *prefix);
extern char **environ;

__attribute__((export_name("_start"))) void _start(void) {
    __wasm_call_ctors();
    int r = __main_void();
    __wasm_call_dtors();
    if (r != 0) {
        __wasi_proc_exit(r);
    }
}

/* preopens_after_init is the number of preopened directories the
 * instance had when skillrun_init ran (descriptors 3 to 3+n-1). A run
 * from the snapshot has the same ones at the same descriptors, and its
 * own mounts after them, which skillrun_run registers with the C library
 * (it read its table of preopens once, in a constructor). */
static int preopens_after_init;

static int count_preopens(int from) {
    int n = 0;
    for (int fd = from;; fd++, n++) {
        __wasi_prestat_t ps;
        if (__wasi_fd_prestat_get(fd, &ps) != __WASI_ERRNO_SUCCESS) {
            return n;
        }
    }
}

/* The modules imported before the snapshot: what nearly every script
 * imports, and what they import. */
static const char preimport[] =
    "import os, sys, io, re, json, csv, math, random, string, textwrap, "
    "pathlib, argparse, datetime, time, collections, collections.abc, "
    "functools, itertools, typing, dataclasses, enum, shutil, tempfile, "
    "glob, fnmatch, hashlib, base64, struct, copy, decimal, fractions, "
    "statistics, logging, traceback, warnings, urllib.parse, subprocess, "
    "operator, contextlib, abc, heapq, bisect, uuid, html, "
    "xml.etree.ElementTree, zipfile, gzip\n";

/* Defined beside the packages' built-in table (build-pypackages.sh); weak,
 * so that a build without the table links too. */
extern const char skillrun_packages_preimport[] __attribute__((weak));

/* The functions a run calls, defined at initialisation (so kept in the
 * snapshot, compiled) in a namespace of their own. */
static PyObject *adopt_fn, *finish_fn;

/* adopt takes the run's state in Python: os.environ, the working
 * directory (as sitecustomize sets it from PWD), sys.path as `python3
 * script.py` builds it (the script's folder, then PYTHONPATH), the time
 * zone, and a fresh seed for random.
 *
 * finish ends the run as Py_FinalizeEx would, as far as a script can
 * tell: atexit callbacks, stdout and stderr flushed (a failure gives exit
 * code 120, as Python's), then the objects of __main__ and of the modules
 * the run imported released (files the script left open are flushed and
 * closed, __del__ methods run) and stdout and stderr flushed again. The
 * modules of the snapshot are not torn down: the instance is discarded,
 * and tearing down a hundred modules cost 12-20 ms a run. */
static const char run_functions[] =
    "def adopt(env, script):\n"
    "    import os, sys, random, time\n"
    "    os.environ._data.clear()\n"
    "    os.environ._data.update(env)\n"
    "    pwd = os.environ.get('PWD')\n"
    "    if pwd:\n"
    "        try:\n"
    "            os.chdir(pwd)\n"
    "        except OSError:\n"
    "            pass\n"
    "    path = [os.path.dirname(script)]\n"
    "    path += [p for p in os.environ.get('PYTHONPATH', '').split(':') if p]\n"
    "    sys.path[0:0] = path\n"
    "    getattr(time, 'tzset', lambda: None)()\n"
    "    random.seed()\n"
    "\n"
    "def _flush():\n"
    "    import sys\n"
    "    ok = True\n"
    "    for name in ('stdout', 'stderr'):\n"
    "        f = getattr(sys, name, None)\n"
    "        if f is None or getattr(f, 'closed', True):\n"
    "            continue\n"
    "        try:\n"
    "            f.flush()\n"
    "        except Exception as e:\n"
    "            ok = ok and name != 'stdout'\n"
    "            sys.unraisablehook(type('UnraisableHookArgs', (), dict(exc_type=type(e), exc_value=e,\n"
    "                exc_traceback=e.__traceback__, err_msg='Exception ignored on flushing sys.' + name, object=None))())\n"
    "    return ok\n"
    "\n"
    "def finish(initial):\n"
    "    import atexit, gc, sys\n"
    "    atexit._run_exitfuncs()\n"
    "    ok = _flush()\n"
    "    sys.modules['__main__'].__dict__.clear()\n"
    "    for name in [n for n in sys.modules if n not in initial]:\n"
    "        sys.modules.pop(name, None)\n"
    "    gc.collect()\n"
    "    return _flush() and ok\n";

/* initial_modules is the set of modules imported at initialisation. */
static PyObject *initial_modules;

static int define_run_functions(void) {
    PyObject *ns = PyDict_New();
    if (ns == NULL || PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) < 0) {
        return -1;
    }
    PyObject *r = PyRun_String(run_functions, Py_file_input, ns, ns);
    if (r == NULL) {
        return -1;
    }
    Py_DECREF(r);
    adopt_fn = PyDict_GetItemString(ns, "adopt");
    finish_fn = PyDict_GetItemString(ns, "finish");
    PyObject *modules = PySys_GetObject("modules");
    initial_modules = modules ? PyFrozenSet_New(modules) : NULL;
    if (adopt_fn == NULL || finish_fn == NULL || initial_modules == NULL) {
        return -1;
    }
    Py_INCREF(adopt_fn);
    Py_INCREF(finish_fn);
    return 0; /* ns stays alive through the functions' globals */
}

__attribute__((export_name("skillrun_init"))) int skillrun_init(void) {
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.parse_argv = 0;
    PyStatus st = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(st)) {
        fprintf(stderr, "skillrun_init: %s\n", st.err_msg ? st.err_msg : "Python failed to initialise");
        return 1;
    }
    if (PyRun_SimpleString(preimport) != 0) {
        return 1;
    }
    /* The compiled packages' main modules too (build-pypackages.sh). */
    if (&skillrun_packages_preimport != NULL && PyRun_SimpleString(skillrun_packages_preimport) != 0) {
        return 1;
    }
    if (define_run_functions() < 0) {
        PyErr_Print();
        return 1;
    }
    /* What the snapshot keeps should not be collected by every run. */
    if (PyRun_SimpleString("import gc\ngc.collect()\ngc.freeze()\nsys.stdout.flush()\nsys.stderr.flush()\n") != 0) {
        return 1;
    }
    preopens_after_init = count_preopens(3);
    return 0;
}

/* set_argv sets sys.argv (the script and its arguments) and sys.orig_argv
 * (the whole command line) from the run's arguments: argv[0] is the
 * interpreter's name, argv[1] the script. */
static int set_argv(char **script) {
    __wasi_size_t argc, size;
    if (__wasi_args_sizes_get(&argc, &size) != __WASI_ERRNO_SUCCESS || argc < 2) {
        fprintf(stderr, "skillrun_run: no script in the arguments\n");
        return -1;
    }
    char **argv = calloc(argc + 1, sizeof(char *));
    char *buf = malloc(size);
    if (argv == NULL || buf == NULL ||
        __wasi_args_get((uint8_t **)argv, (uint8_t *)buf) != __WASI_ERRNO_SUCCESS) {
        return -1;
    }
    PyObject *orig = PyList_New(0), *args = PyList_New(0);
    if (orig == NULL || args == NULL) {
        return -1;
    }
    for (size_t i = 0; i < argc; i++) {
        PyObject *s = PyUnicode_DecodeFSDefault(argv[i]);
        if (s == NULL || PyList_Append(orig, s) < 0 || (i >= 1 && PyList_Append(args, s) < 0)) {
            return -1;
        }
        Py_DECREF(s);
    }
    if (PySys_SetObject("orig_argv", orig) < 0 || PySys_SetObject("argv", args) < 0) {
        return -1;
    }
    Py_DECREF(orig);
    Py_DECREF(args);
    *script = argv[1];
    return 0;
}

/* environ_bytes is the run's environment as posix.environ holds it:
 * bytes to bytes. */
static PyObject *environ_bytes(void) {
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        char *eq = strchr(*e, '=');
        if (eq == NULL) {
            continue;
        }
        PyObject *k = PyBytes_FromStringAndSize(*e, eq - *e);
        PyObject *v = PyBytes_FromString(eq + 1);
        if (k == NULL || v == NULL || PyDict_SetDefault(d, k, v) == NULL) {
            return NULL;
        }
        Py_DECREF(k);
        Py_DECREF(v);
    }
    return d;
}

/* register_preopens tells the C library about the run's own mounts: the
 * descriptors after the initialisation's preopens. */
static int register_preopens(void) {
    for (int fd = 3 + preopens_after_init;; fd++) {
        __wasi_prestat_t ps;
        if (__wasi_fd_prestat_get(fd, &ps) != __WASI_ERRNO_SUCCESS) {
            return 0;
        }
        char *name = calloc(ps.u.dir.pr_name_len + 1, 1);
        if (name == NULL ||
            __wasi_fd_prestat_dir_name(fd, (uint8_t *)name, ps.u.dir.pr_name_len) != __WASI_ERRNO_SUCCESS ||
            __wasilibc_register_preopened_fd(fd, name) != 0) {
            fprintf(stderr, "skillrun_run: cannot register preopened directory %d\n", fd);
            return -1;
        }
    }
}

__attribute__((export_name("skillrun_run"))) int skillrun_run(void) {
    __wasilibc_deinitialize_environ();
    __wasilibc_initialize_environ();
    char *script;
    if (register_preopens() < 0) {
        return 1;
    }
    if (set_argv(&script) < 0) {
        PyErr_Print();
        return 1;
    }
    PyObject *env = environ_bytes();
    PyObject *r = env ? PyObject_CallFunction(adopt_fn, "OO&", env, PyUnicode_DecodeFSDefault, script) : NULL;
    if (r == NULL) {
        PyErr_Print();
        return 1;
    }
    Py_DECREF(r);
    Py_DECREF(env);
    /* As pymain_run_file: the script runs in __main__, an uncaught
     * exception is printed and gives 1, and SystemExit exits with its code
     * (PyErr_Print exits). */
    int rc = 0;
    FILE *fp = fopen(script, "rb");
    if (fp == NULL) {
        fprintf(stderr, "python3: can't open file '%s': [Errno 2] %s\n", script, strerror(errno));
        return 2;
    }
    PyCompilerFlags cf = _PyCompilerFlags_INIT;
    rc = PyRun_AnyFileExFlags(fp, script, 1, &cf) != 0 ? 1 : 0;
    r = PyObject_CallFunctionObjArgs(finish_fn, initial_modules, NULL);
    if (r == NULL) {
        PyErr_Print();
        return rc ? rc : 1;
    }
    int ok = PyObject_IsTrue(r);
    Py_DECREF(r);
    return ok ? rc : 120;
}
