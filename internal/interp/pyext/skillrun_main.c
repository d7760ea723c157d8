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

/* The run's state in Python: os.environ, the working directory (as
 * sitecustomize sets it from PWD), sys.path as `python3 script.py` builds
 * it (the script's folder, then PYTHONPATH), the time zone, and a fresh
 * seed for random. */
static const char adopt[] =
    "def _skillrun_adopt(env, script):\n"
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
    "_skillrun_adopt(__skillrun_env, __skillrun_script)\n"
    "del _skillrun_adopt, __skillrun_env, __skillrun_script\n";

__attribute__((export_name("skillrun_run"))) int skillrun_run(void) {
    __wasilibc_deinitialize_environ();
    __wasilibc_initialize_environ();
    int n = count_preopens(3 + preopens_after_init);
    for (int fd = 3 + preopens_after_init; fd < 3 + preopens_after_init + n; fd++) {
        __wasi_prestat_t ps;
        if (__wasi_fd_prestat_get(fd, &ps) != __WASI_ERRNO_SUCCESS) {
            break;
        }
        char *name = calloc(ps.u.dir.pr_name_len + 1, 1);
        if (name == NULL ||
            __wasi_fd_prestat_dir_name(fd, (uint8_t *)name, ps.u.dir.pr_name_len) != __WASI_ERRNO_SUCCESS ||
            __wasilibc_register_preopened_fd(fd, name) != 0) {
            fprintf(stderr, "skillrun_run: cannot register preopened directory %d\n", fd);
            return 1;
        }
    }
    char *script;
    if (set_argv(&script) < 0) {
        PyErr_Print();
        return 1;
    }
    PyObject *main = PyImport_AddModule("__main__");
    PyObject *g = main ? PyModule_GetDict(main) : NULL;
    PyObject *env = environ_bytes();
    PyObject *path = PyUnicode_DecodeFSDefault(script);
    if (g == NULL || env == NULL || path == NULL ||
        PyDict_SetItemString(g, "__skillrun_env", env) < 0 ||
        PyDict_SetItemString(g, "__skillrun_script", path) < 0) {
        PyErr_Print();
        return 1;
    }
    Py_DECREF(env);
    Py_DECREF(path);
    if (PyRun_SimpleString(adopt) != 0) {
        return 1;
    }
    /* As pymain_run_file: the script runs in __main__, an uncaught
     * exception is printed and gives 1, SystemExit exits with its code
     * (PyErr_Print finalizes and exits), and the interpreter is finalized
     * at the end (atexit, flushing stdout). */
    int rc = 0;
    FILE *fp = fopen(script, "rb");
    if (fp == NULL) {
        PyObject *argv0 = PySys_GetObject("orig_argv");
        PyObject *exe = argv0 && PyList_Size(argv0) > 0 ? PyList_GetItem(argv0, 0) : NULL;
        fprintf(stderr, "%s: can't open file '%s': [Errno %d] %s\n",
                exe ? PyUnicode_AsUTF8(exe) : "python3", script, errno == ENOENT ? 2 : errno, strerror(errno));
        rc = 2;
    } else {
        PyCompilerFlags cf = _PyCompilerFlags_INIT;
        rc = PyRun_AnyFileExFlags(fp, script, 1, &cf) != 0 ? 1 : 0;
    }
    if (Py_FinalizeEx() < 0) {
        rc = 120;
    }
    return rc;
}
