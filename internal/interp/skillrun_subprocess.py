# skillrun's subprocess.Popen, installed by sitecustomize when a script
# imports subprocess. WASI has no processes: a program a script starts
# (python3 or sys.executable, node, sh/bash, one of the sandboxed shell's
# commands such as grep or jq, a script file) runs as another run in the
# same sandbox through the exec host function (_skillrun.exec), with this
# run's mounts, grant and limits. A host program (git, soffice) does not
# exist there: starting one raises FileNotFoundError, as it does where
# the program is not installed.
#
# A run is synchronous: it starts when its standard input is complete
# (at once, unless stdin=PIPE: then at close, communicate, wait or poll)
# and has finished when Popen returns. Streams a script does not share
# go through files of the run's private /tmp. What cannot be the same:
# timeouts (the run's own timeout bounds every program), signals to a
# running program (it has already finished), and pids (made up).
import errno as _errno
import io
import itertools
import os
import sys
import types

import _skillrun
from _skillrun_programs import PROGRAMS

_TMP = "/tmp"
_PIDS = itertools.count(1000)

PIPE, STDOUT, DEVNULL = -1, -2, -3  # subprocess's values


def _note(msg):
    try:
        sys.stderr.write("skillrun: " + msg + "\n")
        sys.stderr.flush()
    except Exception:
        pass


class _ProgramNotFound(FileNotFoundError):
    """A program that is not in the sandbox. It prints as Linux's
    FileNotFoundError does ("[Errno 2] ..."), for scripts that print the
    error they catch; e.errno stays errno.ENOENT (WASI's number, 44), as
    comparisons with it expect."""

    def __str__(self):
        return "[Errno 2] No such file or directory: %r" % (self.filename,)


_ProgramNotFound.__module__ = "builtins"
_ProgramNotFound.__qualname__ = _ProgramNotFound.__name__ = "FileNotFoundError"


def _not_found(program):
    return _ProgramNotFound(_errno.ENOENT, os.strerror(_errno.ENOENT), program)


def _exec(req, program):
    import json
    raw = _skillrun.exec(json.dumps(req).encode())
    env = json.loads(raw)
    if env.get("ok"):
        return env.get("result") or {}
    err = env.get("error") or {}
    code, msg = err.get("code"), err.get("message", "exec failed")
    if code in ("not_found", "unavailable"):
        _note(msg)
        raise _not_found(program)
    if code == "denied":
        raise PermissionError(_errno.EPERM, msg, program)
    raise OSError(_errno.EIO, msg, program)


def _tmpfile(data):
    """Writes data to a new file directly in /tmp and returns its name."""
    for _ in range(100):
        name = "%s/.exec-in-%d-%s" % (_TMP, os.getpid(), os.urandom(6).hex())
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        return name
    raise OSError(_errno.EEXIST, "cannot create a file for standard input in " + _TMP)


def _slurp(name):
    """Reads and removes an output file the host wrote in /tmp."""
    if not name:
        return b""
    try:
        with open(name, "rb") as f:
            return f.read()
    finally:
        try:
            os.unlink(name)
        except OSError:
            pass


def _fileno(spec):
    if isinstance(spec, int):
        return spec
    return spec.fileno()


def _read_fd(fd):
    chunks = []
    while True:
        b = os.read(fd, 1 << 16)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


