"""The pristine tests' helpers (micrograd2/exercises/harness.py): the student's module, a wrong backward explained.

It proves that ``student_path`` looks in the grader's workspace, then next to the tests, and never anywhere
else (a missing file is ``MissingModule``, saying where it looked), and ``load_module`` loads a module once;
that ``check_backward`` names the first step of the backward walk that differs by its place (not its node's
name), a backward that ignores the upstream gradient, a different graph, and a wrong forward first; that
``engine_order`` is the order the engine visits (against a trace, on random graphs); and ``close``/``show``.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises import harness
from micrograd2.exercises.harness import Mistake


def test_load_student_looks_in_the_graders_workspace_then_next_to_the_tests_and_nowhere_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = "ex01_mul_sum"
    (tmp_path / "tests").mkdir()
    (tmp_path / f"{name}.py").write_text("X = 1\n")
    monkeypatch.delenv(harness.WORKSPACE_ENV, raising=False)
    assert harness.student_path(name, str(tmp_path / "tests" / "test_x.py")) == tmp_path / f"{name}.py"
    with pytest.raises(harness.MissingModule, match="^no workspace to find ex01_mul_sum.py in: set "):
        harness.student_path(name, None)
    with pytest.raises(harness.MissingModule, match="^ex02_x.py is missing from .*: this exercise fails"):
        harness.load_student("ex02_x", str(tmp_path / "tests" / "test_x.py"))
    monkeypatch.setenv(harness.WORKSPACE_ENV, str(tmp_path / "elsewhere"))
    with pytest.raises(harness.MissingModule, match=f"^{name}.py is missing from {tmp_path / 'elsewhere'}: "):
        harness.student_path(name, str(tmp_path / "tests" / "test_x.py"))
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / f"{name}.py").write_text("X = 2\n")
    assert harness.student_path(name, str(tmp_path / "tests" / "test_x.py")) == tmp_path / "elsewhere" / f"{name}.py"
    module = harness.load_module(tmp_path / f"{name}.py", "student_under_test")
    assert module.X == 1 and harness.load_module(tmp_path / f"{name}.py", "student_under_test") is module


def test_check_backward_names_the_first_differing_step_by_its_place_not_its_name() -> None:
    class Times(mg.Function):  # wrong on purpose: d(x·c)/dx is c, this says 3
        @staticmethod
        def forward(ctx: Any, x: float, c: float) -> float:
            return x * c

        @staticmethod
        def backward(ctx: Any, grad: float) -> tuple[float, None]:
            return 3 * grad, None

    with pytest.raises(Mistake) as caught:
        harness.check_backward(lambda a: (Times.apply(a, 2.0) * a).tanh(), lambda a: ((a * 2.0) * a).tanh(),
                               [0.5], "f")
    message = str(caught.value)
    assert message.startswith("step 3 of the backward walk of f (x0=0.5): node TimesBackward (the reference's "
                              "MulBackward0), output 1.0, upstream gradient 0.393224: its gradient for input 0 is "
                              "1.17967, expected 0.786448 (all inputs: got (1.17967), expected (0.786448))")
    harness.check_backward(lambda a: (a * 2 * a).tanh(), lambda a: ((a * 2.0) * a).tanh(), [0.5])


def test_a_backward_that_ignores_the_upstream_gradient_is_named() -> None:
    class Times(mg.Function):  # wrong on purpose: forgets to multiply by grad
        @staticmethod
        def forward(ctx: Any, x: float, c: float) -> float:
            return x * c

        @staticmethod
        def backward(ctx: Any, grad: float) -> tuple[float, None]:
            return 2.0, None

    with pytest.raises(Mistake, match="expected 6.0 .*: the local derivatives are right but the upstream "
                                      "gradient is ignored; multiply each by it"):
        harness.check_backward(lambda a: Times.apply(a, 2.0) * 3.0, lambda a: (a * 2.0) * 3.0, [0.5])
    with pytest.raises(Mistake) as caught:  # another mistake: no such sentence
        harness.check_backward(lambda a: Times.apply(a, 2.0) * 3.0, lambda a: (a * 5.0) * 3.0, [0.5])
    assert "upstream gradient is ignored" not in str(caught.value)


def test_check_backward_reports_a_different_graph() -> None:
    with pytest.raises(Mistake, match="^step 2 of the backward walk \\(x0=0.0\\): node MulBackward0 \\(the "
                                      "reference's TanhBackward0\\), output 0.0: backward returned 2 gradients, "
                                      "expected 1$"):
        harness.check_backward(lambda a: (a * 1.0).exp(), lambda a: a.tanh().exp(), [0.0])


def test_check_backward_reports_a_wrong_forward_first() -> None:
    with pytest.raises(Mistake, match="forward of f \\(x0=3.0\\) is wrong: got 9.0, expected 6.0"):
        harness.check_backward(lambda a: a * a, lambda a: a * 2.0, [3.0], "f")


def test_engine_order_is_the_order_the_engine_visits() -> None:
    rng = random.Random(0)
    for _ in range(20):
        xs = [mg.Value(rng.uniform(-1, 1), requires_grad=True) for _ in range(3)]
        pool = list(xs)
        for _ in range(rng.randrange(2, 25)):
            a, b = rng.choice(pool), rng.choice(pool)
            pool.append([a * b, a + b, a.tanh(), mg.sum([a, b, a])][rng.randrange(4)])
        root = mg.sum(pool[-3:])
        expected = [n.name() for n in harness.engine_order(root) if n.name() != "AccumulateGrad"]
        with mg.trace() as t:
            root.backward()
        assert [e.node for e in t.events if e.kind == "backward"] == expected


def test_close_and_show() -> None:
    assert harness.close(1.0, 1.0 + 1e-12) and not harness.close(1.0, 1.1)
    assert harness.close(float("nan"), float("nan")) and harness.close(None, None) and not harness.close(None, 0.0)
    assert [harness.show(x) for x in (3.0, 0.4199743416140261, None, float("inf"))] == ["3.0", "0.419974", "None",
                                                                                        "inf"]

