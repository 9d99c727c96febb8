"""Every Tensor op: forward values and gradients against torch (float64) and against central differences,
PyTorch's node names, broadcasting, and second derivatives through ``create_graph``.

The catalogue ``CASES`` lists each op once, as a micrograd2 function and the same torch function; every
test runs over it.  Without torch the torch comparisons are skipped; the central differences always run.
The catalogue tests are about all the Tensor op modules at once; what is particular to one module is in its own
``test_tensor_<module>.py`` (arithmetic, reductions, linalg, unary...), except the last few here (losses,
indexing, freed saved arrays, dtype promotion), which are not yet split out.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.tensors import functional as F

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

Fn = Callable[..., Any]


class Case:
    """One op: ``mg_fn(*tensors)`` and ``torch_fn(*tensors)``, its inputs' shapes and domain, its node name."""

    def __init__(self, name: str, mg_fn: Fn, torch_fn: Fn, shapes: list[tuple[int, ...]], node: str,
                 low: float = -2.0, high: float = 2.0, torch_node: str | None = None, eps: float = 1e-6,
                 rtol: float = 1e-5) -> None:
        self.name, self.mg_fn, self.torch_fn, self.shapes, self.node = name, mg_fn, torch_fn, shapes, node
        self.low, self.high, self.eps, self.rtol = low, high, eps, rtol
        self.torch_node = node if torch_node is None else torch_node

    def inputs(self, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        xs = []
        for s in self.shapes:
            x = rng.uniform(self.low, self.high, s)
            x[np.abs(x) < 0.05] = 0.3  # keep away from kinks (relu, abs) and poles (1/x)
            xs.append(x)
        return xs

    def __repr__(self) -> str:
        return self.name


def _ce_targets(lib: Any) -> Any:
    return lib.tensor([0, 2, 1]) if lib is torch else mg.tensor([0, 2, 1], dtype="int64")


LABELS = [1.0, -1.0, 1.0, 1.0, -1.0, -1.0]

CASES = [
    # elementwise arithmetic, with broadcasting
    Case("add", lambda a, b: a + b, lambda a, b: a + b, [(3, 4), (3, 4)], "AddBackward0"),
    Case("add (3,1)+(1,4)", lambda a, b: a + b, lambda a, b: a + b, [(3, 1), (1, 4)], "AddBackward0"),
    Case("add scalar+(2,3)", lambda a, b: a + b, lambda a, b: a + b, [(), (2, 3)], "AddBackward0"),
    Case("sub (5,)-(4,5)", lambda a, b: a - b, lambda a, b: a - b, [(5,), (4, 5)], "SubBackward0"),
    Case("mul (4,5)*(5,)", lambda a, b: a * b, lambda a, b: a * b, [(4, 5), (5,)], "MulBackward0"),
    Case("mul (3,1)*(1,4)", lambda a, b: a * b, lambda a, b: a * b, [(3, 1), (1, 4)], "MulBackward0"),
    Case("div (2,3)/scalar", lambda a, b: a / b, lambda a, b: a / b, [(2, 3), ()], "DivBackward0", 0.5, 2.0),
    Case("div (3,1)/(1,4)", lambda a, b: a / b, lambda a, b: a / b, [(3, 1), (1, 4)], "DivBackward0", 0.5, 2.0),
    Case("pow tensor", lambda a, b: a**b, lambda a, b: a**b, [(2, 3), (2, 3)], "PowBackward1", 0.5, 2.0),
    Case("neg", lambda a: -a, lambda a: -a, [(2, 3)], "NegBackward0"),
    Case("x + 2", lambda a: a + 2, lambda a: a + 2, [(2, 3)], "AddBackward0"),
    Case("2 + x", lambda a: 2 + a, lambda a: 2 + a, [(2, 3)], "AddBackward0"),
    Case("x - 2", lambda a: a - 2, lambda a: a - 2, [(2, 3)], "SubBackward0"),
    Case("2 - x", lambda a: 2 - a, lambda a: 2 - a, [(2, 3)], "RsubBackward1"),
    Case("3 * x", lambda a: 3 * a, lambda a: 3 * a, [(2, 3)], "MulBackward0"),
    Case("x / 2", lambda a: a / 2, lambda a: a / 2, [(2, 3)], "DivBackward0"),
    Case("2 / x", lambda a: 2 / a, lambda a: 2 / a, [(2, 3)], "MulBackward0", 0.5, 2.0),  # reciprocal(x) * 2
    Case("x ** 2", lambda a: a**2, lambda a: a**2, [(2, 3)], "PowBackward0"),
    Case("x ** 0.5", lambda a: a**0.5, lambda a: a**0.5, [(2, 3)], "PowBackward0", 0.5, 2.0),
    Case("2 ** x", lambda a: 2**a, lambda a: 2**a, [(2, 3)], "PowBackward2"),
    # functions of one variable
    Case("exp", lambda a: a.exp(), lambda a: a.exp(), [(2, 3)], "ExpBackward0"),
    Case("log", lambda a: a.log(), lambda a: a.log(), [(2, 3)], "LogBackward0", 0.5, 2.0),
    Case("tanh", lambda a: a.tanh(), lambda a: a.tanh(), [(2, 3)], "TanhBackward0"),
    Case("relu", lambda a: a.relu(), lambda a: a.relu(), [(3, 4)], "ReluBackward0"),
    Case("sigmoid", lambda a: a.sigmoid(), lambda a: a.sigmoid(), [(2, 3)], "SigmoidBackward0"),
    Case("sqrt", lambda a: a.sqrt(), lambda a: a.sqrt(), [(2, 3)], "SqrtBackward0", 0.5, 2.0),
    Case("abs", lambda a: a.abs(), lambda a: a.abs(), [(2, 3)], "AbsBackward0"),
    # reductions
    Case("sum()", lambda a: a.sum(), lambda a: a.sum(), [(3, 4)], "SumBackward0"),
    Case("sum(0)", lambda a: a.sum(0), lambda a: a.sum(0), [(3, 4)], "SumBackward1"),
    Case("sum(1, keepdim)", lambda a: a.sum(1, keepdim=True), lambda a: a.sum(1, keepdim=True), [(3, 4)],
         "SumBackward1"),
    Case("sum((0, 2))", lambda a: a.sum((0, 2)), lambda a: a.sum((0, 2)), [(2, 3, 4)], "SumBackward1"),
    Case("sum(axis=-1, keepdims)", lambda a: a.sum(axis=-1, keepdims=True), lambda a: a.sum(-1, keepdim=True),
         [(3, 4)], "SumBackward1"),
    Case("mean()", lambda a: a.mean(), lambda a: a.mean(), [(3, 4)], "MeanBackward0"),
    Case("mean(1)", lambda a: a.mean(1), lambda a: a.mean(1), [(3, 4)], "MeanBackward1"),
    Case("mean(0, keepdim)", lambda a: a.mean(0, keepdim=True), lambda a: a.mean(0, keepdim=True), [(3, 4)],
         "MeanBackward1"),
    Case("max()", lambda a: a.max(), lambda a: a.max(), [(3, 4)], "MaxBackward1"),
    Case("max(1)", lambda a: a.max(1)[0], lambda a: a.max(1)[0], [(3, 4)], "MaxBackward0"),
    Case("max(0, keepdim)", lambda a: a.max(0, keepdim=True).values, lambda a: a.max(0, keepdim=True).values,
         [(3, 4)], "MaxBackward0"),
    Case("amax(1)", lambda a: a.amax(1), lambda a: a.amax(1), [(3, 4)], "AmaxBackward0"),
    Case("amax()", lambda a: a.amax(), lambda a: a.amax(), [(3, 4)], "AmaxBackward0"),
    # shapes
    Case("reshape(12)", lambda a: a.reshape(12), lambda a: a.reshape(12), [(3, 4)], "ViewBackward0"),
    Case("reshape(4, -1)", lambda a: a.reshape(4, -1), lambda a: a.reshape(4, -1), [(3, 4)], "ViewBackward0"),
    Case("view(-1)", lambda a: a.view(-1), lambda a: a.view(-1), [(3, 4)], "ViewBackward0"),
    Case("T", lambda a: a.T, lambda a: a.T, [(3, 4)], "PermuteBackward0"),
    Case("t()", lambda a: a.t(), lambda a: a.t(), [(3, 4)], "TBackward0"),
    Case("transpose(0, 1)", lambda a: a.transpose(0, 1), lambda a: a.transpose(0, 1), [(3, 4)],
         "TransposeBackward0"),
    Case("permute(2, 0, 1)", lambda a: a.permute(2, 0, 1), lambda a: a.permute(2, 0, 1), [(2, 3, 4)],
         "PermuteBackward0"),
    Case("unsqueeze(1)", lambda a: a.unsqueeze(1), lambda a: a.unsqueeze(1), [(3, 4)], "UnsqueezeBackward0"),
    Case("squeeze(0)", lambda a: a.squeeze(0), lambda a: a.squeeze(0), [(1, 4)], "SqueezeBackward1"),
    Case("expand(3, 4)", lambda a: a.expand(3, 4), lambda a: a.expand(3, 4), [(1, 4)], "ExpandBackward0"),
    # indexing and slicing
    Case("x[0]", lambda a: a[0], lambda a: a[0], [(3, 4)], "SelectBackward0"),
    Case("x[1:3]", lambda a: a[1:3], lambda a: a[1:3], [(3, 4)], "SliceBackward0"),
    Case("x[:, 1]", lambda a: a[:, 1], lambda a: a[:, 1], [(3, 4)], "SelectBackward0"),
    Case("x[0, 1:3]", lambda a: a[0, 1:3], lambda a: a[0, 1:3], [(3, 4)], "SliceBackward0"),
    Case("x[::2]", lambda a: a[::2], lambda a: a[::2], [(3, 4)], "SliceBackward0"),
    Case("x[..., 1]", lambda a: a[..., 1], lambda a: a[..., 1], [(3, 4)], "SelectBackward0"),
    Case("x[None]", lambda a: a[None], lambda a: a[None], [(3, 4)], "UnsqueezeBackward0"),
    Case("x[[0, 2, 0]]", lambda a: a[[0, 2, 0]], lambda a: a[[0, 2, 0]], [(3, 4)], "IndexBackward0"),
    Case("x[rows, cols]", lambda a: a[mg.tensor([0, 1], dtype="int64"), mg.tensor([3, 3], dtype="int64")],
         lambda a: a[torch.tensor([0, 1]), torch.tensor([3, 3])], [(3, 4)], "IndexBackward0"),
    Case("x[x > 0]", lambda a: a[a > 0], lambda a: a[a > 0], [(3, 4)], "IndexBackward0"),
    # matrix products
    Case("mm", lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4, 2)], "MmBackward0"),
    Case("mv", lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4,)], "MvBackward0"),
    Case("dot", lambda a, b: a @ b, lambda a, b: a @ b, [(4,), (4,)], "DotBackward0"),
    Case("vec @ mat", lambda a, b: a @ b, lambda a, b: a @ b, [(3,), (3, 4)], "SqueezeBackward4"),
    Case("x @ w.T + b", lambda x, w, b: x @ w.T + b, lambda x, w, b: x @ w.T + b, [(5, 3), (4, 3), (4,)],
         "AddBackward0"),
    Case("linear", lambda x, w, b: F.linear(x, w, b), lambda x, w, b: torch.nn.functional.linear(x, w, b),
         [(5, 3), (4, 3), (4,)], "AddmmBackward0"),
    # softmax and losses
    Case("log_softmax(1)", lambda a: a.log_softmax(1), lambda a: a.log_softmax(1), [(3, 4)], "LogSoftmaxBackward0"),
    Case("log_softmax(0)", lambda a: F.log_softmax(a, 0), lambda a: a.log_softmax(0), [(3, 4)],
         "LogSoftmaxBackward0"),
    Case("softmax(1)", lambda a: a.softmax(1), lambda a: a.softmax(1), [(3, 4)], "SoftmaxBackward0"),
    Case("softmax(0)", lambda a: a.softmax(0), lambda a: a.softmax(0), [(3, 4)], "SoftmaxBackward0"),
    Case("min()", lambda a: a.min(), lambda a: a.min(), [(3, 4)], "MinBackward1"),
    Case("min(1)", lambda a: a.min(1)[0], lambda a: a.min(1)[0], [(3, 4)], "MinBackward0"),
    Case("amin(0)", lambda a: a.amin(0), lambda a: a.amin(0), [(3, 4)], "AminBackward0"),
    Case("clamp", lambda a: a.clamp(-0.5, 0.5), lambda a: a.clamp(-0.5, 0.5), [(3, 4)], "ClampBackward1"),
    Case("clamp(tensors)", lambda a, lo, hi: a.clamp(lo, hi), lambda a, lo, hi: a.clamp(lo, hi), [(3, 4), (4,), (3, 1)],
         "ClampBackward0"),
    Case("bmm", lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3, 4), (2, 4, 5)], "UnsafeViewBackward0"),
    Case("cross_entropy", lambda a: F.cross_entropy(a, _ce_targets(mg)),
         lambda a: torch.nn.functional.cross_entropy(a, _ce_targets(torch)), [(3, 4)], "NllLossBackward0"),
    Case("mse_loss", lambda a, b: F.mse_loss(a, b), lambda a, b: torch.nn.functional.mse_loss(a, b),
         [(3, 4), (3, 4)], "MseLossBackward0"),
    Case("binary_cross_entropy", lambda a, b: F.binary_cross_entropy(a, b),
         lambda a, b: torch.nn.functional.binary_cross_entropy(a, b), [(3, 4), (3, 4)],
         "BinaryCrossEntropyBackward0", 0.1, 0.9),
    Case("hinge_loss", lambda s: F.hinge_loss(s, mg.tensor(LABELS, dtype="float64")),
         lambda s: (1 - torch.tensor(LABELS) * s).relu().mean(), [(6,)], "MeanBackward0"),
    # casts and composites
    Case("to(float32)", lambda a: a.to("float32") * 1.0, lambda a: a.to(torch.float32) * 1.0, [(2, 3)],
         "MulBackward0", eps=1e-3, rtol=1e-3),  # the function itself is rounded to float32
    Case("clone", lambda a: a.clone(), lambda a: a.clone(), [(2, 3)], "CloneBackward0"),
    Case("mlp layer", lambda x, w: (x @ w).tanh().sum(1).exp().mean(),
         lambda x, w: (x @ w).tanh().sum(1).exp().mean(), [(4, 3), (3, 2)], "MeanBackward0"),
]


