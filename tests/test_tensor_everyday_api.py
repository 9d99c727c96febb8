"""Issue 37's Tensor API on the modules it joined (unary, arithmetic, shapes, indexing, reductions) and Value's
method forms: values and gradients worked out by hand (tests/parity/test_tensor_api.py compares with torch)."""
from __future__ import annotations

import math

import pytest

import micrograd2 as mg
from micrograd2.autograd import grad as autograd_grad


def _leaf(data, dtype="float64"):
    return mg.tensor(data, requires_grad=True, dtype=dtype)


def test_method_forms_are_the_operators_nodes() -> None:
    x, y = _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
    assert x.add(y, alpha=2).tolist() == [7.0, 10.0] and x.add(y, alpha=2).grad_fn.name() == "AddBackward0"
    assert x.sub(y, alpha=2).tolist() == [-5.0, -6.0]
    assert x.mul(y).grad_fn.name() == "MulBackward0" and x.div(2).tolist() == [0.5, 1.0]
    assert x.pow(2).grad_fn.name() == x.square().grad_fn.name() == "PowBackward0"
    assert x.neg().tolist() == [-1.0, -2.0]
    assert x.reshape(1, 2).mm(y.reshape(2, 1)).item() == 11.0
    assert x.eq(y).dtype == "bool" and x.lt(y).tolist() == [True, True] and x.ge(2.0).tolist() == [False, True]
    x.add(y, alpha=3).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]


def test_steps_have_zero_constant_gradients() -> None:
    x = _leaf([-1.5, -0.5, 0.0, 2.5])
    assert x.floor().tolist() == [-2.0, -1.0, 0.0, 2.0] and x.ceil().tolist() == [-1.0, -0.0, 0.0, 3.0]
    assert x.round().tolist() == [-2.0, -0.0, 0.0, 2.0] and x.sign().tolist() == [-1.0, -1.0, 0.0, 1.0]
    (g,) = autograd_grad(x.floor().sum(), [x], create_graph=True)
    assert g.tolist() == [0.0] * 4 and not g.requires_grad
    assert _leaf([1.25]).round(decimals=1).grad_fn.name() == "RoundBackward1"
    assert _leaf([4.0]).rsqrt().item() == 0.5 and _leaf([4.0]).reciprocal().item() == 0.25


def test_std_var_and_the_one_element_case() -> None:
    x = _leaf([1.0, 2.0, 3.0, 4.0])
    assert x.var().item() == pytest.approx(5 / 3) and x.var(unbiased=False).item() == 1.25
    assert x.std(correction=0).item() == pytest.approx(math.sqrt(1.25))
    x.var().backward()
    assert x.grad.tolist() == pytest.approx([-1.0, -1 / 3, 1 / 3, 1.0])  # 2/(n−1)·(x − mean)
    one = _leaf([3.0])
    out = one.std()
    out.backward()
    assert math.isnan(out.item()) and math.isnan(one.grad.item())
    const = _leaf([2.0, 2.0])
    const.std().backward()
    assert const.grad.tolist() == [0.0, 0.0]  # std 0: the ratio is masked to 0


def test_prod_with_zeros_and_its_second_derivative() -> None:
    x = _leaf([2.0, 0.0, 3.0])
    (g,) = autograd_grad(x.prod(), [x], create_graph=True)
    assert g.tolist() == [0.0, 6.0, 0.0]
    (h,) = autograd_grad(g[1], [x])
    assert h.tolist() == [3.0, 0.0, 2.0]  # ∂²/∂x₁∂xⱼ: the product of the other two
    two = _leaf([[0.0, 2.0, 0.0]])
    two.prod(1).sum().backward()
    assert two.grad.tolist() == [[0.0, 0.0, 0.0]]


def test_norms_cumsum_logsumexp() -> None:
    x = _leaf([3.0, -4.0])
    assert x.norm().item() == 5.0 and x.norm(1).item() == 7.0 and x.norm(float("inf")).item() == 4.0
    x.norm().backward()
    assert x.grad.tolist() == [0.6, -0.8]
    zero = _leaf([0.0, 0.0])
    zero.norm().backward()
    assert zero.grad.tolist() == [0.0, 0.0]
    c = _leaf([1.0, 2.0, 3.0])
    assert c.cumsum(0).tolist() == [1.0, 3.0, 6.0]
    c.cumsum(0).sum().backward()
    assert c.grad.tolist() == [3.0, 2.0, 1.0]
    s = _leaf([[0.0, 0.0], [-math.inf, -math.inf]])
    assert s.logsumexp(1).tolist() == [math.log(2.0), -math.inf]


def test_shapes_and_gather() -> None:
    x = _leaf([[1.0, 2.0], [3.0, 4.0]])
    assert x.repeat(1, 2).tolist() == [[1.0, 2.0, 1.0, 2.0], [3.0, 4.0, 3.0, 4.0]]
    x.repeat(2, 1, 1).sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert x[0].expand_as(x).grad_fn.name() == "ExpandBackward0" and x.flip(1).tolist()[0] == [2.0, 1.0]
    idx = mg.tensor([[1, 1], [0, 1]], dtype="int64")
    g = x.gather(1, idx)
    assert g.tolist() == [[2.0, 2.0], [3.0, 4.0]]
    x.grad = None
    g.sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0], [1.0, 1.0]]
    assert x.new_zeros(2, 3).shape == (2, 3) and x.new_ones(2).dtype == "float64"


def test_value_has_a_0d_tensors_method_forms() -> None:
    v, w = mg.Value(2.0, requires_grad=True), mg.Value(3.0, requires_grad=True)
    out = v.add(w, alpha=2)
    assert out.item() == 8.0 and out.grad_fn.name() == "AddBackward0"
    out.backward()
    assert w.grad == 2.0
    assert v.mul(w).item() == 6.0 and v.sub(w, alpha=2).item() == -4.0 and v.square().item() == 4.0
    assert v.rsqrt().item() == pytest.approx(2 ** -0.5) and v.reciprocal().item() == 0.5
    assert mg.Value(-0.5).ceil().item() == 0.0 and math.copysign(1.0, mg.Value(-0.5).ceil().item()) < 0
    assert mg.Value(-2.5).floor().item() == -3.0 and mg.Value(-2.0).sign().item() == -1.0
    assert v.lt(w) and v.eq(2.0) and not v.ne(2.0) and w.ge(v)
    with pytest.raises(TypeError, match="What to do"):
        v.mul("a")


def test_the_narration_shows_alpha() -> None:
    v = mg.Value(2.0, requires_grad=True)
    with mg.trace() as t:
        v.add(v * 1.0, alpha=2.5).backward()
    text = t.narrate()
    assert "2.5·" in text and "1.0 × 2.5 = 2.5" in text
    assert mg.Value(1.0, requires_grad=True).sub(3.0, alpha=2).grad_fn._saved_alpha == 2
