"""``Tensor.copy_(src)`` next to torch 2.13: one ``CopyBackwards`` node, its edges, values, gradients and errors.

Each program runs on micrograd2 and on torch and returns what a student would print: node shapes
(``graph_shape``), the numbers, ``_version``, gradients with their dtypes.  Known differences are strict xfails.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import graph_shape, raised  # noqa: E402

import micrograd2 as mg  # noqa: E402


def t(lib: Any, data: Any, requires_grad: bool = False, dtype: str = "float32") -> Any:
    """A tensor of either library (``dtype`` spelt as micrograd2 spells it)."""
    if lib is mg:
        return mg.tensor(data, requires_grad=requires_grad, dtype=dtype)
    return torch.tensor(data, requires_grad=requires_grad, dtype=getattr(torch, dtype))


def kind(x: Any) -> str:
    """A dtype as micrograd2 spells it (``torch.float64`` -> ``float64``)."""
    return str(x.dtype).removeprefix("torch.")


def _same_shape(lib):
    x, s = t(lib, [1.0, 2.0], True), t(lib, [3.0, 4.0], True)
    y = x * 1
    y.copy_(s * 2)
    node = graph_shape(y.grad_fn)
    (y * t(lib, [5.0, 7.0])).sum().backward()
    return node, y.tolist(), y._version, x.grad.tolist(), s.grad.tolist()


def _into_a_constant(lib):
    s = t(lib, [3.0, 4.0], True)
    z = t(lib, [0.0, 0.0])
    z.copy_(s)
    node = graph_shape(z.grad_fn)
    (z * t(lib, [1.0, 2.0])).sum().backward()
    return node, z.requires_grad, s.grad.tolist()


def _broadcast(lib):
    x, s = t(lib, [[1.0, 2.0], [3.0, 4.0]], True), t(lib, [[3.0], [4.0]], True)
    y = x * 1
    y.copy_(s)
    node = graph_shape(y.grad_fn)
    (y * t(lib, [[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return node, y.tolist(), x.grad.tolist(), s.grad.tolist()


def _broadcast_leading_dims(lib):
    s = t(lib, [3.0, 4.0], True)
    z = t(lib, [[[0.0, 0.0]] * 3] * 2)
    z.copy_(s)
    (z * z).sum().backward()
    return z.tolist(), s.grad.tolist()


def _another_dtype(lib, src_dtype, self_dtype):
    s = t(lib, [3.0, 1e-8, 70000.0], True, src_dtype)
    z = t(lib, [0.0, 0.0, 0.0], dtype=self_dtype)
    z.copy_(s)
    node = graph_shape(z.grad_fn)
    (z * t(lib, [1.01, 1e-9, 3.0], dtype=self_dtype)).sum().backward()
    return node, z.tolist(), kind(z), s.grad.tolist(), kind(s.grad)


def _a_number(lib, number):
    z = t(lib, [0.0, 0.0])
    z.copy_(number)
    return z.tolist(), z._version, z.grad_fn


def _a_number_into_a_non_leaf(lib):
    x = t(lib, [1.0, 2.0], True)
    y = x * 1
    y.copy_(2.5)
    node = graph_shape(y.grad_fn)
    y.sum().backward()
    return node, y.tolist(), x.grad.tolist()


def _a_0d_src(lib):
    s = t(lib, 5.0, True)
    z = t(lib, [0.0, 0.0])
    z.copy_(s * 1)
    node = graph_shape(z.grad_fn)
    (z * t(lib, [2.0, 3.0])).sum().backward()
    return node, s.grad.tolist()


def _into_an_integer_tensor(lib):
    s = t(lib, [1.5, -2.7], True)
    z = t(lib, [0, 0], dtype="int64")
    z.copy_(s)
    return z.tolist(), z.requires_grad, z.grad_fn, z._version


def _from_an_integer_tensor(lib):
    x = t(lib, [1.0, 2.0], True)
    y = x * 1
    y.copy_(t(lib, [3, 4], dtype="int64"))
    node = graph_shape(y.grad_fn)
    y.sum().backward()
    return node, y.tolist(), x.grad.tolist()


def _into_a_leaf_under_no_grad(lib):
    leaf = t(lib, [0.0, 0.0], True)
    with lib.no_grad():
        leaf.copy_(t(lib, [1.0, 2.0], True))
    return leaf.tolist(), leaf._version, leaf.grad_fn, leaf.requires_grad


def _under_no_grad(lib):
    x = t(lib, [1.0, 2.0], True)
    y = x * 1
    with lib.no_grad():
        y.copy_(t(lib, [5.0, 6.0], True))
    node = graph_shape(y.grad_fn)
    y.sum().backward()
    return node, y.tolist(), y._version, x.grad.tolist()


def _itself(lib):
    x = t(lib, [1.0, 2.0], True)
    y = x * 1
    y.copy_(y)
    node = graph_shape(y.grad_fn)
    y.sum().backward()
    return node, x.grad.tolist()


def _create_graph(lib):
    x, s = t(lib, [1.0, 2.0], True), t(lib, [3.0, 4.0], True, "float64")
    y = x * 1
    y.copy_(s * s)
    gx, gs = lib.autograd.grad((y * y).sum(), [x, s], create_graph=True)
    first = gx.tolist(), gx.requires_grad, gs.tolist(), kind(gs), graph_shape(gs.grad_fn)
    gs.sum().backward()
    return first, s.grad.tolist()


def _row_of_a_base(lib):
    b, s = t(lib, [[1.0, 2.0], [3.0, 4.0]], True), t(lib, [5.0, 6.0], True)
    base = b * 1
    row = base[0]
    row.copy_(s * 1)
    (base * t(lib, [[1.0, 2.0], [3.0, 4.0]])).sum().backward(retain_graph=True)
    (row * t(lib, [10.0, 20.0])).sum().backward()
    return base.tolist(), row.tolist(), base._version, b.grad.tolist(), s.grad.tolist()


def _transpose_of_a_base(lib):
    b, s = t(lib, [[1.0, 2.0], [3.0, 4.0]], True), t(lib, [[5.0, 6.0], [7.0, 8.0]], True, "float64")
    base = b * 1
    base.t().copy_(s * 1)
    (base * t(lib, [[1.0, 10.0], [100.0, 1000.0]])).sum().backward()
    return base.tolist(), b.grad.tolist(), s.grad.tolist(), kind(s.grad)


def _column_of_a_constant(lib):
    base, s = t(lib, [[0.0, 0.0], [0.0, 0.0]]), t(lib, [5.0, 6.0], True)
    base[:, 1].copy_(s)
    (base * t(lib, [[1.0, 10.0], [100.0, 1000.0]])).sum().backward()
    return base.tolist(), base.requires_grad, s.grad.tolist()


PROGRAMS: dict[str, Callable[[Any], Any]] = {
    "same_shape": _same_shape,
    "into_a_constant": _into_a_constant,
    "broadcast": _broadcast,
    "broadcast_leading_dims": _broadcast_leading_dims,
    "float64_into_float32": lambda lib: _another_dtype(lib, "float64", "float32"),
    "float32_into_float16": lambda lib: _another_dtype(lib, "float32", "float16"),
    "float16_into_float64": lambda lib: _another_dtype(lib, "float16", "float64"),
    "bfloat16_into_float32": lambda lib: _another_dtype(lib, "bfloat16", "float32"),
    "a_float": lambda lib: _a_number(lib, 3.5),
    "an_int": lambda lib: _a_number(lib, 3),
    "a_bool": lambda lib: _a_number(lib, True),
    "a_number_into_a_non_leaf": _a_number_into_a_non_leaf,
    "a_0d_src": _a_0d_src,
    "into_an_integer_tensor": _into_an_integer_tensor,
    "from_an_integer_tensor": _from_an_integer_tensor,
    "into_a_leaf_under_no_grad": _into_a_leaf_under_no_grad,
    "under_no_grad": _under_no_grad,
    "itself": _itself,
    "create_graph": _create_graph,
    "row_of_a_base": _row_of_a_base,
    "transpose_of_a_base": _transpose_of_a_base,
    "column_of_a_constant": _column_of_a_constant,
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_copy_matches_torch(name: str) -> None:
    program = PROGRAMS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's create_graph reference-cycle warning)
        assert program(mg) == program(torch)


def _copy_into_a_view(lib, make_view):
    b = t(lib, [[1.0, 2.0], [3.0, 4.0]], True)
    base = b * 1
    view = make_view(base)
    view.copy_(t(lib, [[5.0, 6.0], [7.0, 8.0]], True)[0] * 1)
    return graph_shape(view.grad_fn), graph_shape(base.grad_fn)


@pytest.mark.parametrize("make_view", [lambda y: y[0], lambda y: y.t()], ids=["row", "transpose"])
def test_copy_into_a_view_records_torchs_nodes(make_view) -> None:
    """The base's ``CopySlices`` (edges: the base's old history, src) and the view's ``AsStridedBackward0``."""
    assert _copy_into_a_view(mg, make_view) == _copy_into_a_view(torch, make_view)


