"""Values and gradients that differed from torch 2.13 with no error (issue 34, round 4): confident
logits, 0-d losses, the binary cross-entropy's log1p, logit and second derivative, grad modes,
custom Functions' outputs, clipping, jacobian rows, float16's scalar add loop and mark_dirty."""
from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import differences, outcome_or_error, run_scalar, run_tensor, same  # noqa: E402

import micrograd2 as mg  # noqa: E402

LOGITS = [-100.0, -30.0, -2.5, -0.0, 0.0, 0.5, 3.0, 17.0, 30.0, 40.0, 80.0]


def _functional(lib):
    return lib.nn.functional


# -- binary_cross_entropy_with_logits: log_sigmoid, and sigmoid(x) − t -----------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("target", [0.0, 1.0, 0.25])
@pytest.mark.parametrize("engine", ["value", "tensor"])
def test_bce_with_logits_at_confident_logits(engine: str, target: float, dtype: str) -> None:
    def fn(x):
        lib = mg if isinstance(x, mg.autograd.Variable) else torch
        t = target if engine == "value" and lib is mg else lib.tensor(
            [target] * (x.numel() if x.ndim else 1), dtype=x.dtype).reshape(x.shape)
        return _functional(lib).binary_cross_entropy_with_logits(x, t, reduction="none")

    for x in LOGITS:
        if engine == "value":
            ours, theirs = run_scalar(mg, fn, [x], dtype), run_scalar(torch, fn, [x], dtype)
        else:
            ours, theirs = run_tensor(mg, fn, [[x]], dtype), run_tensor(torch, fn, [[x]], dtype)
        # 2 ulps: torch's vectorized exp/log1p (SLEEF) against libm; the old formula was off by
        # 1e-3 relative at x = 30 and gave 0 for 4.2e-18 at x = 40
        found = differences(ours, theirs, dtype, [f"x={x}"], "forward", ulps=2)
        found += differences(ours, theirs, dtype, [f"x={x}"], "grad", ulps=1)  # (torch's vector exp)
        assert not found, found


def test_bce_with_logits_pins_the_issue_numbers() -> None:
    for engine in ("value", "tensor"):
        x = (mg.Value(30.0, requires_grad=True, dtype="float64") if engine == "value"
             else mg.tensor(30.0, dtype="float64", requires_grad=True))
        t = 1.0 if engine == "value" else mg.tensor(1.0, dtype="float64")
        loss = mg.nn.functional.binary_cross_entropy_with_logits(x, t)
        loss.backward()
        assert math.isclose(float(loss.item()), 9.3576e-14, rel_tol=1e-4)
        assert float(x.grad if engine == "value" else x.grad.item()) == 1.0 / (1.0 + math.exp(-30.0)) - 1.0


def test_bce_with_logits_float32_logits_and_a_float64_target_follow_torchs_dtypes() -> None:
    z = np.array([30.0, -2.0, 0.5])
    x = mg.tensor(z, requires_grad=True)
    loss = mg.nn.functional.binary_cross_entropy_with_logits(x, mg.tensor([1.0, 0.0, 1.0], dtype="float64"),
                                                             reduction="none")
    tx = torch.tensor(z, dtype=torch.float32, requires_grad=True)
    want = torch.nn.functional.binary_cross_entropy_with_logits(tx, torch.tensor([1.0, 0.0, 1.0],
                                                                                 dtype=torch.float64),
                                                                reduction="none")
    assert loss.dtype == str(want.dtype).removeprefix("torch.")
    assert all(same(a, b, "float64", ulps=2) for a, b in zip(loss.tolist(), want.tolist()))


# -- 0-d losses and sigmoid ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["sigmoid", "exp", "tanh", "relu", "abs", "sqrt", "log"])
def test_a_0d_unary_op_and_its_backward(name: str) -> None:
    for lib in (mg, torch):
        x = lib.tensor(0.7, requires_grad=True)
        y = getattr(x, name)()
        y.backward()  # (a 0-d sigmoid used to crash in NumPy: np.reciprocal's out= on a scalar)
        if lib is mg:
            ours = (y.item(), x.grad.item())
        else:  # 2 ulps: torch's vectorized float32 kernels (SLEEF) against NumPy's libm
            assert all(same(a, b, "float32", ulps=2) for a, b in zip(ours, (y.item(), x.grad.item())))


