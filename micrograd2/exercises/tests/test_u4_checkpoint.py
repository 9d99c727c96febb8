"""U4.3 — Checkpointing: the public tests (the grader runs these, not your copy).

The gradients through ``checkpoint`` are compared with the same function's gradients without it;
the memory is MEASURED after the forward pass: the nodes the output keeps alive, and the values
they saved for backward (``saved_entries()``), without and with the checkpoint.
"""
from __future__ import annotations

import math
from types import ModuleType
from typing import Any, Callable

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, expect, load_student, show
from micrograd2.tracing.nodes import reachable

pytestmark = [pytest.mark.u4, pytest.mark.u4_3]

GRAD_MODE_OFF = "element 0 of tensors does not require grad"  # the core's error


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u4_checkpoint", __file__)


def chain(n_ops: int) -> Callable[[Any], Any]:
    """f(x): a chain of ``n_ops`` one-input ops (sin, tanh, ·1.1 in turn)."""
    def f(x: Any) -> Any:
        for k in range(n_ops):
            x = x.sin() if k % 3 == 0 else x.tanh() if k % 3 == 1 else x * 1.1
        return x

    return f


def memory(y: Any) -> tuple[int, int]:
    """(nodes ``y`` keeps alive, values they saved for backward), AccumulateGrad not counted."""
    nodes = [n for n in reachable([y.grad_fn]) if n.name() != "AccumulateGrad"]
    saved = 0
    for node in nodes:
        entries = node.saved_entries()
        saved += 0 if isinstance(entries, str) else len(entries)  # a str: FREED
    return len(nodes), saved


def run(student: ModuleType, f: Callable[..., Any], xs: list[Any]) -> Any:
    """``checkpoint(f, *xs)``, with the diagnosis of a backward that forgot grad mode."""
    try:
        y = student.checkpoint(f, *xs)
        y.backward()
    except RuntimeError as error:
        if GRAD_MODE_OFF not in str(error):
            raise
        raise Mistake("Checkpoint.backward recomputed f with grad mode off, so nothing was "
                      "recorded to backpropagate through: a backward runs under no_grad; "
                      "recompute under `with mg.enable_grad():`") from None
    return y


def gradients(f: Callable[..., Any], xs: list[float], plain: tuple[int, ...] = ()) -> list[Any]:
    """f's gradients without the checkpoint (None at the plain-number positions)."""
    leaves: list[Any] = [x if i in plain else mg.Value(x, requires_grad=True)
                         for i, x in enumerate(xs)]
    f(*leaves).backward()
    return [None if i in plain else leaf.grad for i, leaf in enumerate(leaves)]


def test_the_gradients_equal_the_unchecked_ones(student: ModuleType) -> None:
    def two(a: Any, b: Any) -> Any:
        return (a * b).tanh() + a.exp() * b

    cases: list[tuple[Callable[..., Any], list[float]]] = [
        (chain(7), [0.4]), (chain(12), [-1.3]), (two, [0.3, -1.2]), (two, [-0.8, 0.5])]
    for f, xs in cases:
        leaves = [mg.Value(x, requires_grad=True) for x in xs]
        y = run(student, f, leaves)
        want = gradients(f, xs)
        with mg.no_grad():
            value = f(*[mg.Value(x) for x in xs]).data
        expect(math.isclose(y.data, value, rel_tol=1e-12),
               f"checkpoint(f, ...) = {show(y.data)}, f(...) = {show(value)}")
        got = [leaf.grad for leaf in leaves]
        expect(all(g is not None and math.isclose(g, w, rel_tol=1e-9, abs_tol=1e-12)
                   for g, w in zip(got, want)),
               f"through the checkpoint the gradients at {xs} are {[show(g) for g in got]}, "
               f"without it {[show(w) for w in want]}: recompute f from the SAVED INPUTS and "
               "backpropagate the upstream gradient through it")


def test_a_plain_number_input_gets_none(student: ModuleType) -> None:
    def scaled(a: Any, s: Any) -> Any:
        return (a * s).tanh()

    a = mg.Value(0.6, requires_grad=True)
    try:
        run(student, scaled, [a, 3.0])
    except RuntimeError as error:
        raise Mistake(f"checkpoint(f, a, 3.0) failed: {str(error).splitlines()[0]} (return None "
                      "for f and for each input where ctx.needs_input_grad is False)") from None
    (want,) = [g for g in gradients(scaled, [0.6, 3.0], plain=(1,)) if g is not None]
    expect(math.isclose(a.grad, want), f"a.grad = {show(a.grad)}, expected {show(want)}")


def test_one_node_and_only_the_inputs_are_kept_after_forward(student: ModuleType) -> None:
    for n_ops in (1, 5, 30):
        x = mg.Value(0.5, requires_grad=True)
        nodes, saved = memory(student.checkpoint(chain(n_ops), x))
        plain_nodes, plain_saved = memory(chain(n_ops)(mg.Value(0.5, requires_grad=True)))
        expect(nodes == 1, f"a checkpointed chain of {n_ops} ops keeps {nodes} nodes alive after "
               f"forward (without the checkpoint {plain_nodes}), expected 1: call f under "
               "mg.no_grad() inside ONE Function's forward")
        expect(saved == 1, f"the checkpoint's node saved {saved} values, expected 1 (the input "
               f"x; without the checkpoint the chain saved {plain_saved}): save only the inputs")


def test_your_predicted_saving_matches_the_measurement(student: ModuleType) -> None:
    for n_ops in (1, 4, 10, 100):
        measured = (memory(chain(n_ops)(mg.Value(0.2, requires_grad=True)))[0],
                    memory(student.checkpoint(chain(n_ops), mg.Value(0.2, requires_grad=True)))[0])
        predicted = student.predicted_nodes(n_ops)
        expect(tuple(predicted) == measured,
               f"predicted_nodes({n_ops}) = {predicted}, measured {measured} (nodes alive after "
               "forward without and with the checkpoint, AccumulateGrad not counted): one node "
               "per op without it; with it, the checkpoint's own node only")


def test_a_long_chain_keeps_one_node_and_backpropagates(student: ModuleType) -> None:
    x = mg.Value(0.9, requires_grad=True)
    f = chain(3000)
    y = run(student, f, [x])
    expect(memory(y)[0] == 1, f"a checkpointed chain of 3000 ops keeps {memory(y)[0]} nodes")
    (want,) = gradients(f, [0.9])
    expect(math.isclose(x.grad, want, rel_tol=1e-9, abs_tol=1e-300),
           f"x.grad = {show(x.grad)}, expected {show(want)}")