def _copy_into_a_view_then_backward(lib):
    b, s = t(lib, [[1.0, 2.0], [3.0, 4.0]], True), t(lib, [5.0, 6.0], True)
    base = b * 1
    row = base[1]
    row.copy_(s * 2)
    (base * t(lib, [[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return base.tolist(), row.tolist(), base._version, b.grad.tolist(), s.grad.tolist()


def test_copy_into_a_view_gets_torchs_values_and_gradients() -> None:
    assert _copy_into_a_view_then_backward(mg) == _copy_into_a_view_then_backward(torch)


def _saved_then_copied(lib):
    x, s = t(lib, [1.0, 2.0], True), t(lib, [3.0, 4.0], True)
    y = x * 1
    w = y * y
    y.copy_(s)
    w.sum().backward()


def _its_own_transpose(lib):
    y = t(lib, [[1.0, 2.0], [3.0, 4.0]])
    y.copy_(y.t())


MISUSES: dict[str, tuple[Callable[[Any], Any], str]] = {
    "into_a_leaf": (lambda lib: t(lib, [0.0, 0.0], True).copy_(t(lib, [1.0, 2.0])),
                    "a leaf Variable that requires grad is being used in an in-place operation"),
    "into_a_view_of_a_leaf": (lambda lib: t(lib, [[0.0, 0.0]], True)[0].copy_(t(lib, [1.0, 2.0])),
                              "a view of a leaf Variable that requires grad is being used in an in-place operation"),
    "saved_then_copied": (_saved_then_copied, "has been modified by an inplace operation"),
    "shapes_that_do_not_broadcast": (lambda lib: t(lib, [0.0, 0.0]).copy_(t(lib, [1.0, 2.0, 3.0])),
                                     "The size of tensor a (2) must match the size of tensor b (3) at "
                                     "non-singleton dimension 0"),
    "a_bigger_src": (lambda lib: t(lib, [0.0, 0.0]).copy_(t(lib, [[1.0, 2.0], [3.0, 4.0]])),
                     "output with shape [2] doesn't match the broadcast shape [2, 2]"),
    "a_list": (lambda lib: t(lib, [0.0, 0.0]).copy_([1.0, 2.0]),
               "copy_(): argument 'other' (position 1) must be Tensor, not list"),
    "its_own_transpose": (_its_own_transpose, "some elements of the input tensor and the written-to tensor refer "
                                              "to a single memory location"),
    "a_row_of_an_unbind": (lambda lib: (t(lib, [[1.0, 2.0]], True) * 1).unbind(0)[0].copy_(t(lib, [3.0, 4.0])),
                           "Output 0 of Unbind is a view and is being modified inplace"),
}


KNOWN: dict[str, str] = {}  # misuses refused otherwise than PyTorch: none now


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[n])]
                                               if n in KNOWN else [], id=n) for n in MISUSES])
