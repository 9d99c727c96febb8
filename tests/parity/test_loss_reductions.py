"""``reduction="mean" | "sum" | "none"`` on every loss of ``mg.nn.functional``, next to torch 2.13.

The grid: each loss x each reduction x engine (Value lists, Tensors) x dtype x two shapes, comparing
the loss and the gradients of every input (``"none"`` is pulled back through a random upstream
gradient).  Sums may add in another order than torch's, so values agree to a few ulps of the dtype.
Then the cross-entropy's own options with each reduction, ``nll_loss``, and PyTorch's ``ValueError``
for a reduction it does not know.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

import micrograd2 as mg  # noqa: E402
from micrograd2.tensors import functional as TF  # noqa: E402

F = mg.nn.functional
REDUCTIONS = ("mean", "sum", "none")
DTYPES = ("float32", "float64")
TOL = {"float32": {"rtol": 1e-5, "atol": 1e-6}, "float64": {"rtol": 1e-12, "atol": 1e-13}}
ELEMENTWISE = ("mse_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "hinge_loss")
VALUE_SHAPES = ((), (5,))  # one Value, a list of Values
TENSOR_SHAPES = ((5,), (2, 3, 4))


def _hinge(scores: Any, labels: Any, reduction: str) -> Any:
    """micrograd's max-margin loss written with torch's ops (torch has no loss of this name)."""
    terms = torch.relu(1 - labels * scores)
    return terms if reduction == "none" else terms.sum() if reduction == "sum" else terms.mean()


TORCH_LOSS: dict[str, Callable[..., Any]] = {
    "mse_loss": torch.nn.functional.mse_loss,
    "binary_cross_entropy": torch.nn.functional.binary_cross_entropy,
    "binary_cross_entropy_with_logits": torch.nn.functional.binary_cross_entropy_with_logits,
    "hinge_loss": _hinge,
}
TARGET_HAS_GRAD = {"mse_loss": True, "binary_cross_entropy": True,
                   "binary_cross_entropy_with_logits": True, "hinge_loss": False}


def _inputs(name: str, shape: tuple[int, ...], seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if name == "binary_cross_entropy":
        return rng.uniform(0.05, 0.95, shape), rng.uniform(0.0, 1.0, shape)
    if name == "hinge_loss":
        return rng.standard_normal(shape), rng.choice([-1.0, 1.0], shape)
    target = rng.uniform(0.0, 1.0, shape) if "cross" in name else rng.standard_normal(shape)
    return rng.standard_normal(shape), target


def _close(got: Any, want: Any, dtype: str) -> None:
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                               want.detach().to(torch.float64).numpy(), **TOL[dtype])


def _torch_side(name: str, x: np.ndarray, y: np.ndarray, dtype: str, reduction: str,
                upstream: np.ndarray) -> tuple[Any, Any, Any]:
    tx = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
    ty = torch.tensor(y, dtype=getattr(torch, dtype), requires_grad=TARGET_HAS_GRAD[name])
    loss = TORCH_LOSS[name](tx, ty, reduction=reduction)
    loss.backward(torch.tensor(upstream, dtype=loss.dtype).reshape(loss.shape))
    return loss, tx.grad, ty.grad


@pytest.mark.parametrize("shape", TENSOR_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_losses_on_tensors(name: str, reduction: str, dtype: str, shape) -> None:
    x, y = _inputs(name, shape, seed=len(shape))
    upstream = np.random.default_rng(7).standard_normal(shape if reduction == "none" else ())
    want, want_gx, want_gy = _torch_side(name, x, y, dtype, reduction, upstream)
    mx = mg.tensor(x, dtype=dtype, requires_grad=True)
    my = mg.tensor(y, dtype=dtype, requires_grad=TARGET_HAS_GRAD[name])
    loss = getattr(F, name)(mx, my, reduction=reduction)
    assert loss.shape == tuple(want.shape) and loss.dtype == dtype
    loss.backward(mg.tensor(upstream, dtype=dtype))
    _close(loss.tolist(), want, dtype)
    _close(mx.grad.tolist(), want_gx, dtype)
    if TARGET_HAS_GRAD[name]:
        _close(my.grad.tolist(), want_gy, dtype)


@pytest.mark.parametrize("shape", VALUE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_losses_on_values(name: str, reduction: str, dtype: str, shape) -> None:
    x, y = _inputs(name, shape, seed=3 + len(shape))
    upstream = np.random.default_rng(8).standard_normal(shape if reduction == "none" else ())
    want, want_gx, want_gy = _torch_side(name, x, y, dtype, reduction, upstream)
    grad_y = TARGET_HAS_GRAD[name]
    xs = [mg.Value(float(v), requires_grad=True, dtype=dtype) for v in x.reshape(-1)]
    ys = [mg.Value(float(v), requires_grad=True, dtype=dtype) if grad_y else float(v) for v in y.reshape(-1)]
    single = shape == ()
    loss = getattr(F, name)(xs[0] if single else xs, ys[0] if single else ys, reduction=reduction)
    losses = loss if isinstance(loss, list) else [loss]
    assert len(losses) == (1 if reduction != "none" else max(x.size, 1))
    assert all(isinstance(v, mg.Value) and v.dtype == dtype for v in losses)
    pulled = sum(float(g) * v for g, v in zip(upstream.reshape(-1), losses))  # Σ gᵢ·lossᵢ
    pulled.backward()
    _close([v.data for v in losses] if not single and reduction == "none" else losses[0].data, want, dtype)
    _close([v.grad for v in xs] if not single else xs[0].grad, want_gx, dtype)
    if grad_y:
        _close([v.grad for v in ys] if not single else ys[0].grad, want_gy, dtype)


def _torch_cross_entropy(z: np.ndarray, t: Any, dtype: str, reduction: str, upstream: np.ndarray,
                         **options: Any) -> tuple[Any, Any]:
    tz = torch.tensor(z, dtype=getattr(torch, dtype), requires_grad=True)
    tt = torch.tensor(t, dtype=getattr(torch, dtype)) if np.asarray(t).dtype.kind == "f" else torch.tensor(t)
    loss = torch.nn.functional.cross_entropy(tz, tt, reduction=reduction, **options)
    loss.backward(torch.tensor(upstream, dtype=loss.dtype).reshape(loss.shape))
    return loss, tz.grad


CE_TENSOR_SHAPES = ((4, 5), (2, 3, 4))  # (N, C) and (N, C, d)


@pytest.mark.parametrize("shape", CE_TENSOR_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_on_tensors(reduction: str, dtype: str, shape) -> None:
    rng = np.random.default_rng(len(shape))
    z = rng.standard_normal(shape)
    t = rng.integers(0, shape[1], (shape[0], *shape[2:]))
    upstream = rng.standard_normal(t.shape if reduction == "none" else ())
    want, want_g = _torch_cross_entropy(z, t, dtype, reduction, upstream)
    x = mg.tensor(z, dtype=dtype, requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor(t, dtype="int64"), reduction=reduction)
    assert loss.shape == tuple(want.shape)
    loss.backward(mg.tensor(upstream, dtype=dtype))
    _close(loss.tolist(), want, dtype)
    _close(x.grad.tolist(), want_g, dtype)


@pytest.mark.parametrize("shape", ((5,), (4, 5)), ids=str)  # one sample, a batch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_on_values(reduction: str, dtype: str, shape) -> None:
    rng = np.random.default_rng(10 + len(shape))
    z = rng.standard_normal(shape)
    t = rng.integers(0, shape[-1], shape[:-1])
    upstream = rng.standard_normal(t.shape if reduction == "none" else ())
    want, want_g = _torch_cross_entropy(z, t, dtype, reduction, upstream)
    rows = [[mg.Value(float(v), requires_grad=True, dtype=dtype) for v in row] for row in z.reshape(-1, shape[-1])]
    one = len(shape) == 1
    loss = F.cross_entropy(rows[0] if one else rows, int(t) if one else [int(i) for i in t],
                           reduction=reduction)
    losses = loss if isinstance(loss, list) else [loss]
    sum(float(g) * v for g, v in zip(upstream.reshape(-1), losses)).backward()
    _close([v.data for v in losses] if isinstance(loss, list) else loss.data, want, dtype)
    _close(np.array([[v.grad for v in row] for row in rows]).reshape(shape), want_g, dtype)


@pytest.mark.parametrize("options", [{"ignore_index": 1}, {"label_smoothing": 0.2},
                                     {"ignore_index": 1, "label_smoothing": 0.2}], ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_options_with_each_reduction(reduction: str, dtype: str, options) -> None:
    rng = np.random.default_rng(5)
    z, t = rng.standard_normal((2, 3, 4)), np.array([[0, 1, 1, 2], [1, 2, 0, 1]])
    upstream = rng.standard_normal(t.shape if reduction == "none" else ())
    want, want_g = _torch_cross_entropy(z, t, dtype, reduction, upstream, **options)
    x = mg.tensor(z, dtype=dtype, requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor(t, dtype="int64"), reduction=reduction, **options)
    loss.backward(mg.tensor(upstream, dtype=dtype))
    _close(loss.tolist(), want, dtype)
    _close(x.grad.tolist(), want_g, dtype)


@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_with_class_probabilities(reduction: str, dtype: str, label_smoothing: float) -> None:
    rng = np.random.default_rng(6)
    z = rng.standard_normal((2, 3, 4))
    p = rng.uniform(0.0, 1.0, z.shape)
    p = p / p.sum(1, keepdims=True)
    upstream = rng.standard_normal((2, 4) if reduction == "none" else ())
    want, want_g = _torch_cross_entropy(z, p, dtype, reduction, upstream, label_smoothing=label_smoothing)
    x = mg.tensor(z, dtype=dtype, requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor(p, dtype=dtype), reduction=reduction, label_smoothing=label_smoothing)
    assert loss.shape == tuple(want.shape)
    loss.backward(mg.tensor(upstream, dtype=dtype))
    _close(loss.tolist(), want, dtype)
    _close(x.grad.tolist(), want_g, dtype)


@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
@pytest.mark.parametrize("reduction", ("sum", "none"))
def test_a_fully_ignored_batch_summed_or_unreduced_is_zero(reduction: str, label_smoothing: float) -> None:
    z = np.random.default_rng(2).standard_normal((3, 4))
    targets = np.full(3, -100)
    upstream = np.ones(3 if reduction == "none" else ())
    want, want_g = _torch_cross_entropy(z, targets, "float64", reduction, upstream,
                                        label_smoothing=label_smoothing)
    x = mg.tensor(z, dtype="float64", requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor(targets, dtype="int64"), reduction=reduction,
                           label_smoothing=label_smoothing)
    loss.backward(mg.tensor(upstream, dtype="float64"))
    assert loss.tolist() == want.tolist() and x.grad.tolist() == want_g.tolist()  # zeros, not nan


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_with_each_reduction(reduction: str, dtype: str) -> None:
    rng = np.random.default_rng(9)
    logp = np.log(rng.uniform(0.05, 1.0, (5, 3)))
    t = np.array([0, 2, -100, 1, 2])
    upstream = rng.standard_normal(5 if reduction == "none" else ())
    tl = torch.tensor(logp, dtype=getattr(torch, dtype), requires_grad=True)
    want = torch.nn.functional.nll_loss(tl, torch.tensor(t), reduction=reduction)
    want.backward(torch.tensor(upstream, dtype=want.dtype).reshape(want.shape))
    x = mg.tensor(logp, dtype=dtype, requires_grad=True)
    loss = TF.nll_loss(x, mg.tensor(t, dtype="int64"), reduction=reduction)
    loss.backward(mg.tensor(upstream, dtype=dtype))
    if reduction == "none":  # each row picks one entry: no sum to reorder
        assert loss.tolist() == want.tolist()
    _close(loss.tolist(), want, dtype)
    _close(x.grad.tolist(), tl.grad, dtype)


def test_the_default_reduction_is_the_mean() -> None:
    x = mg.tensor([0.2, -1.0, 3.0], requires_grad=True)
    assert F.mse_loss(x, [0.0, 0.0, 1.0]).item() == F.mse_loss(x, [0.0, 0.0, 1.0], reduction="mean").item()
    vs = [mg.Value(0.2), mg.Value(-1.0)]
    assert F.mse_loss(vs, [0.0, 1.0]).data == F.mse_loss(vs, [0.0, 1.0], reduction="mean").data


def _bad_reduction_calls(engine: str) -> dict[str, Callable[..., Any]]:
    if engine == "tensor":
        a, b = mg.tensor([0.3, 0.6]), mg.tensor([0.0, 1.0])
        z, t = mg.tensor([[0.1, 0.2, 0.3]]), mg.tensor([1], dtype="int64")
    else:
        a, b = [mg.Value(0.3), mg.Value(0.6)], [0.0, 1.0]
        z, t = [[mg.Value(0.1), mg.Value(0.2), mg.Value(0.3)]], [1]
    def elementwise(name: str) -> Callable[[str], Any]:
        loss = getattr(F, name)
        return lambda r: loss(a, b, reduction=r)

    calls = {name: elementwise(name) for name in ELEMENTWISE}
    calls["cross_entropy"] = lambda r: F.cross_entropy(z, t, reduction=r)
    if engine == "tensor":
        calls["nll_loss"] = lambda r: TF.nll_loss(z, t, reduction=r)
    return calls


def _torch_bad_reduction_error() -> BaseException:
    with pytest.raises(BaseException) as caught:
        torch.nn.functional.mse_loss(torch.zeros(2), torch.zeros(2), reduction="avg")
    return caught.value


@pytest.mark.parametrize("engine", ["value", "tensor"])
def test_a_bad_reduction_gets_pytorchs_value_error(engine: str) -> None:
    want = _torch_bad_reduction_error()
    assert type(want) is ValueError and str(want) == "avg is not a valid value for reduction"
    for name, call in _bad_reduction_calls(engine).items():
        with pytest.raises(ValueError) as caught:
            call("avg")
        first, hint = str(caught.value).splitlines()
        assert first == str(want), name
        assert hint.startswith("What to do:"), name
