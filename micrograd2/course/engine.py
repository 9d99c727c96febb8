"""A student's engine: the pieces a folder of the student's fills, as the records the core calls.

``load(folder)`` takes each piece from the folder's modules (docs/course.md lists them, with a
contract each); ``records(engine)`` turns them into one record for the Value engine and one for
the Tensor engine; ``choose(folder)`` makes the core run on them, once, from an entry point (the
CLI's ``--engine``, the grader's processes), which may read ``MICROGRAD2_ENGINE``
(``choose_from_environment``).

NOTE [No silent fallback]
Every piece of a loaded folder is the student's: one the folder leaves unfilled (still the stub's
``raise NotImplementedError``) raises "not implemented yet: <piece>". The one exception is the
Tensor engine before the student has begun U3: its graphs run on the core's own pieces, all of
them, as docs/course.md says.
"""
from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import os
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable

from .. import fast
from ..autograd import pieces
from ..autograd.engine import count_dependencies
from ..autograd.node import Node
from ..scalar import Value
from .walk import student_walk

VARIABLE = "MICROGRAD2_ENGINE"  # the student's engine folder, for an entry point to read

# piece -> its unit (docs/course.md); U3's are the Tensor engine's
UNITS = {"record": "U1", "accumulate": "U2", "count_dependencies": "U2", "walk": "U2",
         "sum_to": "U3", "sum_backward": "U3", "mean_backward": "U3", "matmul_backward": "U3"}
TENSOR_PIECES = tuple(name for name, unit in UNITS.items() if unit == "U3")


@dataclasses.dataclass(frozen=True)
class StudentEngine:
    """What a student's folder holds: each piece's function (a stand-in that raises where it is
    unfilled) and the names of the pieces the student wrote."""

    folder: Path
    functions: dict[str, Callable[..., Any]]
    done: frozenset[str]

    @property
    def tensors_begun(self) -> bool:
        """Has the student written a U3 piece? Tensor graphs run on the pieces from then on."""
        return any(name in self.done for name in TENSOR_PIECES)


def load(folder: str | Path) -> StudentEngine:
    """Import every module of ``folder`` and take each piece from the first that defines it."""
    path = Path(folder).resolve()
    if not path.is_dir():
        raise FileNotFoundError(f"no engine folder {path}\nWhat to do: pass the folder that "
                                "`micrograd2 exercise start` wrote (WORKSPACE/engine).")
    _on_the_path(path)
    found: dict[str, Callable[..., Any]] = {}
    for file in sorted(path.glob("*.py")):
        sys.modules.pop(file.stem, None)  # read the file as it is now, not a module cached before
        module = importlib.import_module(file.stem)
        for name in UNITS:
            if callable(getattr(module, name, None)) and name not in found:
                found[name] = getattr(module, name)
    done = frozenset(name for name in UNITS if name in found and not is_stub(found[name]))
    functions = {name: found[name] if name in done else unfilled(name, path) for name in UNITS}
    return StudentEngine(path, functions, done)


def _on_the_path(path: Path) -> None:
    """Put ``path`` first on ``sys.path`` (the folder's modules may import each other), in place
    of the engine folder loaded before, whose modules are forgotten."""
    for before in _ON_THE_PATH:
        if before in sys.path:
            sys.path.remove(before)
        for name, module in list(sys.modules.items()):
            if Path(getattr(module, "__file__", None) or "/").parent == Path(before):
                del sys.modules[name]
    _ON_THE_PATH[:] = [str(path)]
    sys.path.insert(0, str(path))


_ON_THE_PATH: list[str] = []  # the engine folder ``load`` put on ``sys.path`` last


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
    """What stands for a piece the student's folder leaves unfilled: it raises."""
    def not_implemented(*args: object, **kwargs: object) -> Any:
        raise NotImplementedError(
            f"not implemented yet: {name} ({UNITS[name]}, in the engine folder {folder})\n"
            f"What to do: write {name} in your engine folder (its contract: the stub's docstring, "
            "docs/course.md); or run without --engine.")

    not_implemented.__qualname__ = f"unfilled({name})"
    return not_implemented


