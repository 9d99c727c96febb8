"""The exercises themselves: each one's public tests fail on its stub, pass on its model solution
(teacher/solutions/, not installed), and catch deliberately wrong solutions (mutants) with the message
meant for them.

These tests are about several modules at once (each exercise's stub, model solution and public tests, with
``stubs`` and ``harness``); the catalog's own tests are in test_catalog.py, the stub maker's in test_stubs.py
and the harness's in test_harness.py."""
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
SOLUTIONS = Path(__file__).resolve().parents[1] / "teacher" / "solutions"
_names = itertools.count()


def solution(exercise: catalog.Exercise) -> str:
    """The model solution of ``exercise`` (with its ``# BEGIN SOLUTION`` markers)."""
    return (SOLUTIONS / exercise.filename).read_text(encoding="utf-8")


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
    model = load_variant(tmp_path, exercise, solution(exercise))
    tests = pristine_tests(exercise)
    assert len(tests) >= 4
    for test in tests:
        assert outcome(test, stub) is not None, f"{test.__name__} passes on the stub"
        error = outcome(test, model)
        assert error is None, f"{test.__name__} fails on the model solution: {error!r}"


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

HYPOT_GRADIENTS = "(grad_output * a / h if need_a else None), (grad_output * b / h if need_b else None)"
HYPOT_SWAPPED = "(grad_output * b / h if need_a else None), (grad_output * a / h if need_b else None)"
HYPOT_SAVED = ("ctx.save_for_backward(a, b, h)\n", "a, b, h = ctx.saved_tensors\n")
HYPOT_ON_CTX = ("ctx.a, ctx.b, ctx.h = a, b, h\n", "a, b, h = ctx.a, ctx.b, ctx.h\n")

