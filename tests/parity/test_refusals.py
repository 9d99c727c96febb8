"""What torch 2.13 refuses, refused with its exception class (issue 34, round 4): matrix products of
two dtypes, a binary cross-entropy target of another shape, ``x[i] = value`` with a value that is
not a Tensor or a number or does not fit, hooks that return the wrong kind of thing, and
``set_grad_enabled`` given a number.  Also mse_loss of nothing, which torch does not refuse."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import raised  # noqa: E402

import micrograd2 as mg  # noqa: E402
import micrograd2.tensors.functional as mg_functional  # noqa: E402


def _dtype(lib, name: str):
    return getattr(torch, name) if lib is torch else name


def _same_class(fn) -> None:
    ours, theirs = raised(fn, mg), raised(fn, torch)
    assert type(ours) is type(theirs), (ours, theirs)
    assert (ours is None) == (theirs is None)


MATMUL_SHAPES = [((2, 2), (2, 2)), ((2, 2), (2,)), ((2,), (2,)), ((2,), (2, 2)), ((3, 2, 2), (3, 2, 2)),
                 ((3, 2, 2), (2, 2))]


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"), ("float16", "float32"),
                                    ("float32", "float32")])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_of_two_dtypes_raises(shapes, dtypes) -> None:
    _same_class(lambda lib: lib.ones(*shapes[0], dtype=_dtype(lib, dtypes[0]))
                @ lib.ones(*shapes[1], dtype=_dtype(lib, dtypes[1])))


@pytest.mark.parametrize("which", ["input", "bias", "no bias", "3-d input", "1-d input", "none"])
def test_linear_with_mixed_dtypes_raises(which: str) -> None:
    def run(lib):
        x_dtype = "float64" if which in ("input", "no bias", "3-d input", "1-d input") else "float32"
        shape = {"3-d input": (2, 2, 2), "1-d input": (2,)}.get(which, (2, 2))
        x = lib.ones(*shape, dtype=_dtype(lib, x_dtype))
        w = lib.ones(3, 2, dtype=_dtype(lib, "float32"))
        b = None if which == "no bias" else lib.ones(3, dtype=_dtype(lib, "float64" if which == "bias" else "float32"))
        return (lib.nn.functional if lib is torch else mg_functional).linear(x, w, b)

    _same_class(run)


def test_nn_linear_refuses_a_float64_batch() -> None:
    _same_class(lambda lib: lib.nn.Linear(2, 1)(lib.ones(4, 2, dtype=_dtype(lib, "float64"))))


@pytest.mark.parametrize("target_shape", [(2, 1), (1,), (3,), (2,)], ids=str)
def test_bce_target_of_another_shape(target_shape) -> None:
    _same_class(lambda lib: lib.nn.functional.binary_cross_entropy(lib.full((2,), 0.5), lib.ones(*target_shape)))


@pytest.mark.parametrize("name", ["mse_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_a_loss_of_no_elements_has_an_empty_gradient(name: str, reduction: str) -> None:
    seen = []
    for lib in (mg, torch):
        x = lib.zeros(0, requires_grad=True)
        loss = getattr(lib.nn.functional, name)(x, lib.zeros(0), reduction=reduction)
        loss.sum().backward()
        seen.append((str(loss.tolist()), x.grad.tolist()))
    assert seen[0] == seen[1]  # mean: nan, and [] (not ZeroDivisionError)


VALUES = {
    "int": 1, "float": 2.5, "bool": True, "numpy float64": np.float64(3.0), "numpy int64": np.int64(4),
    "numpy float32": np.float32(2.0), "0-d array": np.array(5.0), "array": np.array([1.0, 2.0]),
    "list": [1.0, 2.0], "tuple": (1.0, 2.0), "str": "a", "None": None,
}


@pytest.mark.parametrize("value", list(VALUES), ids=str)
def test_setitem_takes_numbers_and_tensors_only(value: str) -> None:
    def run(lib):
        x = lib.zeros(3)
        x[0:2] = VALUES[value]
        return x.tolist()

    _same_class(run)
    if raised(run, torch) is None:
        assert run(mg) == run(torch)


TENSOR_VALUES = {"3 values": [1.0, 2.0, 3.0], "row": [[1.0, 2.0]], "batch of one row": [[[1.0, 2.0]]],
                 "column": [[1.0], [2.0]], "one": [7.0], "two": [1.0, 2.0]}


@pytest.mark.parametrize("index", ["slice", "list", "mask", "int"])
@pytest.mark.parametrize("value", list(TENSOR_VALUES), ids=str)
@pytest.mark.parametrize("grad", [False, True])
def test_setitem_with_a_tensor_that_does_not_fit(value: str, index: str, grad: bool) -> None:
    def run(lib):
        x = lib.zeros(3, requires_grad=grad) * 1.0
        where = {"slice": slice(0, 2), "list": [0, 1], "int": 0,
                 "mask": lib.tensor([True, False, True], dtype=_dtype(lib, "bool"))}[index]
        x[where] = lib.tensor(TENSOR_VALUES[value])
        return x.tolist()

    _same_class(run)
    if raised(run, torch) is None:
        assert run(mg) == run(torch)


def test_a_tensor_hook_returning_a_number() -> None:
    def run(lib):
        x = lib.ones(1, requires_grad=True)
        x.register_hook(lambda g: 3.0)
        (x * 2).sum().backward()

    _same_class(run)


@pytest.mark.parametrize("kind", ["hook", "prehook"])
@pytest.mark.parametrize("result", ["list", "tensor", "tuple"])
def test_a_node_hook_returning_a_list(kind: str, result: str) -> None:
    def run(lib):
        x = lib.ones(1, requires_grad=True)
        y = x.exp()
        make = {"list": list, "tensor": lambda gs: gs[0], "tuple": tuple}[result]
        if kind == "hook":
            y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: make(grad_inputs))
        else:
            y.grad_fn.register_prehook(lambda grad_outputs: make(grad_outputs))
        y.sum().backward()
        return x.grad.tolist()

    _same_class(run)


@pytest.mark.parametrize("mode", [0, 1, 1.0, None, True, False], ids=repr)
def test_set_grad_enabled_takes_a_bool(mode) -> None:
    def run(lib):
        try:
            with lib.set_grad_enabled(mode):
                pass
        finally:
            lib.set_grad_enabled(True)

    _same_class(run)
