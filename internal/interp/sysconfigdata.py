# skillrun's build-time configuration of CPython for WASI, as sysconfig
# reads it (sysconfig.get_config_var): the name is set by
# _PYTHON_SYSCONFIGDATA_NAME in the guest's environment. The WASI build
# ships none under the name sysconfig computes, so without it importing
# zoneinfo (which asks for TZPATH), or anything that asks sysconfig,
# failed. Only values that are true inside the sandbox are given.
build_time_vars = {
    "ABIFLAGS": "",
    "EXE": ".wasm",
    "EXT_SUFFIX": ".cpython-311-wasm32-wasi.so",
    "HOST_GNU_TYPE": "wasm32-unknown-wasi",
    "LIBDIR": "/usr/local/lib",
    "MACHDEP": "wasi",
    "MULTIARCH": "wasm32-wasi",
    "Py_DEBUG": 0,
    "Py_ENABLE_SHARED": 0,
    "SHLIB_SUFFIX": ".so",
    "SIZEOF_VOID_P": 4,
    "SOABI": "cpython-311-wasm32-wasi",
    "TZPATH": "/usr/share/zoneinfo:/usr/lib/zoneinfo:/usr/share/lib/zoneinfo:/etc/zoneinfo",
    "VERSION": "3.11",
    "WITH_DOC_STRINGS": 1,
    "WITH_PYMALLOC": 1,
    "exec_prefix": "/usr/local",
    "prefix": "/usr/local",
    "py_version_nodot": "311",
}