MUTANTS = [
    (1, "Mul.backward swaps the factors", "return grad * b, grad * a", "return grad * a, grad * b",
     "test_mul_backward_matches_the_builtin_walk",
     "step 1 of the backward walk of a * b (x0=3.0, x1=4.0): node MulBackward (the reference's MulBackward0)"),
    (1, "Mul.backward ignores the upstream gradient", "return grad * b, grad * a", "return b, a",
     "test_mul_backward_matches_the_builtin_walk", "the local derivatives are right but the upstream gradient "
     "is ignored; multiply each by it"),
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
    (7, "Hypot's gradients swapped", HYPOT_GRADIENTS, HYPOT_SWAPPED, "test_hypot_passes_gradcheck",
     "gradcheck fails for Hypot"),
    (7, "Hypot's gradients swapped, seen in the walk", HYPOT_GRADIENTS, HYPOT_SWAPPED,
     "test_backward_walk_matches_the_reference",
     "node HypotBackward, output 1.58114, upstream gradient 2.0: its gradient for input 0 is"),
    (7, "input kept on ctx", ("ctx.save_for_backward(x)\n        return 2 * x * x", "(x,) = ctx.saved_tensors\n"),
     ("ctx.x = x\n        return 2 * x * x", "x = ctx.x\n"), "test_saved_inputs_are_checked_for_in_place_changes",
     "SquareAndDouble: its input was changed in place"),
    (7, "Hypot's inputs kept on ctx", HYPOT_SAVED, HYPOT_ON_CTX, "test_saved_inputs_are_checked_for_in_place_changes",
     "Hypot: its input was changed in place after forward, yet backward ran silently with the old number: keep "
     "inputs with ctx.save_for_backward(...), not as attributes of ctx"),
    (7, "a gradient for a plain-number input", "need_a, need_b = ctx.needs_input_grad\n",
     "need_a = need_b = True\n", "test_hypot_passes_gradcheck",
     "returned a gradient for an input that is a plain number: return None for it"),
    (8, "unscale_ multiplies by the scale", "p.grad = p.grad * inv_scale", "p.grad = p.grad * self._scale",
     "test_unscale_divides_every_gradient_by_the_scale", "undoes the scaling of each existing p.grad"),
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
    ("U4.1", "XSin's backward on math.sin and math.cos", "return grad * (sin(x) + x * cos(x))",
     "return grad * (math.sin(x) + x * math.cos(x))", "test_xsin_first_and_second_derivatives",
     "your backward used plain numbers: the second derivative is lost; write it with Value ops"),
    ("U4.1", "Softplus's backward on floats only", "return grad / (1 + exp(-x))",
     "return grad / (1 + math.exp(-float(x)))", "test_softplus_first_and_second_derivatives",
     "with no grad_fn: your backward used plain numbers"),
    ("U4.1", "sin on math.sin always", "return x.sin() if isinstance(x, mg.Value) else math.sin(x)",
     "return math.sin(x)", "test_sin_cos_exp_record_on_values_and_compute_on_floats",
     "not a recorded Value: your backward used plain numbers"),
    ("U4.1", "hvp without create_graph", "create_graph=True, allow_unused=True)",
     "allow_unused=True)",
     "test_hvp_matches_finite_differences_of_the_gradient", "take it with create_graph=True"),
    ("U4.1", "XSin's backward on Value methods", "return grad * (sin(x) + x * cos(x))",
     "return grad * (x.sin() + x * x.cos())", "test_xsin_first_and_second_derivatives",
     "without create_graph a backward receives plain floats"),
    ("U4.1", "XSin's derivative sin x + cos x", "return grad * (sin(x) + x * cos(x))",
     "return grad * (sin(x) + cos(x))", "test_xsin_first_and_second_derivatives",
     "XSin's derivative at x = -2.0 is"),
    ("U4.2", "the clamp not returned", "return max(-limit, min(limit, grad))",
     "max(-limit, min(limit, grad))", "test_clamp_hook_clamps_both_ways", "returned None"),
    ("U4.2", "clamped from above only", "return max(-limit, min(limit, grad))",
     "return min(limit, grad)", "test_clamp_hook_clamps_both_ways", "from below as well"),
    ("U4.2", "a lambda made in the loop", "value.register_hook(recorder(name))",
     "value.register_hook(lambda g: log.append((name, abs(float(g)))))",
     "test_record_norms_logs_each_name_and_changes_no_gradient", "every hook logged the name 'k'"),
    ("U4.2", "the recorder returns the norm", "log.append((name, abs(float(grad))))\n",
     "log.append((name, abs(float(grad))))\n            return abs(float(grad))\n",
     "test_record_norms_logs_each_name_and_changes_no_gradient", "a recording hook must return None"),
    ("U4.2", "the handles dropped", "return [v.register_hook(clamp_hook(limit)) for v in values]",
     "for v in values:\n        v.register_hook(clamp_hook(limit))\n    return []",
     "test_clip_gradients_hands_back_removable_handles", "return what register_hook returns"),
    ("U4.3", "recomputed with grad mode off", "with mg.enable_grad():", "if True:",
     "test_the_gradients_equal_the_unchecked_ones", "recompute under `with mg.enable_grad():`"),
    ("U4.3", "f called without the checkpoint", "return Checkpoint.apply(f, *inputs)",
     "return f(*inputs)", "test_one_node_and_only_the_inputs_are_kept_after_forward",
     "keeps 5 nodes alive after forward"),
    ("U4.3", "a gradient for a plain-number input",
     "return (None, *[g if need else None for g, need in zip(grads, needs)])",
     "return (None, *grads)", "test_a_plain_number_input_gets_none",
     "where ctx.needs_input_grad is False"),
    ("U4.3", "AccumulateGrad counted in the prediction", "return n_ops, 1", "return n_ops + 1, 2",
     "test_your_predicted_saving_matches_the_measurement", "predicted_nodes(1) = (2, 2), measured (1, 1)"),
    ("U4.4", "the product rule forgotten", "self.tangent * other.value + self.value * other.tangent",
     "self.tangent * other.tangent", "test_sums_and_products_carry_the_tangent", "the product rule"),
    ("U4.4", "tanh' = 1 - t", "(1 - t * t) * self.tangent", "(1 - t) * self.tangent",
     "test_tanh_and_exp_apply_the_chain_rule", "tanh's derivative at the value"),
    ("U4.4", "all inputs seeded in one pass", "[1.0 if j == i else 0.0 for j in range(n)]", "[1.0] * n",
     "test_both_jacobians_equal_reverse_modes", "jacobian_forward of a random f: R^3 -> R^1"),
    ("U4.4", "f run again for each output", "    for out in outs:\n",
     "    for k in range(len(outs)):\n        out = f(*leaves)[k]\n",
     "test_the_passes_each_mode_makes_are_measured", "jacobian_reverse ran f 7 times, expected 1"),
    ("U3.1", "only the leading axes summed", "    return grad.sum(ones, keepdim=True) if ones else grad",
     "    return grad", "test_sum_to_on_random_broadcast_shapes", "(and grad does not) were not summed: sum them too"),
    ("U3.1", "size-1 axes summed without keepdim", "grad.sum(ones, keepdim=True)", "grad.sum(ones)",
     "test_an_axis_of_size_one_stays_in_the_shape", "without keepdim=True: their 1s must stay"),
    ("U3.1", "leading axes not summed", "    if lead:\n        grad = grad.sum(tuple(range(lead)))\n",
     "",
     "test_sum_to_on_random_broadcast_shapes", "the leading axes were not summed away"),
    ("U3.1", "the last axes summed instead of the leading ones", "grad = grad.sum(tuple(range(lead)))",
     "grad = grad.sum(tuple(range(grad.ndim - lead, grad.ndim)))", "test_sum_to_on_random_broadcast_shapes",
     "summed the wrong axes: the leading axes are the FIRST"),
    ("U3.1", "only the leading axes summed, in place", "    return grad.sum(ones, keepdim=True) if ones else grad",
     "    return grad", "test_broadcasting_ops_pass_gradcheck_with_your_sum_to_in_place",
     "with your sum_to in place of the core's"),
    ("U3.2", "the mean not divided by n", "(grad.reshape(kept) / float(n)).expand(*shape)",
     "grad.reshape(kept).expand(*shape)", "test_mean_backward_on_random_reductions",
     "you forgot to divide by n, the number of elements averaged"),
    ("U3.2", "the mean divided by x.numel()", "n = math.prod(shape) // math.prod(kept)", "n = math.prod(shape)",
     "test_the_mean_of_a_row_divides_by_the_rows_length", "divided by x.numel() (10)"),
    ("U3.2", "grad expanded without the kept axes", "return grad.reshape(kept).expand(*shape)  #",
     "return grad.expand(*shape)  #", "test_sum_backward_on_random_reductions", "reshape grad to kept"),
    ("U3.2", "the mean not divided by n, in place", "(grad.reshape(kept) / float(n)).expand(*shape)",
     "grad.reshape(kept).expand(*shape)", "test_reductions_pass_gradcheck_with_yours_in_place",
     "with your mean_backward in place of the core's: gradcheck fails for x.mean("),
    ("U3.3", "NumPy's transpose for two axes", "return np.swapaxes(x, dim0, dim1)", "return x.transpose(dim0, dim1)",
     "test_transpose_gives_the_builtin_numbers", "swap two with np.swapaxes(x, dim0, dim1)"),
    ("U3.3", "Reshape's backward keeps the output's shape", "return grad.reshape(*ctx.input_shape), None",
     "return grad, None", "test_reshape_passes_gradcheck_on_random_shapes", "backward returns a gradient of "
     "the INPUT's shape"),
    ("U3.3", "Transpose's backward does not swap back", "return grad.transpose(*ctx.dims), None, None",
     "return grad, None, None", "test_transpose_passes_gradcheck_on_random_shapes", "the INPUT's shape"),
    ("U3.4", "grad_a and grad_b swapped", "    return grad_a, grad_b\n", "    return grad_b, grad_a\n",
     "test_matmul_backward_on_random_products", "grad_a and grad_b are swapped"),
    ("U3.4", "b not transposed", "grad @ b.t()", "grad @ b", "test_matmul_backward_on_random_products",
     "the shapes must chain"),
    ("U3.4", "grad_b transposed", "a.t() @ grad  #", "grad.t() @ a  #", "test_matmul_backward_on_random_products",
     "that is grad_b transposed"),
    ("U3.4", "an unneeded gradient computed", "grad_a = None if b is None else grad @ b.t()",
     "grad_a = grad @ b.t()", "test_only_the_needed_gradient_is_computed", "b is None: a needs no gradient"),
    ("U3.4", "grad_a and grad_b swapped, in place", "    return grad_a, grad_b\n", "    return grad_b, grad_a\n",
     "test_a_matrix_product_passes_gradcheck_with_yours_in_place", "with your matmul_backward in place"),
    ("U3.5", "the graph not retained", "grad_outputs=one_hot, retain_graph=True)", "grad_outputs=one_hot)",
     "test_the_jacobian_matches_finite_differences",
     "keep it for the next pass with retain_graph=True"),
    ("U3.5", "the Jacobian transposed", 'return mg.tensor(rows, dtype="float64")',
     'return mg.tensor(rows, dtype="float64").t()', "test_the_jacobian_matches_finite_differences",
     "row i is the gradient of output i"),
    ("U3.5", "one pass's visits predicted for all", "return n_outputs, n_outputs * nodes",
     "return n_outputs, nodes", "test_the_predicted_cost_is_the_measured_one", "each pass walks the whole graph"),
    ("U3.5", "one pass per input predicted", "return n_outputs, n_outputs * nodes",
     "return n_inputs, n_inputs * nodes", "test_the_predicted_cost_is_the_measured_one", "counted"),
    ("U1.0", "* assigns instead of adding", "self.grad += other.data * out.grad\n            other.grad +=",
     "self.grad = other.data * out.grad\n            other.grad =",
     "test_a_value_used_twice_gets_the_sum_of_its_gradients", "x.grad is 3.0, expected 6.0 (micrograd2): x is "
     "used 2 times (in z 2 times) and 3.0 is what its use in z alone sends back.  A _backward that assigns "
     "instead of adding: a value used twice gets one gradient"),
    ("U1.0", "+ assigns instead of adding", "self.grad += out.grad\n            other.grad += out.grad",
     "self.grad = out.grad\n            other.grad = out.grad",
     "test_a_diamond_gets_the_gradient_of_both_paths", "a is used 2 times (in tanh(a), a+1)"),
    ("U1.0", "the topological order not reversed", "return topo[::-1]", "return topo",
     "test_block2_backward_gives_the_articles_gradients", "it ends with the root: that is a topological order"),
    ("U1.0", "pre-order, not reversed", ("for child in value._prev:\n                build(child)\n"
                                         "            topo.append(value)", "return topo[::-1]"),
     ("topo.append(value)\n            for child in value._prev:\n                build(child)\n"
      "            pass", "return topo"), "test_the_order_puts_each_value_before_its_inputs",
     "the diamond: reverse_topological_order: a comes at position 2, before tanh(a) at position 6, which was "
     "computed from it: the order visits a node before its consumer"),
    ("U1.0", "backward() runs the closures inputs first", "in reverse_topological_order(self):",
     "in reversed(reverse_topological_order(self)):", "test_a_diamond_gets_the_gradient_of_both_paths",
     "backward() called the _backward closures in a wrong order"),
    ("U1.0", "the root not seeded", "        self.grad = 1.0\n        for", "        for",
     "test_block2_backward_gives_the_articles_gradients", "z.grad is 0.0 after backward(), expected 1.0"),
    ("U1.0", "tanh' = 1 - t", "(1.0 - t * t) * out.grad", "(1.0 - t) * out.grad",
     "test_a_diamond_gets_the_gradient_of_both_paths", "the _backward of tanh(a) sends 0.61482 back to a, "
     "expected 0.284631"),
    ("U1.0", "the inputs not kept", "self._prev = tuple(_children)", "self._prev = ()",
     "test_block2_backward_gives_the_articles_gradients", "x[0] cannot be reached from the root through _prev"),
]


def mutate(exercise: catalog.Exercise, old: str | tuple[str, ...] | None, new: str | tuple[str, ...]) -> str:
    """The model solution with ``old`` replaced by ``new`` (tuples: pair by pair; ``old`` None: the whole
    solution block)."""
    source = solution(exercise)
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
    paper = {e.id for e in EXERCISES if e.unit == "U0"}  # U0's wrong worksheets are in test_paper.py
    engine = {"U1.3", "U2.3", "U5.6"}  # wrong engines, not solutions: test_course_units.py
    assert {catalog.get(m[0]).id for m in MUTANTS} == set(catalog.IDS) - paper - engine


def test_a_mul_backward_that_ignores_the_upstream_gradient_fails_each_test_of_its_backward(tmp_path: Path) -> None:
    exercise = catalog.get("U1.1")
    wrong = (SOLUTIONS.parent / "mutants" / "public" / exercise.filename).read_text(encoding="utf-8")
    module = load_variant(tmp_path, exercise, wrong)
    failing = [t.__name__ for t in pristine_tests(exercise) if outcome(t, module) is not None]
    assert failing == ["test_mul_backward_matches_the_builtin_walk",
                       "test_block1_dot_product_gives_the_articles_gradients"]
