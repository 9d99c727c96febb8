"""What a torch user types on a Value or a Tensor, next to torch 2.13: conveniences, dtypes, promotion, views, repr."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import graph_shape, same  # noqa: E402

import micrograd2 as mg  # noqa: E402


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


def tv(x, requires_grad=True):
    return torch.tensor(x, dtype=torch.float64, requires_grad=requires_grad)


# -- Value conveniences ----------------------------------------------------------------------------------
def test_unary_plus() -> None:
    x, t = mg.Value(1.5, requires_grad=True), tv(1.5)
    assert (+x) is x and (+t) is t


@pytest.mark.parametrize("x", [2.7, -2.7, 2.5, -0.5])
def test_int_of_a_value(x: float) -> None:
    assert int(mg.Value(x)) == int(torch.tensor(x, dtype=torch.float64))


@pytest.mark.parametrize("x", [2.5, 3.5, -2.5, 2.675, float("inf"), float("nan")])
@pytest.mark.parametrize("decimals", [0, 2])
def test_round_rounds_half_to_even_as_tensor_round(x: float, decimals: int) -> None:
    v, t = mg.Value(x, requires_grad=True), tv(x)
    ours = v.round(decimals=decimals) if decimals else v.round()
    theirs = t.round(decimals=decimals) if decimals else t.round()
    assert same(ours.data, theirs.item()) and same(round(v, decimals).data, theirs.item())
    assert graph_shape(ours.grad_fn) == graph_shape(theirs.grad_fn)
    ours.backward()
    theirs.backward()
    assert v.grad == t.grad.item() == 0.0


def test_clone_is_a_copy_in_the_graph() -> None:
    x, t = mg.Value(1.5, requires_grad=True), tv(1.5)
    c, tc = x.clone(), t.clone()
    assert graph_shape(c.grad_fn) == graph_shape(tc.grad_fn)
    c.backward()
    assert x.grad == 1.0


def test_detach_in_place_makes_a_leaf() -> None:
    y, ty = mg.Value(1.5, requires_grad=True) * 2, tv(1.5) * 2
    assert y.detach_() is y and y.is_leaf and not y.requires_grad and y.grad_fn is None
    assert ty.detach_() is ty and ty.is_leaf and not ty.requires_grad


def test_requires_grad_true_on_a_non_leaf_is_a_no_op() -> None:
    y, ty = mg.Value(1.5, requires_grad=True) * 2, tv(1.5) * 2
    assert ty.requires_grad_() is ty
    assert y.requires_grad_() is y and y.grad_fn is not None


def test_requires_grad_false_on_a_non_leaf_raises() -> None:
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        (tv(1.5) * 2).requires_grad_(False)
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        (mg.Value(1.5, requires_grad=True) * 2).requires_grad_(False)


# -- integer tensors and promotion --------------------------------------------------------------------------
def test_a_cast_to_int64_does_not_require_grad() -> None:
    x, t = mg.tensor([1.5, 2.5], requires_grad=True), torch.tensor([1.5, 2.5], requires_grad=True)
    assert x.long().requires_grad == t.long().requires_grad is False


def test_number_power_of_an_int_tensor_stays_int() -> None:
    assert (2 ** mg.tensor([1, 2], dtype="int64")).dtype == "int64"
    assert (2 ** torch.tensor([1, 2])).dtype == torch.int64


def _dtype_name(x) -> str:
    return str(x.dtype).replace("torch.", "")


PROMOTIONS = {
    "int_tensor_times_float": lambda lib, t: t(lib, [1, 2], "int64") * 1.5,
    "int_tensor_plus_int": lambda lib, t: t(lib, [1, 2], "int64") + 1,
    "float32_plus_float64_0d": lambda lib, t: t(lib, [1.0], "float32") + t(lib, 1.0, "float64"),
    "float16_plus_float32_0d": lambda lib, t: t(lib, [1.0], "float16") + t(lib, 1.0, "float32"),
    "int_tensor_plus_float32_0d": lambda lib, t: t(lib, [1, 2], "int64") + t(lib, 1.0, "float32"),
    "float32_0d_plus_float64_0d": lambda lib, t: t(lib, 1.0, "float32") + t(lib, 1.0, "float64"),
    "float16_times_python_float": lambda lib, t: t(lib, [1.0], "float16") * 2.5,
    "bool_plus_int": lambda lib, t: t(lib, [True], "bool") + 1,
}
PROMOTION_BUGS = {
    "float32_plus_float64_0d": "a 0-d float64 Tensor widens a float32 Tensor; torch's 0-d operands of the same "
                               "category don't",
    "float16_plus_float32_0d": "a 0-d float32 Tensor widens a float16 Tensor; torch's 0-d operands of the same "
                               "category don't",
}


def _make(lib, data, dtype):
    if lib is mg:
        return mg.tensor(data, dtype=dtype)
    return torch.tensor(data, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("name", [pytest.param(n, marks=[xfail(PROMOTION_BUGS[n])] if n in PROMOTION_BUGS else [])
                                  for n in PROMOTIONS])
def test_promotion_follows_torchs_categories(name: str) -> None:
    ours, theirs = PROMOTIONS[name](mg, _make), PROMOTIONS[name](torch, _make)
    assert _dtype_name(ours) == _dtype_name(theirs)


# -- shapes: batched @, Linear on 3-D, sum(()), views ----------------------------------------------------
@xfail("@ on 3-D operands (batched matmul) is refused")
def test_batched_matmul_and_linear_on_3d_input() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    x, t = mg.tensor(a, dtype="float64", requires_grad=True), tv(a)
    (x @ x.transpose(1, 2)).sum().backward()
    (t @ t.transpose(1, 2)).sum().backward()
    assert x.grad.tolist() == t.grad.tolist()
    lin = mg.nn.Linear(4, 2)
    assert lin(mg.tensor(a, dtype="float32")).shape == (2, 3, 2)


def test_sum_over_no_dims_sums_everything() -> None:
    a = np.arange(6.0).reshape(2, 3)
    assert mg.tensor(a).sum(()).item() == torch.tensor(a).sum(()).item() == 15.0


@xfail("iterating a Tensor selects row by row (SelectBackward0); torch unbinds once (UnbindBackward0)")
def test_iteration_unbinds() -> None:
    x = mg.tensor(np.ones((2, 3)), requires_grad=True)
    rows = list(x)
    assert rows[0].grad_fn is rows[1].grad_fn and rows[0].grad_fn.name() == "UnbindBackward0"


# -- repr as torch prints it ---------------------------------------------------------------------------------
REPRS = {
    "floats": ([0.1, 2.5], "float32", False),
    "integers_as_floats": ([1.0, 2.0], "float32", False),
    "small": ([1e-5, 1.0], "float32", False),
    "big": ([1e10, 1.0], "float32", False),
    "float64": ([0.5, 1.25], "float64", False),
    "requires_grad": ([0.5, 1.25], "float32", True),
    "int64": ([1, 2, 3], "int64", False),
    "scalar": (3.25, "float32", False),
    "matrix": ([[1.0, 2.5], [-3.0, 4.0]], "float32", False),
    "nan_inf": ([float("nan"), float("inf"), 1.5], "float32", False),
}
REPR_BUGS: dict[str, str] = {}


@pytest.mark.parametrize("name", [pytest.param(n, marks=[xfail(REPR_BUGS[n])] if n in REPR_BUGS else [])
                                  for n in REPRS])
def test_repr_as_torch_prints_it(name: str) -> None:
    data, dtype, requires_grad = REPRS[name]
    ours = mg.tensor(data, dtype=dtype, requires_grad=requires_grad)
    theirs = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    assert repr(ours) == repr(theirs)
