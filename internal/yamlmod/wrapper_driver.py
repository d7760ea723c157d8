# skillrun's driver for a tool's wrapper.py (python -c THIS WRAPPER ACTION):
# the ADR's layout implements a tool's actions in one class with
# invoke(action, params) instead of a script per action. The driver loads
# the file as a module, finds that class (or a module-level invoke),
# calls it with the action's name and the input object from stdin, and
# prints the result: text as it is, anything else as JSON.
import asyncio
import inspect
import importlib.util
import json
import os
import sys
import types
from abc import ABC, abstractmethod


class BaseTool(ABC):
    """The ADR's tool base class, for wrappers that import it."""

    @abstractmethod
    def invoke(self, action, params): ...

    def get_capabilities(self):
        return []


class BaseSkill(ABC):
    """The ADR's skill base class, for executors that import it."""

    def validate_input(self, input):
        return None

    @abstractmethod
    def execute(self, input, tools): ...

    def validate_output(self, output):
        return None


def _provide_bases(tool_id):
    # `from ..base import BaseTool`, `from tools.base import BaseTool` and
    # `from base import BaseTool` find the ADR's classes: the tool's
    # package and its parent are not part of the sandbox's files.
    base = types.ModuleType("tools.base")
    base.BaseTool, base.BaseSkill = BaseTool, BaseSkill
    for name in ("tools", "skills"):
        pkg = sys.modules.setdefault(name, types.ModuleType(name))
        pkg.__path__ = getattr(pkg, "__path__", [])
        pkg.base = base
        sys.modules[name + ".base"] = base
    sys.modules.setdefault("base", base)
    own = types.ModuleType("tools." + tool_id)
    own.__path__ = []
    sys.modules["tools." + tool_id] = own


def _fail(msg):
    sys.stderr.write("wrapper.py: " + msg + "\n")
    sys.exit(1)


def main():
    if len(sys.argv) < 3:
        _fail("usage: WRAPPER ACTION (input on stdin)")
    path, action = sys.argv[1], sys.argv[2]
    tool_id = os.path.basename(os.path.dirname(path)) or "tool"
    sys.argv = [path] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(path))
    _provide_bases(tool_id)
    name = "tools." + tool_id + ".wrapper"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "tools." + tool_id
    sys.modules[name] = mod
    spec.loader.exec_module(mod)

    target = None
    if callable(getattr(mod, "invoke", None)):
        target = mod.invoke
    else:
        classes = [c for c in vars(mod).values()
                   if inspect.isclass(c) and c.__module__ == name and callable(getattr(c, "invoke", None))
                   and not inspect.isabstract(c)]
        if len(classes) != 1:
            _fail("wants one class with an invoke(action, params) method (or a module-level invoke); found %d" % len(classes))
        try:
            target = classes[0]().invoke
        except TypeError as e:
            _fail("cannot make %s without arguments: %s" % (classes[0].__name__, e))

    raw = sys.stdin.read()
    params = json.loads(raw) if raw.strip() else {}
    result = target(action, params)
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
