"""In-place ops on views next to torch 2.13: the nodes recorded on the base and on its views, values, versions,
gradients (first and second) and errors.

PyTorch records an in-place op on a view on the base, as one ``CopySlices`` whose edges are the base's old
history then the op's other inputs (the op's own node is kept inside it), and every view of that base then
reads ``AsStridedBackward0`` -> the base's new history.  Each program runs on micrograd2 and on torch and returns
what a student would print: node shapes (``graph_shape``), numbers, ``_version``, gradients.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import graph_shape  # noqa: E402

import micrograd2 as mg  # noqa: E402

X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]
W = [2.0, -3.0, 0.25]


def t(lib: Any, data: Any, requires_grad: bool = False) -> Any:
    """A float64 tensor of either library."""
    if lib is mg:
        return mg.tensor(data, requires_grad=requires_grad, dtype="float64")
    return torch.tensor(data, requires_grad=requires_grad, dtype=torch.float64)


def _report(lib: Any, ops: Callable[[Any, Any, Any], list[Any]], create_graph: bool = False) -> list[Any]:
    """Run ``ops(lib, base, w)`` on ``base = x * 1`` (views it returns are reported too), then backward."""
    x, w = t(lib, X, True), t(lib, W, True)
    base = x * 1
    views = ops(lib, base, w)
    seen = [graph_shape(base.grad_fn), base.tolist(), base._version]
    seen += [(graph_shape(v.grad_fn), v.tolist(), v._version) for v in views]
    loss = (base * base).sum() + sum((v * v).sum() for v in views)
    if create_graph:
        gx, gw = (g.sum() for g in (lib.autograd.grad(loss, (x, w), create_graph=True)))
        (gx * gx + gw).backward()
    else:
        loss.backward()
    return seen + [x.grad.tolist(), None if w.grad is None else w.grad.tolist()]


def _row_op(name: str) -> Callable[[Any, Any, Any], list[Any]]:
    def ops(lib, base, w):
        other, before = base[1], base.t()  # views made before the op, used after it
        row = base[0]
        getattr(row, name)(w)
        return [row, other, before]
    return ops


def _scalar(lib, base, w):
    row = base[1]
    row.add_(3)
    row.mul_(2)  # a second op on the same view: CopySlices of CopySlices
    return [row]


def _chain(lib, base, w):
    cell = base.t()[1]  # a view of a view: its elements are found in the base
    cell.mul_(w[:2])
    return [cell, base[0]]


def _view_of_a_row(lib, base, w):
    row = base[0]
    tail = row[1:]
    tail.sub_(w[1:])
    return [row, tail]


def _view_made_after(lib, base, w):
    base[0].div_(w)
    return [base[1:], base.reshape(-1)]


def _setitem_on_a_view(lib, base, w):
    row = base[0]
    row[1] = 5.0
    base[1][2] = w[0] * 2
    return [row]


def _setitem_on_the_base(lib, base, w):
    base[0] = w
    base[1, 1:] = 7.0
    return []


def _copy_into_a_transpose(lib, base, w):
    view = base.t()
    view.copy_(t(lib, [[1.0, 2.0]]) * w[:1])
    return [view]


def _reshape_and_unsqueeze(lib, base, w):
    flat, wide = base.reshape(-1), base[None]
    flat.mul_(t(lib, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    wide.add_(w)
    return [flat, wide]


def _base_changed_in_place(lib, base, w):
    row, col = base[1], base[:, 0]
    base.mul_(w)
    return [row, col]


def _setitem_through_a_transpose(lib, base, w):
    columns = base.t()
    columns[:, 0] = 1.0
    columns[2][1] = w[0]  # a setitem on a view of a view
    row = columns[1]
    row.add_(w[1:])
    return [columns, row]


PROGRAMS = {
    "mul_": _row_op("mul_"), "add_": _row_op("add_"), "sub_": _row_op("sub_"), "div_": _row_op("div_"),
    "copy_": _row_op("copy_"), "scalar_then_again": _scalar, "chain": _chain, "view_of_a_row": _view_of_a_row,
    "view_made_after": _view_made_after, "setitem_on_a_view": _setitem_on_a_view,
    "setitem_on_the_base": _setitem_on_the_base, "copy_into_a_transpose": _copy_into_a_transpose,
    "reshape_and_unsqueeze": _reshape_and_unsqueeze, "base_changed_in_place": _base_changed_in_place,
    "setitem_through_a_transpose": _setitem_through_a_transpose,
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_in_place_on_a_view_matches_torch(name: str) -> None:
    ops = PROGRAMS[name]
    assert _report(mg, ops) == _report(torch, ops)


@pytest.mark.parametrize("name", ["mul_", "div_", "chain", "setitem_on_a_view", "base_changed_in_place"])
def test_second_derivatives_through_an_in_place_op_on_a_view_match_torch(name: str) -> None:
    ops = PROGRAMS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's create_graph reference-cycle warning)
        ours, theirs = _report(mg, ops, create_graph=True), _report(torch, ops, create_graph=True)
    assert ours[:-2] == theirs[:-2] and _close(ours[-2:], theirs[-2:])


def _close(a: Any, b: Any) -> bool:
    """Nested lists of numbers equal to 1e-12 (sums of products in another order)."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(p, q) for p, q in zip(a, b))
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def _constant_base(lib):
    base = t(lib, X)  # outside the graph: the op's other input brings the history
    w = t(lib, W, True)
    row = base[0]
    row.mul_(w)
    (base * base).sum().backward()
    return graph_shape(base.grad_fn), graph_shape(row.grad_fn), base.requires_grad, w.grad.tolist()


