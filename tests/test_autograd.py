"""mg.autograd: grad() without touching .grad, create_graph for higher orders, backward() (E9, E11)."""
from __future__ import annotations

import pytest

import micrograd2 as mg


def test_grad_returns_gradients_and_leaves_dot_grad_untouched() -> None:
    x = mg.Value(1.0, requires_grad=True)
    x.grad = 100.0
    (g,) = mg.autograd.grad(x * 3, x)
    assert g == 3.0 and x.grad == 100.0
    (x * 3).backward()
    assert x.grad == 103.0
    fresh = mg.Value(1.0, requires_grad=True)
    mg.autograd.grad(fresh * 3, [fresh])
    assert fresh.grad is None


def test_second_derivative_of_x_cubed_at_2_is_12() -> None:
    x = mg.Value(2.0, requires_grad=True)
    y = x**3
    (dy,) = mg.autograd.grad(y, x, create_graph=True)
    assert dy.data == 12.0 and dy.grad_fn is not None
    (d2y,) = mg.autograd.grad(dy, x)
    assert d2y == 12.0


def test_third_derivative_through_exp_uses_the_saved_output_graph() -> None:
    x = mg.Value(0.5, requires_grad=True)
    (g1,) = mg.autograd.grad(x.exp(), x, create_graph=True)
    (g2,) = mg.autograd.grad(g1, x, create_graph=True)
    (g3,) = mg.autograd.grad(g2, x)
    assert g3 == pytest.approx(1.6487212707001282)


def test_backward_with_create_graph_makes_grad_a_value_with_grad_fn() -> None:
    x = mg.Value(2.0, requires_grad=True)
    (x**3).backward(create_graph=True)
    assert isinstance(x.grad, mg.Value) and x.grad.data == 12.0 and x.grad.grad_fn is not None


def test_grad_of_an_unused_input_is_an_error_unless_allowed() -> None:
    x, u = mg.Value(1.0, requires_grad=True), mg.Value(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="Tensor at index 1 appears to not have been used in the graph"):
        mg.autograd.grad(x * 2, [x, u])
    assert mg.autograd.grad(x * 2, [x, u], allow_unused=True) == (2.0, None)


def test_grad_with_respect_to_a_non_leaf() -> None:
    x = mg.Value(2.0, requires_grad=True)
    h = x * 3
    (g,) = mg.autograd.grad(h * h, h)
    assert g == 12.0


def test_grad_of_an_output_without_grad_fn_names_the_problem() -> None:
    x = mg.Value(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        mg.autograd.grad(mg.Value(2.0) * 2, x)


def test_grad_outputs_seed_the_walk() -> None:
    x = mg.Value(1.0, requires_grad=True)
    assert mg.autograd.grad(x * 3, x, grad_outputs=2.0) == (6.0,)


def test_autograd_backward_of_several_roots() -> None:
    x = mg.Value(1.0, requires_grad=True)
    mg.autograd.backward([x * 2, x * 3])
    assert x.grad == 5.0
