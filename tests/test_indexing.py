"""micrograd2/tensors/indexing.py: ``unbind`` and iterating a Tensor — one ``UnbindBackward0`` with one
differentiable output per slice (``output_nr``, edges ``(node, k)``), gradients stacked back with zeros for
slices that got none, the slices as views — checked against PyTorch (skipped without it) and by hand."""
from __future__ import annotations

import weakref

import numpy as np
import pytest
from conftest import Two

import micrograd2 as mg

M = (np.arange(12.0).reshape(3, 4) / 7 - 0.5).astype(np.float32)  # as mg.tensor(M) holds it


def test_iterating_records_one_unbind_node_with_an_output_per_row() -> None:
    x = mg.tensor(M, requires_grad=True)
    rows = list(x)
    node = rows[0].grad_fn
    assert node.name() == "UnbindBackward0" and all(r.grad_fn is node for r in rows)
    assert [r.output_nr for r in rows] == [0, 1, 2] and x.output_nr == 0
    assert (rows[0] * rows[2]).grad_fn.next_functions == ((node, 0), (node, 2))
    assert node.next_functions == ((x._accumulator, 0),)


def test_the_gradient_stacks_the_rows_gradients_with_zeros_for_a_row_unused() -> None:
    x = mg.tensor(M, requires_grad=True)
    a, _, c = x
    (a * c).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.stack([M[2], np.zeros(4), M[0]]))


def test_a_later_output_may_be_the_root_and_gradients_add_per_output() -> None:
    x = mg.tensor(M, requires_grad=True)
    rows = x.unbind(1)
    (rows[3] * 2 + rows[3] * rows[3]).sum().backward()  # d/dx of 2c + c² at column 3: 2 + 2c
    expected = np.zeros_like(M)
    expected[:, 3] = 2 + 2 * M[:, 3]
    assert np.allclose(x.grad.numpy(), expected)


def test_unbind_takes_a_dim_and_refuses_a_0d_tensor() -> None:
    x = mg.tensor(M)
    assert [r.shape for r in x.unbind(-1)] == [(3,)] * 4 and len(x.unbind(0)) == 3
    assert mg.tensor(np.zeros((0, 2))).unbind() == ()
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(mg.tensor(1.0))
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        mg.tensor(1.0).unbind()
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.unbind(2)


def test_outside_grad_mode_or_without_grad_the_rows_are_plain_views() -> None:
    x = mg.tensor(M, requires_grad=True)
    with mg.no_grad():
        rows = list(x)
    assert rows[1].grad_fn is None and rows[1].output_nr == 0
    w = mg.tensor(M)
    first = next(iter(w))
    first.mul_(2)  # allowed: nothing was recorded
    assert np.array_equal(w[0].numpy(), 2 * M[0]) and w._version == first._version == 1


def test_the_rows_share_memory_and_version_and_refuse_in_place_ops_as_pytorch() -> None:
    y = mg.tensor(M, requires_grad=True) * 1
    rows = list(y)
    assert rows[1]._base is y
    with pytest.raises(RuntimeError, match=r"Output 1 of Unbind is a view and is being modified inplace\."):
        rows[1].mul_(2)
    with pytest.raises(RuntimeError, match=r"Output 0 of Slice is a view and is being modified inplace\."):
        rows[2][0:2].add_(1)
    with mg.no_grad():
        rows[0].mul_(0)  # allowed under no_grad, as PyTorch, and seen by the base
    assert np.array_equal(y[0].detach().numpy(), np.zeros(4)) and y._version == 1


def test_a_pass_through_unbind_takes_the_reference_walk() -> None:
    x = mg.tensor(M, requires_grad=True)
    rows = list(x)
    assert [row.output_nr for row in rows] == [0, 1, 2]  # one node, an output number per row
    assert mg.Tensor.pieces.unwatched_walk is None  # (the Tensor engine's passes all take the reference walk)
    rows[2].sum().backward()  # a root that is output 2: the edge (node, 2)
    assert np.array_equal(x.grad.numpy(), np.stack([np.zeros(4), np.zeros(4), np.ones(4)]))
    node = weakref.ref(rows[0].grad_fn)
    del rows
    assert node() is None


