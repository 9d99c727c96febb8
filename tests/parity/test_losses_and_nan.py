"""Losses and reductions at extreme inputs, and NaN propagation, next to torch 2.13 (values and gradients)."""
from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import differences, outcome_or_error, pair_grid, run_tensor, same  # noqa: E402

import micrograd2 as mg  # noqa: E402

NAN, INF = math.nan, math.inf


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


def _both(program, data, dtype="float32", ulps=0, scale_ulps=0):
    """Run ``program(lib, x)`` (a scalar loss) on a Tensor of ``data`` in both libraries; compare loss and grad."""
    x = mg.tensor(data, dtype=dtype, requires_grad=True)
    t = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=True)
    ours, theirs = program(mg, x), program(torch, t)
    ours.backward()
    theirs.backward()
    a = [ours.item(), *np.ravel(x.grad.numpy()).tolist()]
    b = [theirs.item(), *t.grad.reshape(-1).tolist()]
    if scale_ulps:  # differences measured in ulps of the largest entry (where torch's gradients cancel)
        tol = scale_ulps * math.ulp(max(abs(v) for v in b if math.isfinite(v)))
        assert len(a) == len(b) and all(same(p, q) or abs(p - q) <= tol for p, q in zip(a, b)), f"{a} vs {b}"
        return
    assert len(a) == len(b) and all(same(p, q, dtype, ulps) for p, q in zip(a, b)), f"{a} vs torch {b}"


def F(lib):  # noqa: N802 - torch.nn.functional's usual alias
    return mg.nn.functional if lib is mg else torch.nn.functional


def T(lib, data, dtype="float32"):  # noqa: N802
    return mg.tensor(data, dtype=dtype) if lib is mg else torch.tensor(data, dtype=getattr(torch, dtype))


# -- binary cross-entropy ----------------------------------------------------------------------------------
def test_bce_of_sigmoid_at_a_far_negative_logit() -> None:
    # loss 20 and gradient −1 (½(1 + tanh(x/2)) gave 100 and 0); 1 ulp: NumPy's float32 exp(20) is 1 ulp off
    _both(lambda lib, x: F(lib).binary_cross_entropy(x.sigmoid(), T(lib, [1.0])), [-20.0], ulps=1)


