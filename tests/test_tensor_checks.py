"""``micrograd2/exercises/tensor_checks.py``: U3's random cases, mistake naming and in-place runs.

The exercises' own pass/fail behaviour (stubs, model solutions, mutants) is in test_exercises.py.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import Mistake

SOLUTION = Path(__file__).parents[1] / "teacher" / "solution_engine" / "u3_tensors.py"
STUB = Path(__file__).parents[1] / "micrograd2" / "course" / "stubs" / "u3_tensors.py"


@pytest.mark.parametrize("seed", ["1", "2", "77"])
def test_every_draw_holds_every_kind_of_case(seed: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tc.SEED_ENV, seed)
    pairs = tc.broadcast_pairs(tc.rng(5))
    assert any(len(s) < len(b) and 1 not in s for s, b in pairs)  # leading axes only
    assert any(len(s) == len(b) and 1 in s and s != b for s, b in pairs)  # size-1 axes only
    assert any(s == () for s, _ in pairs)
    cases = tc.reduction_cases(tc.rng(5))
    assert {k for _, _, k in cases} == {True, False} and any(d is None for _, d, _ in cases)
    assert any(isinstance(d, int) and d < 0 for _, d, _ in cases)
    assert any(isinstance(d, tuple) for _, d, _ in cases)
    n, k, m = tc.matrix_cases(tc.rng(5))[0]
    assert len({n, k, m}) == 3


def test_the_seed_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tc.SEED_ENV, "123")
    assert tc.run_seed() == 123 and "MICROGRAD2_SEED=123" in tc.replay()
    a, b = tc.rng(1).random(), tc.rng(1).random()
    assert a == b and a != tc.rng(2).random()


def test_a_known_wrong_answer_is_named() -> None:
    g = np.arange(24.0).reshape(2, 3, 4)
    wrong = tc.sum_to_mistakes(g, (3, 1))
    assert "without keepdim=True" in tc.named_mistake(g.sum(axis=(0, 2)), wrong)
    assert tc.named_mistake(g.sum(axis=0).sum(axis=1, keepdims=True) + 1, wrong) == ""


def test_the_reference_holes_pass_every_check() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("u3_reference_for_checks", SOLUTION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tc.check_sum_to(module.sum_to, 1)
    tc.check_reduction(module.sum_backward, False, 2)
    tc.check_reduction(module.mean_backward, True, 3)
    tc.check_matmul(module.matmul_backward, 4)


def test_in_place_runs_the_students_hole_and_refuses_a_stub() -> None:
    tc.in_place(SOLUTION, ["matmul_backward"], salt=6)
    with pytest.raises(Mistake, match="matmul_backward is not filled"):
        tc.in_place(STUB, ["matmul_backward"], salt=6)


def test_a_wrong_shape_in_place_is_named_before_the_engine_trips_on_it() -> None:
    assert "shape (2, 3) where the engine needs (3,)" in tc.shape_problem(
        "sum_to", (None, (3,)), np.zeros((2, 3)))
    assert tc.shape_problem("sum_to", (None, (3,)), np.zeros(3)) == ""
