# skillrun's driver for the ADR's implementation files, which are modules
# to import, not programs to run:
#
#   python -c THIS WRAPPER invoke ACTION   a tool's wrapper.py: one class
#                                          with invoke(action, params)
#   python -c THIS EXECUTOR execute        a skill's executor.py:
#                                          execute(input, tools)
#
# The driver loads the file, finds the function (or the one class that
# has it), calls it with the input object from stdin (and the action's
# name, or a tool set whose calls are tool_call host calls, checked
# against the run's tools grant), runs a coroutine to its end, and
# prints the result: text as it is, anything else as JSON.
import asyncio
import importlib.util
import inspect
import json
import os
import sys
import types
from abc import ABC, abstractmethod

try:
    import _skillrun
except ImportError:
    _skillrun = None


class ToolError(RuntimeError):
    """A tool call that failed: refused, unknown, or the tool's own error."""


class BaseTool(ABC):
    """The ADR's tool base class, for modules that import it."""

    @abstractmethod
    def invoke(self, action, params): ...

    def get_capabilities(self):
        return []


class BaseSkill(ABC):
    """The ADR's skill base class, for executors that subclass it."""

    def validate_input(self, input):
        return None

    @abstractmethod
    def execute(self, input, tools): ...

    def validate_output(self, output):
        return None


def call_tool(name, params=None):
    """Calls the host tool name with params (a dict) and returns its
    structured result, or its text."""
    if _skillrun is None or not hasattr(_skillrun, "tool_call"):
        raise ToolError("this Python has no tool_call host function: reinstall skillrun's interpreter (make python)")
    req = json.dumps({"name": name, "input": params or {}}).encode()
    env = json.loads(_skillrun.tool_call(req))
    if not env.get("ok"):
        err = env.get("error") or {}
        raise ToolError("%s: %s" % (name, err.get("message", "the call failed")))
    res = env.get("result") or {}
    if res.get("is_error"):
        raise ToolError("%s: %s" % (name, res.get("content", "")))
    if res.get("structured") is not None:
        return res["structured"]
    return res.get("content", "")


class _Done:
    """A result already there, for an async executor to await."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        return self.value
        yield  # a generator: awaitable, finished at once


class Tool:
    """One tool module: invoke(action, params), or tool.action(**params)."""

    def __init__(self, tools, tool_id):
        self._tools, self.id = tools, tool_id

    def invoke(self, action, params=None):
        return self._tools.call(self.id + "__" + action, params)

    def __getattr__(self, action):
        if action.startswith("_"):
            raise AttributeError(action)
        return lambda **params: self.invoke(action, params)


class ToolSet:
    """The tools a skill's methodology names: tools["git"].invoke("status",
    {}), tools.git.status(), tools.invoke("git", "status", {}), or
    tools.call("git__status", {}). Calls return the result; in an async
    executor they return awaitables."""

    def __init__(self, is_async):
        self._async = is_async

    def call(self, name, params=None):
        value = call_tool(name, params)
        return _Done(value) if self._async else value

    def invoke(self, tool_id, action, params=None):
        return self.call(tool_id + "__" + action, params)

    def __getitem__(self, tool_id):
        return Tool(self, tool_id)

    def __getattr__(self, tool_id):
        if tool_id.startswith("_"):
            raise AttributeError(tool_id)
        return Tool(self, tool_id)


def _provide_bases(folder, own_id):
    # `from ..base import BaseTool`, `from tools.base import BaseTool`,
    # `from skills.base import BaseSkill` and `from base import ...` find
    # the ADR's classes: the module's package and its parent are not part
    # of the sandbox's files.
    base = types.ModuleType(folder + ".base")
    base.BaseTool, base.BaseSkill, base.ToolSet, base.ToolError = BaseTool, BaseSkill, ToolSet, ToolError
    for name in ("tools", "skills"):
        pkg = sys.modules.setdefault(name, types.ModuleType(name))
        pkg.__path__ = getattr(pkg, "__path__", [])
        pkg.base = base
        sys.modules[name + ".base"] = base
    sys.modules.setdefault("base", base)
    own = types.ModuleType(folder + "." + own_id)
    own.__path__ = []
    sys.modules[folder + "." + own_id] = own


def _fail(file, msg):
    sys.stderr.write(file + ": " + msg + "\n")
    sys.exit(1)


def _load(path, folder, method):
    """Imports path as FOLDER.ID.NAME and returns its module-level method,
    or that method of an instance of its one class that has it."""
    file = os.path.basename(path)
    own_id = os.path.basename(os.path.dirname(path)) or "module"
    sys.path.insert(0, os.path.dirname(path))
    _provide_bases(folder, own_id)
    name = "%s.%s.%s" % (folder, own_id, os.path.splitext(file)[0])
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = folder + "." + own_id
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    if callable(getattr(mod, method, None)):
        return mod.__dict__[method]
    classes = [c for c in vars(mod).values()
               if inspect.isclass(c) and c.__module__ == name and callable(getattr(c, method, None))
               and not inspect.isabstract(c)]
    what = {"invoke": "invoke(action, params)", "execute": "execute(input, tools)"}[method]
    if len(classes) != 1:
        _fail(file, "wants one class with an %s method (or a module-level %s); found %d" % (what, method, len(classes)))
    try:
        return getattr(classes[0](), method)
    except TypeError as e:
        _fail(file, "cannot make %s without arguments: %s" % (classes[0].__name__, e))


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("invoke", "execute") or sys.argv[2] == "invoke" and len(sys.argv) < 4:
        _fail("driver", "usage: FILE invoke ACTION | FILE execute (input on stdin)")
    path, mode = sys.argv[1], sys.argv[2]
    sys.argv = [path] + sys.argv[3:]
    raw = sys.stdin.read()
    data = json.loads(raw) if raw.strip() else {}
    if mode == "invoke":
        target = _load(path, "tools", "invoke")
        result = target(sys.argv[1], data)
    else:
        target = _load(path, "skills", "execute")
        result = target(data, ToolSet(inspect.iscoroutinefunction(target)))
    if inspect.isawaitable(result):
        result = asyncio.run(result)
    if isinstance(result, str):
        sys.stdout.write(result)
        if not result.endswith("\n"):
            sys.stdout.write("\n")
    elif result is not None:
        json.dump(result, sys.stdout, default=str)
        sys.stdout.write("\n")


main()
