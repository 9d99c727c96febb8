"""``micrograd2.tensors.reductions``: ``sum``, ``mean``, ``max``/``min``, ``amax``/``amin``, ``any``, ``all``.

It proves what the catalogue in ``test_tensor_ops.py`` does not: ``max(dim)`` returns values and int64 indices
(the first maximum on ties, as torch), a full ``max``/``amax`` shares the gradient evenly among ties, ``sum``'s
backward keeps only sizes (so a second backward works), ``any``/``all`` give bool Tensors, ``argmax``/``argmin``
and ``min`` pick the first position on ties, a reduction over nothing and an integer mean raise PyTorch's errors,
and integer sums stay integers.
"""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg


def test_max_dim_returns_values_and_int64_indices() -> None:
    x = mg.tensor([[1.0, 5.0, 5.0], [7.0, 2.0, 0.0]], requires_grad=True)
    values, indices = x.max(1)
    assert indices.dtype == "int64" and indices.tolist() == [1, 0] and not indices.requires_grad
    assert values.tolist() == [5.0, 7.0]
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]  # ties: the first maximum, as torch


def test_full_max_and_amax_share_the_gradient_among_ties() -> None:
    for reduce in (lambda t: t.max(), lambda t: t.amax()):
        x = mg.tensor([1.0, 3.0, 3.0], requires_grad=True)
        reduce(x).backward()
        assert x.grad.tolist() == [0.0, 0.5, 0.5]  # PyTorch's evenly distributed gradient


def test_sum_backward_keeps_only_sizes_so_a_second_backward_works() -> None:
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (a + 1).sum()
    y.backward()
    y.backward()  # nothing saved but shapes: PyTorch allows this too (D9)
    assert a.grad.tolist() == [2.0, 2.0]


def test_any_and_all() -> None:
    t = mg.tensor([0.0, 2.0])
    assert t.any().item() and not t.all().item()
    assert (t >= 0).all().item() and t.any().dtype == "bool"


def test_argmax_and_argmin_give_the_first_position_as_int64() -> None:
    x = mg.tensor([[3.0, 1.0, 1.0], [0.0, 4.0, 4.0]])
    assert x.argmax().tolist() == 4 and x.argmax().dtype == "int64"  # over the flattened Tensor
    assert x.argmax(1).tolist() == [0, 1] and x.argmin(1).tolist() == [1, 0]  # ties: the first, as torch
    assert x.argmax(0, keepdim=True).tolist() == [[0, 1, 1]]


def test_min_dim_and_full_min_treat_ties_as_max_does() -> None:
    values, indices = mg.tensor([[3.0, 1.0, 1.0], [0.0, 4.0, 4.0]]).min(1)
    assert values.tolist() == [1.0, 0.0] and indices.tolist() == [1, 0]
    m = mg.tensor([1.0, 1.0, 3.0], requires_grad=True)
    m.min().backward()
    assert m.grad.tolist() == [0.5, 0.5, 0.0]


def test_a_max_over_nothing_is_pytorchs_error_with_a_hint() -> None:
    empty = mg.tensor(np.zeros((0, 3)))
    for name in ("max", "amax"):
        with pytest.raises(RuntimeError, match=rf"(?s){name}\(\): Expected reduction dim to be specified.*What to do"):
            getattr(empty, name)()
    assert empty.sum().item() == 0.0


def test_integer_sums_stay_integers_and_an_integer_mean_is_refused() -> None:
    i = mg.tensor([[1, 2], [3, 4]], dtype="int64")
    assert i.sum().dtype == "int64" and i.sum().item() == 10
    assert mg.tensor([True, True, False], dtype="bool").sum().item() == 2
    with pytest.raises(RuntimeError, match="(?s)mean\\(\\): could not infer output dtype.*Got: Long.*What to do"):
        i.mean()


def test_argmax_over_nothing_is_pytorchs_index_error() -> None:
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        mg.tensor(np.zeros((0, 3))).argmax()
