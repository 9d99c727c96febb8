"""U0, on paper (micrograd2/exercises/paper.py), and the tests of its two exercises.

It proves that the generated graphs are the same for a seed, pleasant (a non-leaf used twice,
every value used) and that their gradients by micrograd2's backward agree with central finite
differences and with torch; that every likely mistake is diagnosed as itself on many seeds; that
forward mode (dual numbers) and reverse mode measure the costs the exercise asks about and the
same Jacobian; that the shipped stubs and model solutions are the ones paper.py and stubs.py
make; and, for the public tests of U0.1 and U0.2, that each fails on the stub and on a wrong
worksheet with the message meant for it, and passes on the model solution.
"""
from __future__ import annotations

import importlib.util
import inspect
import itertools
import math
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from micrograd2.exercises import catalog, harness, paper, stubs

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "teacher" / "solutions"
TESTS = catalog.TESTS
_names = itertools.count()


# -- paper.py -------------------------------------------------------------------------------------
def test_a_seed_always_gives_the_same_pleasant_graph() -> None:
    assert paper.generate.__wrapped__(4) == paper.generate(4) != paper.generate(5)  # not the cache
    for seed in range(25):
        graph = paper.generate(seed)
        assert graph.names[-1] == paper.OUTPUT and len(graph.leaves) == 3
        assert set(graph.shared()) - set(graph.leaves), seed
        assert all(graph.uses(n) for n in graph.names[:-1]), seed
        assert {op.kind for op in graph.ops} <= {"leaf", *paper.BINARY, *paper.UNARY}


def test_gradients_by_backward_agree_with_central_differences() -> None:
    for seed in range(25):
        graph = paper.generate(seed)
        exact, numeric = paper.gradients(graph), paper.finite_differences(graph)
        by_hand = paper.by_hand(graph, paper.forward(graph))
        for name in graph.names:
            assert math.isclose(exact[name], numeric[name], rel_tol=1e-6, abs_tol=1e-8), \
                (seed, name)
            assert math.isclose(exact[name], by_hand[name], rel_tol=1e-12), (seed, name)


def test_gradients_agree_with_torch() -> None:
    torch = pytest.importorskip("torch")
    for seed in range(8):
        graph = paper.generate(seed)
        built: dict[str, Any] = {}
        for op in graph.ops:
            if op.kind == "leaf":
                built[op.name] = torch.tensor(op.value, dtype=torch.float64, requires_grad=True)
            else:
                xs = [built[a] for a in op.args]
                built[op.name] = (xs[0] + xs[1] if op.kind == "add" else xs[0] * xs[1]
                                  if op.kind == "mul" else xs[0] ** op.exponent
                                  if op.kind == "pow" else getattr(torch, op.kind)(xs[0]))
        leaves = [built[n] for n in graph.leaves]
        grads = torch.autograd.grad(built[paper.OUTPUT], leaves)
        mine = paper.gradients(graph)
        for name, grad in zip(graph.leaves, grads):
            assert math.isclose(mine[name], float(grad), rel_tol=1e-12), (seed, name)


def test_every_likely_mistake_is_diagnosed_as_itself() -> None:
    checked = 0
    for seed in range(15):
        graph = paper.generate(seed)
        right, values = paper.gradients(graph), paper.forward(graph)
        assert paper.diagnose(graph, right) is None
        for name in graph.names[:-1]:
            for mistake in paper.mistakes(graph, values, right, name):
                message = paper.diagnose(graph, {**right, name: mistake.value})
                assert message is not None and message.startswith(f'dL["{name}"] is ')
                assert message.endswith(mistake.why), (seed, name, message)
                checked += 1
    assert checked > 300


def test_a_wrong_output_gradient_and_an_unknown_mistake() -> None:
    graph = paper.generate(4)
    right = paper.gradients(graph)
    assert "dL/dL is 1" in str(paper.diagnose(graph, {**right, "L": 0.0}))
    message = str(paper.diagnose(graph, {**right, "k": 7.0}))
    assert message == 'dL["k"] is 7, expected 1 from its uses in `L = k + g` (with your dL["L"] = 1)'


def test_the_shape_of_an_answer() -> None:
    graph = paper.generate(4)
    right = paper.gradients(graph)
    assert paper.problem_with(graph, right) is None
    assert "should return a dict" in str(paper.problem_with(graph, [1.0]))
    assert 'no dL/dv for b: fill in dL["b"]' in str(paper.problem_with(
        graph, {k: v for k, v in right.items() if k != "b"}))
    assert "names z, which the graph" in str(paper.problem_with(graph, {**right, "z": 1.0}))
    assert "write a finite number" in str(paper.problem_with(graph, {**right, "a": None}))
    assert "write a finite number" in str(paper.problem_with(graph, {**right, "a": math.nan}))


