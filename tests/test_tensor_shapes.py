"""``micrograd2.tensors.shapes``: ``reshape``/``view``, ``squeeze``/``unsqueeze``, ``expand``, ``permute``, ``copy_``.

It proves that ``copy_`` writes in place as PyTorch's does: one ``CopyBackwards`` node (``CopySlices`` into a
view), the source broadcast and cast to the Tensor's shape and dtype with its gradient sent back in the
source's shape and dtype, numbers and integer Tensors taken as data only, and the result twice differentiable;
and that the shape ops infer ``-1``, refuse what PyTorch refuses with its messages, and send an expanded
gradient back summed.  The shape ops' values, gradients and node names are in ``test_tensor_ops.py``'s
catalogue; in-place changes through views in ``test_views.py``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import micrograd2 as mg


def _edges(t: Any) -> tuple[Any, ...]:
    return tuple(n and n.name() for n, _ in t.grad_fn.next_functions)


def test_copy_and_fill_in_place() -> None:
    src = mg.tensor([1.0, 2.0], requires_grad=True)
    buf = mg.tensor([0.0, 0.0])
    buf.copy_(src * 3)
    assert buf.tolist() == [3.0, 6.0] and buf.requires_grad
    buf.sum().backward()
    assert src.grad.tolist() == [3.0, 3.0]
    with mg.no_grad():
        src.fill_(7.0)
    assert src.tolist() == [7.0, 7.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        src.copy_(mg.tensor([0.0, 0.0]))


def test_copy_records_one_copybackwards_node_as_pytorch() -> None:
    x, s = mg.tensor([1.0, 2.0], requires_grad=True), mg.tensor([3.0, 4.0], requires_grad=True)
    y = x * 1
    y.copy_(s * 2)
    assert y.grad_fn.name() == "CopyBackwards" and _edges(y) == ("MulBackward0", "MulBackward0")
    assert y.tolist() == [6.0, 8.0] and y._version == 1
    (y * mg.tensor([5.0, 7.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and s.grad.tolist() == [10.0, 14.0]  # the old value was overwritten
    z = mg.tensor([0.0, 0.0])
    z.copy_(s)
    assert _edges(z) == (None, "AccumulateGrad")


def test_copy_broadcasts_and_casts_and_the_gradient_comes_back_in_srcs_shape_and_dtype() -> None:
    s = mg.tensor([[3.0], [4.0]], requires_grad=True, dtype="float64")
    z = mg.tensor(np.zeros((2, 3)))
    z.copy_(s)
    assert z.dtype == "float32" and z.tolist() == [[3.0] * 3, [4.0] * 3]
    (z * mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert s.grad.dtype == "float64" and s.grad.tolist() == [[6.0], [15.0]]
    with pytest.raises(RuntimeError, match="(?s)doesn't match the broadcast shape.*What to do"):
        z.copy_(mg.tensor(np.zeros((4, 2, 3))))


def test_copy_of_a_number_and_into_an_integer_tensor_change_only_numbers() -> None:
    z = mg.tensor([0.0, 0.0])
    z.copy_(2.5)
    assert z.tolist() == [2.5, 2.5] and z._version == 1 and z.grad_fn is None
    n = mg.tensor([0, 0], dtype="int64")
    n.copy_(mg.tensor([1.5, -2.7], requires_grad=True))
    assert n.tolist() == [1, -2] and not n.requires_grad


def test_copy_under_no_grad_and_into_a_view() -> None:
    leaf = mg.tensor([0.0, 0.0], requires_grad=True)
    with mg.no_grad():
        leaf.copy_(mg.tensor([1.0, 2.0], requires_grad=True))
    assert leaf.tolist() == [1.0, 2.0] and leaf.grad_fn is None and leaf._version == 1
    b, s = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True), mg.tensor([5.0, 6.0], requires_grad=True)
    base = b * 1
    base[1].copy_(s)
    assert base.grad_fn.name() == "CopySlices" and base.tolist() == [[1.0, 2.0], [5.0, 6.0]]
    (base * mg.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert b.grad.tolist() == [[1.0, 2.0], [0.0, 0.0]] and s.grad.tolist() == [3.0, 4.0]


def test_copy_is_twice_differentiable() -> None:
    s = mg.tensor([0.3, -1.2], requires_grad=True, dtype="float64")
    z = mg.tensor([0.0, 0.0], dtype="float32")

    def f(a: Any) -> Any:
        out = mg.tensor([0.0, 0.0], dtype="float64") * 1
        out.copy_(a * a)
        return (out * out).sum()

    assert mg.autograd.gradcheck(f, (s,))
    z.copy_(s * s)
    (g,) = mg.autograd.grad((z * z).sum(), [s], create_graph=True)  # 4 s³, through a float32 copy
    assert g.dtype == "float64" and np.allclose(g.tolist(), [4 * 0.3**3, 4 * -1.2**3], rtol=1e-6)
    g.sum().backward()
    assert np.allclose(s.grad.tolist(), [12 * 0.3**2, 12 * 1.2**2], rtol=1e-6)


def test_reshape_infers_one_minus_one_and_refuses_as_pytorch() -> None:
    x = mg.tensor(np.arange(6.0).reshape(2, 3))
    assert x.reshape(3, -1).shape == (3, 2) and x.flatten().shape == (6,)
    with pytest.raises(RuntimeError, match=r"(?s)shape '\[4, -1\]' is invalid for input of size 6.*What to do"):
        x.reshape(4, -1)
    with pytest.raises(RuntimeError, match="(?s)only one dimension can be inferred.*What to do"):
        x.reshape(-1, -1)


def test_view_needs_compatible_strides_and_reshape_copies_instead() -> None:
    xt = mg.tensor(np.arange(6.0).reshape(2, 3)).t()
    with pytest.raises(RuntimeError, match=r"(?s)view size is not compatible.*Use \.reshape\(\.\.\.\) instead"):
        xt.view(6)
    assert xt.reshape(6).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert not xt.is_contiguous() and xt.contiguous().is_contiguous()


def test_squeeze_and_unsqueeze_and_their_dims() -> None:
    x = mg.tensor(np.ones((2, 3)))
    assert x.squeeze(0).shape == (2, 3)  # a dim of size 2: nothing to squeeze
    assert x.unsqueeze(0).squeeze().shape == (2, 3) and x.unsqueeze(-1).shape == (2, 3, 1)
    with pytest.raises(IndexError, match=r"(?s)expected to be in range of \[-3, 2\], but got 3.*What to do"):
        x.unsqueeze(3)


def test_expand_keeps_minus_one_sizes_and_sums_the_gradient_back() -> None:
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    e = x.unsqueeze(0).expand(4, -1, -1)
    assert e.shape == (4, 2, 3) and not e.is_contiguous() and e.grad_fn.name() == "ExpandBackward0"
    e.sum().backward()
    assert x.grad.tolist() == [[4.0] * 3] * 2
    assert x.sum_to_size(1, 3).tolist() == [[3.0, 5.0, 7.0]]


def test_expand_to_a_size_that_does_not_match_raises_pytorchs_error() -> None:
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match the existing size \(2\)"):
        mg.tensor(np.ones((2, 3))).expand(4, -1)


def test_permute_with_a_repeated_dim_says_so_as_pytorch() -> None:
    with pytest.raises(RuntimeError, match=r"permute\(\): duplicate dims are not allowed"):
        mg.tensor(np.ones((2, 3))).permute(0, 0)
