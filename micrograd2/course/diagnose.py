"""Which of a student's holes differs from the reference: a probe per hole, run with only it.

When a check fails on a student's engine (``--engine``), ``lesson run``'s closing line names the
hole: each hole the student filled is put alone in place of the core's (the others are the
core's), a small probe runs, and its facts are compared with the same probe on the core alone.
"""
from __future__ import annotations

import contextlib
import math
from typing import Any, Callable, Iterator

from ..autograd import events, holes, no_grad
from ..scalar import Value

Facts = dict[str, Any]
NONE = "nothing (the probe stopped before)"


def scalar_facts(facts: Facts) -> None:
    """What U1's and U2's holes decide on small Value graphs, fact by fact, into ``facts``."""
    x, w, c = Value(2.0, requires_grad=True), Value(-3.0, requires_grad=True), Value(5.0)
    with no_grad():
        facts["(x * w).requires_grad under no_grad"] = (x * w).requires_grad
    facts["(c * c).requires_grad for c that requires no grad"] = (c * c).requires_grad
    a, b = x * w, x + w  # two nodes ready at once: the one created last is visited first
    y = a * (a + x) + b * c  # x used three times, a twice
    node = y.grad_fn
    facts["the inputs of y.grad_fn"] = None if node is None else [
        None if n is None else n.name() for n, _ in node.next_functions]
    order: list[str] = []
    for value, label in ((a, "a = x * w"), (b, "b = x + w")):
        value.register_hook(lambda g, label=label: order.append(label))
    y.backward(retain_graph=True)
    facts["the order of visits"] = order[:]
    facts["x.grad after one backward pass"] = x.grad
    y.backward()
    facts["x.grad after two backward passes"] = x.grad
    facts["w.grad after two backward passes"] = w.grad


def tensor_facts(facts: Facts) -> None:
    """What U3's holes compute, into ``facts``: the gradients of broadcasting, reductions and a
    matrix product."""
    from ..tensors import tensor

    def leaf(shape: tuple[int, ...]) -> Any:
        values = [float(i + 1) * (-1) ** i for i in range(math.prod(shape))]
        rows = values if len(shape) == 1 else [values[r * shape[1]:(r + 1) * shape[1]]
                                                for r in range(shape[0])]
        return tensor(rows, requires_grad=True)

    def grads(build: Callable[..., Any], *shapes: tuple[int, ...]) -> list[Any]:
        leaves = [leaf(shape) for shape in shapes]
        build(*leaves).backward()
        return [[round(v, 6) for v in x.grad.reshape(-1).tolist()] for x in leaves]

    weights = tensor([[1.0, -2.0], [0.5, 3.0]])
    facts["the gradients of (a + v) * col, summed (a 2×3, v of 3, col 2×1)"] = grads(
        lambda a, v, col: ((a + v) * col).sum(), (2, 3), (3,), (2, 1))
    facts["the gradient of a for (a.sum(1) * [1, 2]).sum() + a.sum()"] = grads(
        lambda a: (a.sum(1) * tensor([1.0, 2.0])).sum() + a.sum(), (2, 3))
    facts["the gradient of a for (a.mean(0) * [1, 2, 3]).sum() + a.mean()"] = grads(
        lambda a: (a.mean(0) * tensor([1.0, 2.0, 3.0])).sum() + a.mean(), (2, 3))
    facts["the gradients of a and m for ((a @ m) * W).sum() (a 2×3, m 3×2)"] = grads(
        lambda a, m: ((a @ m) * weights).sum(), (2, 3), (3, 2))


def probe(facts: Callable[[Facts], None]) -> Facts:
    """The facts ``facts`` finds; the error it raised, if any, is the last."""
    found: Facts = {}
    try:
        facts(found)
    except Exception as error:  # a student's piece may fail in any way: that is the finding
        found["the probe"] = f"raised {type(error).__name__}: {error}".splitlines()[0]
    return found


@contextlib.contextmanager
def only(filled: dict[str, Callable[..., Any]]) -> Iterator[None]:
    """Run with just ``filled`` in place of the core's pieces (the others are the core's)."""
    before, tensors = dict(holes.FILLED), holes.state["tensors"]
    holes.FILLED.clear()
    holes.FILLED.update(filled)
    holes.state["tensors"] = any(name in filled for name in holes.TENSOR_HOLES)
    try:
        with events.silenced():  # the probes are no part of the lesson's narration
            yield
    finally:
        holes.FILLED.clear()
        holes.FILLED.update(before)
        holes.state["tensors"] = tensors


def first_difference(got: Facts, expected: Facts) -> str | None:
    """``"fact: got X, the reference Y"`` for the first fact that differs, or None."""
    for fact in {**expected, **got}:
        if got.get(fact, NONE) != expected.get(fact, NONE):
            return f"{fact}: got {got.get(fact, NONE)}, the reference {expected.get(fact, NONE)}"
    return None


def pieces_that_differ() -> list[str]:
    """One line per hole the student filled whose probe differs from the reference's."""
    if not holes.ON:
        return []
    if not holes.state["loaded"]:
        holes.load(holes.FOLDER)
    student = dict(holes.FILLED)
    found = []
    for name in [n for n in holes.UNITS if n in holes.DONE]:
        facts = tensor_facts if name in holes.TENSOR_HOLES else scalar_facts
        with only({}):
            expected = probe(facts)
        with only({name: student[name]}):
            got = probe(facts)
        difference = first_difference(got, expected)
        if difference is not None:
            found.append(f"{name} ({holes.UNITS[name]}) differs from the reference: {difference}")
    return found


def closing_line() -> str | None:
    """On a student's engine: ``"engine DIR: walk (U2) differs from the reference: …"`` naming
    each filled hole whose probe differs; None when they all agree (or there is no engine)."""
    differ = pieces_that_differ()
    return f"engine {holes.FOLDER}: " + "; ".join(differ) if differ else None