def test_forward_and_reverse_mode_measure_the_costs_and_one_jacobian() -> None:
    for n, size, m in [(1, 3, 1), (4, 6, 1), (6, 9, 1), (1, 5, 4), (3, 8, 2), (2, 6, 7), (5, 4, 1)]:
        for seed in range(5):
            graph = paper.random_function(seed, n, size, m)
            assert len(graph.ops) == n + size and len(graph.outputs) == m
            assert all(graph.uses(v) for v in graph.names if v not in graph.outputs)
            forward, reverse = paper.forward_mode(graph), paper.reverse_mode(graph)
            assert (forward.passes, forward.ops, reverse.passes) == (n, n * size, m)
            assert m > 1 or reverse.ops == size
            for row_f, row_r in zip(forward.jacobian, reverse.jacobian):
                assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
                           for a, b in zip(row_f, row_r))
    with pytest.raises(ValueError, match="cannot use 1 inputs and leave exactly 5 outputs"):
        paper.random_function(0, 1, 3, 5)


def test_the_worksheet_example_of_u0_2_costs_what_its_model_solution_says() -> None:
    ops = (*(paper.Op(f"x{i}", "leaf", value=0.1 * i) for i in range(1, 5)),
           paper.Op("v1", "mul", ("x1", "x2")), paper.Op("v2", "add", ("v1", "x3")),
           paper.Op("v3", "tanh", ("v2",)), paper.Op("v4", "mul", ("v3", "x4")),
           paper.Op("y", "add", ("v4", "v1")))
    graph = paper.Graph(0, ops, ("y",))
    forward, reverse = paper.forward_mode(graph), paper.reverse_mode(graph)
    model = load(SOLUTIONS / "u0_modes.py", "u0_modes")
    assert (forward.passes, forward.ops) == model.forward_mode_cost(4, 5) == (4, 20)
    assert (reverse.passes, reverse.ops) == model.reverse_mode_cost(4, 5) == (1, 5)
    assert "v1 = x1 * x2" in inspect.getdoc(model)  # type: ignore[operator]


def test_the_shipped_stubs_and_model_solutions_are_made_by_paper_and_stubs() -> None:
    model = paper.worksheet(paper.generate(paper.DEFAULT_SEED), solved=True)
    assert (SOLUTIONS / "u0_gradients.py").read_text(encoding="utf-8") == model
    shipped = catalog.SOURCES / "u0_gradients.py"
    assert shipped.read_text(encoding="utf-8") == stubs.strip_solutions(model, "U0.1")
    modes = (SOLUTIONS / "u0_modes.py").read_text(encoding="utf-8")
    assert (catalog.SOURCES / "u0_modes.py").read_text(encoding="utf-8") == \
        stubs.strip_solutions(modes, "U0.2")


def test_the_command_prints_a_fresh_worksheet(capsys: pytest.CaptureFixture[str]) -> None:
    assert paper.main(["12"]) == 0
    text = capsys.readouterr().out
    assert text == paper.worksheet(paper.generate(12), solved=False)
    assert "SEED = 12" in text and 'dL["a"] = None' in text and "SOLUTION" not in text
    compile(text, "u0_gradients.py", "exec")
    assert paper.main(["--solved"]) == 0
    assert capsys.readouterr().out == paper.worksheet(paper.generate(paper.DEFAULT_SEED))
    assert paper.main(["twelve"]) == 2


# -- the public tests of U0.1 and U0.2, on stubs, model solutions and wrong worksheets -------------
def load(path: Path, name: str) -> ModuleType:
    """``path`` imported as a fresh module."""
    return harness.load_module(path, f"{name}__paper{next(_names)}")