# -- the student's functions as the core's pieces -----------------------------------------------
def as_record(student: Callable[..., Any]) -> pieces.Record:
    """The student's ``record(fn, inputs, output, ctx) -> edges or None`` as the core's piece,
    which answers whether the op is recorded and gives ``ctx`` the student's edges."""
    def record(fn: Any, inputs: tuple[object, ...], output: Any, ctx: Any) -> bool:
        edges = student(fn, inputs, output, ctx)
        if edges is None:
            return False
        ctx.connect(edges)
        return True

    return record


def as_count(student: Callable[..., Any]) -> pieces.CountDependencies:
    """The student's ``count_dependencies(roots)`` as the core's piece. ``autograd.grad``'s
    passes, which count only the nodes on a path to its inputs, keep the core's count."""
    def count(roots: Any, keep: dict[Node, bool] | None = None) -> dict[Node, int]:
        return student(list(roots)) if keep is None else count_dependencies(roots, keep)

    return count


def as_walk(student: Callable[..., Any]) -> Any:
    """The student's ``walk(roots, grads, visit)`` as the core's walk piece (course/walk.py)."""
    def walk(*args: Any) -> Any:
        return student_walk(student, *args)

    return walk


def records(engine: StudentEngine) -> tuple[pieces.Pieces, Any]:
    """The records of the Value engine and of the Tensor engine on ``engine``'s pieces."""
    from ..tensors import pieces as tensor_pieces

    f = engine.functions
    mine = tuple(name for name in UNITS if name in engine.done)
    value = pieces.Pieces(describe(engine), as_record(f["record"]), f["accumulate"],
                          as_count(f["count_dependencies"]), as_walk(f["walk"]), student=mine)
    if not engine.tensors_begun:  # NOTE [No silent fallback]
        return value, tensor_pieces.REFERENCE
    matmul = f["matmul_backward"]
    tensor = tensor_pieces.TensorPieces(
        **tensor_pieces.core_pieces(value), sum_to=f["sum_to"], sum_backward=f["sum_backward"],
        mean_backward=f["mean_backward"],
        matmul_backward=lambda grad, a, b, layouts=None: matmul(grad, a, b))
    return value, tensor


def describe(engine: StudentEngine) -> str:
    """The opening line's words: which pieces are the student's, and which the core's."""
    mine = [n for n in UNITS if n in engine.done]
    missing = [n for n in UNITS if n not in engine.done]
    said = f"your pieces in {engine.folder} (yours: {', '.join(mine) or 'none yet'}"
    said += f"; not written yet, they raise: {', '.join(missing)})" if missing else ")"
    if not engine.tensors_begun:
        said += "; Tensor graphs run on the core's pieces until you begin U3"
    return said + "; Value, Function.apply, the nodes and each node's visit are the core's"


def choose(folder: str | Path) -> StudentEngine:
    """Run the core on the pieces of ``folder`` from now on: an entry point's one choice."""
    from ..tensors import Tensor

    if fast.ENABLED:
        raise RuntimeError(f"{VARIABLE} is set but the speed layer is on, and it would bypass the "
                           "student's engine\nWhat to do: run with --engine DIR, or set "
                           "MICROGRAD2_REFERENCE=1 too.")
    global CHOSEN
    engine = load(folder)
    value, tensor = records(engine)
    pieces.choose(Value, value)
    pieces.choose(Tensor, tensor)
    CHOSEN = (engine, value)
    return engine


def choose_from_environment() -> StudentEngine | None:
    """``choose`` the folder ``MICROGRAD2_ENGINE`` names, if it is set."""
    folder = os.environ.get(VARIABLE)
    return choose(folder) if folder else None


CHOSEN: tuple[StudentEngine, pieces.Pieces] | None = None  # what ``choose`` chose: the engine and
# the Value engine's record built from it


def chosen() -> StudentEngine | None:
    """The student's engine the core runs on (``choose``), or None: the core's own pieces (none
    was chosen, or ``pieces.using`` runs another record for a block)."""
    return CHOSEN[0] if CHOSEN is not None and Value.pieces is CHOSEN[1] else None
