# skillrun's sitecustomize, imported by CPython at startup inside the
# sandbox. Scripts run as WebAssembly (WASI preview1): there are no host
# processes, no sockets, and no compiled extension modules but those
# linked into python.wasm (Pillow, lxml: build-pypackages.sh). subprocess
# starts programs as other runs in the sandbox (_skillrun_subprocess);
# anything else that needs them fails here, loudly, with a message that
# names the import or call and says why -- never a silent wrong result.
import sys

# The interpreter as scripts start it again ([sys.executable, "x.py"]):
# WASI gives CPython no path of its own.
sys.executable = "/usr/local/bin/python3.11"

try:
    import _skillrun  # the host functions, in python.wasm since BUILD 4
except ImportError:
    _skillrun = None

_WHY = "skillrun runs Python scripts in a WebAssembly sandbox"

# The working directory: WASI has none, so the C library starts at "/".
# skillrun passes the one a script expects (the workspace) as PWD, as a
# shell would; relative paths ("output/report.md") then resolve there.
import os as _os

_pwd = _os.environ.get("PWD")
if _pwd:
    try:
        _os.chdir(_pwd)
    except OSError:
        pass
del _pwd

# Well-known packages that are (or need) compiled extension modules.
_COMPILED = {
    "numpy", "pandas", "scipy", "matplotlib", "PIL", "lxml", "cryptography",
    "torch", "tensorflow", "sklearn", "psycopg2", "yaml._yaml", "_cffi_backend",
    "pydantic_core", "orjson", "ujson", "regex", "markupsafe._speedups",
    "grpc", "cv2", "h5py", "pyarrow", "polars", "tiktoken", "_ssl", "_ctypes",
    "_sqlite3", "_hashlib", "_multiprocessing", "_posixsubprocess", "readline",
}


def _note(msg):
    try:
        sys.stderr.write("skillrun: " + msg + "\n")
        sys.stderr.flush()
    except Exception:
        pass

_WHY_PY = "skillrun's WebAssembly Python"

# The distribution name of a built-in package whose import is named
# otherwise.
_DIST = {"PIL": "Pillow"}


def _builtin_packages():
    """The compiled packages linked into this python.wasm, by name: the
    top level of every dotted built-in module (PIL._imaging)."""
    tops = sorted({m.split(".")[0] for m in sys.builtin_module_names if "." in m}, key=str.lower)
    if not tops:
        return "none"
    return ", ".join(_DIST.get(t, t) + (" (import %s)" % t if t in _DIST else "") for t in tops)