def public_tests(name: str) -> list[Callable[[ModuleType], None]]:
    """The test functions of ``tests/test_<name>.py``, in file order."""
    path = TESTS / f"test_{name}.py"
    spec = importlib.util.spec_from_file_location(f"public_{name}{next(_names)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [f for n, f in vars(module).items() if n.startswith("test_") and inspect.isfunction(f)]
    return sorted(tests, key=lambda f: f.__code__.co_firstlineno)


def failure(test: Callable[[ModuleType], None], module: ModuleType) -> str | None:
    """The message ``test`` fails with on ``module`` (``None``: it passes)."""
    try:
        test(module)
    except Exception as error:  # noqa: BLE001 - any failure counts
        return f"{type(error).__name__}: {error}"
    return None


def variant(tmp_path: Path, name: str, text: str) -> ModuleType:
    path = tmp_path / f"v{next(_names)}" / f"{name}.py"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    return load(path, name)


@pytest.mark.parametrize("name", ["u0_gradients", "u0_modes"])
def test_each_public_test_fails_on_the_stub_and_passes_on_the_model_solution(
        name: str, tmp_path: Path) -> None:
    tests = public_tests(name)
    stub = variant(tmp_path, name, (catalog.SOURCES / f"{name}.py").read_text(encoding="utf-8"))
    model = variant(tmp_path, name, (SOLUTIONS / f"{name}.py").read_text(encoding="utf-8"))
    assert len(tests) >= 4
    for test in tests:
        assert "NotImplementedError" in str(failure(test, stub)), test.__name__
        assert failure(test, model) is None, (test.__name__, failure(test, model))


LEAVES = "test_the_leaves_match_central_finite_differences"
GRAD_MUTANTS = [  # (what is wrong, old line, new line, the tests that fail, the first's message)
    ("a use of g forgotten", 'dL["g"] = dL["k"] * h + dL["L"]', 'dL["g"] = dL["k"] * h',
     {"test_each_gradient_follows_from_the_uses_of_its_value",
      "test_a_value_used_twice_gets_the_sum_of_both_uses",
      "test_the_leaves_match_central_finite_differences"},
     "you left out the use in `L = k + g`: g is used 2 times, and its gradient is the SUM"),
    ("g assigned from its last use", 'dL["g"] = dL["k"] * h + dL["L"]', 'dL["g"] = dL["L"]',
     {"test_each_gradient_follows_from_the_uses_of_its_value",
      "test_a_value_used_twice_gets_the_sum_of_both_uses",
      "test_the_leaves_match_central_finite_differences"},
     "you left out the use in `k = g * h`"),
    ("a sign", 'dL["d"] = dL["f"] * b', 'dL["d"] = -dL["f"] * b',
     {"test_each_gradient_follows_from_the_uses_of_its_value",
      "test_the_leaves_match_central_finite_differences"},
     'dL["d"] is -0.173923, expected 0.173923 from its uses in `f = b * d` (with your '
     'dL["f"] = 0.347845): '
     "the sign is wrong"),
    ("tanh' from its input", 'dL["f"] = dL["h"] * (1 - h ** 2)', 'dL["f"] = dL["h"] * (1 - f ** 2)',
     {"test_each_gradient_follows_from_the_uses_of_its_value",
      "test_the_leaves_match_central_finite_differences"},
     "in `h = tanh(f)`: tanh's derivative is written with its OUTPUT h; you used its input f"),
    ("a product's output for its input", 'dL["h"] = dL["k"] * g', 'dL["h"] = dL["k"] * k',
     {"test_each_gradient_follows_from_the_uses_of_its_value",
      "test_the_leaves_match_central_finite_differences"},
     "in `k = g * h`: you used k, the product's OUTPUT: ∂k/∂h is the other INPUT"),
    ("a power's output for its input", 'dL["a"] = dL["d"] * 3 * a ** 2',
     'dL["a"] = dL["d"] * 3 * d ** 2',
     {"test_each_gradient_follows_from_the_uses_of_its_value",
      "test_the_leaves_match_central_finite_differences"},
     "in `d = a ** 3`: ∂d/∂a is written with the INPUT a; you used the output d"),
    ("the upstream gradient forgotten", 'dL["c"] = dL["g"] * g', 'dL["c"] = g',
     {"test_each_gradient_follows_from_the_uses_of_its_value",
      "test_the_leaves_match_central_finite_differences"},
     'in `g = exp(c)`: you forgot to multiply by the upstream gradient dL["g"]'),
    ("a leaf off by a factor", 'dL["b"] = dL["f"] * d', 'dL["b"] = dL["f"] * d * 2',
     {"test_each_gradient_follows_from_the_uses_of_its_value",
      "test_the_leaves_match_central_finite_differences"},
     'dL["b"] is -2.34796, but the central difference (L(b + h) - L(b - h)) / 2h with h = 1e-05 '
     "gives -1.17398"),
    ("a gradient left out", '    dL["b"] = dL["f"] * d\n', "",
     {"test_every_value_has_a_gradient", "test_each_gradient_follows_from_the_uses_of_its_value",
      "test_a_value_used_twice_gets_the_sum_of_both_uses",
      "test_the_leaves_match_central_finite_differences"},
     'gradients() gives no dL/dv for b: fill in dL["b"] = ...'),
    ("a gradient left None", 'dL["c"] = dL["g"] * g', 'dL["c"] = None',
     {"test_every_value_has_a_gradient", "test_each_gradient_follows_from_the_uses_of_its_value",
      "test_a_value_used_twice_gets_the_sum_of_both_uses",
      "test_the_leaves_match_central_finite_differences"},
     'dL["c"] is None: write a finite number'),
    ("the graph edited", "b = 0.5\n", "b = 0.6\n",
     {"test_every_value_has_a_gradient", "test_each_gradient_follows_from_the_uses_of_its_value",
      "test_a_value_used_twice_gets_the_sum_of_both_uses",
      "test_the_leaves_match_central_finite_differences"},
     "b is 0.6 in your file, but 0.5 in the graph of SEED 4: leave the graph as written"),
]


@pytest.mark.parametrize("wrong, old, new, failing, message", GRAD_MUTANTS,
                         ids=[m[0] for m in GRAD_MUTANTS])
def test_a_wrong_gradient_worksheet_fails_with_the_message_meant_for_it(
        wrong: str, old: str, new: str, failing: set[str], message: str, tmp_path: Path) -> None:
    model = (SOLUTIONS / "u0_gradients.py").read_text(encoding="utf-8")
    assert model.count(old) == 1, old
    module = variant(tmp_path, "u0_gradients", model.replace(old, new))
    outcomes = {test.__name__: failure(test, module) for test in public_tests("u0_gradients")}
    assert {name for name, error in outcomes.items() if error} == failing, outcomes
    said = outcomes[LEAVES] if wrong == "a leaf off by a factor" else \
        next(error for error in outcomes.values() if error)
    assert message in str(said), said


def test_a_mistake_carried_down_is_named_where_it_starts(tmp_path: Path) -> None:
    model = (SOLUTIONS / "u0_gradients.py").read_text(encoding="utf-8")
    module = variant(tmp_path, "u0_gradients", model.replace('dL["k"] * g', 'dL["k"] * k'))
    graph = paper.generate(4)
    got, right = module.gradients(), paper.gradients(graph)
    wrong = [n for n in graph.names if not paper.close(got[n], right[n])]
    assert wrong == ["a", "b", "d", "f", "h"]
    assert str(paper.diagnose(graph, got)).startswith('dL["h"] is ')


MODE_MUTANTS = [  # (what is wrong, old, new, the tests that fail, the message)
    ("one forward pass", "return n_inputs, n_inputs * n_ops", "return 1, n_inputs * n_ops",
     {"test_forward_mode_needs_one_pass_per_input"},
     "forward_mode_cost(2, 5) predicts 1 passes; forward mode on a random 2-input function of 5 "
     "ops ran 2: a dual number carries the derivative along ONE input's direction"),
    ("forward ops counted once", "return n_inputs, n_inputs * n_ops", "return n_inputs, n_ops",
     {"test_forward_mode_evaluates_every_op_in_every_pass"},
     "forward_mode_cost(2, 5) predicts 5 dual-number ops; forward mode evaluated 10 (2 passes × 5"),
    ("a backward pass per input", "return 1, n_ops", "return n_inputs, n_ops",
     {"test_reverse_mode_needs_one_backward_pass"},
     "reverse_mode_cost(2, 5) predicts 2 backward passes; reverse mode on a random 2-input "
     "function ran 1"),
    ("backward calls per input", "return 1, n_ops", "return 1, n_inputs * n_ops",
     {"test_reverse_mode_calls_each_node_once"},
     "reverse_mode_cost(2, 5) predicts 10 backward calls; one backward pass over 5 ops called 5"),
    ("the modes swapped", '"forward" if n_inputs < n_outputs else "reverse"',
     '"reverse" if n_inputs < n_outputs else "forward"', {"test_the_cheaper_mode_for_a_jacobian"},
     "cheaper_mode(1, 4) says 'reverse'; for f: R^1 -> R^4 forward mode ran 1 passes"),
    ("not a pair", "return n_inputs, n_inputs * n_ops", "return [n_inputs, n_inputs * n_ops]",
     {"test_forward_mode_needs_one_pass_per_input",
      "test_forward_mode_evaluates_every_op_in_every_pass"},
     "forward_mode_cost(1, 3) should return a pair of ints (passes, ops), got [1, 3]"),
]


@pytest.mark.parametrize("wrong, old, new, failing, message", MODE_MUTANTS,
                         ids=[m[0] for m in MODE_MUTANTS])
def test_a_wrong_cost_prediction_fails_with_the_message_meant_for_it(
        wrong: str, old: str, new: str, failing: set[str], message: str, tmp_path: Path) -> None:
    model = (SOLUTIONS / "u0_modes.py").read_text(encoding="utf-8")
    assert model.count(old) == 1, old
    module = variant(tmp_path, "u0_modes", model.replace(old, new))
    outcomes = {test.__name__: failure(test, module) for test in public_tests("u0_modes")}
    assert {name for name, error in outcomes.items() if error} == failing, outcomes
    first = next(error for error in outcomes.values() if error)
    assert message in first, first