def _mg(xs: list[np.ndarray], requires_grad: bool = True) -> list[mg.Tensor]:
    return [mg.tensor(x, requires_grad=requires_grad, dtype="float64") for x in xs]


def _weights(shape: tuple[int, ...], seed: int = 1) -> np.ndarray:
    """Fixed random weights: Σ out·w turns any output into a scalar that sees every element."""
    return np.random.default_rng(seed).uniform(0.5, 1.5, shape)


def _scalar(out: Any, lib: Any) -> Any:
    w = _weights(tuple(out.shape))
    return (out * (mg.tensor(w, dtype="float64") if lib is mg else torch.tensor(w))).sum()


def _grads(case: Case, xs: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    ts = _mg(xs)
    out = case.mg_fn(*ts)
    _scalar(out, mg).backward()
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_op_gradient_matches_central_differences(case: Case) -> None:
    xs = case.inputs()
    _, analytic = _grads(case, xs)

    def f(values: list[np.ndarray]) -> float:
        with mg.no_grad():
            return float(_scalar(case.mg_fn(*_mg(values, requires_grad=False)), mg).item())

    eps = case.eps
    for i, x in enumerate(xs):
        numeric = np.zeros_like(x)
        for k in np.ndindex(x.shape):
            plus, minus = [v.copy() for v in xs], [v.copy() for v in xs]
            plus[i][k] += eps
            minus[i][k] -= eps
            numeric[k] = (f(plus) - f(minus)) / (2 * eps)
        np.testing.assert_allclose(analytic[i], numeric, rtol=case.rtol, atol=1e-6,
                                   err_msg=f"{case.name}: gradient of input {i}")


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_op_forward_and_gradient_match_torch_in_float64(case: Case) -> None:
    xs = case.inputs()
    out, grads = _grads(case, xs)
    tts = [torch.tensor(x, requires_grad=True) for x in xs]
    tout = case.torch_fn(*tts)
    _scalar(tout, torch).backward()
    np.testing.assert_allclose(out, tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    for i, (g, tt) in enumerate(zip(grads, tts)):
        np.testing.assert_allclose(g, tt.grad.numpy(), rtol=1e-10, atol=1e-13, err_msg=f"input {i}")


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_op_node_has_pytorch_name(case: Case) -> None:
    out = case.mg_fn(*_mg(case.inputs()))
    assert out.grad_fn.name() == case.node


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_op_node_name_is_what_torch_prints(case: Case) -> None:
    tout = case.torch_fn(*[torch.tensor(x, requires_grad=True) for x in case.inputs()])
    assert tout.grad_fn.name() == case.torch_node


SECOND_ORDER = [c for c in CASES if c.name in (
    "mul (4,5)*(5,)", "div (3,1)/(1,4)", "exp", "log", "tanh", "sigmoid", "sqrt", "x ** 2", "2 ** x",
    "pow tensor", "sum(0)", "mean(1)", "mm", "mv", "dot", "log_softmax(1)", "cross_entropy", "mse_loss",
    "x[[0, 2, 0]]", "x[0, 1:3]", "max(1)", "amax(1)", "linear", "reshape(4, -1)", "T", "expand(3, 4)",
    "binary_cross_entropy", "mlp layer")]


@needs_torch
@pytest.mark.parametrize("case", SECOND_ORDER, ids=repr)
def test_second_derivatives_through_create_graph_match_torch(case: Case) -> None:
    xs = case.inputs()
    ts = _mg(xs)
    grads = mg.autograd.grad(_scalar(case.mg_fn(*ts), mg), ts, create_graph=True)

    tts = [torch.tensor(x, requires_grad=True) for x in xs]
    tgrads = torch.autograd.grad(_scalar(case.torch_fn(*tts), torch), tts, create_graph=True)
    assert [g.requires_grad for g in grads] == [tg.requires_grad for tg in tgrads]
    if not any(tg.requires_grad for tg in tgrads):  # a linear op: the gradient is a constant
        return
    tsecond = sum((g * g).sum() for g in tgrads)
    second = sum(((g * g).sum() for g in grads), start=mg.tensor(0.0, dtype="float64"))
    hess = mg.autograd.grad(second, ts, allow_unused=True)
    thess = torch.autograd.grad(tsecond, tts, allow_unused=True)
    for i, (h, th) in enumerate(zip(hess, thess)):
        if th is None or not torch.any(th != 0):
            assert h is None or np.allclose(h.numpy(), 0.0)
            continue
        np.testing.assert_allclose(h.numpy(), th.numpy(), rtol=1e-9, atol=1e-12, err_msg=f"input {i}")


def test_a_saved_array_is_freed_and_a_second_backward_raises() -> None:
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (a * a).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_index_gradient_adds_up_at_repeated_positions() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 0, 2]].sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 1.0]