def test_an_in_place_op_on_a_view_of_a_constant_matches_torch() -> None:
    assert _constant_base(mg) == _constant_base(torch)


def _another_dtype(lib):
    x = lib.tensor(X, requires_grad=True)  # float32
    w = t(lib, W, True)  # float64: the view keeps its dtype, w's gradient is w's
    base = x * 1
    base[1].mul_(w)
    (base * base).sum().backward()
    return graph_shape(base.grad_fn), str(base.dtype)[-7:], str(x.grad.dtype)[-7:], str(w.grad.dtype)[-7:], \
        x.grad.tolist(), w.grad.tolist()


def test_an_in_place_op_on_a_view_with_another_dtype_matches_torch() -> None:
    assert _another_dtype(mg) == _another_dtype(torch)


def _under_no_grad(lib):
    x = t(lib, X, True)
    base = x * 1
    row, col = base[0], base[:, 1]
    with lib.no_grad():
        row.div_(2)  # only the numbers change; the views read their base afresh
        base.mul_(3)
    (row.sum() + (col * col).sum()).backward()
    return graph_shape(base.grad_fn), graph_shape(row.grad_fn), graph_shape(col.grad_fn), base._version, \
        base.tolist(), x.grad.tolist()


def test_an_in_place_op_on_a_view_under_no_grad_matches_torch() -> None:
    assert _under_no_grad(mg) == _under_no_grad(torch)


def _raised(lib, misuse):
    try:
        misuse(lib)
    except RuntimeError as error:
        return str(error).splitlines()[0]
    return None


def _view_of_a_leaf(lib):
    t(lib, X, True)[0].mul_(2)


def _setitem_on_a_leaf(lib):
    t(lib, X, True)[0] = 1.0


def _saved_view_changed(lib):
    base = t(lib, X, True) * 1
    row = base[0]
    y = row * row  # saves row
    base[0].add_(1)  # another view of the same base changes it
    y.sum().backward()


MISUSES = {  # name -> the misuse, the words both first lines hold
    "view_of_a_leaf": (_view_of_a_leaf, "a view of a leaf Variable that requires grad is being used in an in-place"),
    "setitem_on_a_leaf": (_setitem_on_a_leaf, "a view of a leaf Variable that requires grad is being used in an "),
    "saved_view_changed": (_saved_view_changed, "is at version 1; expected version 0 instead"),
}


@pytest.mark.parametrize("name", list(MISUSES))
def test_misuse_raises_as_torch(name: str) -> None:
    """The same error; for a changed saved value torch also names the Tensor, here its kind (autograd's words)."""
    misuse, phrase = MISUSES[name]
    theirs, ours = _raised(torch, misuse), _raised(mg, misuse)
    assert theirs is not None and phrase in theirs, f"the table is wrong about torch: {theirs!r}"
    assert ours is not None and phrase in ours and (ours == theirs or name == "saved_view_changed")


def test_a_second_backward_through_copyslices_is_refused_as_torch() -> None:
    """Only the op CopySlices wraps saved anything (``clone`` saves nothing): freeing CopySlices frees it."""
    for lib in (torch, mg):
        x, w = t(lib, [1.0, 2.0, 3.0], True), t(lib, 2.0, True)
        y = x.clone()
        y[0:2].mul_(w)
        total = y.sum()
        total.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            total.backward()


def _ix(lib: Any, positions: list[int]) -> Any:
    return torch.tensor(positions) if lib is torch else mg.tensor(positions, dtype="int64")


def _put(index: Callable[[Any, Any], Any], value: list[float] | float) -> Callable[[Any, Any], Any]:
    """``z[index] = value`` (a Tensor that requires grad, or a number); returns the value Tensor or None."""
    def run(lib: Any, z: Any) -> Any:
        v = t(lib, value, True) if isinstance(value, list) else value
        z[index(lib, z)] = v
        return v if isinstance(value, list) else None
    return run


ADVANCED = {  # x[index] = v with index arrays or a mask: index_put_, on a view when basic items come first
    "integers": _put(lambda lib, z: _ix(lib, [0, 1]), [5.0, 6.0, 7.0]),
    "a mask": _put(lambda lib, z: z > 2.5, 0.0),
    "integers then :": _put(lambda lib, z: (_ix(lib, [1]), slice(None)), [5.0, 6.0, 7.0]),
    "an integer then integers": _put(lambda lib, z: (0, _ix(lib, [0, 2])), 7.0),
    "integers then an integer": _put(lambda lib, z: (_ix(lib, [0, 1]), 1), [5.0, 6.0]),
    "a slice then integers": _put(lambda lib, z: (slice(1, None), _ix(lib, [0])), 7.0),
    "None then integers": _put(lambda lib, z: (None, _ix(lib, [1])), [5.0, 6.0, 7.0]),
    "... then integers": _put(lambda lib, z: (Ellipsis, _ix(lib, [0, 2])), 7.0),
    "an integer, ..., integers": _put(lambda lib, z: (1, Ellipsis, _ix(lib, [0])), 7.0),
}


@pytest.mark.parametrize("name", list(ADVANCED))
def test_setitem_through_an_advanced_index_records_torchs_nodes(name: str) -> None:
    reports = []
    for lib in (torch, mg):
        x = t(lib, X, True)
        z = x * 1
        v = ADVANCED[name](lib, z)
        shape = graph_shape(z.grad_fn)
        (z * z).sum().backward()
        reports.append((shape, z.tolist(), x.grad.tolist(), None if v is None else v.grad.tolist()))
    assert reports[0] == reports[1]
