"""What the exercise tests (public and hidden) use: find the student's module, and explain a wrong backward.

* ``load_student(name, __file__)``: the student's module — from the workspace the
  grader names in ``$MICROGRAD2_WORKSPACE``, else the folder above the tests
  (``pytest`` run inside a workspace).  A missing file fails the test with
  ``MissingModule``: it never falls back to anything else (the model solutions
  are not installed, NOTE [The solutions are not installed] in stubs.py).
* ``check_backward(student_fn, reference_fn, xs)``: run both under ``mg.trace()``
  and raise ``Mistake`` at the first step of the backward walk where they differ,
  matching nodes by their place in the walk (a student's ``MulBackward`` is the
  built-in ``MulBackward0``'s twin), not by name.
* ``engine_order(root)``: the nodes in the order the engine visits them, read from a trace.
"""
from __future__ import annotations

import importlib.util
import inspect
import math
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Sequence

import micrograd2 as mg
from micrograd2.autograd import Node
from micrograd2.tracing.nodes import creation_order, reachable

WORKSPACE_ENV = "MICROGRAD2_WORKSPACE"


class Mistake(AssertionError):
    """A failed check whose message says what is wrong and what to do (the grader shows its first line)."""


def expect(condition: bool, message: str) -> None:
    """Raise ``Mistake(message)`` unless ``condition``."""
    if not condition:
        raise Mistake(message)


class MissingModule(FileNotFoundError):
    """The student's file is not where the tests look for it (the message says where, and what to
    do)."""


# -- finding the modules -------------------------------------------------------------------------
def student_path(name: str, test_file: str | None = None) -> Path:
    """Where the student's module ``name`` must be: in ``$MICROGRAD2_WORKSPACE``, else in the
    folder above ``test_file``'s.  ``MissingModule`` if it is not there, or if neither says where
    to look."""
    workspace = os.environ.get(WORKSPACE_ENV)
    if workspace:
        folder = Path(workspace)
    elif test_file is not None:
        folder = Path(test_file).resolve().parent.parent
    else:
        raise MissingModule(f"no workspace to find {name}.py in: set ${WORKSPACE_ENV}, or run "
                            "pytest in a workspace (`micrograd2 exercise start DIR` writes one)")
    path = folder / f"{name}.py"
    if not path.is_file():
        raise MissingModule(f"{name}.py is missing from {folder}: this exercise fails until it is "
                            "there (`micrograd2 exercise start --force DIR` writes fresh stubs)")
    return path


def load_module(path: Path, name: str) -> ModuleType:
    """Import the file ``path`` as module ``name`` (once per path and process; its folder joins sys.path)."""
    path = path.resolve()
    cached = sys.modules.get(name)
    if cached is not None and getattr(cached, "__file__", None) == str(path):
        return cached
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.append(folder)  # so a student may split helpers into other files
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_student(name: str, test_file: str | None = None) -> ModuleType:
    """The student's module ``name`` (e.g. ``"ex01_mul_sum"``)."""
    return load_module(student_path(name, test_file), name)


# -- comparing numbers -----------------------------------------------------------------------------
def close(got: Any, expected: Any, rel: float = 1e-7, abs_: float = 1e-9) -> bool:
    """Numbers equal up to rounding (nan equals nan, inf equals inf of the same sign)."""
    if got is None or expected is None:
        return got is None and expected is None
    got, expected = float(getattr(got, "data", got)), float(getattr(expected, "data", expected))
    if math.isnan(got) or math.isnan(expected):
        return math.isnan(got) and math.isnan(expected)
    return math.isclose(got, expected, rel_tol=rel, abs_tol=abs_)


def show(x: Any) -> str:
    """A number as a lesson prints it: ``3.0``, ``0.419974``, ``None``."""
    if x is None:
        return "None"
    x = float(getattr(x, "data", x))
    if math.isfinite(x) and x == int(x):
        return repr(x)
    return f"{x:.6g}"


