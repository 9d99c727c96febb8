"""In-place ops on views and on their bases: both histories change, as in PyTorch."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import micrograd2 as mg


def t(data, requires_grad=True):
    return mg.tensor(data, requires_grad=requires_grad, dtype="float64")


def test_an_in_place_op_on_a_slice_reaches_the_base_through_copyslices() -> None:
    x = t([1.0, 2.0, 3.0])
    y = x * 1
    v = y[0:2]
    v.mul_(2)
    assert y.grad_fn.name() == "CopySlices"
    assert y.detach().numpy().tolist() == [2.0, 4.0, 3.0]
    y.sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 2.0, 1.0]


def test_a_view_made_before_an_in_place_op_on_its_base_follows_the_base() -> None:
    x = t([1.0, 2.0, 3.0])
    y = x * 1
    v = y[0:2]
    y.mul_(2)
    assert v.grad_fn.name() == "AsStridedBackward0"  # as PyTorch: the view reads from the new base
    assert v.grad_fn.next_functions[0][0] is y.grad_fn  # AsStridedBackward0 -> MulBackward0
    v.sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 2.0, 0.0]


def test_only_views_made_before_an_in_place_op_on_a_view_read_asstrided_as_the_readme_says() -> None:
    x = t([1.0, 2.0, 3.0])
    y = x * 1
    before = y[1:]
    y[0:1].mul_(2)
    after = y[1:]
    assert (y.grad_fn.name(), before.grad_fn.name(), after.grad_fn.name()) == \
        ("CopySlices", "AsStridedBackward0", "SliceBackward0")  # PyTorch 2.13's names
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    assert "made *before* the op then read `AsStridedBackward0`, and a view made after it reads its own node" \
        in readme and "every view of the base then reads" not in readme


def test_the_modified_view_itself_reads_from_the_new_base() -> None:
    x = t([1.0, 2.0, 3.0])
    y = x * 1
    v = y[0:2]
    v.mul_(2)
    v.sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 2.0, 0.0]


def test_other_inputs_of_the_in_place_op_get_their_gradient() -> None:
    x, w = t([1.0, 2.0, 3.0]), t([4.0, 5.0])
    y = x * 1
    y[0:2].mul_(w)
    (y * y).sum().backward()
    # y = [4, 10, 3]: d/dx of y² is 2y·w in the slice, 2y outside; d/dw is 2y·x in the slice
    assert x.grad.numpy().tolist() == [32.0, 100.0, 6.0]
    assert w.grad.numpy().tolist() == [8.0, 40.0]


def test_setitem_on_the_base_updates_a_row_taken_before() -> None:
    x = t([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    row = y[0]
    y[0] = 7.0
    (row * 1).sum().backward()
    assert x.grad.numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]  # row 0 was overwritten by a constant


def test_an_element_of_a_view_set_in_place() -> None:
    x = t([1.0, 2.0, 3.0])
    y = x * 3
    v = y[1:3]
    v[0] = x[0] * 10
    y.sum().backward()
    assert y.detach().numpy().tolist() == [3.0, 10.0, 9.0]
    assert x.grad.numpy().tolist() == [13.0, 0.0, 3.0]


def test_under_no_grad_only_the_numbers_change() -> None:
    x = t([1.0, 2.0, 3.0])
    y = x * 1
    v = y[0:2]
    with mg.no_grad():
        v.div_(2)
    assert y.grad_fn.name() == "MulBackward0" and v.grad_fn.name() == "AsStridedBackward0"  # as PyTorch's
    assert v.grad_fn.next_functions[0][0] is y.grad_fn  # the view reads its base afresh: no CopySlices
    assert y.detach().numpy().tolist() == [0.5, 1.0, 3.0]


def test_a_view_of_a_leaf_that_requires_grad_still_refuses_in_place_ops() -> None:
    x = t([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0:2].mul_(2)


def test_in_place_on_a_transposed_view_and_on_a_view_of_a_view() -> None:
    x = t([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    y.t().mul_(t([[1.0, 2.0], [3.0, 4.0]], requires_grad=False))  # y becomes x * [[1, 3], [2, 4]]
    y[0:2][1].add_(10)  # then its second row grows by 10
    assert y.grad_fn.name() == "CopySlices"
    assert y.detach().numpy().tolist() == [[1.0, 6.0], [16.0, 26.0]]
    y.sum().backward()
    assert x.grad.numpy().tolist() == [[1.0, 3.0], [2.0, 4.0]]


def test_in_place_on_an_expanded_view_in_the_graph_is_refused_as_pytorch() -> None:
    y = t([1.0, 2.0]) * 1
    with pytest.raises(RuntimeError, match="(?s)more than one element of the written-to tensor.*What to do"):
        y.expand(3, 2).mul_(2)


def test_views_of_tensors_outside_the_graph_change_freely() -> None:
    y = t([[1.0, 2.0], [3.0, 4.0]], requires_grad=False)
    y.t().mul_(2)
    y[0:1][0].add_(1)
    assert y.detach().numpy().tolist() == [[3.0, 5.0], [6.0, 8.0]]
    assert y.grad_fn is None


def test_a_base_keeps_its_views_weakly() -> None:
    y = t([1.0, 2.0, 3.0]) * 1
    v = y[0:2]
    assert list(y._views.values()) == [v]
    del v
    assert len(y._views) == 0


def test_gradients_match_torch_for_in_place_ops_through_views() -> None:
    torch = pytest.importorskip("torch")

    def run(make, base_first):
        x, w = make([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]), make([2.0, -3.0, 0.25])
        y = x * x if base_first else x * 2
        row, col, cell = y[1], y[0:2], y.t()[2]
        flat = y.reshape(-1)
        if base_first:
            y.mul_(3)
            row.mul_(w)
            cell.add_(w[0:2])
        else:
            cell.mul_(w[1:3])
            row.mul_(w)
            y.add_(1)
            flat[1:3].mul_(2)
        ((y * y).sum() + (col * 2).sum() + row.sum() + (flat * flat).sum() + cell.sum()).backward()
        return x.grad, w.grad

    for base_first in (False, True):
        ours = run(lambda d: t(d), base_first)
        theirs = run(lambda d: torch.tensor(d, dtype=torch.float64, requires_grad=True), base_first)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_a_reshape_that_had_to_copy_is_no_view() -> None:
    x = t([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    flat = y.t().reshape(-1)  # not contiguous: a copy, as PyTorch's reshape
    y.mul_(5)
    assert flat.detach().numpy().tolist() == [1.0, 3.0, 2.0, 4.0]
    flat.sum().backward()
    assert x.grad.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_a_long_chain_of_views_costs_one_link_each_and_no_recursion() -> None:
    x = t([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    v = y
    for _ in range(20_000):  # each view's steps are one link on its source's, not a copy of them
        v = v.t()
    v.mul_(2)  # written back through all 20,000 steps, then derived again
    y.sum().backward()
    assert x.grad.numpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_live_views_of_views_are_located_in_the_base_step_by_step_not_each_from_scratch() -> None:
    x = t([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    views = [y.t()]
    for _ in range(2_999):  # 3,000 live views, each a view of the one before: 3,000 steps, not 4.5 million
        views.append(views[-1].t())
    y.mul_(3)
    assert views[-1].grad_fn.name() == "AsStridedBackward0" and views[-1].grad_fn.next_functions[0][0] is y.grad_fn
    (views[-1] * views[10]).sum().backward()  # y · yᵀ summed, with y = 3x
    assert x.grad.numpy().tolist() == [[18.0, 54.0], [36.0, 72.0]]


@pytest.fixture
def emulated_cuda(monkeypatch: pytest.MonkeyPatch):
    """``device="cuda"`` on the CPU emulator of the kernels, where indexing and transposing copy."""
    emulator = pytest.importorskip("cuda_emu.emulator")
    cuda = pytest.importorskip("micrograd2.backends.cuda")
    from micrograd2 import backends

    be = cuda.CudaBackend(emulator.EmulatedDevice(tiles=emulator.SMALL_TILES))
    monkeypatch.setitem(backends._backends, "cuda", be)
    monkeypatch.setitem(backends._by_array_type, type(be.full((1,), 0.0, "float32")), be)


def _names(node):
    return node.name(), tuple(None if n is None else n.name() for n, _ in node.next_functions)


def _setitem_chain_and_no_grad(device):
    x = mg.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True, dtype="float64", device=device)
    w = mg.tensor([2.0, -3.0], requires_grad=True, dtype="float64", device=device)
    y = x * 2
    row, cell = y[0], y.t()[1]
    row[1] = 5.0  # a setitem on a view: copy_ into a view of the view
    cell.mul_(w)  # a view of a view
    with mg.no_grad():
        row.div_(2)  # numbers only, written into the base on CUDA too (where row is a copy)
    nodes = [_names(y.grad_fn), _names(row.grad_fn), _names(cell.grad_fn)]
    ((y * y).sum() + (cell * cell).sum()).backward()
    return nodes, y.to("cpu").tolist(), cell.to("cpu").tolist(), x.grad.to("cpu").tolist(), w.grad.to("cpu").tolist()


def test_the_nodes_of_in_place_ops_on_views_are_torchs_on_emulated_cuda(emulated_cuda) -> None:
    ours = _setitem_chain_and_no_grad("cuda")
    cpu = _setitem_chain_and_no_grad("cpu")
    assert ours[0] == cpu[0] == [("CopySlices", ("CopySlices", "AccumulateGrad")),
                                 ("AsStridedBackward0", ("CopySlices",)), ("AsStridedBackward0", ("CopySlices",))]
    assert ours[2:] == cpu[2:]


def test_add_mul_sub_under_no_grad_on_a_view_reach_the_base_on_emulated_cuda(emulated_cuda) -> None:
    seen = {}
    for device in ("cpu", "cuda"):
        base = mg.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
        row, column = base[0], base.t()[1]  # copies on CUDA, views of the memory on the CPU
        with mg.no_grad():
            row.add_(10.0)
            column.mul_(2.0)
            row.sub_(1.0, alpha=0.5)
        seen[device] = base.to("cpu").tolist(), row.to("cpu").tolist(), column.to("cpu").tolist()
    assert seen["cuda"] == seen["cpu"] == ([[10.5, 23.5], [3.0, 8.0]], [10.5, 23.5], [23.5, 8.0])