def test_bce_log_clamp_at_minus_100() -> None:
    _both(lambda lib, x: F(lib).binary_cross_entropy(x, T(lib, [1.0, 0.0, 1.0])), [0.0, 1.0, 1.0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bce_gradient_guard_is_torchs_float32_epsilon(dtype) -> None:
    # within 1e-12 of 0 or 1, (1 − p)·p is replaced by PyTorch's EPSILON, 1e-12 rounded to float32, in every dtype
    _both(lambda lib, x: F(lib).binary_cross_entropy(x, T(lib, [1.0, 0.0, 1.0, 0.0], dtype)),
          [1e-13, 0.0, 1 - 1e-13, 1e-300], dtype=dtype)


def test_bce_in_the_middle() -> None:
    _both(lambda lib, x: F(lib).binary_cross_entropy(x, T(lib, [1.0, 0.0, 0.25], "float64")), [0.25, 0.5, 0.75],
          dtype="float64", ulps=2)


def test_scalar_bce_log_clamp() -> None:
    p = mg.Value(0.0, requires_grad=True)
    loss = mg.nn.functional.binary_cross_entropy(p, 1.0)
    loss.backward()
    t = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
    tl = torch.nn.functional.binary_cross_entropy(t, torch.tensor([1.0], dtype=torch.float64))
    tl.backward()
    assert loss.data == tl.item() == 100.0 and p.grad == t.grad.item()


# -- cross-entropy ---------------------------------------------------------------------------------------------
LOGITS = [[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [2.0, 2.0, 2.0]]
# torch's log_softmax backward g − exp(y)·Σg is one fused multiply-add per element, and its nll_loss sums in
# a cascade: the last bits differ (up to 16 ulps where the gradient cancels to near 0)
CE_ULPS = 16
CE_SCALE_ULPS = 2  # where a gradient cancels to ~0 (uniform rows, smoothing's second branch): ulps of the largest


def test_cross_entropy_class_indices() -> None:
    _both(lambda lib, x: F(lib).cross_entropy(x, T(lib, [1, 2, 0], "int64")), LOGITS, "float64", ulps=CE_ULPS)


def test_cross_entropy_ignore_index() -> None:
    _both(lambda lib, x: F(lib).cross_entropy(x, T(lib, [1, -100, 0], "int64")), LOGITS, "float64", ulps=CE_ULPS)


def test_cross_entropy_label_smoothing() -> None:
    _both(lambda lib, x: F(lib).cross_entropy(x, T(lib, [1, 2, 0], "int64"), label_smoothing=0.1), LOGITS,
          "float64", scale_ulps=CE_SCALE_ULPS)


def test_cross_entropy_probability_targets() -> None:
    probs = [[0.2, 0.8, 0.0], [0.0, 0.0, 1.0], [1 / 3, 1 / 3, 1 / 3]]
    _both(lambda lib, x: F(lib).cross_entropy(x, T(lib, probs, "float64")), LOGITS, "float64",
          scale_ulps=CE_SCALE_ULPS)


def test_cross_entropy_with_extra_dimensions() -> None:
    logits = np.arange(12.0).reshape(2, 3, 2) / 5
    _both(lambda lib, x: F(lib).cross_entropy(x, T(lib, [[0, 2], [1, 1]], "int64")), logits, "float64", ulps=CE_ULPS)


def test_cross_entropy_at_huge_logits() -> None:
    _both(lambda lib, x: F(lib).cross_entropy(x, T(lib, [0, 1], "int64")), [[1e30, -1e30], [0.0, 1e30]])


# -- mse ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("data", [[1e20, 1.0], [3e38, 0.0], [NAN, 1.0], [INF, 0.0]])
def test_mse_loss_at_extremes(data) -> None:
    _both(lambda lib, x: F(lib).mse_loss(x, T(lib, [0.0, 1.0])), data)


# -- NaN through reductions and clipping ------------------------------------------------------------------------
def test_max_over_a_nan() -> None:
    _both(lambda lib, x: x.max(), [1.0, NAN, 3.0])


def test_amax_over_a_nan() -> None:
    _both(lambda lib, x: x.amax(0), [1.0, NAN, 3.0])


def test_max_dim_over_a_nan() -> None:
    _both(lambda lib, x: x.max(0)[0], [1.0, NAN, 3.0])


def test_min_over_a_nan() -> None:
    _both(lambda lib, x: x.min(), [1.0, NAN, 3.0])


def test_clamp_passes_nan() -> None:
    _both(lambda lib, x: x.clamp(-1.0, 1.0).sum(), [0.5, NAN, 3.0, -2.0])


def test_max_with_ties_shares_the_gradient() -> None:
    _both(lambda lib, x: x.max(), [3.0, 1.0, 3.0])


def test_clip_grad_norm_with_a_nan_gradient() -> None:
    p, tp = mg.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True)
    p.grad, tp.grad = mg.tensor([NAN, 1.0]), torch.tensor([NAN, 1.0])
    total, ttotal = mg.nn.utils.clip_grad_norm_([p], 1.0), torch.nn.utils.clip_grad_norm_([tp], 1.0)
    assert math.isnan(float(total)) and math.isnan(float(ttotal))
    assert all(math.isnan(g) for g in p.grad.tolist()) and all(math.isnan(g) for g in tp.grad.tolist())


def test_relu_and_abs_pass_nan_in_the_tensor_engine() -> None:
    _both(lambda lib, x: (x.relu() + x.abs()).sum(), [NAN, -1.0, 2.0])


# -- row reductions on the pair grid: each row one pair of edge values (±0, tiny, huge, ±inf, nan) ----------
ROW_PROGRAMS = {
    "min_dim": lambda x: x.min(1)[0],
    "max_dim": lambda x: x.max(1)[0],
    "amin": lambda x: x.amin(1),
    "amax": lambda x: x.amax(1),
    "min_dim_keepdim": lambda x: x.min(1, keepdim=True)[0],
    "softmax": lambda x: x.softmax(1),
    "softmax_dim0": lambda x: x.T.softmax(0),
}
# exp: torch's kernel (Sleef) and NumPy's differ by 1 ulp, and the sum's order may differ: 2 ulps of the
# forward.  The gradient y·(g − Σ g·y) is torch's formula, but Σ g·y carries those ulps of y times the seeds
# (1, 2, 3… up to the number of outputs) and g − Σ g·y cancels: measured in ulps of the largest seed (its
# square for second derivatives).
ROW_ULPS = {"softmax": 2, "softmax_dim0": 2}
SCALE_ULPS = 4
# the sign of a tie between 0.0 and −0.0: torch's reduction kernels keep the first along a dim (and the last
# over every element, or depending on their vector width), NumPy's maximum the second
ZERO_TIE = ("a tie of 0.0 and −0.0 along a dim: torch keeps the first, ours (NumPy's maximum) the second "
            "(README: Differences from PyTorch)")
ZERO_TIES = [(0.0, -0.0), (-0.0, 0.0)]


def _row_outcomes(name: str, dtype: str, rows: list[list[float]]):
    fn = ROW_PROGRAMS[name]
    return (outcome_or_error(run_tensor, mg, fn, [rows], dtype, weights=True),
            outcome_or_error(run_tensor, torch, fn, [rows], dtype, weights=True))


def _scaled_differences(ours, theirs, check: str, dtype: str) -> list[str]:
    a, b = getattr(ours, check), getattr(theirs, check)
    n = float(len(theirs.forward))  # the largest seed; a second derivative multiplies two seeds
    tol = SCALE_ULPS * math.ulp(n if check == "grad" else n * n)  # (float32's ulp is 2**29 float64 ulps)
    if dtype == "float32":
        tol *= 2.0**29
    return [f"{check} [entry {k}]: micrograd2 {x!r}, torch {y!r}" for k, (x, y) in enumerate(zip(a, b))
            if not (same(x, y) or isinstance(x, float) and isinstance(y, float) and abs(x - y) <= tol)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("check", ["forward", "grad", "grad2"])
@pytest.mark.parametrize("name", ROW_PROGRAMS)
def test_row_reductions_on_the_pair_grid(name: str, check: str, dtype: str) -> None:
    rows = [list(p) for p in pair_grid(dtype) if p not in ZERO_TIES]
    ours, theirs = _row_outcomes(name, dtype, rows)
    if name.startswith("softmax") and check != "forward" and not (ours.error or theirs.error):
        diffs = _scaled_differences(ours, theirs, check, dtype)
    else:
        diffs = differences(ours, theirs, dtype, [], check, ROW_ULPS.get(name, 0))
    assert not diffs, f"{len(diffs)} differences:\n" + "\n".join(diffs[:25])


@xfail(ZERO_TIE)
@pytest.mark.parametrize("name", ["max_dim", "min_dim", "amax", "amin"])
def test_a_tie_of_signed_zeros_along_a_dim(name: str) -> None:
    ours, theirs = _row_outcomes(name, "float64", [list(p) for p in ZERO_TIES])
    assert not differences(ours, theirs, "float64", [], "forward")


def test_min_of_every_element_at_the_edges() -> None:
    for a, b in pair_grid("float64"):
        if (a, b) not in ZERO_TIES:
            _both(lambda lib, x: x.min(), [a, b, 3.0], dtype="float64")
            _both(lambda lib, x: x.amin(), [a, b, 3.0], dtype="float64")


def test_min_with_ties_shares_the_gradient_and_min_dim_picks_the_first() -> None:
    _both(lambda lib, x: x.min(), [1.0, 3.0, 1.0])
    _both(lambda lib, x: (x.min(0)[0] * 2).sum(), [[1.0, 2.0], [1.0, 0.5]])
    x, t = mg.tensor([[2.0, 1.0, 1.0, NAN]]), torch.tensor([[2.0, 1.0, 1.0, NAN]])
    assert x.min(1).indices.tolist() == t.min(1).indices.tolist() == [3]
    assert x[:, :3].argmin(1).tolist() == t[:, :3].argmin(1).tolist() == [1]
    assert x.argmin().item() == t.argmin().item() == 3


def test_min_of_integers_and_bools() -> None:
    for data, dtype in (([3, 1, 2], "int64"), ([True, False], "bool")):
        ours, theirs = mg.tensor(data, dtype=dtype).min(), torch.tensor(data, dtype=getattr(torch, dtype)).min()
        assert ours.item() == theirs.item() and _dtype(ours) == _dtype(theirs)


def _dtype(x) -> str:
    return str(x.dtype).replace("torch.", "")


@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (None, 0.0), (0.0, None), (2.0, 1.0), (NAN, None),
                                    (-INF, INF), (-0.0, 0.0)])
def test_clamp_values_and_gradients(bounds) -> None:
    lo, hi = bounds
    data = [0.5, NAN, 3.0, -2.0, 1.0, -1.0, 0.0, -0.0, INF, -INF]
    _both(lambda lib, x: (x.clamp(lo, hi) * T(lib, list(range(1, 11)))).sum(), data)


def test_clamp_with_tensor_bounds_sends_gradients_to_the_chosen_side() -> None:
    data = [[0.5, -3.0, 3.0, NAN, 1.0, 2.0], [-1.0, -1.0, -1.0, -1.0, 2.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.5, 0.0]]
    x, t = mg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours, theirs = x[0].clamp(x[1], x[2]), t[0].clamp(t[1], t[2])
    assert all(same(a, b) for a, b in zip(ours.tolist(), theirs.tolist()))
    ours.backward(mg.tensor([1.0, 2, 3, 4, 5, 6]))
    theirs.backward(torch.tensor([1.0, 2, 3, 4, 5, 6]))
    assert x.grad.tolist() == t.grad.tolist()
    lo, tlo = mg.tensor([0.0, 1.0], requires_grad=True), torch.tensor([0.0, 1.0], requires_grad=True)
    (mg.tensor([[-1.0, 2.0], [0.5, 0.5]]).clamp(min=lo) * 1).sum().backward()
    (torch.tensor([[-1.0, 2.0], [0.5, 0.5]]).clamp(min=tlo) * 1).sum().backward()
    assert lo.grad.tolist() == tlo.grad.tolist()  # broadcast bound: summed back


def test_clamp_of_an_int_tensor_and_torchs_error_without_bounds() -> None:
    assert mg.tensor([1, 5], dtype="int64").clamp(2, 3).tolist() == torch.tensor([1, 5]).clamp(2, 3).tolist()
    assert _dtype(mg.tensor([1, 5], dtype="int64").clamp(2.5, 3)) == _dtype(torch.tensor([1, 5]).clamp(2.5, 3))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        torch.tensor([1.0]).clamp()
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        mg.tensor([1.0]).clamp()


@pytest.mark.parametrize("p, y", [(0.0, 1.0), (1.0, 0.0), (0.0, 0.3), (1e-13, 1.0), (5e-324, 1.0),
                                  (1.0 - 1e-16, 0.2), (0.0, 0.0), (1.0, 1.0)])
def test_scalar_bce_at_the_edges_of_the_guard(p: float, y: float) -> None:
    v = mg.Value(p, requires_grad=True)
    loss = mg.nn.functional.binary_cross_entropy(v, y)
    loss.backward()
    t = torch.tensor([p], dtype=torch.float64, requires_grad=True)
    tl = torch.nn.functional.binary_cross_entropy(t, torch.tensor([y], dtype=torch.float64))
    tl.backward()
    assert same(loss.data, tl.item()) and same(v.grad, t.grad.item())