def test_cross_entropy_is_log_softmax_then_nll_loss_and_stable() -> None:
    logits = mg.tensor([[1000.0, 0.0], [0.0, -1000.0]], requires_grad=True)
    loss = F.cross_entropy(logits, [0, 1])
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    assert loss.item() == pytest.approx(500.0)
    loss.backward()
    assert np.isfinite(logits.grad.numpy()).all()


@pytest.mark.parametrize("targets", [[0, 2], np.array([0, 2]), "tensor"])
def test_cross_entropy_takes_ints_numpy_arrays_and_int64_tensors(targets: Any) -> None:
    if isinstance(targets, str):
        targets = mg.tensor([0, 2], dtype="int64")
    logits = mg.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    expected = np.mean([np.log(np.exp([1, 2, 3]).sum()) - 1, np.log(np.exp([1, 2, 3]).sum()) - 3])
    assert F.cross_entropy(logits, targets).item() == pytest.approx(expected, rel=1e-6)
    assert mg.nn.functional.cross_entropy(logits, targets).item() == pytest.approx(expected, rel=1e-6)


def test_cross_entropy_rejects_bad_targets() -> None:
    logits = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        F.cross_entropy(logits, [0, 5])
    with pytest.raises(ValueError, match="batch_size"):
        F.cross_entropy(logits, [0])
    with pytest.raises(RuntimeError, match="expected scalar type Long"):
        F.cross_entropy(logits, mg.tensor([0.0, 1.0]))


def test_binary_cross_entropy_clamps_the_log_at_minus_100() -> None:
    p = mg.tensor([0.0, 1.0], requires_grad=True)
    loss = F.binary_cross_entropy(p, mg.tensor([1.0, 0.0]))
    assert loss.item() == pytest.approx(100.0)


def test_dtype_promotion_follows_pytorch() -> None:
    a = mg.tensor([1.0], dtype="float32")
    assert (a + mg.tensor([1.0], dtype="float64")).dtype == "float64"
    assert (mg.tensor([1.0], dtype="float16") + mg.tensor([1.0], dtype="bfloat16")).dtype == "float32"
    assert (mg.tensor([1.0], dtype="float16") * 2.0).dtype == "float16"  # a number does not widen
