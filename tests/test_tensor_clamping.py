"""``clamp``/``clip``, ``clamp_min``, ``clamp_max`` (``micrograd2/tensors/clamping.py``): values, gradients,
NaN, ties with a bound, and Tensor bounds, checked by finite differences and by hand (torch: tests/parity)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import micrograd2 as mg

NAN, INF = math.nan, math.inf


def _values(t) -> list[float]:
    return [float(v) for v in np.ravel(t.detach().numpy())]


def test_clamp_holds_each_element_in_the_bounds() -> None:
    x = mg.tensor([-3.0, -1.0, 0.5, 1.0, 4.0], requires_grad=True, dtype="float64")
    y = x.clamp(-1.0, 1.0)
    assert y.tolist() == [-1.0, -1.0, 0.5, 1.0, 1.0] and y.grad_fn.name() == "ClampBackward1"
    y.backward(mg.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype="float64"))
    assert x.grad.tolist() == [0.0, 2.0, 3.0, 4.0, 0.0]  # at a bound the gradient passes (PyTorch's subgradient)


def test_nan_passes_and_gets_no_gradient() -> None:
    x = mg.tensor([NAN, 0.0], requires_grad=True)
    y = x.clamp(min=-1.0)
    assert math.isnan(y.tolist()[0])
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]


def test_a_nan_bound_makes_nan_and_no_gradient() -> None:
    x = mg.tensor([1.0, -1.0], requires_grad=True)
    y = x.clamp(min=NAN)
    assert all(math.isnan(v) for v in y.tolist())
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_an_element_equal_to_a_bound_is_kept_with_its_sign() -> None:
    assert math.copysign(1.0, mg.tensor([-0.0]).clamp(min=0.0).item()) < 0
    assert math.copysign(1.0, mg.tensor([0.0]).clamp(max=-0.0).item()) > 0


def test_an_empty_range_gives_the_upper_bound() -> None:
    assert mg.tensor([0.0, 5.0, -5.0]).clamp(2.0, 1.0).tolist() == [1.0, 1.0, 1.0]


def test_clamp_min_max_and_clip_names() -> None:
    x = mg.tensor([0.5, 2.0], requires_grad=True)
    assert x.clamp_min(1.0).grad_fn.name() == "ClampMinBackward0" and x.clamp_min(1.0).tolist() == [1.0, 2.0]
    assert x.clamp_max(1.0).grad_fn.name() == "ClampMaxBackward0" and x.clamp_max(1.0).tolist() == [0.5, 1.0]
    assert x.clip(0.0, 1.0).grad_fn.name() == "ClampBackward1"
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        x.clamp()


def test_tensor_bounds_give_each_side_its_gradient() -> None:
    x = mg.tensor([0.5, -3.0, 3.0, 1.0], requires_grad=True, dtype="float64")
    lo = mg.tensor([-1.0, -1.0, -1.0, 2.0], requires_grad=True, dtype="float64")
    hi = mg.tensor([1.0, 1.0, 1.0, 0.0], requires_grad=True, dtype="float64")
    y = x.clamp(lo, hi)
    assert y.tolist() == [0.5, -1.0, 1.0, 0.0] and y.grad_fn.name() == "ClampBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert lo.grad.tolist() == [0.0, 1.0, 0.0, 0.0]  # x < lo, and lo < hi
    assert hi.grad.tolist() == [0.0, 0.0, 1.0, 1.0]  # x > hi, or hi < lo (hi is the result there)


def test_gradcheck_away_from_the_bounds() -> None:
    x = mg.tensor([-2.0, -0.3, 0.2, 0.9, 3.0], requires_grad=True, dtype="float64")
    assert mg.autograd.gradcheck(lambda t: (t.clamp(-0.5, 1.0) * t).sum(), (x,))
    lo = mg.tensor([-0.5, 0.0, 0.0, 1.5, 1.0], requires_grad=True, dtype="float64")
    assert mg.autograd.gradcheck(lambda t, b: (t.clamp(min=b) ** 2).sum(), (x, lo))


def test_integer_tensors_stay_integers_with_integer_bounds() -> None:
    x = mg.tensor([1, 5, 3], dtype="int64")
    assert x.clamp(2, 4).dtype == "int64" and x.clamp(2, 4).tolist() == [2, 4, 3]
    assert x.clamp(2.5, 4).dtype == "float32" and x.clamp(2.5, 4).tolist() == [2.5, 4.0, 3.0]


@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (0.0, None), (None, 0.0), (-INF, INF)])
def test_second_derivative_is_zero(bounds) -> None:
    x = mg.tensor([-2.0, 0.5, 2.0], requires_grad=True, dtype="float64")
    (g,) = mg.autograd.grad((x.clamp(*bounds) ** 2).sum(), (x,), create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), (x,))
    lo, hi = (-INF if bounds[0] is None else bounds[0]), (INF if bounds[1] is None else bounds[1])
    assert _values(h) == [2.0 if lo <= v <= hi else 0.0 for v in (-2.0, 0.5, 2.0)]
