"""What Values share with Tensors: flags, .grad on leaves only, retain_grad, hooks (E3, E10)."""
from __future__ import annotations

import warnings

import pytest
from conftest import Two

import micrograd2 as mg


def test_grad_of_non_leaf_is_none_with_pytorchs_warning() -> None:
    x = mg.Value(2.0, requires_grad=True)
    h = x * 2
    (h * h).backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert h.grad is None
    assert x.grad == 16.0


def test_retain_grad_keeps_grad_on_a_non_leaf() -> None:
    x = mg.Value(2.0, requires_grad=True)
    h = x * 2
    h.retain_grad()
    (h * h).backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert h.grad == 8.0 and h.retains_grad
    assert x.grad == 16.0


@pytest.mark.parametrize("make", [lambda v: mg.Value(v, requires_grad=True),
                                  lambda v: mg.tensor(v, requires_grad=True, dtype="float64")])
def test_retain_grad_follows_an_in_place_op_other_hooks_stay(make) -> None:
    x = make(2.0)
    y = x * 2
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(float(g)))
    y.mul_(3)  # y: 4 -> 12
    (y * y).backward()
    assert float(y.grad) == 24.0  # d(y²)/dy at the newest y, as PyTorch
    assert seen == [72.0]  # the hook registered before sees the gradient of the old y (3 · 24)
    assert float(x.grad) == 144.0


def test_retain_grad_accumulates_across_backward_calls() -> None:
    x = mg.Value(1.0, requires_grad=True)
    h = x * 3
    h.retain_grad()
    y = h * 2
    y.backward(retain_graph=True)
    y.backward()
    assert h.grad == 4.0 and x.grad == 12.0


def test_retain_grad_on_a_value_without_grad_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        mg.Value(1.0).retain_grad()


def test_hook_on_a_leaf_doubles_its_gradient_and_can_be_removed() -> None:
    x = mg.Value(1.0, requires_grad=True)
    handle = x.register_hook(lambda g: g * 2)
    (x * 3).backward()
    assert x.grad == 6.0
    x.grad = None
    handle.remove()
    (x * 3).backward()
    assert x.grad == 3.0


def test_hook_on_a_non_leaf_changes_what_flows_on() -> None:
    x = mg.Value(1.0, requires_grad=True)
    h = x * 3
    h.register_hook(lambda g: g * 2)
    h.backward()
    assert x.grad == 6.0


def test_hook_returning_none_observes_without_changing() -> None:
    seen = []
    x = mg.Value(2.0, requires_grad=True)
    y = x * x
    y.register_hook(seen.append)
    y.backward()
    assert seen == [1.0] and x.grad == 4.0


def test_retain_grad_sees_the_gradient_after_other_hooks() -> None:
    x = mg.Value(1.0, requires_grad=True)
    h = x * 3
    h.retain_grad()
    h.register_hook(lambda g: g * 10)
    h.backward()
    assert h.grad == 10.0 and x.grad == 30.0


def test_hook_on_a_value_without_grad_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mg.Value(1.0).register_hook(lambda g: g)


def test_requires_grad_underscore_returns_self() -> None:
    v = mg.Value(1.0)
    assert v.requires_grad_() is v and v.requires_grad


@pytest.mark.parametrize("make", [lambda v: mg.Value(v, requires_grad=True),
                                  lambda v: mg.tensor(v, requires_grad=True, dtype="float64")])
def test_backward_with_inputs_fills_only_their_grad(make) -> None:
    x, w = make(2.0), make(3.0)
    h = x * w
    y = h * h
    y.backward(inputs=[w, h], retain_graph=True)  # a non-leaf input gets .grad (and keeps it), as PyTorch
    assert x.grad is None and float(w.grad) == 2 * 6.0 * 2.0 and float(h.grad) == 12.0
    y.backward(inputs=w)  # one Variable is enough; h retains its gradient from now on
    assert float(w.grad) == 48.0 and float(h.grad) == 24.0 and x.grad is None
    with pytest.raises(RuntimeError, match="'inputs' argument to backward\\(\\) cannot be empty"):
        (x * 1).backward(inputs=[])


def test_backward_with_inputs_matches_torch() -> None:
    torch = pytest.importorskip("torch")

    def run(make):
        x, w = make([1.0, 2.0]), make([3.0, 4.0])
        h = x * w
        y = (h * h).sum()
        y.backward(inputs=[w, h], retain_graph=True)
        y.backward(inputs=w, retain_graph=True)
        y.backward()
        return [t.grad.tolist() for t in (x, w, h)]

    assert run(lambda v: mg.tensor(v, requires_grad=True, dtype="float64")) == run(
        lambda v: torch.tensor(v, requires_grad=True, dtype=torch.float64))


def test_output_nr_says_which_output_of_its_node_a_variable_is() -> None:
    x = mg.Value(1.5, requires_grad=True)
    first, second = Two.apply(x)
    assert (x.output_nr, (x * 2).output_nr, first.output_nr, second.output_nr) == (0, 0, 0, 1)
    assert (second * 1).grad_fn.next_functions[0] == (second.grad_fn, second.output_nr)
    with mg.no_grad():
        assert Two.apply(x)[1].output_nr == 0  # not recorded: no node


def test_assigning_a_number_to_a_tensors_grad_is_a_type_error() -> None:
    t = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None but got grad "
                                        "of type float"):
        t.grad = 0.0
    v = mg.Value(1.0, requires_grad=True)
    v.grad = 0.0  # a Value's .grad is a float


def test_a_grad_with_history_is_added_to_in_place() -> None:
    x, w = mg.tensor([1.0, 2.0], requires_grad=True), mg.tensor([1.0, 1.0], requires_grad=True)
    x.grad = w * 2
    first = x.grad
    (x * 3).sum().backward()
    assert x.grad is first and x.grad.grad_fn.name() == "MulBackward0" and x.grad._version == 1
    assert x.grad.tolist() == [5.0, 5.0]
