"""The exercises themselves: each one's pristine tests fail on its stub, pass on its reference solution,
and catch deliberately wrong solutions (mutants) with the message meant for them; plus the catalog, the
stub maker and the harness the pristine tests use."""
from __future__ import annotations

import configparser
import importlib.util
import inspect
import itertools
import random
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

import micrograd2 as mg
from micrograd2.exercises import catalog, harness, stubs
from micrograd2.exercises.harness import Mistake

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = catalog.EXERCISES
_names = itertools.count()


# -- running the pristine tests in this process ------------------------------------------------------
def pristine_tests(exercise: catalog.Exercise) -> list[Callable[..., None]]:
    """The test functions of ``exercise``'s pristine test file, in file order."""
    spec = importlib.util.spec_from_file_location(f"pristine_{exercise.name}", exercise.test_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [f for name, f in vars(module).items() if name.startswith("test_") and inspect.isfunction(f)]
    return sorted(tests, key=lambda f: f.__code__.co_firstlineno)


def load_variant(tmp_path: Path, exercise: catalog.Exercise, text: str) -> ModuleType:
    """``text`` imported as a student's module for ``exercise`` (a fresh module each time)."""
    path = tmp_path / f"variant{next(_names)}" / exercise.filename
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    return harness.load_module(path, f"{exercise.name}__variant{next(_names)}")


def outcome(test: Callable[..., None], module: ModuleType) -> BaseException | None:
    """Run one pristine test on ``module``: the exception it raised, or None if it passed."""
    try:
        test(module)
    except Exception as error:  # noqa: BLE001 - any failure counts
        return error
    return None


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_every_pristine_test_fails_on_the_stub_and_passes_on_the_solution(exercise: catalog.Exercise,
                                                                         tmp_path: Path) -> None:
    stub = load_variant(tmp_path, exercise, stubs.stub(exercise))
    solution = load_variant(tmp_path, exercise, exercise.source.read_text(encoding="utf-8"))
    tests = pristine_tests(exercise)
    assert len(tests) >= 4
    for test in tests:
        assert outcome(test, stub) is not None, f"{test.__name__} passes on the stub"
        error = outcome(test, solution)
        assert error is None, f"{test.__name__} fails on the reference solution: {error!r}"


# -- mutants: (exercise, what is wrong, source text, its replacement, the test that catches it, the message) --
RECURSIVE_DFS = '''order: list[Node] = []
    seen: set[Node] = set()

    def visit(node: Node | None) -> None:
        if node is None or node in seen:
            return
        seen.add(node)
        for nxt, _ in node.next_functions:
            visit(nxt)
        order.append(node)

    visit(root.grad_fn)
    return order[::-1]'''

PRE_ORDER_DFS = '''order: list[Node] = []
    stack = [root.grad_fn] if root.grad_fn is not None else []
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
    return order'''

SEEN_PRE_ORDER = '''order: list[Node] = []
    seen: set[Node] = set()
    stack = [root.grad_fn] if root.grad_fn is not None else []
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
    return order'''

MUTANTS = [
    (1, "Mul.backward swaps the factors", "return grad * b, grad * a", "return grad * a, grad * b",
     "test_mul_backward_matches_the_builtin_walk",
     "step 1 of the backward walk of a * b (x0=3.0, x1=4.0): node MulBackward (the reference's MulBackward0)"),
    (1, "Sum.backward divides by n", "return (grad,) * ctx.n", "return (grad / ctx.n,) * ctx.n",
     "test_sum_backward_sends_the_upstream_gradient_to_every_input", "node SumBackward (the reference's SumBackward0)"),
    (2, "tanh' = 1 - t", "return grad * (1 - t * t)", "return grad * (1 - t)",
     "test_tanh_backward_matches_the_builtin_walk", "node TanhBackward (the reference's TanhBackward0)"),
    (2, "sigmoid' = s", "return grad * s * (1 - s)", "return grad * s",
     "test_sigmoid_backward_matches_the_builtin_walk", "its gradient for input 0 is"),
    (3, "recursive depth-first search", None, RECURSIVE_DFS,
     "test_a_100000_deep_chain_works_without_recursion", "RecursionError on a chain of 100000 ops"),
    (3, "pre-order without a seen set", None, PRE_ORDER_DFS,
     "test_a_reused_non_leaf_comes_after_all_its_consumers", "appears twice"),
    (3, "pre-order with a seen set", None, SEEN_PRE_ORDER,
     "test_a_reused_non_leaf_comes_after_all_its_consumers", "before its consumer"),
    (4, "= instead of += for a reused non-leaf", "grads[nxt] = grads.get(nxt, 0.0) + g", "grads[nxt] = g",
     "test_a_reused_non_leaf_gets_the_sum_of_all_its_gradients", "add (+=) into your dictionary, don't assign (=)"),
    (4, "= instead of += for a leaf used twice", "grads[nxt] = grads.get(nxt, 0.0) + g", "grads[nxt] = g",
     "test_a_leaf_used_twice_gets_the_sum_of_both_gradients", "x0.grad is 3.0, expected 6.0"),
    (4, "a leaf's .grad overwritten", "leaf.grad = grad if leaf.grad is None else leaf.grad + grad",
     "leaf.grad = grad", "test_leaf_gradients_accumulate_across_calls_as_in_pytorch", "don't overwrite it"),
    (5, "missing normalization", "loss = loss_fn(batch[k * size:(k + 1) * size]) / n_micro",
     "loss = loss_fn(batch[k * size:(k + 1) * size])", "test_accumulated_gradients_equal_the_full_batch_gradient",
     "the missing normalization"),
    (5, "old gradients kept", "    for p in params:\n        p.grad = None\n", "",
     "test_old_gradients_do_not_count", "still holds the 100.0"),
    (6, "target not detached", "with mg.no_grad():\n            y = r if done", "if True:\n            y = r if done",
     "test_no_gradient_reaches_the_target_network", "gradient flowed into the target network"),
    (6, "target not detached, semi-gradient", "with mg.no_grad():\n            y = r if done",
     "if True:\n            y = r if done", "test_semi_gradient_when_the_target_is_the_online_network",
     "the gradient also flowed through the target"),
    (6, "soft update recorded in grad mode", "with mg.no_grad():\n        for target_p",
     "if True:\n        for target_p", "test_soft_update_moves_the_target_in_place",
     "do the update under `with mg.no_grad():`"),
    (6, "soft update with tau swapped", "target_p.mul_(1 - tau).add_(tau * p.data)",
     "target_p.mul_(tau).add_((1 - tau) * p.data)", "test_soft_update_moves_the_target_in_place",
     "after soft_update(tau=0.1)"),
    (7, "SquareAndDouble's derivative 2x", "return grad_output * 4 * x", "return grad_output * 2 * x",
     "test_square_and_double_passes_gradcheck", "gradcheck fails for SquareAndDouble"),
    (7, "Hypot's gradients swapped", "return grad_output * a / h, grad_output * b / h",
     "return grad_output * b / h, grad_output * a / h", "test_hypot_passes_gradcheck", "gradcheck fails for Hypot"),
    (7, "Hypot's gradients swapped, seen in the walk", "return grad_output * a / h, grad_output * b / h",
     "return grad_output * b / h, grad_output * a / h", "test_backward_walk_matches_the_reference",
     "node HypotBackward, output 1.58114, upstream gradient 2.0: its gradient for input 0 is"),
    (7, "input kept on ctx", ("ctx.save_for_backward(x)\n        return 2 * x * x", "(x,) = ctx.saved_tensors\n"),
     ("ctx.x = x\n        return 2 * x * x", "x = ctx.x\n"), "test_saved_inputs_are_checked_for_in_place_changes",
     "SquareAndDouble: its input was changed in place"),
    (8, "unscale_ multiplies by the scale", "p.grad = p.grad * inv_scale", "p.grad = p.grad * self._scale",
     "test_unscale_divides_every_gradient_by_the_scale", "multiply each existing p.grad by 1/scale"),
    (8, "no second-unscale guard", "if self._unscaled:\n            raise", "if False:\n            raise",
     "test_unscale_twice_before_update_raises", "a second unscale_() before update() should raise"),
    (8, "step always unscales", "if not self._unscaled:\n            self.unscale_(optimizer)",
     "self.unscale_(optimizer)", "test_step_after_unscale_does_not_unscale_again",
     "step() after unscale_() raised"),
    (8, "step never skips", "        if self._found_inf:\n            return None\n", "",
     "test_a_step_with_inf_or_nan_is_skipped_and_the_scale_backs_off", "skip optimizer.step()"),
    (8, "growth count not restarted after a skip",
     "self._scale *= self.backoff_factor\n            self._growth_tracker = 0",
     "self._scale *= self.backoff_factor", "test_the_scale_grows_after_growth_interval_clean_steps", "IN A ROW"),
    (9, "gradients never zeroed", "optimizer.zero_grad()\n    loss = moons_loss", "loss = moons_loss",
     "test_gradients_do_not_leak_from_one_step_to_the_next", "clear the gradients (optimizer.zero_grad())"),
    (9, "step before backward", "loss.backward()\n    optimizer.step()", "optimizer.step()\n    loss.backward()",
     "test_the_step_uses_this_steps_gradient", "train_step did not change any parameter"),
]


def mutate(exercise: catalog.Exercise, old: str | tuple[str, ...] | None, new: str | tuple[str, ...]) -> str:
    """The reference source with ``old`` replaced by ``new`` (tuples: pair by pair; ``old`` None: the whole
    solution block)."""
    source = exercise.source.read_text(encoding="utf-8")
    if isinstance(old, tuple):
        for o, n in zip(old, new):
            assert source.count(o) == 1, f"{o!r} should occur once in {exercise.filename}"
            source = source.replace(o, n)
        return source
    assert isinstance(new, str)
    if old is None:  # replace the (only) solution block's body
        begin = source.index(stubs.BEGIN)
        start = source.index("\n", begin) + 1
        end = source.rindex("\n", 0, source.index(stubs.END)) + 1
        indent = source[source.rindex("\n", 0, begin) + 1: begin]
        return source[:start] + indent + new + "\n" + source[end:]
    assert source.count(old) == 1, f"{old!r} should occur once in {exercise.filename}"
    return source.replace(old, new)


@pytest.mark.parametrize("number, wrong, old, new, test_name, message", MUTANTS,
                         ids=[f"ex{m[0]}-{m[1]}" for m in MUTANTS])
def test_a_wrong_solution_is_caught_with_the_intended_message(number: int, wrong: str, old: Any, new: Any,
                                                               test_name: str, message: str, tmp_path: Path) -> None:
    exercise = catalog.get(number)
    module = load_variant(tmp_path, exercise, mutate(exercise, old, new))
    test = next(t for t in pristine_tests(exercise) if t.__name__ == test_name)
    error = outcome(test, module)
    assert isinstance(error, Mistake), f"{wrong}: {test_name} gave {error!r}, expected a Mistake"
    assert message in str(error), f"{wrong}: the message was {str(error)!r}"


def test_every_exercise_has_a_mutant() -> None:
    assert {m[0] for m in MUTANTS} == set(catalog.NUMBERS)


# -- the catalog ---------------------------------------------------------------------------------------------
def test_the_catalog_lists_one_source_and_one_test_file_per_exercise_in_lesson_order() -> None:
    assert list(catalog.NUMBERS) == list(range(1, len(EXERCISES) + 1)) and len(EXERCISES) >= 8
    assert [e.lesson for e in EXERCISES] == sorted(e.lesson for e in EXERCISES)
    assert sorted(p.name for p in catalog.SOURCES.glob("ex*.py")) == [e.filename for e in EXERCISES]
    assert sorted(p.name for p in catalog.TESTS.glob("test_*.py")) == [e.test_file.name for e in EXERCISES]
    for e in EXERCISES:
        assert e.name.startswith(f"ex{e.number:02d}_")
        assert f"pytestmark = pytest.mark.{e.marker}\n" in e.test_file.read_text(encoding="utf-8")
        assert len(e.hints) >= 3 and all(e.hints)


def test_markers_are_registered_in_the_workspace_ini_and_in_setup_cfg() -> None:
    for path, section in ((catalog.PYTEST_INI, "pytest"), (ROOT / "setup.cfg", "tool:pytest")):
        cfg = configparser.ConfigParser()
        cfg.read(path)
        registered = {line.split(":")[0].strip() for line in cfg[section]["markers"].splitlines() if line.strip()}
        assert {e.marker for e in EXERCISES} <= registered, path


def test_hints_and_unknown_numbers() -> None:
    assert catalog.hint(3, 1) == catalog.get(3).hints[0]
    assert "ctx.save_for_backward" in catalog.hint(1, 2)
    with pytest.raises(KeyError, match="valid numbers: 1-9"):
        catalog.get(42)
    with pytest.raises(IndexError, match="hints 1-3"):
        catalog.hint(1, 4)


# -- stubs ------------------------------------------------------------------------------------------------------
def test_strip_solutions_replaces_each_block_by_one_raise_naming_the_method() -> None:
    source = (
        "class Mul:\n"
        "    def forward(ctx, a, b):\n"
        "        \"\"\"doc\"\"\"\n"
        "        # BEGIN SOLUTION\n"
        "        return a * b\n"
        "        # END SOLUTION\n"
        "\n"
        "def f(x):\n"
        "    y = 1\n"
        "    # BEGIN SOLUTION: compute y from x\n"
        "    y = x\n"
        "    # END SOLUTION\n"
        "    return y\n"
    )
    stub = stubs.strip_solutions(source, 4)
    assert 'raise NotImplementedError("Exercise 4: implement Mul.forward")' in stub
    assert '    raise NotImplementedError("Exercise 4: compute y from x")\n    return y\n' in stub
    assert "a * b" not in stub and "y = x" not in stub and "SOLUTION" not in stub
    assert stubs.solution_lines(source) == ["return a * b", "y = x"]


@pytest.mark.parametrize("source, problem", [
    ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n", "inside the block"),
    ("# END SOLUTION\n", "without a"),
    ("def f():\n    # BEGIN SOLUTION\n    pass\n", "never closed"),
])
def test_strip_solutions_rejects_unbalanced_markers(source: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        stubs.strip_solutions(source, 1)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_each_stub_compiles_raises_for_its_exercise_and_holds_no_solution(exercise: catalog.Exercise) -> None:
    source = exercise.source.read_text(encoding="utf-8")
    stub = stubs.stub(exercise)
    compile(stub, exercise.filename, "exec")
    assert f'raise NotImplementedError("Exercise {exercise.number}: ' in stub
    assert "SOLUTION" not in stub
    blocks = source.count(stubs.BEGIN)
    assert blocks >= 1 and stub.count("raise NotImplementedError(") == blocks
    assert len(stub.splitlines()) == len(source.splitlines()) - len(stubs.solution_lines(source)) - blocks - \
        sum(1 for line in _block_lines(source) if not line.strip())


def _block_lines(source: str) -> list[str]:
    inside, lines = False, []
    for line in source.splitlines():
        if stubs.BEGIN in line:
            inside = True
        elif stubs.END in line:
            inside = False
        elif inside:
            lines.append(line)
    return lines


def test_a_workspace_holds_stubs_tests_readme_and_ini_but_no_solution(tmp_path: Path) -> None:
    written = stubs.make_workspace(tmp_path / "class1")
    names = sorted(str(p.relative_to(tmp_path / "class1")) for p in written)
    assert "README.md" in names and "pytest.ini" in names
    for e in EXERCISES:
        assert (tmp_path / "class1" / e.filename).read_text(encoding="utf-8") == stubs.stub(e)
        assert (tmp_path / "class1" / "tests" / e.test_file.name).read_text() == e.test_file.read_text()
    readme = (tmp_path / "class1" / "README.md").read_text(encoding="utf-8")
    assert all(e.title in readme for e in EXERCISES) and "{exercise_table}" not in readme
    with pytest.raises(FileExistsError):
        stubs.make_workspace(tmp_path / "class1")
    (tmp_path / "class1" / "notes.txt").write_text("mine")
    (tmp_path / "class1" / "ex01_mul_sum.py").write_text("edited")
    stubs.make_workspace(tmp_path / "class1", force=True)
    assert (tmp_path / "class1" / "notes.txt").read_text() == "mine"
    assert (tmp_path / "class1" / "ex01_mul_sum.py").read_text() == stubs.stub(catalog.get(1))


# -- the harness -------------------------------------------------------------------------------------------------
def test_load_student_looks_in_the_graders_workspace_then_next_to_the_tests_then_the_sources(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = "ex01_mul_sum"
    (tmp_path / "tests").mkdir()
    (tmp_path / f"{name}.py").write_text("X = 1\n")
    monkeypatch.delenv(harness.WORKSPACE_ENV, raising=False)
    assert harness.student_path(name, str(tmp_path / "tests" / "test_x.py")) == tmp_path / f"{name}.py"
    assert harness.student_path(name, None) == catalog.SOURCES / f"{name}.py"
    monkeypatch.setenv(harness.WORKSPACE_ENV, str(tmp_path / "elsewhere"))
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
                              "1.17967, expected 0.786448 (all inputs: got (1.17967, None), expected (0.786448, None))")
    harness.check_backward(lambda a: (a * 2 * a).tanh(), lambda a: ((a * 2.0) * a).tanh(), [0.5])


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
