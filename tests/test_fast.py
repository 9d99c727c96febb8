"""The speed layer (``micrograd2/fast/``) gives what the reference path gives: values, gradients, nodes,
saved values, trace events and errors, on random expression graphs (hypothesis).

The reference path is reached without touching how the package chose at import: recording by calling
``Function.apply`` itself (what every reference operator does), and the walk by setting the engine's
record of pieces to the reference's for the test (pytest's monkeypatch, undone after it).  The walk's own tests are in
``test_walk.py``, the one-call recording's in ``test_recording.py``.
"""
from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import micrograd2 as mg
from micrograd2 import fast
from micrograd2.autograd.pieces import REFERENCE
from micrograd2.scalar import Value, ops
from micrograd2.scalar.value import SPEED

UNARY = {"neg": ops.Neg, "exp": ops.Exp, "log": ops.Log, "tanh": ops.Tanh, "relu": ops.Relu,
         "sigmoid": ops.Sigmoid, "sqrt": ops.Sqrt, "abs": ops.Abs}
BINARY = {"add": ops.Add, "sub": ops.Sub, "mul": ops.Mul, "div": ops.Div}
NUMBERS = st.sampled_from([2.0, -0.5, 3, 0.0, 1e-30, float("inf")])
DTYPES = st.sampled_from(["float64", "float64", "float32", "float16"])

leaf = st.tuples(st.sampled_from([1.5, -2.0, 0.0, 0.25, 3.0, 1e4, -0.1]), st.booleans(), DTYPES)
step = st.one_of(
    st.tuples(st.sampled_from(sorted(UNARY)), st.integers(0, 99)),
    st.tuples(st.sampled_from(sorted(BINARY)), st.integers(0, 99), st.one_of(st.integers(0, 99), NUMBERS)),
    st.tuples(st.sampled_from(["radd", "rmul"]), st.integers(0, 99), NUMBERS),
    st.tuples(st.sampled_from(["add_", "mul_"]), st.integers(0, 99), NUMBERS, st.booleans()),
    st.tuples(st.just("hook"), st.integers(0, 99), NUMBERS),
    st.tuples(st.just("retain"), st.integers(0, 99)),
    st.tuples(st.just("cast"), st.integers(0, 99), DTYPES),
    st.tuples(st.just("dot"), st.lists(st.one_of(st.integers(10, 99), NUMBERS), min_size=2, max_size=6),
              st.one_of(st.none(), st.integers(10, 99), NUMBERS)),
    st.tuples(st.just("dot"), st.lists(st.integers(10, 99), min_size=2, max_size=6),  # Values only
              st.one_of(st.none(), st.integers(10, 99))),
    st.tuples(st.just("detach"), st.integers(0, 99)),
)
program = st.fixed_dictionaries({
    "leaves": st.lists(leaf, min_size=1, max_size=3),
    "steps": st.lists(step, min_size=1, max_size=12),
    "create_graph": st.booleans(),
    "retain_graph": st.booleans(),
    "twice": st.booleans(),
    "grad": st.booleans(),
    "more_roots": st.lists(st.integers(0, 99), max_size=2),  # backward from several roots (repeats too)
    "trace": st.booleans(),
})


def _pick(vals: list[Any], k: Any) -> Any:
    """An operand: an earlier Value (an int from 10 on picks one), or the number itself."""
    return vals[k % len(vals)] if type(k) is int and k >= 10 else k


def _apply_step(vals: list[Any], s: tuple, fast_path: bool) -> None:
    if s[0] == "dot":
        operands = [_pick(vals, k) for k in s[1]]
        n = len(operands) // 2
        ws, xs, bias = operands[:n], operands[n : 2 * n], _pick(vals, s[2])
        if fast_path:
            vals.append(mg.dot(ws, xs, bias))
        elif any(isinstance(v, Value) for v in (*ws, *xs, bias)):
            vals.append(ops.Dot.apply(*ws, *xs) if bias is None else ops.Dot.apply(*ws, *xs, bias))
        else:
            vals.append(mg.dot(ws, xs, bias))  # numbers only: no op is recorded either way
        return
    kind, x = s[0], vals[s[1] % len(vals)]
    if kind in UNARY:
        vals.append(getattr(x, "__neg__" if kind == "neg" else kind)() if fast_path else UNARY[kind].apply(x))
    elif kind in BINARY:
        other = _pick(vals, s[2])
        operator = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "div": "__truediv__"}[kind]
        vals.append(getattr(x, operator)(other) if fast_path else BINARY[kind].apply(x, other))
    elif kind in ("radd", "rmul"):
        if fast_path:
            vals.append(s[2] + x if kind == "radd" else s[2] * x)
        else:
            vals.append((ops.Add if kind == "radd" else ops.Mul).apply(x, s[2]))
    elif kind in ("add_", "mul_"):
        with mg.no_grad() if s[3] else mg.enable_grad():
            getattr(x, kind)(s[2])
    elif kind == "hook":
        x.register_hook(lambda g, factor=s[2]: g * factor)
    elif kind == "retain":
        x.retain_grad()
    elif kind == "cast":
        vals.append(x.to(s[2]))
    elif kind == "detach":
        vals.append(x.detach())


