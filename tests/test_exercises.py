"""The exercises themselves: each one's pristine tests fail on its stub, pass on its reference solution,
and catch deliberately wrong solutions (mutants) with the message meant for them.

These tests are about several modules at once (each exercise's source and pristine tests, with ``stubs`` and
``harness``); the catalog's own tests are in test_catalog.py, the stub maker's in test_stubs.py and the
harness's in test_harness.py."""
from __future__ import annotations

import importlib.util
import inspect
import itertools
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from micrograd2.exercises import catalog, harness, stubs
from micrograd2.exercises.harness import Mistake

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
     "test_tanh_backward_matches_the_builtin_walk",
     "ex02_activations.py:33 in Tanh.backward: step 2 of the backward walk"),  # the student's backward
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
