"""Which of a student's pieces differs from the reference: a probe per piece, run with it alone.

When a check fails on a student's engine (``--engine``), ``lesson run``'s closing line names the
piece: each piece the student wrote is put alone in place of the core's (the others are the
core's), a small probe runs, and its facts are compared with the same probe on the core alone.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Callable, Iterator

from ..autograd import events, no_grad, pieces
from ..scalar import Value
from . import engine as student_engine

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
def only(names: tuple[str, ...] = ()) -> Iterator[None]:
    """Run with just the student's pieces ``names`` in place of the core's (the others are the
    core's; none: the core alone), and no narration: the probes are no part of a lesson."""
    from ..tensors import Tensor
    from ..tensors import pieces as tensor_pieces

    student_value, student_tensor = Value.pieces, Tensor.pieces
    value = dataclasses.replace(pieces.REFERENCE, **{
        n: getattr(student_value, n) for n in names if n not in student_engine.TENSOR_PIECES})
    tensor = dataclasses.replace(tensor_pieces.REFERENCE, **{
        n: getattr(student_tensor, n) for n in names if hasattr(student_tensor, n)})
    with pieces.using(Value, value), pieces.using(Tensor, tensor), events.silenced():
        yield


def first_difference(got: Facts, expected: Facts) -> str | None:
    """``"fact: got X, the reference Y"`` for the first fact that differs, or None."""
    for fact in {**expected, **got}:
        if got.get(fact, NONE) != expected.get(fact, NONE):
            return f"{fact}: got {got.get(fact, NONE)}, the reference {expected.get(fact, NONE)}"
    return None


def pieces_that_differ() -> list[str]:
    """One line per piece the student wrote whose probe differs from the reference's."""
    engine = student_engine.chosen()
    if engine is None:
        return []
    found = []
    for name in [n for n in student_engine.UNITS if n in engine.done]:
        tensor = name in student_engine.TENSOR_PIECES
        facts = tensor_facts if tensor else scalar_facts
        with only():
            expected = probe(facts)
        with only((name,)):
            got = probe(facts)
        difference = first_difference(got, expected)
        if difference is not None:
            unit = student_engine.UNITS[name]
            found.append(f"{name} ({unit}) differs from the reference: {difference}")
    return found


def closing_line() -> str | None:
    """On a student's engine: ``"engine DIR: walk (U2) differs from the reference: …"`` naming
    each piece whose probe differs; None when they all agree (or there is no engine)."""
    differ = pieces_that_differ()
    engine = student_engine.chosen()
    return f"engine {engine.folder}: " + "; ".join(differ) if differ and engine else None
