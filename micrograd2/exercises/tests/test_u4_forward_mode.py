"""U4.4 — Forward mode with dual numbers: the public tests (the grader runs these, not your copy).

Random functions f: R^n -> R^m of + * tanh exp are run on the student's Duals and, for the
reference, on micrograd2's Values with one backward pass per output (reverse mode).  The passes
each mode makes are counted: f's calls on Duals, f's calls on Values and the backward passes
(a hook on each output fires once per backward pass started from it).
"""
from __future__ import annotations

import math
import random
from types import ModuleType
from typing import Any, Callable

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import expect, load_student, show

pytestmark = [pytest.mark.u4, pytest.mark.u4_4]

Function = Callable[..., list[Any]]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u4_forward_mode", __file__)


def random_function(seed: int, n: int, m: int, n_ops: int = 8) -> Function:
    """f: R^n -> R^m, ``n_ops`` random ops (a + b, a · b, tanh a, exp(tanh a)) over the inputs;
    its outputs are the last m values."""
    rng = random.Random(seed)
    plan = []
    for k in range(n_ops):
        size = n + k
        plan.append((rng.choice(("add", "mul", "tanh", "exp")), rng.randrange(size),
                     rng.randrange(size), rng.uniform(-1.5, 1.5)))

    def f(*xs: Any) -> list[Any]:
        values = list(xs)
        for kind, i, j, c in plan:
            a, b = values[i], values[j]
            values.append(a + b * c if kind == "add" else a * b if kind == "mul"
                          else (a * c).tanh() if kind == "tanh" else a.tanh().exp())
        return values[-m:]

    return f


def reference_jacobian(f: Function, xs: list[float]) -> list[list[float]]:
    """J, one row per output, by the core's mg.autograd.functional.jacobian."""
    rows = mg.autograd.functional.jacobian(lambda *v: tuple(f(*v)), tuple(mg.Value(x) for x in xs))
    return [[float(d) for d in row] for row in rows]


def close(got: Any, want: float) -> bool:
    return isinstance(got, float) and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


def dual(student: ModuleType, value: float, tangent: float) -> tuple[float, float]:
    d = student.Dual(value, tangent)
    return d.value, d.tangent


def test_sums_and_products_carry_the_tangent(student: ModuleType) -> None:
    D = student.Dual
    cases = [("Dual(2, 1) + Dual(3, 0.5)", lambda: D(2.0, 1.0) + D(3.0, 0.5), 5.0, 1.5),
             ("Dual(2, 1) + 4", lambda: D(2.0, 1.0) + 4.0, 6.0, 1.0),
             ("4 + Dual(2, 1)", lambda: 4.0 + D(2.0, 1.0), 6.0, 1.0),
             ("Dual(2, 1) * Dual(3, 0.5)", lambda: D(2.0, 1.0) * D(3.0, 0.5), 6.0, 4.0),
             ("Dual(2, 1) * 5", lambda: D(2.0, 1.0) * 5.0, 10.0, 5.0),
             ("5 * Dual(2, 1)", lambda: 5.0 * D(2.0, 1.0), 10.0, 5.0)]
    for text, make, value, tangent in cases:
        got = make()
        expect(close(got.value, value) and close(got.tangent, tangent),
               f"{text} = {got!r}, expected Dual({value}, {tangent}): a product's tangent has one "
               "term per factor (the product rule), and a plain number is a Dual with tangent 0")


def test_tanh_and_exp_apply_the_chain_rule(student: ModuleType) -> None:
    for x, v in ((0.5, 1.0), (-1.2, 2.0), (0.0, -0.5)):
        t, e = student.Dual(x, v).tanh(), student.Dual(x, v).exp()
        want_t = (math.tanh(x), (1 - math.tanh(x) ** 2) * v)
        want_e = (math.exp(x), math.exp(x) * v)
        expect(close(t.value, want_t[0]) and close(t.tangent, want_t[1]),
               f"Dual({x}, {v}).tanh() = {t!r}, expected Dual({show(want_t[0])}, "
               f"{show(want_t[1])}): the tangent is tanh's derivative at the value times the "
               "incoming tangent (the chain rule)")
        expect(close(e.value, want_e[0]) and close(e.tangent, want_e[1]),
               f"Dual({x}, {v}).exp() = {e!r}, expected Dual({show(want_e[0])}, "
               f"{show(want_e[1])}): the tangent is exp's derivative at the value times the "
               "incoming tangent (the chain rule)")