# -- traces ----------------------------------------------------------------------------------------
def traced_backward(build: Callable[..., Any], xs: Sequence[float]) -> tuple[Any, list[Any], list[Any]]:
    """Build ``build(*leaves)`` on fresh leaves labelled ``x0, x1…``, backpropagate, all under ``mg.trace()``.

    Returns ``(root, leaves, backward events)``.
    """
    leaves = [mg.Value(x, requires_grad=True, label=f"x{i}") for i, x in enumerate(xs)]
    with mg.trace() as t:
        root = build(*leaves)
        root.backward()
    return root, leaves, [e for e in t.events if e.kind == "backward"]


def check_backward(student_fn: Callable[..., Any], reference_fn: Callable[..., Any], xs: Sequence[float],
                   what: str = "") -> None:
    """Raise ``Mistake`` unless ``student_fn`` and ``reference_fn`` agree in forward, in every backward step
    and in the leaves' gradients, at inputs ``xs``."""
    at = ", ".join(f"x{i}={show(x)}" for i, x in enumerate(xs))
    context = f" of {what} ({at})" if what else f" ({at})"
    student_root, student_leaves, got = traced_backward(student_fn, xs)
    reference_root, reference_leaves, want = traced_backward(reference_fn, xs)
    expect(close(student_root.data, reference_root.data),
           f"forward{context} is wrong: got {show(student_root.data)}, expected {show(reference_root.data)}")
    written = {node.name(): backward_line(node) for node in reachable([student_root.grad_fn])}
    message = first_difference(got, want, context, written)
    if message is not None:
        raise Mistake(message)
    for i, (s, r) in enumerate(zip(student_leaves, reference_leaves)):
        expect(close(s.grad, r.grad), f"x{i}.grad{context} is {show(s.grad)}, expected {show(r.grad)}")


def backward_line(node: Node) -> str:
    """``ex01_mul_sum.py:21 in Mul.backward``: where the ``backward`` of ``node``'s Function is written,
    for a Function of the student's (``""`` for a built-in node, or where the source can't be read)."""
    module = sys.modules.get(type(node).__module__)
    if module is None or type(node).__module__.startswith("micrograd2."):
        return ""
    for cls in vars(module).values():
        # a Function's node is named "<Function>Backward" unless it sets node_name (function.py)
        if isinstance(cls, type) and issubclass(cls, mg.Function) and "backward" in cls.__dict__ \
                and (cls.__dict__.get("node_name") or f"{cls.__name__}Backward") == node.name():
            try:
                lines, first = inspect.getsourcelines(cls.backward)
                path = inspect.getsourcefile(cls) or ""
            except (OSError, TypeError):
                return ""
            at = first + next((i for i, text in enumerate(lines) if text.lstrip().startswith("def ")), 0)
            return f"{Path(path).name}:{at} in {cls.__name__}.backward"
    return ""


def first_difference(got: Sequence[Any], want: Sequence[Any], context: str = "",
                     written: dict[str, str] | None = None) -> str | None:
    """The first backward step where the student's events ``got`` differ from the reference's ``want``, as a
    sentence (``None`` if they agree).  Step k of one walk is matched with step k of the other.

    ``written``: node name -> where its ``backward`` is written (``backward_line``); a wrong gradient's
    sentence then starts with that line of the student's file, ``ex01_mul_sum.py:40 in Mul.backward: ``."""
    for k, (g, w) in enumerate(zip(got, want), start=1):
        node = f"{g.node} (the reference's {w.node})" if g.node != w.node else g.node
        where = f"step {k} of the backward walk{context}: node {node}, output {show(w.output)}"
        gs, ws = [v for _, v in g.grad_inputs], [v for _, v in w.grad_inputs]
        ws = _without_number_inputs(ws, len(gs))
        if len(gs) != len(ws):
            return f"{where}: backward returned {len(gs)} gradients, expected {len(ws)}"
        if not close(g.grad_output, w.grad_output):
            return f"{where}: received upstream gradient {show(g.grad_output)}, expected {show(w.grad_output)}"
        for i, (a, b) in enumerate(zip(gs, ws)):
            if b is not None and not close(a, b):  # None: the input needs no gradient, whatever is returned
                line = (written or {}).get(g.node, "")  # first, as the grader names an error's line
                return ((f"{line}: " if line else "") +
                        f"{where}, upstream gradient {show(w.grad_output)}: its gradient for input {i} is "
                        f"{show(a)}, expected {show(b)} (all inputs: got ({', '.join(map(show, gs))}), "
                        f"expected ({', '.join(map(show, ws))}))" + _upstream_ignored(w.grad_output, gs, ws))
    if len(got) != len(want):
        return f"the backward walk{context} visited {len(got)} nodes, expected {len(want)}"
    return None