class _Unavailable:
    """A last meta path finder: a module no other finder found gets an
    error that says what the sandbox can import."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        top = name.split(".")[0]
        if name in _COMPILED or top in _COMPILED:
            msg = ("No module named %r: it is (or needs) a compiled extension module that %s does "
                   "not have; the compiled packages built into it are %s, and besides them only "
                   "pure-Python code can load (the standard library and packages the skill vendors "
                   "under lib/ or `skillrun deps` fetched). An operator who trusts this skill can run "
                   "its scripts as confined host processes with the host's packages: the native tier "
                   "(--native, or native = true in the skill's policy table; Linux)"
                   % (name, _WHY_PY, _builtin_packages()))
        elif path is None:
            msg = ("No module named %r: %s with the standard library and the pure-Python packages the "
                   "skill vendors under lib/ or `skillrun deps SKILL` fetched; run `skillrun deps` on the "
                   "skill to fetch %r if it is a pure-Python package (or vendor it under lib/)"
                   % (name, _WHY, top))
        else:
            return None
        # No note on stderr here: the standard library itself tries
        # optional modules (zlib, _bz2, ...) and carries on without them.
        # Uncaught, the message below ends the traceback.
        raise ModuleNotFoundError(msg, name=name)


sys.meta_path.append(_Unavailable)


def _refuse(what, why):
    def refuse(*args, **kwargs):
        call = what
        if args:
            call += "(" + ", ".join(repr(a) for a in args[:2]) + (", ..." if len(args) > 2 else "") + ")"
        msg = "%s is not available: %s, which has %s" % (call, _WHY, why)
        _note(msg)
        raise PermissionError(msg)
    return refuse


_NOPROC = "no subprocesses"
_NOSOCK = "no sockets (no network for Python scripts)"

# Threads: WASI preview 1 has none, and CPython's own error says only
# "can't start new thread". Say why, in the same exception type.
import _thread


def _no_threads(*args, **kwargs):
    msg = "can't start new thread: %s, which has no threads (run the work in the main thread)" % _WHY
    _note(msg)
    raise RuntimeError(msg)


_thread.start_new_thread = _thread.start_new = _no_threads
if "threading" in sys.modules:  # imported at startup, with its own reference
    sys.modules["threading"]._start_new_thread = _no_threads

# time.sleep: CPython 3.11 sleeps with clock_nanosleep(CLOCK_MONOTONIC,
# TIMER_ABSTIME), an absolute clock subscription that wazero's
# poll_oneoff refuses, so every time.sleep raised "[Errno 58] Not
# supported". select() with a timeout is a relative subscription, which
# works (and, like any wait in a run, ends with the run's time limit).
# The original still checks the argument (TypeError, ValueError as
# natively) and is kept should a later runtime support the call.
import errno as _errno
import time as _time
import select as _select


def _sleep(secs, _orig=_time.sleep, _mono=_time.monotonic, _wait=_select.select):
    try:
        return _orig(secs)
    except OSError as e:
        if e.errno != _errno.ENOTSUP:
            raise
    deadline = _mono() + secs
    while True:
        left = deadline - _mono()
        if left <= 0:
            return None
        _wait([], [], [], left)


_time.sleep = _sleep

_PROC_CALLS = ("system", "popen", "fork", "forkpty", "execv", "execve", "execvp", "execvpe",
               "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe",
               "posix_spawn", "posix_spawnp", "kill", "killpg", "register_at_fork")

# Calls that exist in this build but cannot work: refuse them by name.
# With the host functions, os.popen stays os.py's own (over subprocess)
# and os.system runs the command in the sandboxed shell the same way.
_STARTS = ("system", "popen") if _skillrun is not None else ()
for _name in _PROC_CALLS:
    if _name != "register_at_fork" and _name not in _STARTS and hasattr(_os, _name):
        setattr(_os, _name, _refuse("os." + _name, _NOPROC))

if _skillrun is not None:
    def _system(command):
        import _skillrun_subprocess
        return _skillrun_subprocess.system(command)

    _os.system = _system


def _os_getattr(name):
    # Calls this build lacks stay missing (hasattr(os, "fork") is False,
    # as code that checks for it expects), with a message that says why.
    if name in _PROC_CALLS:
        raise AttributeError("module 'os' has no attribute %r: %s, which has %s" % (name, _WHY, _NOPROC))
    raise AttributeError("module 'os' has no attribute %r" % name)


_os.__getattr__ = _os_getattr


def _patch(mod):
    name = mod.__name__
    if name == "subprocess" and _skillrun is not None:
        import _skillrun_subprocess
        _skillrun_subprocess.install(mod)
    elif name == "shutil" and _skillrun is not None:
        import _skillrun_subprocess
        _skillrun_subprocess.install_which(mod)
    elif name == "subprocess":
        for attr in ("Popen", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"):
            setattr(mod, attr, _refuse("subprocess." + attr, _NOPROC))
    elif name == "socket":
        refuse = _refuse("socket.socket", _NOSOCK)

        class socket(mod.socket):
            # A class still (code subclasses socket.socket), that cannot
            # be made.
            __slots__ = ()

            def __init__(self, *args, **kwargs):
                refuse(*args)

        socket.__module__ = "socket"
        mod.socket = mod.SocketType = socket
        for attr in ("create_connection", "create_server", "socketpair", "fromfd",
                     "getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr"):
            setattr(mod, attr, _refuse("socket." + attr, _NOSOCK))
    elif name == "multiprocessing":
        for attr in ("Process", "Pool", "Manager"):
            setattr(mod, attr, _refuse("multiprocessing." + attr, _NOPROC))
    elif name == "asyncio.selector_events":
        # The event loop wakes itself from other threads and signal
        # handlers through a socketpair; WASI has neither threads nor
        # sockets, so asyncio.run would fail before the first await. The
        # loop runs without it: timers and ready callbacks need none.
        base = mod.BaseSelectorEventLoop

        def _make_self_pipe(self):
            self._ssock = self._csock = None

        def _no_op(self, *args):
            pass

        base._make_self_pipe = _make_self_pipe
        base._close_self_pipe = _no_op
        base._write_to_self = _no_op
        base._read_from_self = _no_op


# The modules _patch changes, when (and if) a script imports them.
_LAZY = ("subprocess", "socket", "multiprocessing", "shutil", "asyncio.selector_events")


class _PatchingLoader:
    """Runs the real loader, then replaces the calls that cannot work."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _patch(module)

    def __getattr__(self, name):
        return getattr(self.loader, name)


class _LazyPatch:
    """Patches the _LAZY modules when (and if) a script imports them, so
    startup stays fast."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name not in _LAZY:
            return None
        import importlib.machinery
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _PatchingLoader(spec.loader)
        return spec


sys.meta_path.insert(0, _LazyPatch)
for _name in _LAZY:
    if _name in sys.modules:  # imported at startup, before the finder
        _patch(sys.modules[_name])
del _name


# Errno numbers: CPython for WASI uses WASI's (ENOENT is 44, EACCES 2),
# so an uncaught OSError would print "[Errno 44] No such file or
# directory" where a native run prints "[Errno 2]". The errno module and
# e.errno keep WASI's values (comparisons with errno.ENOENT still hold);
# the traceback of an uncaught error shows Linux's numbers, as users and
# published scripts' expected output know them.
_WASI_TO_LINUX_ERRNO = {
    1: 7, 2: 13, 6: 11, 8: 9, 10: 16, 16: 17, 20: 17, 28: 22, 29: 5,
    31: 21, 32: 40, 33: 24, 37: 36, 44: 2, 51: 28, 52: 38, 54: 20,
    55: 39, 58: 95, 63: 1, 64: 32, 69: 30, 70: 29, 73: 110, 75: 18,
}


def _linux_errnos(text, exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _WASI_TO_LINUX_ERRNO:
            text = text.replace("[Errno %d] " % exc.errno,
                                "[Errno %d] " % _WASI_TO_LINUX_ERRNO[exc.errno])
        exc = exc.__cause__ or exc.__context__
    return text


def _excepthook(etype, value, tb, _orig=sys.excepthook):
    if not isinstance(value, OSError) and not isinstance(value.__context__, OSError) \
            and not isinstance(value.__cause__, OSError):
        return _orig(etype, value, tb)
    import traceback
    text = "".join(traceback.format_exception(etype, value, tb))
    try:
        sys.stderr.write(_linux_errnos(text, value))
        sys.stderr.flush()
    except Exception:
        _orig(etype, value, tb)


sys.excepthook = _excepthook