def test_copy_misuse_raises_as_torch(name: str) -> None:
    misuse, phrase = MISUSES[name]
    theirs, ours = raised(misuse, torch), raised(misuse, mg)
    assert theirs is not None and phrase in str(theirs), f"the table is wrong about torch: {theirs!r}"
    assert ours is not None and type(ours) is type(theirs) and phrase in str(ours), repr(ours)
    assert "What to do" in str(ours), f"no hint in: {ours}"


def test_the_version_error_names_the_same_versions() -> None:
    ours, theirs = raised(_saved_then_copied, mg), raised(_saved_then_copied, torch)
    assert "is at version 1; expected version 0 instead" in str(theirs)
    assert "is at version 1; expected version 0 instead" in str(ours)


OVERLAPS = {  # an in-place op whose input shares memory with the Tensor it writes: refused only when partial
    "add_ its transpose": lambda y: y.add_(y.t()),
    "mul_ its transpose, under no_grad": lambda y: _no_grad(y, lambda: y.mul_(y.t())),
    "a transpose add_ its base": lambda y: y.t().add_(y),
    "setitem of its transpose": lambda y: y.__setitem__(slice(None), y.t()),
    "shifted halves": lambda y: y.view(4)[1:3].add_(y.view(4)[0:2]),
    "disjoint halves": lambda y: y.view(4)[0:2].add_(y.view(4)[2:4]),
    "itself": lambda y: y.add_(y),
    "a row and a column (not dense: not checked)": lambda y: y[0].copy_(y[:, 0]),
    "rows": lambda y: y[0].sub_(y[1]),
}


def _no_grad(y, op):
    with (torch if isinstance(y, torch.Tensor) else mg).no_grad():
        op()


@pytest.mark.parametrize("name", list(OVERLAPS))
def test_a_partly_overlapping_input_is_refused_as_torch(name: str) -> None:
    outcomes = []
    for lib in (torch, mg):
        y = lib.tensor([[0.0, 1.0], [2.0, 3.0]])
        try:
            OVERLAPS[name](y)
            outcomes.append(("done", y.tolist()))
        except RuntimeError as error:
            assert "What to do" in str(error) or lib is torch, str(error)
            outcomes.append(("refused", str(error).splitlines()[0]))
    assert outcomes[0] == outcomes[1]
