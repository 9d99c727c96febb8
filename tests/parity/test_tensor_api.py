"""PyTorch's everyday Tensor API (issue 37) against torch 2.13: values, first and second derivatives, node names,
result dtypes and error classes.

Each program runs the same code on micrograd2 and on torch (``lib`` is ``mg`` or ``torch``), on inputs that hold
the cases derivatives.yaml treats apart: a product with one zero and with two, a norm at 0, the std of one
element, ties in ``maximum`` and ``amax``-like norms, ``-inf`` in ``logsumexp``, an index gathered twice.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import (  # noqa: E402
    differences,
    edge_grid,
    graph_shape,
    outcome_or_error,
    pair_grid,
    raised,
    run_scalar,
    run_tensor,
)

import micrograd2 as mg  # noqa: E402
from micrograd2.tensors import ones as mg_ones  # noqa: E402

CHECKS = ("forward", "grad", "grad2")
# Units in the last place allowed (each program's third entry; four times as many in float32), and why: torch's
# libm and fused kernels (exp, 1/√x, softmax's backward), its Welford variance (std, var: 1 ulp in the forward,
# more once the second derivative divides by it), and its multiply order in prod and norms.
M = np.array([[1.0, 2.0, 3.0], [4.0, 0.5, -6.0]])
ONE_ZERO = np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0]])
TWO_ZEROS = np.array([[0.0, 2.0, 0.0], [1.0, -2.0, 3.0]])
TIES = np.array([[1.0, -3.0, 3.0], [2.0, 2.0, -2.0]])
V = np.array([1.0, -2.0, 3.0, 0.5])


def _index(lib, data):
    return lib.tensor(data, dtype=lib.int64) if lib is torch else lib.tensor(data, dtype="int64")


def _fn(lib):
    return mg if lib is mg else torch


def _ones(lib, *shape):
    return torch.ones(*shape) if lib is torch else mg_ones(*shape)


# name -> (program of (lib) returning a function of the leaves, the leaves' data, ulps allowed)
PROGRAMS = {
    "add_alpha": (lambda lib: lambda a, b: a.add(b, alpha=2.5), [M, M[::-1]], 0),
    "sub_alpha": (lambda lib: lambda a, b: a.sub(b, alpha=-1.5), [M, M[::-1]], 0),
    "add_number_alpha": (lambda lib: lambda a: a.add(3.0, alpha=2), [M], 0),
    "mul": (lambda lib: lambda a, b: a.mul(b), [M, M[::-1]], 0),
    "div": (lambda lib: lambda a, b: a.div(b), [M, M[::-1] + 1], 0),
    "pow": (lambda lib: lambda a: a.pow(3), [M], 0),
    "neg": (lambda lib: lambda a: a.neg(), [M], 0),
    "matmul": (lambda lib: lambda a, b: a.matmul(b), [M, M.T], 0),
    "mm": (lambda lib: lambda a, b: a.mm(b), [M, M.T], 0),
    "square": (lambda lib: lambda a: a.square(), [M], 0),
    "rsqrt": (lambda lib: lambda a: a.rsqrt(), [np.abs(M) + 0.25], 1),
    "reciprocal": (lambda lib: lambda a: a.reciprocal(), [M], 0),
    "sign": (lambda lib: lambda a: a.sign() * a, [ONE_ZERO - 1], 0),
    "floor": (lambda lib: lambda a: a.floor() + a, [M * 1.3], 0),
    "ceil": (lambda lib: lambda a: a.ceil() * a, [M * 1.3], 0),
    "round": (lambda lib: lambda a: a.round() * a, [M * 1.25], 0),
    "round_decimals": (lambda lib: lambda a: a.round(decimals=1) * a, [M * 1.2345], 0),
    "exp_fn": (lambda lib: lambda a: _fn(lib).exp(a), [M], 1),
    "log_fn": (lambda lib: lambda a: _fn(lib).log(a), [np.abs(M)], 1),
    "tanh_fn": (lambda lib: lambda a: _fn(lib).tanh(a), [M / 4], 32),  # (|y| near 1: test_elementwise's TANH_FMA)
    "sigmoid_fn": (lambda lib: lambda a: _fn(lib).sigmoid(a), [M], 4),
    "relu_fn": (lambda lib: lambda a: _fn(lib).relu(a) * a, [M], 0),
    "softmax_fn": (lambda lib: lambda a: _fn(lib).softmax(a, 1), [M], 4),
    "log_softmax_fn": (lambda lib: lambda a: _fn(lib).log_softmax(a, 1), [M], 32),
    "functional_relu": (lambda lib: lambda a: lib.nn.functional.relu(a) * a, [M], 0),
    "functional_softmax": (lambda lib: lambda a: lib.nn.functional.softmax(a, dim=0), [M], 4),
    "functional_log_softmax": (lambda lib: lambda a: lib.nn.functional.log_softmax(a, dim=1), [M], 32),
    "clamp_fn": (lambda lib: lambda a: _fn(lib).clamp(a, -1.0, 2.0) * a, [M], 0),
    "maximum": (lambda lib: lambda a, b: _fn(lib).maximum(a, b) * a, [TIES, TIES[::-1]], 0),
    "minimum": (lambda lib: lambda a, b: _fn(lib).minimum(a, b) * b, [TIES, TIES[::-1]], 0),
    "maximum_nan": (lambda lib: lambda a, b: a.maximum(b), [np.array([1.0, math.nan, 2.0]),
                                                            np.array([math.nan, 1.0, 2.0])], 0),
    "maximum_broadcast": (lambda lib: lambda a, b: a.maximum(b), [M, np.array([2.0, 2.0, -6.0])], 0),
    "where": (lambda lib: lambda a, b: _fn(lib).where(a > 1, a * a, b), [M, M[::-1]], 0),
    "where_number": (lambda lib: lambda a: _fn(lib).where(a > 1, a * a, 0.5), [M], 0),
    "where_method": (lambda lib: lambda a, b: (a * b).where(a < 2, b), [M, np.array([1.0, -1.0, 2.0])], 0),
    "cat": (lambda lib: lambda a, b: _fn(lib).cat([a * a, b, a], 0), [M, M[:1]], 0),
    "cat_dim1": (lambda lib: lambda a, b: _fn(lib).cat([a, b * b], dim=-1), [M, M[:, :2]], 0),
    "stack": (lambda lib: lambda a, b: _fn(lib).stack([a * b, b], 1), [M, M[::-1]], 0),
    "expand_as": (lambda lib: lambda a, b: a.expand_as(b) * b, [M[:1], M], 0),
    "repeat": (lambda lib: lambda a: a.repeat(2, 1, 3) * a.repeat(2, 1, 3), [M], 0),
    "gather": (lambda lib: lambda a: (a * a).gather(1, _index(lib, [[0, 0, 2], [1, 2, 1]])), [M], 0),
    "gather_dim0": (lambda lib: lambda a: a.gather(0, _index(lib, [[1, 0, 1]])) ** 2, [M], 0),
    "masked_fill": (lambda lib: lambda a: (a * a).masked_fill(a > 1, -1.0), [M], 0),
    "masked_fill_tensor_value": (lambda lib: lambda a, v: (a * a).masked_fill(a > 1, v * v), [M, np.array(3.0)], 0),
    "masked_fill_broadcast_mask": (lambda lib: lambda a, b: a.masked_fill(b > 1, 0.0) * a,
                                   [M, np.array([2.0, 0.0, 3.0])], 0),
    "masked_fill_in_place": (lambda lib: lambda a: (a * 1.0).masked_fill_(a < 1, 2.0) * a, [M], 0),
    "var": (lambda lib: lambda a: a.var(), [M], 2),
    "var_dim": (lambda lib: lambda a: a.var(1), [M], 2),
    "var_dim_keepdim_correction_0": (lambda lib: lambda a: a.var(0, keepdim=True, correction=0), [M], 2),
    "var_unbiased_false": (lambda lib: lambda a: a.var(unbiased=False), [M], 2),
    "std": (lambda lib: lambda a: a.std(), [M], 64),
    "std_dims": (lambda lib: lambda a: a.std((0, 1), keepdim=True), [M], 64),
    "std_dim_unbiased": (lambda lib: lambda a: a.std(1, True, True), [M], 2),
    "std_of_one_element": (lambda lib: lambda a: a.std(), [np.array([3.0])], 0),
    "std_of_one_element_dim": (lambda lib: lambda a: a.std(0), [np.array([[3.0, 4.0]])], 0),
    "std_of_a_constant": (lambda lib: lambda a: a.std(1), [np.array([[2.0, 2.0], [1.0, 3.0]])], 2),
    "var_no_freedom_left": (lambda lib: lambda a: a.var(correction=4), [np.array([1.0, 1.0, 2.0])], 0),
    "norm": (lambda lib: lambda a: a.norm(), [M], 2),
    "norm_at_zero": (lambda lib: lambda a: a.norm(), [np.zeros((2, 2))], 0),
    "norm_dim_at_zero": (lambda lib: lambda a: a.norm(dim=1), [np.array([[0.0, 0.0], [3.0, 4.0]])], 1),
    "norm_1": (lambda lib: lambda a: a.norm(1), [ONE_ZERO], 0),
    "norm_inf_ties": (lambda lib: lambda a: a.norm(float("inf")), [TIES], 0),
    "norm_inf_dim": (lambda lib: lambda a: a.norm(float("inf"), dim=1, keepdim=True), [TIES], 0),
    "norm_3": (lambda lib: lambda a: a.norm(3, dim=0), [M], 4),
    "norm_half": (lambda lib: lambda a: a.norm(0.5), [ONE_ZERO + 1], 4),
    "prod": (lambda lib: lambda a: a.prod(), [M], 1),
    "prod_one_zero": (lambda lib: lambda a: a.prod(), [ONE_ZERO], 0),
    "prod_two_zeros": (lambda lib: lambda a: a.prod(), [TWO_ZEROS], 0),
    "prod_dim": (lambda lib: lambda a: a.prod(1), [M], 1),
    "prod_dim_zeros": (lambda lib: lambda a: a.prod(1, keepdim=True), [TWO_ZEROS], 0),
    "prod_dim0_zeros": (lambda lib: lambda a: a.prod(0), [TWO_ZEROS], 0),
    "cumsum": (lambda lib: lambda a: a.cumsum(1) * a, [M], 0),
    "cumsum_dim0": (lambda lib: lambda a: a.cumsum(0), [M], 0),
    "logsumexp": (lambda lib: lambda a: a.logsumexp(1), [M], 4),
    "logsumexp_keepdim_all": (lambda lib: lambda a: a.logsumexp((0, 1), keepdim=True), [M], 2),
    "logsumexp_minus_inf": (lambda lib: lambda a: a.logsumexp(1), [np.array([[-math.inf, -math.inf], [0.0, 1.0]])], 2),
    "flip": (lambda lib: lambda a: a.flip(1) * a, [M], 0),
}


def _leaves(lib, data, dtype):
    if lib is mg:
        return [mg.tensor(np.asarray(d).tolist(), requires_grad=True, dtype=dtype) for d in data]
    return [torch.tensor(np.asarray(d).tolist(), dtype=getattr(torch, dtype), requires_grad=True) for d in data]


# NOTE [A second derivative by cancellation]
# log_softmax's second derivative, -S·p·(v - Σ v·p), subtracts nearly equal terms, so one ulp of exp
# in the softmax becomes a hundred in the result. At M[1, 0] the exact value (mpmath, 50 digits) is
# 0.428040952295055855; on an AVX512 machine torch 2.13 gives 141 ulps below it and micrograd2 247
# below, 106 ulps apart, where an earlier CI machine had them within the 32 allowed (torch on this
# one takes its AVX512 kernels). Neither is wrong: the allowance is the formula's conditioning, for
# grad2 only.
CANCELLING = {"log_softmax_fn": 256, "functional_log_softmax": 256}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_torch(name: str, check: str, dtype: str) -> None:
    make, data, ulps = PROGRAMS[name]
    ulps = CANCELLING.get(name, ulps) if check == "grad2" else ulps
    ours = outcome_or_error(run_tensor, mg, make(mg), [np.asarray(d) for d in data], dtype, weights=True)
    theirs = outcome_or_error(run_tensor, torch, make(torch), [np.asarray(d) for d in data], dtype, weights=True)
    diffs = differences(ours, theirs, dtype, [], check, ulps * (4 if dtype == "float32" else 1))
    assert not diffs, f"{len(diffs)} differences:\n" + "\n".join(diffs[:25])


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_builds_torchs_graph(name: str) -> None:
    make, data, _ = PROGRAMS[name]
    ours = make(mg)(*_leaves(mg, data, "float64"))
    theirs = make(torch)(*_leaves(torch, data, "float64"))
    assert graph_shape(ours.grad_fn, 2) == graph_shape(theirs.grad_fn, 2)


# -- the same ops by name, elementwise, on the edge grid (Tensors) and one point at a time (Values) ----------
STEPS = {
    "square": lambda x: x.square(),
    "rsqrt": lambda x: x.rsqrt(),
    "reciprocal": lambda x: x.reciprocal(),
    "sign": lambda x: x.sign(),
    "floor": lambda x: x.floor(),
    "ceil": lambda x: x.ceil(),
    "round": lambda x: x.round(),
    "neg": lambda x: x.neg(),
    "mul_number": lambda x: x.mul(2.5),
    "div_number": lambda x: x.div(3.0),
    "pow_number": lambda x: x.pow(3),
    "add_alpha": lambda x: x.add(x * x, alpha=3.0),
    "sub_alpha": lambda x: x.sub(0.75, alpha=2.0),
}
STEP_ULPS = {"rsqrt": 4}
POINTS = [1.5, -1.5, 2.5, -0.5, 0.49999999999999994]


@pytest.mark.parametrize("config", ["tensor-float64", "tensor-float32", "value-float64"])
@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("name", list(STEPS))
def test_method_form_on_the_edge_grid(name: str, check: str, config: str) -> None:
    engine, dtype = config.split("-")
    points = edge_grid(dtype) + POINTS
    fn, ulps = STEPS[name], STEP_ULPS.get(name, 0)
    if engine == "tensor":
        diffs = differences(outcome_or_error(run_tensor, mg, fn, [points], dtype),
                            outcome_or_error(run_tensor, torch, fn, [points], dtype),
                            dtype, [f"x={p!r}" for p in points], check, ulps)
    else:
        diffs = []
        for p in points:
            diffs += differences(outcome_or_error(run_scalar, mg, fn, [p], dtype),
                                 outcome_or_error(run_scalar, torch, fn, [p], dtype), dtype, [f"x={p!r}"], check,
                                 ulps)
    assert not diffs, f"{len(diffs)} differences:\n" + "\n".join(diffs[:25])


VALUE_PAIRS = {
    "add": lambda a, b: a.add(b),
    "add_alpha": lambda a, b: a.add(b, alpha=0.1),
    "sub_alpha": lambda a, b: a.sub(b, alpha=3.0),
    "mul": lambda a, b: a.mul(b),
    "div": lambda a, b: a.div(b),
    "pow": lambda a, b: a.pow(b),
}


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("name", list(VALUE_PAIRS))
def test_value_method_forms_match_a_0d_tensor(name: str, check: str) -> None:
    diffs = []
    for p in pair_grid("float64") + [(0.1, 0.2), (1.0 / 3.0, 2.0 / 3.0)]:
        fn = VALUE_PAIRS[name]
        diffs += differences(outcome_or_error(run_scalar, mg, fn, list(p), "float64"),
                             outcome_or_error(run_scalar, torch, fn, list(p), "float64"), "float64",
                             [f"(a, b)={p!r}"], check, 1 if name == "pow" else 0)
    assert not diffs, f"{len(diffs)} differences:\n" + "\n".join(diffs[:25])


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "gt", "le", "ge"])
def test_comparisons_by_name(name: str) -> None:
    a, b = [1.0, 2.0, math.nan, -0.0], [1.0, 3.0, math.nan, 0.0]
    ours = getattr(mg.tensor(a), name)(mg.tensor(b))
    theirs = getattr(torch.tensor(a), name)(torch.tensor(b))
    assert ours.dtype == "bool" and ours.tolist() == theirs.tolist()
    assert getattr(mg.tensor(a), name)(2.0).tolist() == getattr(torch.tensor(a), name)(2.0).tolist()
    for x, y in zip(a, b):
        assert getattr(mg.Value(x), name)(y) == bool(getattr(torch.tensor(x), name)(y))


# -- dtypes: the result's, as PyTorch promotes ------------------------------------------------------------------
def _t(lib, data, dtype):
    return lib.tensor(data, dtype=getattr(torch, dtype) if lib is torch else dtype)


DTYPES = {
    "cat_float32_float64": lambda lib: _fn(lib).cat([_t(lib, [1.0], "float32"), _t(lib, [2.0], "float64")]),
    "cat_int_float": lambda lib: _fn(lib).cat([_t(lib, [1], "int64"), _t(lib, [2.0], "float32")]),
    "stack_float16_float32": lambda lib: _fn(lib).stack([_t(lib, [1.0], "float16"), _t(lib, [2.0], "float32")]),
    "where_float32_0d_float64": lambda lib: _fn(lib).where(_t(lib, [True, False], "bool"),
                                                          _t(lib, [1.0, 2.0], "float32"), _t(lib, 3.0, "float64")),
    "maximum_int_float": lambda lib: _fn(lib).maximum(_t(lib, [1, 5], "int64"), _t(lib, [2.0, 3.0], "float32")),
    "masked_fill_0d_float64_value": lambda lib: _t(lib, [1.0, 2.0], "float32").masked_fill(
        _t(lib, [True, False], "bool"), _t(lib, 3.0, "float64")),
    "cumsum_int": lambda lib: _t(lib, [1, 2], "int64").cumsum(0),
    "cumsum_bool": lambda lib: _t(lib, [True, True], "bool").cumsum(0),
    "prod_int": lambda lib: _t(lib, [3, 2], "int64").prod(),
    "logsumexp_int": lambda lib: _t(lib, [1, 2], "int64").logsumexp(0),
    "reciprocal_int": lambda lib: _t(lib, [1, 2], "int64").reciprocal(),
    "rsqrt_int": lambda lib: _t(lib, [1, 4], "int64").rsqrt(),
    "square_int": lambda lib: _t(lib, [1, 2], "int64").square(),
    "sign_int": lambda lib: _t(lib, [-3, 0, 2], "int64").sign(),
    "floor_int": lambda lib: _t(lib, [-3, 2], "int64").floor(),
    "new_zeros": lambda lib: _t(lib, [1.0], "float64").new_zeros(2, 3),
    "new_ones": lambda lib: _t(lib, [1], "int64").new_ones((2,)),
    "repeat_int": lambda lib: _t(lib, [1, 2], "int64").repeat(2),
}


@pytest.mark.parametrize("name", list(DTYPES))
def test_result_dtype_and_values_as_torchs(name: str) -> None:
    ours, theirs = DTYPES[name](mg), DTYPES[name](torch)
    assert ours.dtype == str(theirs.dtype).removeprefix("torch.")
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.tolist() == theirs.tolist()


def test_gradient_comes_back_in_each_inputs_dtype() -> None:
    for lib in (mg, torch):
        a, b = _t(lib, [1.0, 2.0], "float32"), _t(lib, [3.0], "float64")
        a.requires_grad, b.requires_grad = True, True
        (_fn(lib).cat([a, b]) * 2).sum().backward()
        assert str(a.grad.dtype).removeprefix("torch.") == "float32"
        assert str(b.grad.dtype).removeprefix("torch.") == "float64"
        assert a.grad.tolist() == [2.0, 2.0] and b.grad.tolist() == [2.0]


# -- errors: the same class as torch's --------------------------------------------------------------------------
ERRORS = {
    "tensor_none": lambda lib: lib.tensor(None),
    "tensor_none_inside": lambda lib: lib.tensor([1.0, None]),
    "tensor_ragged": lambda lib: lib.tensor([[1.0, 2.0], [3.0]]),
    "tensor_string": lambda lib: lib.tensor("1.0"),
    "tensor_strings": lambda lib: lib.tensor(["a", "b"]),
    "tensor_dict": lambda lib: lib.tensor({"a": 1}),
    "cat_empty": lambda lib: _fn(lib).cat([]),
    "cat_sizes": lambda lib: _fn(lib).cat([_ones(lib, 2, 3), _ones(lib, 2, 2)]),
    "cat_dims": lambda lib: _fn(lib).cat([_ones(lib, 2), _ones(lib, 2, 2)]),
    "cat_0d": lambda lib: _fn(lib).cat([lib.tensor(1.0), lib.tensor(2.0)]),
    "stack_shapes": lambda lib: _fn(lib).stack([_ones(lib, 2), _ones(lib, 3)]),
    "gather_float_index": lambda lib: _ones(lib, 2).gather(0, lib.tensor([0.0])),
    "gather_out_of_range": lambda lib: _ones(lib, 2).gather(0, _index(lib, [5])),
    "gather_too_large": lambda lib: _ones(lib, 2, 3).gather(1, _index(lib, [[0], [1], [2]])),
    "masked_fill_float_mask": lambda lib: _ones(lib, 2).masked_fill(lib.tensor([1.0, 0.0]), 0.0),
    "masked_fill_1d_value": lambda lib: _ones(lib, 2).masked_fill(_ones(lib, 2) > 0, _ones(lib, 2)),
    "where_float_condition": lambda lib: _fn(lib).where(_ones(lib, 2), _ones(lib, 2), 0.0),
    "maximum_number": lambda lib: _fn(lib).maximum(_ones(lib, 2), 1.0),
    "mm_vector": lambda lib: _ones(lib, 2).mm(_ones(lib, 2, 2)),
    "std_int": lambda lib: _t(lib, [1, 2], "int64").std(),
    "norm_int": lambda lib: _t(lib, [1, 2], "int64").norm(),
    "repeat_too_few": lambda lib: _ones(lib, 2, 3).repeat(2),
    "exp_of_a_number": lambda lib: _fn(lib).exp(1.0),
    "add_a_string": lambda lib: _ones(lib, 2).add("a"),
    "alpha_float_on_int": lambda lib: _t(lib, [1, 2], "int64").add(_t(lib, [1, 2], "int64"), alpha=1.5),
    "expand_as_smaller": lambda lib: _ones(lib, 2).expand_as(_ones(lib, 3)),
    "round_decimals_int": lambda lib: _t(lib, [1, 2], "int64").round(decimals=1),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_class_as_torchs(name: str) -> None:
    ours, theirs = raised(ERRORS[name], mg), raised(ERRORS[name], torch)
    assert theirs is not None, "torch raised nothing: the case is wrong"
    assert type(ours) is type(theirs), f"micrograd2: {ours!r}, torch: {theirs!r}"
    assert "What to do:" in str(ours)
