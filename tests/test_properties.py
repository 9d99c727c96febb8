"""Property tests: on random expression graphs, backward agrees with central differences."""
from __future__ import annotations

import math
from typing import Any, Callable

from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd2 as mg

# (arity, op on Values, is it smooth enough at the sampled points?)
UNARY: list[Callable[[Any], Any]] = [
    lambda a: a.tanh(), lambda a: a.sigmoid(), lambda a: (a * 0.5).exp(), lambda a: -a,
    lambda a: (a * a + 1).log(), lambda a: (a * a + 0.5).sqrt(), lambda a: a**2,
]
BINARY: list[Callable[[Any, Any], Any]] = [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b,
    lambda a, b: a / (b * b + 1), lambda a, b: mg.sum([a, b, a]), lambda a, b: mg.dot([a, b], [b, a], 0.5),
]


@st.composite
def programs(draw: Any) -> list[tuple[int, int, int, int]]:
    """A random straight-line program: each step combines earlier results (a DAG with reuse)."""
    n_steps = draw(st.integers(1, 12))
    steps = []
    for i in range(n_steps):
        n_avail = 3 + i
        steps.append((draw(st.integers(0, 1)), draw(st.integers(0, 6)), draw(st.integers(0, n_avail - 1)),
                      draw(st.integers(0, n_avail - 1))))
    return steps


def run(program: list[tuple[int, int, int, int]], inputs: list[Any]) -> Any:
    vals = list(inputs)
    for kind, op, i, j in program:
        if kind == 0:
            vals.append(UNARY[op % len(UNARY)](vals[i]))
        else:
            vals.append(BINARY[op % len(BINARY)](vals[i], vals[j]))
    return mg.sum(vals[-3:])  # several outputs feed the root: more reuse


@settings(max_examples=60, deadline=None)
@given(programs(), st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3))
def test_gradcheck_holds_on_random_graphs(program, xs) -> None:
    inputs = [mg.Value(x, requires_grad=True) for x in xs]
    out = run(program, inputs)
    if not math.isfinite(out.data) or abs(out.data) > 1e6:
        return
    assert mg.autograd.gradcheck(lambda *v: run(program, list(v)), inputs, eps=1e-6, atol=1e-4, rtol=1e-3)


@settings(max_examples=30, deadline=None)
@given(programs(), st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3))
def test_backward_twice_with_retain_graph_doubles_every_leaf_grad(program, xs) -> None:
    inputs = [mg.Value(x, requires_grad=True) for x in xs]
    out = run(program, inputs)
    out.backward(retain_graph=True)
    first = [v.grad for v in inputs]
    out.backward()
    for v, g in zip(inputs, first):
        if g is not None and math.isfinite(g):
            assert math.isclose(v.grad, 2 * g, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=30, deadline=None)
@given(programs(), st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3))
def test_autograd_grad_equals_backward(program, xs) -> None:
    inputs = [mg.Value(x, requires_grad=True) for x in xs]
    grads = mg.autograd.grad(run(program, inputs), inputs, allow_unused=True)
    run(program, inputs).backward()
    assert [g if g is not None else None for g in grads] == [v.grad for v in inputs]