def _run(prog: dict[str, Any], fast_path: bool) -> tuple[list[Any], list[Any]]:
    """Run ``prog``; return the Values made and what happened (errors as (class, message))."""
    vals: list[Any] = [Value(d, requires_grad=r, dtype=t) for d, r, t in prog["leaves"]]
    happened: list[Any] = []
    for s in prog["steps"]:
        try:
            _apply_step(vals, s, fast_path)
        except Exception as error:  # the same error both ways
            happened.append((type(error).__name__, str(error)))
    root = vals[-1]
    for _ in range(2 if prog["twice"] else 1):
        try:
            if prog["grad"]:
                leaves = [v for v in vals[: len(prog["leaves"])] if v.requires_grad]
                got = mg.autograd.grad(root, leaves, retain_graph=prog["retain_graph"],
                                       create_graph=prog["create_graph"], allow_unused=True)
                happened.append(tuple(repr(getattr(g, "data", g)) for g in got))
            elif prog["more_roots"]:
                roots = [root, *(vals[k % len(vals)] for k in prog["more_roots"])]
                mg.autograd.backward(roots, retain_graph=prog["retain_graph"], create_graph=prog["create_graph"])
            else:
                root.backward(retain_graph=prog["retain_graph"], create_graph=prog["create_graph"])
        except Exception as error:
            happened.append((type(error).__name__, str(error)))
    return vals, happened


def _describe(vals: list[Any]) -> list[Any]:
    """Everything observable about the Values and their nodes, with objects replaced by positions."""
    index = {id(v): k for k, v in enumerate(vals)}
    nodes: dict[int, int] = {}
    seqs = sorted({n.sequence_nr() for v in vals for n in _nodes(v)})
    out = []
    for v in vals:
        node = v.grad_fn
        described = None
        if node is not None:
            nodes.setdefault(id(node), len(nodes))
            entries = node.saved_entries()
            described = (
                node.name(), node._dtype, seqs.index(node.sequence_nr()), repr(node._output),
                node._next_nrs, v.output_nr,
                tuple(None if n is None else n.name() for n, _ in node.next_functions),
                entries if isinstance(entries, str) else tuple(
                    (name, role, index.get(id(var)), repr(getattr(value, "data", value)))
                    for name, role, var, value in entries),
            )
        grad = v._grad
        out.append((repr(v.data), v.dtype, v.requires_grad, v.is_leaf, v._version, described,
                    repr(getattr(grad, "data", grad)), getattr(grad, "grad_fn", None) is not None))
    return out


def _nodes(v: Any) -> list[Any]:
    return [n for n in (v.grad_fn, v._accumulator) if n is not None]


def _observe(prog: dict[str, Any], fast_path: bool) -> tuple[Any, ...]:
    if prog["trace"]:
        with mg.trace() as t:
            vals, happened = _run(prog, fast_path)
        return _describe(vals), happened, t.to_json()
    vals, happened = _run(prog, fast_path)
    return _describe(vals), happened, None


@pytest.mark.skipif(not fast.ENABLED, reason="the speed layer is off (MICROGRAD2_REFERENCE=1)")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program)
def test_the_fast_path_and_the_reference_path_give_one_result(prog: dict[str, Any]) -> None:
    fast_result = _observe(prog, fast_path=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Value, "pieces", REFERENCE)  # the reference walk, for this test only
        reference_result = _observe(prog, fast_path=False)
    assert fast_result == reference_result


@pytest.mark.skipif(not fast.ENABLED, reason="the speed layer is off (MICROGRAD2_REFERENCE=1)")
def test_the_scalar_engine_chose_the_speed_layer_at_import() -> None:
    assert Value.__mul__.__name__ == "fast_Mul" and Value.pieces.unwatched_walk is not None
    assert Value._dot.__name__ == "fast_dot" and mg.Value.pieces is SPEED


def test_micrograd2_reference_1_turns_the_speed_layer_off() -> None:
    code = ("import micrograd2 as mg; from micrograd2 import fast; from micrograd2.scalar import Value;"
            "assert not fast.ENABLED and Value.pieces.unwatched_walk is None and Value.__mul__.__name__ == '__mul__';"
            "x = mg.Value(2.0, requires_grad=True); (x * x).backward(); print(x.grad)")
    env = {**os.environ, "MICROGRAD2_REFERENCE": "1"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4.0"
