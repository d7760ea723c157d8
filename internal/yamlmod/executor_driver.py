# skillrun's driver for a skill's executor.py (python -c THIS EXECUTOR):
# the ADR's skills may come with execute(input, tools), a function or a
# class's method, maybe a coroutine. The driver loads the file, calls it
# with the input object from stdin and a tool set whose calls are
# tool_call host calls (checked against the run's tools grant), and
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


def _provide_bases(skill_id):
    base = types.ModuleType("skills.base")
    base.BaseTool, base.BaseSkill, base.ToolSet, base.ToolError = BaseTool, BaseSkill, ToolSet, ToolError
    for name in ("skills", "tools"):
        pkg = sys.modules.setdefault(name, types.ModuleType(name))
        pkg.__path__ = getattr(pkg, "__path__", [])
        pkg.base = base
        sys.modules[name + ".base"] = base
    sys.modules.setdefault("base", base)
    own = types.ModuleType("skills." + skill_id)
    own.__path__ = []
    sys.modules["skills." + skill_id] = own


def _fail(msg):
    sys.stderr.write("executor.py: " + msg + "\n")
    sys.exit(1)


def main():
    if len(sys.argv) < 2:
        _fail("usage: EXECUTOR (input on stdin)")
    path = sys.argv[1]
    skill_id = os.path.basename(os.path.dirname(path)) or "skill"
    sys.argv = [path] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(path))
    _provide_bases(skill_id)
    name = "skills." + skill_id + ".executor"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "skills." + skill_id
    sys.modules[name] = mod
    spec.loader.exec_module(mod)

    if callable(getattr(mod, "execute", None)):
        target = mod.execute
    else:
        classes = [c for c in vars(mod).values()
                   if inspect.isclass(c) and c.__module__ == name and callable(getattr(c, "execute", None))
                   and not inspect.isabstract(c)]
        if len(classes) != 1:
            _fail("wants one class with an execute(input, tools) method (or a module-level execute); found %d" % len(classes))
        try:
            target = classes[0]().execute
        except TypeError as e:
            _fail("cannot make %s without arguments: %s" % (classes[0].__name__, e))

    raw = sys.stdin.read()
    data = json.loads(raw) if raw.strip() else {}
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