@pytest.mark.parametrize("name", ["mse_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_a_0d_loss_backward(name: str) -> None:
    grads = []
    for lib in (mg, torch):
        x = lib.tensor(0.3, requires_grad=True)
        getattr(lib.nn.functional, name)(x, lib.tensor(1.0)).backward()
        grads.append(x.grad.item())
    assert same(grads[0], grads[1], "float32", ulps=1)


# -- binary_cross_entropy: log1p(−p), −logit(p) for the target, derivatives.yaml's second derivative --
PROBABILITIES = [1e-10, 1e-5, 0.3, 0.5, 0.999, 1 - 1e-9, 0.0, 1.0]


@pytest.mark.parametrize("check", ["forward", "grad", "grad2"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bce_grid_with_its_second_derivative(dtype: str, reduction: str, check: str) -> None:
    columns = [[p for p in PROBABILITIES for _ in range(3)], [y for _ in PROBABILITIES for y in (0.0, 1.0, 0.25)]]
    labels = [f"p={p},y={y}" for p in PROBABILITIES for y in (0.0, 1.0, 0.25)]

    def fn(p, y):
        lib = mg if isinstance(p, mg.autograd.Variable) else torch
        return _functional(lib).binary_cross_entropy(p, y, reduction=reduction)

    ours = outcome_or_error(run_tensor, mg, fn, columns, dtype)
    theirs = outcome_or_error(run_tensor, torch, fn, columns, dtype)
    found = differences(ours, theirs, dtype, labels, check, ulps=2)  # (2: libm against SLEEF's log)
    assert not found, found[:5]


# -- grad modes --------------------------------------------------------------------------------------
def test_requires_grad_false_after_the_graph_was_built_writes_no_grad() -> None:
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        y = (x * w).sum()
        x.requires_grad_(False)
        y.backward()
        assert x.grad is None and w.grad.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("switch", ["enable_grad", "set_grad_enabled"])
def test_grad_mode_inside_inference_mode_records_nothing(switch: str) -> None:
    seen = []
    for lib in (mg, torch):
        with lib.inference_mode():
            with (lib.enable_grad() if switch == "enable_grad" else lib.set_grad_enabled(True)):
                x = lib.tensor([1.0], requires_grad=True)
                y = x * 2
                seen.append((lib.is_grad_enabled(), y.requires_grad, y.grad_fn is None))
        z = x * 2  # out of it: recorded again
        seen.append(z.requires_grad)
    assert seen[:2] == seen[2:]


# -- custom Functions: the dtype forward returned; an input returned as is -----------------------------
def test_a_custom_functions_output_has_the_dtype_forward_returned() -> None:
    class Wider(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x * 2).astype(np.float64)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class TorchWider(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x * 2).double()

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x, tx = mg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    y, ty = Wider.apply(x), TorchWider.apply(tx)
    y.sum().backward()
    ty.sum().backward()
    assert y.dtype == "float64" == str(ty.dtype).removeprefix("torch.")
    assert x.grad.dtype == "float32" and x.grad.tolist() == tx.grad.tolist()


def _identity(lib, view: bool):
    class Same(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:1] if view else x

        @staticmethod
        def backward(ctx, g):
            return g

    return Same


@pytest.mark.parametrize("view", [False, True])
@pytest.mark.parametrize("case", ["grad mode", "input needs no grad", "made under no_grad",
                                  "changed under no_grad"])
def test_in_place_on_an_input_a_custom_function_returned(case: str, view: bool) -> None:
    outcomes = []
    for lib in (mg, torch):
        base = lib.ones(2, requires_grad=case != "input needs no grad")
        x = base * 1.0
        try:
            if case == "made under no_grad":
                with lib.no_grad():
                    y = _identity(lib, view).apply(x)
            else:
                y = _identity(lib, view).apply(x)
            if case == "changed under no_grad":
                with lib.no_grad():
                    y.add_(1.0)
            else:
                y.add_(1.0)
            outcomes.append("allowed")
        except RuntimeError as error:
            outcomes.append(str(error)[:60])
    assert outcomes[0] == outcomes[1]


def test_mark_dirty_under_no_grad_returns_a_new_tensor_sharing_the_data() -> None:
    class Double(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            x *= 2
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class TorchDouble(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    rows = []
    for lib, fn in ((mg, Double), (torch, TorchDouble)):
        leaf = lib.ones(2, requires_grad=True)
        x = leaf * 1.0
        node, version = x.grad_fn, x._version
        with lib.no_grad():
            y = fn.apply(x)
            z = fn.apply(leaf)  # a leaf that requires grad: not refused under no_grad
        rows.append((y is x, y.requires_grad, y.grad_fn, x.grad_fn is node, x._version > version,
                     y.tolist(), z is leaf, leaf.tolist()))
    assert rows[0] == rows[1]


# -- clip_grad_value_ with a negative clip value ------------------------------------------------------
@pytest.mark.parametrize("clip", [-0.5, 0.5, 0.0])
def test_clip_grad_value_with_any_clip_on_both_engines(clip: float) -> None:
    grads = [3.0, -3.0, 0.2, math.nan]
    want = [None] * len(grads)
    for k, g in enumerate(grads):
        t = torch.tensor(1.0, requires_grad=True, dtype=torch.float64)
        t.grad = torch.tensor(g, dtype=torch.float64)
        torch.nn.utils.clip_grad_value_([t], clip)
        want[k] = t.grad.item()
    values = [mg.Value(1.0, requires_grad=True) for _ in grads]
    for v, g in zip(values, grads):
        v.grad = g
    mg.nn.utils.clip_grad_value_(values, clip)
    tensor = mg.tensor(grads, requires_grad=True, dtype="float64")
    tensor.grad = mg.tensor(grads, dtype="float64")
    mg.nn.utils.clip_grad_value_([tensor], clip)
    assert all(same(v.grad, w) for v, w in zip(values, want))
    assert all(same(a, w) for a, w in zip(tensor.grad.tolist(), want))


# -- jacobian: rows stacked ------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["sqrt", "log", "reciprocal_abs"])
def test_jacobian_stacks_its_rows_so_an_infinite_derivative_stays_infinite(op: str) -> None:
    def f(x):
        return x.abs().pow(-1.0) if op == "reciprocal_abs" else getattr(x, op)()

    point = [0.0, 4.0]
    ours = mg.autograd.functional.jacobian(f, mg.tensor(point, dtype="float64"))
    theirs = torch.autograd.functional.jacobian(f, torch.tensor(point, dtype=torch.float64))
    flat_ours, flat_theirs = ours.reshape(-1).tolist(), theirs.reshape(-1).tolist()
    assert all(same(a, b) for a, b in zip(flat_ours, flat_theirs)), (flat_ours, flat_theirs)


# -- float16 add_/sub_ with alpha: PyTorch's scalar loop below one vector block ------------------------
@pytest.mark.parametrize("method", ["add_", "sub_"])
@pytest.mark.parametrize("size", [(), (1,), (7,), (31,)], ids=str)
def test_float16_add_with_alpha_rounds_as_torchs_scalar_loop(size, method: str) -> None:
    rng = np.random.default_rng(len(size) * 40 + (size[0] if size else 0))
    alphas = [-0.1, 0.37, -1e-3, 3.3, -0.01]
    for trial in range(40):
        # float16 numbers to start with: the conversion from float64 is not the point here
        a = rng.standard_normal(size).astype(np.float16) * np.float16(rng.choice([1.0, 100.0]))
        b = rng.standard_normal(size).astype(np.float16) * np.float16(10.0)
        alpha = alphas[trial % len(alphas)]
        ours = getattr(mg.tensor(a, dtype="float16"), method)(mg.tensor(b, dtype="float16"), alpha=alpha)
        theirs = getattr(torch.from_numpy(np.array(a)), method)(torch.from_numpy(np.array(b)), alpha=alpha)
        assert np.array(ours.tolist()).tolist() == np.array(theirs.tolist()).tolist(), (a, b, alpha)


def test_the_issues_float16_sgd_step() -> None:
    a = mg.tensor(0.5, dtype="float16").add_(mg.tensor(6.5625, dtype="float16"), alpha=-0.1)
    t = torch.tensor(0.5, dtype=torch.float16).add_(torch.tensor(6.5625, dtype=torch.float16), alpha=-0.1)
    assert a.item() == t.item() == -0.15625


# -- not yet as PyTorch (strict xfails: a fix shows) -----------------------------------------------------
@pytest.mark.xfail(strict=True, reason="the Value engine's binary_cross_entropy takes log(1 − p), not "
                                       "log1p(−p), and clamps the target's gradient (100, not −logit(0) = inf)")
@pytest.mark.parametrize("p", [1e-10, 0.0])
def test_value_bce_takes_log1p_and_logit(p: float) -> None:
    v, t = mg.Value(p, requires_grad=True, dtype="float64"), mg.Value(0.0, requires_grad=True, dtype="float64")
    loss = mg.nn.functional.binary_cross_entropy(v, t)
    loss.backward()
    tp = torch.tensor(p, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    want = torch.nn.functional.binary_cross_entropy(tp, ty)
    want.backward()
    assert same(loss.data, want.item()) and same(t.grad, ty.grad.item())


@pytest.mark.xfail(strict=True, reason="bfloat16 add_ with alpha rounds once (its storage is float32: the "
                                       "op cannot tell it from float32), where PyTorch's scalar loop for "
                                       "fewer than 32 elements rounds alpha, alpha·b and the sum")
def test_bfloat16_add_with_alpha_below_one_vector_block() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(5), rng.standard_normal(5) * 10
    ta = torch.tensor(a).to(torch.bfloat16)
    tb = torch.tensor(b).to(torch.bfloat16)
    ours = mg.tensor(ta.float().numpy(), dtype="bfloat16").add_(mg.tensor(tb.float().numpy(), dtype="bfloat16"),
                                                                 alpha=-0.1)
    assert ours.tolist() == ta.add_(tb, alpha=-0.1).float().tolist()
