"""The engine holes: named pieces of the core that a student's own code may fill.

``docs/course.md`` lists them, with one signature and a contract each. With no student engine
(``MICROGRAD2_ENGINE`` unset) ``ON`` is False, nothing is loaded and the core runs as it always
has. With one, the core asks ``fill(name, engine)`` at each hole; this file is the one place
where a student's piece comes in.

NOTE [No silent fallback]
Every hole is in ``FILLED`` once a student's folder is loaded: a hole the folder leaves unfilled
is a function that raises "not implemented yet: <hole>". ``fill`` answers None (run the core's
own code) only for a Tensor graph before the student has begun U3, as docs/course.md says.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import os
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .function import BackwardNode, Function
    from .variable import Variable

VARIABLE = "MICROGRAD2_ENGINE"
FOLDER = os.environ.get(VARIABLE) or None  # read once, at import: the student's engine folder
ON = FOLDER is not None
if ON and os.environ.get("MICROGRAD2_REFERENCE") != "1":
    raise RuntimeError(f"{VARIABLE} is set but the speed layer is on, and it would bypass the "
                       "student's engine\nWhat to do: run with --engine DIR, or set "
                       "MICROGRAD2_REFERENCE=1 too.")

# hole -> its unit (docs/course.md); U3's are the Tensor engine's
UNITS = {"record": "U1", "accumulate": "U2", "count_dependencies": "U2", "walk": "U2",
         "sum_to": "U3", "sum_backward": "U3", "mean_backward": "U3", "matmul_backward": "U3"}
TENSOR_HOLES = tuple(name for name, unit in UNITS.items() if unit == "U3")

FILLED: dict[str, Callable[..., Any]] = {}  # hole -> the student's function (loaded on first use)
DONE: set[str] = set()  # the holes the student has filled (not the stub's body)
# loaded: a folder is; tensors: Tensor graphs run on the holes (U3 begun); folder: on sys.path
state: dict[str, Any] = {"loaded": False, "tensors": False, "folder": None}


def fill(name: str, engine: type) -> Callable[..., Any] | None:
    """The student's ``name`` for a graph of ``engine``'s Variables, or None: the core's own.

    A Tensor graph (its backward receives Tensors) runs on the core's own until U3 is begun."""
    if not state["loaded"]:
        load(FOLDER)
    if getattr(engine, "backward_receives_variables", False) and not state["tensors"]:
        return None
    return FILLED.get(name)


def load(folder: str | Path | None) -> dict[str, Callable[..., Any]]:
    """Import every module of ``folder`` and take each hole from the one that defines it."""
    state["loaded"] = True
    if folder is None:
        return FILLED
    path = Path(folder)
    if not path.is_dir():
        raise FileNotFoundError(f"no engine folder {path}\nWhat to do: pass the folder that "
                                "`micrograd2 exercise start` wrote (WORKSPACE/engine).")
    _on_the_path(path)
    found: dict[str, Callable[..., Any]] = {}
    for file in sorted(path.glob("*.py")):
        cached = sys.modules.get(file.stem)  # a module of that name from elsewhere is not this one
        where = Path(getattr(cached, "__file__", None) or "/").parent
        if cached is not None and where != path.resolve():
            del sys.modules[file.stem]
        module = importlib.import_module(file.stem)
        for name in UNITS:
            if callable(getattr(module, name, None)) and name not in found:
                found[name] = getattr(module, name)
    FILLED.clear()
    DONE.clear()
    for name in UNITS:
        function = found.get(name)
        if function is not None and not is_stub(function):
            FILLED[name] = function
            DONE.add(name)
        else:
            FILLED[name] = unfilled(name, path)
    state["tensors"] = any(name in DONE for name in TENSOR_HOLES)
    return FILLED


def _on_the_path(path: Path) -> None:
    """Put ``path`` on ``sys.path`` (its modules may import each other) in place of the folder
    loaded before, whose modules are forgotten."""
    before = state["folder"]
    if before is not None:
        if before in sys.path:
            sys.path.remove(before)
        for name, module in list(sys.modules.items()):
            if Path(getattr(module, "__file__", None) or "/").parent == Path(before):
                del sys.modules[name]
    sys.path.insert(0, str(path))
    state["folder"] = str(path)


def is_stub(function: Callable[..., Any]) -> bool:
    """Is ``function``'s body still only the stub's ``raise NotImplementedError(...)``?"""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    raised = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def unfilled(name: str, folder: Path) -> Callable[..., Any]:
    """What stands for a hole the student's folder leaves unfilled: it raises."""
    def not_implemented(*args: object, **kwargs: object) -> Any:
        raise NotImplementedError(
            f"not implemented yet: {name} ({UNITS[name]}, in the engine folder {folder})\n"
            f"What to do: write {name} in your engine folder (its contract: the stub's docstring, "
            "docs/course.md); or run without --engine.")

    not_implemented.__qualname__ = f"unfilled({name})"
    return not_implemented


# -- the places in the core that ask (docs/course.md) -------------------------------------------
def record(fn: type[Function], inputs: tuple[Any, ...], output: Variable, ctx: BackwardNode,
           recorded: bool) -> bool:
    """``Function.apply``'s hole: the student's ``record`` decides; this ties (or unties) the
    output to ``ctx`` with the edges it returned. ``recorded``: the core's own decision."""
    student = fill("record", type(output))
    if student is None:
        return recorded
    edges = student(fn, inputs, output, ctx)
    if edges is None:
        output.grad_fn, output._requires_grad = None, False
        return False
    ctx._next_nodes = tuple([node for node, _ in edges])
    ctx._next_nrs = tuple([nr for _, nr in edges])
    output.grad_fn, output._requires_grad = ctx, True
    return True


def accumulate(variable: Variable, grad: Any) -> Any:
    """``accumulate_into``'s hole: ``variable``'s new ``.grad``, the student's or the core's."""
    student = fill("accumulate", type(variable))
    return variable._accumulate(grad) if student is None else student(variable, grad)