def _without_number_inputs(want: list[Any], count: int) -> list[Any]:
    """The reference's gradients less those of plain-number inputs, when a student's custom
    Function has ``count`` of them: its node, as PyTorch's, has no edge for a number input, where
    a built-in op's has one that gets ``None`` (``x * 3``). They are dropped from the right."""
    want = list(want)
    for k in range(len(want) - 1, -1, -1):
        if len(want) <= count:
            break
        if want[k] is None:
            del want[k]
    return want


def _number(x: Any) -> float:
    return float(getattr(x, "data", x))


def _upstream_ignored(upstream: Any, got: Sequence[Any], want: Sequence[Any]) -> str:
    """A sentence to add when every gradient ``got`` is the one ``want`` divided by ``upstream``
    (``!= 1``): the local derivatives are right, but the upstream gradient was not multiplied in."""
    if close(upstream, 1.0) or close(upstream, 0.0) or upstream is None:
        return ""
    pairs = [(g, w) for g, w in zip(got, want) if w is not None]
    if pairs and all(g is not None and close(_number(g) * _number(upstream), w) for g, w in pairs):
        return (": the local derivatives are right but the upstream gradient is ignored; multiply "
                "each by it (the chain rule: ∂L/∂input = ∂L/∂output · ∂output/∂input)")
    return ""


# -- graphs ---------------------------------------------------------------------------------------------
def consumers(start: Node) -> dict[Node, int]:
    """For each node reachable from ``start``: how many edges (``next_functions`` entries) point at it."""
    counts = {node: 0 for node in reachable([start])}
    for node in counts:
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] += 1
    return counts


def engine_order(root: Any) -> list[Node]:
    """The nodes reachable from ``root.grad_fn`` in the order the engine visits them (an
    ``AccumulateGrad`` as it adds into its leaf), read from a trace of one backward pass.

    The pass keeps the graph (``retain_graph=True``) and every leaf's ``.grad`` is put back as it
    was, so the graph can be walked again, by hand or by ``root.backward()``."""
    by_id: dict[str, Node] = {}
    nodes = list(reachable([root.grad_fn]))
    leaves = [node.variable for node in nodes if node.name() == "AccumulateGrad"]
    before = [(leaf, leaf.grad) for leaf in leaves if leaf is not None]
    with mg.trace() as t:
        root.backward(retain_graph=True)
    for leaf, grad in before:
        leaf.grad = grad
    for node in nodes:
        known = t.known_id(node)
        if known is not None:
            by_id[known] = node
    return [by_id[e.node_id] for e in t.events
            if e.node_id in by_id and (e.kind == "backward" or (e.kind == "accumulate" and e.leaf))]


def describe(node: Node, names: dict[Node, str]) -> str:
    """A node by its name in this graph: ``MulBackward0#2``, or ``AccumulateGrad(x0)``."""
    if node.name() == "AccumulateGrad":
        leaf = getattr(node, "variable", None)
        return f"AccumulateGrad({getattr(leaf, 'label', None) or '?'})"
    return names.get(node, node.name())


def node_names(start: Node) -> dict[Node, str]:
    """``MulBackward0#1``, ``MulBackward0#2``… numbered in creation order, for messages."""
    counts: dict[str, int] = {}
    names: dict[Node, str] = {}
    for node in creation_order(consumers(start)):
        k = counts[node.name()] = counts.get(node.name(), 0) + 1
        names[node] = f"{node.name()}#{k}"
    return names