def test_jvp_matches_reverse_mode_on_random_functions(student: ModuleType) -> None:
    for seed in range(12):
        rng = random.Random(1000 + seed)
        n, m = rng.randint(1, 4), rng.randint(1, 3)
        f = random_function(seed, n, m)
        xs = [rng.uniform(-1, 1) for _ in range(n)]
        vs = [rng.uniform(-2, 2) for _ in range(n)]
        values, tangents = student.jvp(f, xs, vs)
        jac = reference_jacobian(f, xs)
        want = [sum(jac[r][i] * vs[i] for i in range(n)) for r in range(m)]
        with mg.no_grad():
            outs = [o.data for o in f(*[mg.Value(x) for x in xs])]
        expect(len(values) == m and all(close(float(a), b) for a, b in zip(values, outs)),
               f"jvp's outputs of random function {seed} are {values}, expected {outs}")
        expect(len(tangents) == m and all(math.isclose(float(a), b, rel_tol=1e-9, abs_tol=1e-12)
                                          for a, b in zip(tangents, want)),
               f"jvp of random function {seed} at x = {[show(x) for x in xs]} along v = "
               f"{[show(v) for v in vs]} gave J·v = {[show(t) for t in tangents]}; reverse mode "
               f"gives {[show(w) for w in want]}")


def test_both_jacobians_equal_reverse_modes(student: ModuleType) -> None:
    for seed, (n, m) in enumerate(((1, 4), (3, 1), (3, 2), (2, 3))):
        f = random_function(50 + seed, n, m)
        xs = [0.3 * (i + 1) * (-1) ** i for i in range(n)]
        want = reference_jacobian(f, xs)
        for name in ("jacobian_forward", "jacobian_reverse"):
            got = getattr(student, name)(f, xs)
            ok = len(got) == m and all(len(row) == n and all(
                math.isclose(float(a), b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(row, w))
                for row, w in zip(got, want))
            expect(ok, f"{name} of a random f: R^{n} -> R^{m} gave {got}, expected {want} (one "
                   "row per output; column i is the derivative along input i alone: tangent 1 "
                   "on input i, 0 on the others)")


class Counted:
    """``f`` with its calls counted by the kind of its inputs, and a hook on each Value output
    that counts the backward passes started from it."""

    def __init__(self, f: Function) -> None:
        self.f, self.on_duals, self.on_values, self.backwards = f, 0, 0, 0

    def __call__(self, *xs: Any) -> list[Any]:
        outs = [out * 1.0 for out in self.f(*xs)]  # used by no other output: one hook call per pass
        if isinstance(xs[0], mg.Value):
            self.on_values += 1
            for out in outs:
                out.register_hook(self.count)
        else:
            self.on_duals += 1
        return outs

    def count(self, grad: Any) -> None:
        self.backwards += 1


def test_the_passes_each_mode_makes_are_measured(student: ModuleType) -> None:
    for n, m in ((1, 6), (6, 1), (2, 3)):
        forward, reverse = Counted(random_function(7, n, m)), Counted(random_function(7, n, m))
        student.jacobian_forward(forward, [0.5] * n)
        student.jacobian_reverse(reverse, [0.5] * n)
        expect(forward.on_duals == n and forward.on_values == 0,
               f"for f: R^{n} -> R^{m}, jacobian_forward ran f {forward.on_duals} times on "
               f"Duals, expected {n}: one pass per input direction, whatever m is")
        expect(reverse.on_values == 1,
               f"for f: R^{n} -> R^{m}, jacobian_reverse ran f {reverse.on_values} times, "
               "expected 1: one forward pass records the graph, then backward it once per "
               "output with retain_graph=True")
        expect(reverse.backwards == m,
               f"for f: R^{n} -> R^{m}, jacobian_reverse ran {reverse.backwards} backward "
               f"passes, expected {m}: one per output, whatever n is")
