"""Strides and contiguity (``micrograd2/tensors/strides.py``): PyTorch's layout rules, which decide
``contiguous()``'s copy, ``reshape``'s view or copy, and ``view``'s refusal."""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.tensors.strides import contiguous_strides, is_contiguous, strides_of, view_strides

M = np.arange(24.0).reshape(2, 3, 4)
VIEWS = {
    "base": lambda x: x,
    "transpose": lambda x: x.transpose(1, 2),
    "permute": lambda x: x.permute(2, 0, 1),
    "row": lambda x: x[1],
    "column": lambda x: x[:, :, 1],
    "step": lambda x: x[:, ::2],
    "slice": lambda x: x[:, 1:],
    "expand": lambda x: x[:1].expand(3, 3, 4),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "size_one_transpose": lambda x: x[:, :1].transpose(0, 1),
    "empty": lambda x: x[:, :0],
    "reshape_of_a_slice": lambda x: x[1].reshape(12),
    "T_of_a_row": lambda x: x[0].T,
    "0-d": lambda x: x[0, 0, 0],
}


@pytest.mark.parametrize("name", VIEWS)
def test_strides_and_contiguity_are_torchs(name: str) -> None:
    torch = pytest.importorskip("torch")
    ours, theirs = VIEWS[name](mg.tensor(M)), VIEWS[name](torch.tensor(M))
    assert is_contiguous(ours) == theirs.is_contiguous() == ours.is_contiguous()
    if not theirs.numel():
        return  # (an empty Tensor's strides say nothing about where elements are: there are none)
    kept = [n != 1 for n in theirs.shape]  # torch's stride of a size-1 axis is not fixed by the layout
    assert [s for s, k in zip(strides_of(ours), kept) if k] == [s for s, k in zip(theirs.stride(), kept) if k]


def test_contiguous_strides() -> None:
    assert contiguous_strides((2, 3, 4)) == (12, 4, 1)
    assert contiguous_strides(()) == ()
    assert contiguous_strides((2, 0, 3)) == (3, 3, 1)  # a size-0 axis steps as one of size 1, as torch


@pytest.mark.parametrize("shape, strides, new, expected", [
    ((2, 3), (3, 1), (6,), (1,)),  # contiguous: anything
    ((3, 2), (1, 3), (6,), None),  # a transpose cannot be flattened
    ((3, 2), (1, 3), (1, 3, 2), (3, 1, 3)),  # but can gain a size-1 axis (torch's strides, checked)
    ((2, 3, 4), (12, 1, 3), (2, 12), None),
    ((2, 3, 4), (12, 1, 3), (6, 4), None),
    ((4, 3), (0, 1), (2, 2, 3), (0, 0, 1)),  # an expanded axis can be split
    ((4, 3), (0, 1), (12,), None),  # not merged
    ((), (), (1, 1), (1, 1)),
])
def test_view_strides_is_computestride(shape, strides, new, expected) -> None:
    assert view_strides(shape, strides, new) == expected


def test_contiguous_copies_only_what_is_not_contiguous() -> None:
    x = mg.tensor(M, requires_grad=True)
    assert x.contiguous() is x
    row = x[0]
    assert row.contiguous() is row
    t = x.transpose(1, 2)
    c = t.contiguous()
    assert c is not t and c.grad_fn.name() == "CloneBackward0" and c.is_contiguous()
    assert c.tolist() == t.tolist()


def test_reshape_views_copies_and_view_refuses_as_torch() -> None:
    x = mg.tensor(M, requires_grad=True)
    assert x.reshape(6, 4).grad_fn.name() == "ViewBackward0"
    assert x.transpose(1, 2).reshape(2, 4, 3).grad_fn.name() == "ReshapeAliasBackward0"
    copy = x.transpose(1, 2).reshape(2, 12)
    assert copy.grad_fn.name() == "UnsafeViewBackward0" and copy.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.transpose(1, 2).view(2, 12)
    assert x.transpose(1, 2).view(2, 4, 3).shape == (2, 4, 3)


def test_reading_the_layout_leaves_no_trace() -> None:
    """The strides of a view are found by replaying its steps on element numbers, outside the graph: a
    trace sees only the user's ops."""
    x = mg.tensor(M, requires_grad=True)
    with mg.trace() as tr:
        x.transpose(1, 2).reshape(2, 4, 3).contiguous().sum()
    assert [e.node for e in tr.events if e.kind == "forward"] == [
        "TransposeBackward0", "ReshapeAliasBackward0", "CloneBackward0", "SumBackward0"]
