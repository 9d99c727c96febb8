"""``repr`` of a Tensor as PyTorch 2.13 prints it (the expected strings are PyTorch's own output)."""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg

CASES = [
    (([0.1, 2.5], "float32"), "tensor([0.1000, 2.5000])"),
    (([1.0, 2.0], "float32"), "tensor([1., 2.])"),
    (([1e-5, 1.0], "float32"), "tensor([1.0000e-05, 1.0000e+00])"),
    (([0.5, 1.25], "float64"), "tensor([0.5000, 1.2500], dtype=torch.float64)"),
    (([1, 2, 3], "int64"), "tensor([1, 2, 3])"),
    ((3.25, "float32"), "tensor(3.2500)"),
    (([[1.0, 2.5], [-3.0, 4.0]], "float32"), "tensor([[ 1.0000,  2.5000],\n        [-3.0000,  4.0000]])"),
    (([float("nan"), float("inf"), 1.5], "float32"), "tensor([   nan,    inf, 1.5000])"),
    (([0.0, 0.0], "float32"), "tensor([0., 0.])"),
    (([True, False], "bool"), "tensor([ True, False])"),
    (([1.0, 2.0], "float16"), "tensor([1., 2.], dtype=torch.float16)"),
    ((np.zeros((1, 0)), "float32"), "tensor([], size=(1, 0))"),
]


@pytest.mark.parametrize("args, expected", CASES)
def test_repr_is_pytorchs(args, expected: str) -> None:
    data, dtype = args
    assert repr(mg.tensor(data, dtype=dtype)) == expected


def test_grad_and_requires_grad_suffixes() -> None:
    x = mg.tensor([0.5, 1.25], requires_grad=True)
    assert repr(x) == "tensor([0.5000, 1.2500], requires_grad=True)"
    y = x * 2
    assert repr(y) == "tensor([1.0000, 2.5000], grad_fn=<MulBackward0>)"
    y.sum().backward()
    assert repr(x.grad) == "tensor([2., 2.])"


def test_long_rows_wrap_and_large_tensors_are_summarized() -> None:
    text = repr(mg.tensor(np.arange(2000.0)))
    assert text == ("tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
                    "        1.9990e+03])")
    wrapped = repr(mg.tensor([x / 7 for x in range(12)]))
    assert wrapped.count("\n") == 1 and wrapped.splitlines()[1].startswith("        ")