def test_second_derivative_through_unbind_is_recorded_as_a_stack() -> None:
    x = mg.tensor(M, requires_grad=True, dtype="float64")
    a, b, _ = x
    (g,) = mg.autograd.grad((a * a * b).sum(), x, create_graph=True)  # rows: 2ab, a², 0
    assert g.grad_fn.name() == "StackBackward0"
    assert np.allclose(g.detach().numpy(),
                       np.stack([2 * M[0] * M[1], M[0] ** 2, np.zeros(4)]))
    g.sum().backward()  # d/dx Σ(2ab + a²) = rows 2b + 2a, 2a, 0
    assert np.allclose(x.grad.numpy(), np.stack([2 * M[1] + 2 * M[0], 2 * M[0], np.zeros(4)]))


def test_detach_in_place_drops_the_edge_of_a_later_output() -> None:
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    first, second = Two.apply(p)
    node = weakref.ref(second.grad_fn)
    assert second.output_nr == 1
    del first
    second.detach_()
    assert second._accumulator is None and second.output_nr == 0
    assert node() is None  # no edge (node, 1) keeps the graph alive
    second.requires_grad_()
    (second * 2).sum().backward()
    assert np.array_equal(second.grad.numpy(), [2.0, 2.0]) and p.grad is None


# -- against PyTorch -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unbind_matches_torch(dim: int, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    results = []
    for lib in (mg, torch):
        x = lib.tensor(M, requires_grad=True, dtype=getattr(torch, dtype) if lib is torch else dtype)
        parts = x.unbind(dim)
        loss = (parts[0] * parts[-1].exp()).sum()
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        (g * g).sum().backward()
        node = parts[-1].grad_fn
        results.append((node.name(), [p.output_nr for p in parts], loss.item(),
                        g.detach().numpy(), x.grad.numpy()))
    ours, theirs = results
    assert ours[:2] == theirs[:2]  # (exp: libm and Sleef may differ in the last bit, README)
    assert np.isclose(ours[2], theirs[2], rtol=1e-6)
    assert np.allclose(ours[3], theirs[3], rtol=1e-6) and np.allclose(ours[4], theirs[4], rtol=1e-6)


@pytest.mark.parametrize("index", [0, slice(1, 3), Ellipsis, [0, 2], None, slice(None), (slice(None), None)],
                         ids=["select", "slice", "ellipsis", "index_array", "new_axis", "all", "all_new_axis"])
def test_writing_into_a_row_is_refused_with_torchs_words(index) -> None:
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (mg, torch):
        rows = list(lib.tensor(M, requires_grad=True) * 1)
        with pytest.raises(RuntimeError) as error:
            rows[1][index] = 5.0
        messages.append(str(error.value).splitlines()[0])
    assert messages[0] == messages[1]


def test_iteration_graph_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    shapes = []
    for lib in (mg, torch):
        x = lib.tensor(M, requires_grad=True)
        a, b, c = x
        y = a * c + b
        mul, edge_b = y.grad_fn.next_functions
        shapes.append((y.grad_fn.name(), [(n.name(), k) for n, k in mul[0].next_functions], edge_b[0].name(),
                       edge_b[1]))
    assert shapes[0] == shapes[1] == ("AddBackward0", [("UnbindBackward0", 0), ("UnbindBackward0", 2)],
                                      "UnbindBackward0", 1)


def test_unbind_on_a_backend_whose_indexing_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CUDA backend (on the CPU emulator of its kernels): rows are copies there, the stack is scattered."""
    emulator = pytest.importorskip("cuda_emu.emulator")
    cuda = pytest.importorskip("micrograd2.backends.cuda")
    from micrograd2 import backends

    be = cuda.CudaBackend(emulator.EmulatedDevice(tiles=emulator.SMALL_TILES))
    monkeypatch.setitem(backends._backends, "cuda", be)
    monkeypatch.setitem(backends._by_array_type, type(be.full((1,), 0.0, "float32")), be)
    x = mg.tensor(M, requires_grad=True, device="cuda")
    a, _, c = x.unbind(0)
    (a * c).sum().backward()
    assert np.array_equal(x.grad.to("cpu").numpy(), np.stack([M[2], np.zeros(4, np.float32), M[0]]))
