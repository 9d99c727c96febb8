"""PyTorch's factory functions at the top level (issue 34, round 4): ``mg.zeros``… with torch 2.13's
shapes, dtypes, keywords and (for arange, linspace, eye) values.  Random numbers are NumPy's: only
their shapes, dtypes and reproducibility under ``manual_seed`` are compared."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import raised  # noqa: E402

import micrograd2 as mg  # noqa: E402


def _dt(lib, name):
    return getattr(torch, name) if lib is torch else name


def _t(lib, data, dtype):
    return lib.tensor(data, dtype=_dt(lib, dtype))


CASES = {
    "zeros(2, 3)": lambda L: L.zeros(2, 3), "zeros((2, 3))": lambda L: L.zeros((2, 3)),
    "zeros([])": lambda L: L.zeros([]), "zeros(0)": lambda L: L.zeros(0),
    "ones float64": lambda L: L.ones(2, dtype=_dt(L, "float64")),
    "ones requires_grad": lambda L: L.ones(2, requires_grad=True),
    "ones int64": lambda L: L.ones(2, 2, dtype=_dt(L, "int64")),
    "full int": lambda L: L.full((2,), 3), "full float": lambda L: L.full((2,), 3.5),
    "full bool": lambda L: L.full((2,), True), "full float16": lambda L: L.full([2], 0.1, dtype=_dt(L, "float16")),
    "full int requires_grad": lambda L: L.full((2,), 3, requires_grad=True),
    "zeros_like": lambda L: L.zeros_like(_t(L, [[1.0, 2.0]], "float64")),
    "ones_like int64": lambda L: L.ones_like(_t(L, [1, 2], "int64")),
    "ones_like dtype": lambda L: L.ones_like(_t(L, [1.0], "float32"), dtype=_dt(L, "float64")),
    "full_like": lambda L: L.full_like(_t(L, [1.0, 2.0], "float32"), 7),
    "zeros_like requires_grad": lambda L: L.zeros_like(_t(L, [1.0], "float32"), requires_grad=True),
    "empty_like": lambda L: L.empty_like(_t(L, [[1.0, 2.0]], "float16")).shape,
    "empty_like dtype": lambda L: str(L.empty_like(_t(L, [1.0], "float32"), dtype=_dt(L, "float64")).dtype)
    .removeprefix("torch."),
    "arange(5)": lambda L: L.arange(5), "arange(1, 4, 0.5)": lambda L: L.arange(1, 4, 0.5),
    "arange(0, 1, 0.1)": lambda L: L.arange(0, 1, 0.1), "arange(5, 0, -2)": lambda L: L.arange(5, 0, -2),
    "arange(2.5)": lambda L: L.arange(2.5), "arange(-3, 3)": lambda L: L.arange(-3, 3),
    "arange float64": lambda L: L.arange(0, 1, 0.1, dtype=_dt(L, "float64")),
    "arange(0, 5, 0)": lambda L: L.arange(0, 5, 0), "arange(5, 0, 1)": lambda L: L.arange(5, 0, 1),
    "linspace(0, 1, 5)": lambda L: L.linspace(0, 1, 5), "linspace(2, 3, 1)": lambda L: L.linspace(2, 3, 1),
    "linspace(2, 3, 0)": lambda L: L.linspace(2, 3, 0), "linspace(3, -4, 9)": lambda L: L.linspace(3, -4, 9),
    "linspace(0, 1, -1)": lambda L: L.linspace(0, 1, -1),
    "eye(3)": lambda L: L.eye(3), "eye(2, 3)": lambda L: L.eye(2, 3),
    "eye float64": lambda L: L.eye(2, dtype=_dt(L, "float64")),
    "rand": lambda L: (tuple(L.rand(2, 3).shape), str(L.rand(2, 3).dtype).removeprefix("torch.")),
    "randn": lambda L: (tuple(L.randn((4,)).shape), str(L.randn(4).dtype).removeprefix("torch.")),
    "randn float64": lambda L: str(L.randn(2, dtype=_dt(L, "float64")).dtype).removeprefix("torch."),
    "rand requires_grad": lambda L: L.rand(2, requires_grad=True).requires_grad,
}


def _described(value):
    """A factory's result as something both libraries can be compared by."""
    if isinstance(value, (torch.Tensor, mg.Tensor)):
        return (tuple(value.shape), str(value.dtype).removeprefix("torch."), value.tolist(), value.requires_grad,
                value.is_leaf)
    return tuple(value) if isinstance(value, (torch.Size, tuple)) else value


@pytest.mark.parametrize("case", list(CASES))
def test_factory(case: str) -> None:
    fn = CASES[case]
    ours, theirs = raised(fn, mg), raised(fn, torch)
    assert type(ours) is type(theirs), (ours, theirs)
    if theirs is None:
        assert _described(fn(mg)) == _described(fn(torch))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_values_are_torchs_bit_for_bit(dtype: str) -> None:
    rng = np.random.default_rng(5)
    ends = [(-3.3, 1.7), (0.0, 1.0), (1e-3, 7.77), (-100.0, -0.01)] + [tuple(rng.standard_normal(2) * 10)
                                                                       for _ in range(6)]
    for steps in (2, 3, 7, 8, 15, 16, 17, 33, 100, 1000):
        for start, end in ends:
            assert (mg.linspace(start, end, steps, dtype=dtype).tolist()
                    == torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).tolist())


def test_manual_seed_makes_draws_and_linear_layers_reproducible() -> None:
    mg.manual_seed(7)
    first = (mg.rand(3).tolist(), mg.randn(2).tolist(), mg.nn.Linear(2, 2).weight.tolist())
    mg.manual_seed(7)
    assert (mg.rand(3).tolist(), mg.randn(2).tolist(), mg.nn.Linear(2, 2).weight.tolist()) == first
    assert all(0.0 <= v < 1.0 for v in first[0])


def test_a_tutorials_zero_gradient_needs_no_workaround() -> None:
    x = mg.zeros(3, requires_grad=True)
    (x * mg.ones(3)).sum().backward()
    assert x.grad.tolist() == mg.ones_like(x).tolist() == [1.0, 1.0, 1.0]