def _write_fd(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class _StdinPipe(io.BytesIO):
    """The write end of stdin=PIPE: closing it starts the run."""

    def __init__(self, proc):
        super().__init__()
        self._proc = proc

    def close(self):
        if not self.closed:
            data = self.getvalue()
            super().close()
            self._proc._stdin_closed(data)


class _OutPipe(io.BytesIO):
    """The read end of stdout=PIPE or stderr=PIPE: what the program
    wrote, there once it has run (reading starts a run still waiting for
    its input). Like a pipe, it is neither writable nor seekable."""

    def __init__(self, proc):
        super().__init__()
        self._proc = proc

    def _fill(self, data):
        io.BytesIO.write(self, data)
        io.BytesIO.seek(self, 0)

    def writable(self):
        return False

    def seekable(self):
        return False

    def __iter__(self):
        self._proc._start()
        return self


def _starting(name):
    method = getattr(io.BytesIO, name)

    def start_then(self, *args):
        self._proc._start()
        return method(self, *args)

    start_then.__name__ = name
    return start_then


for _name in ("read", "read1", "readline", "readlines", "readinto", "readinto1", "getvalue", "__next__"):
    setattr(_OutPipe, _name, _starting(_name))
del _name


class Popen:
    """subprocess.Popen over the exec host function (see the module)."""

    __class_getitem__ = classmethod(types.GenericAlias)

    def __init__(self, args, bufsize=-1, executable=None, stdin=None, stdout=None, stderr=None,
                 preexec_fn=None, close_fds=True, shell=False, cwd=None, env=None,
                 universal_newlines=None, startupinfo=None, creationflags=0,
                 restore_signals=True, start_new_session=False, pass_fds=(), *,
                 user=None, group=None, extra_groups=None, encoding=None, errors=None,
                 text=None, umask=-1, pipesize=-1, process_group=None):
        import subprocess
        self.args = args
        self.returncode = None
        self.stdin = self.stdout = self.stderr = None
        self._started = False
        if text is not None and universal_newlines is not None and bool(universal_newlines) != bool(text):
            raise subprocess.SubprocessError(
                "Cannot disambiguate when both text and universal_newlines are supplied but different. "
                "Pass one or the other.")
        self.text_mode = bool(encoding or errors or text or universal_newlines)
        self.encoding, self.errors = encoding, errors
        if self.text_mode and encoding is None:
            self.encoding = subprocess._text_encoding()

        argv = self._argv(args, executable, shell)
        self._program = argv[0]
        env = os.environ if env is None else env
        self._req = {
            "args": argv,
            "dir": os.path.abspath(os.fsdecode(cwd)) if cwd is not None else os.getcwd(),
            "env": ["%s=%s" % (os.fsdecode(k), os.fsdecode(v)) for k, v in env.items()],
        }
        self._check_file(self._req["dir"])
        self.pid = next(_PIDS)

        self._stdin_data = None
        self._pipe = None
        if stdin is None:
            self._req["inherit_stdin"] = True
        elif stdin == DEVNULL:
            pass
        elif stdin == PIPE:
            self._pipe = _StdinPipe(self)
            self.stdin = self._wrap_text(self._pipe, write=True, line=bufsize == 1)
        else:
            self._stdin_data = _read_fd(_fileno(stdin))

        self._out = self._target(stdout, "stdout")
        if stderr == STDOUT:
            self._req["stderr_to_stdout"] = True
            self._err = None
        else:
            self._err = self._target(stderr, "stderr")
        if stdin != PIPE:
            self._start()

    @property
    def universal_newlines(self):
        return self.text_mode

    def _wrap_text(self, stream, write=False, line=False):
        if not self.text_mode:
            return stream
        return io.TextIOWrapper(stream, encoding=self.encoding, errors=self.errors,
                                write_through=write, line_buffering=line)

    def _target(self, spec, name):
        """Where the program's stream goes: ("inherit"), ("pipe", the
        pipe), ("null"), or ("fd", fd)."""
        if spec is None:
            self._req["inherit_" + name] = True
            return ("inherit",)
        if spec == DEVNULL:
            return ("null",)
        if spec == PIPE:
            pipe = _OutPipe(self)
            setattr(self, name, self._wrap_text(pipe))
            return ("pipe", pipe)
        if spec == STDOUT:
            raise ValueError("STDOUT is only for stderr")
        return ("fd", _fileno(spec))

    @staticmethod
    def _argv(args, executable, shell):
        if isinstance(args, (str, bytes, os.PathLike)):
            args = [args]
        argv = [os.fsdecode(a) for a in args]
        if shell:
            argv = ["/bin/sh", "-c"] + argv
        if not argv:
            raise IndexError("list index out of range")
        if executable is not None:
            argv[0] = os.fsdecode(executable)
        if argv[0] == sys.executable:
            argv[0] = "python3"
        return argv

    def _check_file(self, cwd):
        """A program that is not in the sandbox fails here, when Popen is
        made, as natively: a bare name must be one the sandbox has, a path
        outside the system folders a file that exists."""
        prog = self._program
        system = os.path.dirname(prog) in ("/bin", "/usr/bin", "/usr/local/bin")
        if "/" not in prog or system:
            if os.path.basename(prog) not in PROGRAMS:
                _note("%s: no such program in the sandbox: skillrun starts python3, node, sh/bash, "
                      "the shell's commands (grep, sed, jq, ...) and script files, never a host program"
                      % os.path.basename(prog))
                raise _not_found(prog)
        elif not os.path.exists(os.path.join(cwd, prog)):
            raise _not_found(prog)

    def _stdin_closed(self, data):
        self._stdin_data = data
        self._start()

    def _start(self):
        """Runs the program, once."""
        if self._started:
            return
        self._started = True
        if self._pipe is not None and not self._pipe.closed:
            # Read before stdin was closed: the program gets what was
            # written so far.
            if self.stdin is not self._pipe:
                self.stdin.flush()
            self._stdin_data = self._pipe.getvalue()
        req = dict(self._req)
        name = None
        try:
            if self._stdin_data:
                name = req["stdin_file"] = _tmpfile(self._stdin_data)
            res = _exec(req, self._program)
        finally:
            self._stdin_data = None
            if name:
                try:
                    os.unlink(name)
                except OSError:
                    pass
        self.returncode = res.get("exit_code", 0)
        for target, file in ((self._out, res.get("stdout_file")), (self._err, res.get("stderr_file"))):
            data = _slurp(file)
            if target is None:
                continue
            if target[0] == "pipe":
                target[1]._fill(data)
            elif target[0] == "fd":
                _write_fd(target[1], data)

    def _close_stdin(self):
        if self.stdin is not None and not self.stdin.closed:
            try:
                self.stdin.close()
            except BrokenPipeError:
                pass

    def communicate(self, input=None, timeout=None):
        if input is not None and self.stdin is not None and not self.stdin.closed:
            self.stdin.write(input)
        self._close_stdin()
        self._start()
        out = err = None
        if self.stdout is not None:
            out = self.stdout.read()
            self.stdout.close()
        if self.stderr is not None:
            err = self.stderr.read()
            self.stderr.close()
        return out, err

    def poll(self):
        self._close_stdin()
        self._start()
        return self.returncode

    def wait(self, timeout=None):
        return self.poll()

    def send_signal(self, sig):
        if not self._started:
            # Killed before its input was complete: it never runs.
            self._started = True
            self.returncode = -int(sig)

    def terminate(self):
        import signal
        self.send_signal(signal.SIGTERM)

    def kill(self):
        import signal
        self.send_signal(signal.SIGKILL)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, value, traceback):
        for s in (self.stdout, self.stderr):
            if s is not None:
                s.close()
        self._close_stdin()
        self.wait()

    def __repr__(self):
        return "<%s: returncode: %s args: %r>" % (self.__class__.__name__, self.returncode, self.args)


def system(command):
    """os.system: the command runs in the sandboxed shell, with this run's
    streams; the result is a wait status, as on Linux."""
    code = Popen(command, shell=True).wait()
    return code << 8 if code >= 0 else -code


def install(subprocess):
    subprocess.Popen = Popen


def install_which(shutil):
    """shutil.which finds the programs the sandbox has (as /usr/bin/NAME,
    where scripts expect them), besides files on PATH."""
    orig = shutil.which

    def which(cmd, mode=os.F_OK | os.X_OK, path=None):
        found = orig(cmd, mode, path)
        name = os.fsdecode(cmd)
        if found is None and "/" not in name and name in PROGRAMS:
            found = "/usr/bin/" + name
            if isinstance(cmd, bytes):
                found = os.fsencode(found)
        return found

    which.__doc__ = orig.__doc__
    shutil.which = which
