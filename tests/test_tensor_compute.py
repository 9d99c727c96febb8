"""``micrograd2.tensors.compute``: the helpers every Tensor op is built on, on arrays and on Tensors."""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.tensors import compute
from micrograd2.tensors.indexing import Select, Slice, UnsqueezeIndex, ViewIndex
from micrograd2.tensors.shapes import Squeeze, SqueezeAll, SqueezeDims, Unsqueeze, View


@pytest.mark.parametrize("renamed, base, node_name", [
    (Unsqueeze, View, "UnsqueezeBackward0"), (Squeeze, View, "SqueezeBackward1"),
    (SqueezeAll, View, "SqueezeBackward0"), (SqueezeDims, View, "SqueezeBackward4"),
    (Select, ViewIndex, "SelectBackward0"), (Slice, ViewIndex, "SliceBackward0"),
    (UnsqueezeIndex, ViewIndex, "UnsqueezeBackward0"),
])
def test_a_renamed_op_is_its_base_under_pytorchs_node_name(renamed, base, node_name) -> None:
    assert issubclass(renamed, base) and renamed.node_name == node_name
    assert renamed.forward is base.forward and renamed.backward is base.backward  # one definition
    assert renamed._node_class.__name__ == node_name and renamed.__module__ == base.__module__


def test_renamed_nodes_appear_in_the_graph_under_their_names() -> None:
    x = mg.tensor([[1.0, 2.0]], requires_grad=True)
    assert x.squeeze(0).grad_fn.name() == "SqueezeBackward1"
    assert x[0].grad_fn.name() == "SelectBackward0"
    assert x[None].grad_fn.name() == "UnsqueezeBackward0"
    x.squeeze(0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 1.0]])


def test_broadcast_shape_is_numpys_or_none() -> None:
    assert compute.broadcast_shape((3, 1), (2, 1, 4)) == (2, 3, 4) == np.broadcast_shapes((3, 1), (2, 1, 4))
    assert compute.broadcast_shape((), (2,)) == (2,)
    assert compute.broadcast_shape((3,), (4,)) is None


def test_normalize_dims_sorts_wraps_and_raises_pytorchs_index_error() -> None:
    assert compute.normalize_dims(None, 3) == (0, 1, 2)
    assert compute.normalize_dims((-1, 0, 2), 3) == (0, 2)
    assert compute.normalize_dims(0, 0) == (0,)  # a 0-d Tensor has dim 0 (and -1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\]"):
        compute.normalize_dims(2, 2)


def test_the_backward_helpers_take_tensors_and_record_only_in_grad_mode() -> None:
    """A backward computes on Tensors (NOTE [Backward on Tensors]): the helpers record only while the
    backward pass is recorded (grad mode on)."""
    g = mg.tensor(np.ones((2, 3), dtype=np.float32))
    with mg.no_grad():
        summed = compute.sum_to(g * 3.0, (1, 3))
    assert isinstance(summed, mg.Tensor) and summed.shape == (1, 3) and summed.grad_fn is None
    assert summed.tolist() == [[6.0, 6.0, 6.0]]
    t = mg.tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    recorded = compute.sum_to(t * 3.0, (3,))
    assert isinstance(recorded, mg.Tensor) and recorded.grad_fn is not None
    assert compute.sum_to(g, None) is None  # a number input gets no gradient
    masked = compute.mask_mul(mg.tensor([np.inf, 1.0]), np.array([False, True]))
    assert masked.tolist() == [0.0, 1.0]  # an exact 0, even for inf
    assert compute.data_of(t) is t.data and compute.data_of(2.0) == 2.0


def test_backend_finds_the_first_array_and_says_what_it_got_otherwise() -> None:
    assert compute.backend(2.0, np.zeros(1, np.float32)).name == "cpu"
    with pytest.raises(TypeError, match="expected a backend array"):
        compute.backend(1.0, "x")


def test_partial_applies_an_op_with_its_attributes_fixed() -> None:
    from micrograd2.tensors.arithmetic import AddScaled
    from micrograd2.tensors.compute import Partial

    x, w = mg.tensor([1.0, 2.0], requires_grad=True), mg.tensor([3.0, 4.0], requires_grad=True)
    y = Partial(AddScaled, alpha=2.0).apply(x, w)  # what x.add_(w, alpha=2) hands the in-place machinery
    assert y.tolist() == [7.0, 10.0] and y.grad_fn.name() == "AddBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0] and w.grad.tolist() == [2.0, 2.0]
