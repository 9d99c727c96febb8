"""Tests for micrograd2.amp: autocast's op lists and casts, and GradScaler's PyTorch semantics.

PYTORCH_TRUTH references: D5 (unscale_ then clip), D6 (bfloat16 needs no scaler), D7/D8
(which ops run in which dtype; cast nodes in the graph), D17 (65536 overflows a float16
loss), E15 (a 1e-8 gradient underflows in float16 and the scaler rescues it), E16 (the
scaler's skip/backoff/growth sequence).
"""
from __future__ import annotations

import math
import threading
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.amp import GradScaler, autocast, get_autocast_dtype, is_autocast_enabled
from micrograd2.autograd import grad_mode
from micrograd2.nn import Neuron
from micrograd2.nn.functional import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    hinge_loss,
    mse_loss,
)
from micrograd2.nn.utils import clip_grad_norm_
from micrograd2.optim import SGD


def names(v) -> list[str | None]:
    return [None if n is None else n.name() for n, _ in v.grad_fn.next_functions]


# -- autocast: which op runs in which dtype ------------------------------------------------------------
def test_dot_casts_weights_inputs_and_bias_to_the_low_precision_dtype() -> None:
    w = [mg.Value(0.5, requires_grad=True), mg.Value(-1.25, requires_grad=True)]
    b = mg.Value(0.1, requires_grad=True)
    x = [mg.Value(2.0), mg.Value(3.0)]
    with autocast("float16"):
        y = mg.dot(w, x, b)
    assert y.dtype == "float16" and y.grad_fn.name() == "DotBackward0"
    # each parameter reaches the product through one cast node, as D8 (x needs no grad: None)
    assert names(y) == ["ToCopyBackward0", "ToCopyBackward0", None, None, "ToCopyBackward0"]
    for (node, _), p in zip(y.grad_fn.next_functions[:2], w):
        assert node.next_functions[0][0].variable is p
    assert y.data == float(__import__("numpy").float16(0.5 * 2 - 1.25 * 3 + float(__import__("numpy").float16(0.1))))


def test_an_input_already_in_the_low_precision_dtype_and_numbers_are_not_cast() -> None:
    w = mg.Value(0.5, dtype="float16", requires_grad=True)
    with autocast("float16"):
        y = mg.dot([w, mg.Value(1.0, requires_grad=True)], [3.0, 0.1])
    assert names(y) == ["AccumulateGrad", "ToCopyBackward0", None, None]  # numbers: no edge, no cast
    assert y.dtype == "float16"


def test_a_neuron_runs_in_float16_and_its_activation_follows_promotion() -> None:
    n = Neuron(3, activation="tanh")
    with autocast("float16"):
        out = n([1.0, 2.0, 3.0])
    assert out.dtype == "float16" and out.grad_fn.name() == "TanhBackward0"
    assert out.grad_fn.next_functions[0][0].name() == "DotBackward0"
    out.backward()
    assert all(p.dtype == "float64" and isinstance(p.grad, float) for p in n.parameters())


@pytest.mark.parametrize(
    "op",
    [lambda h: h.exp(), lambda h: h.log(), lambda h: h**2, lambda h: 2.0**h, lambda h: h ** mg.Value(2.0),
     lambda h: 2.0 / h, lambda h: mg.sum([h, h])],
)
def test_ops_on_the_float32_list_cast_their_inputs_to_float32(op) -> None:
    h = mg.Value(1.5, dtype="float16", requires_grad=True)
    with autocast("float16"):
        out = op(h)
    assert out.dtype == "float32"
    assert "ToCopyBackward0" in names(out)


def test_float64_inputs_are_cast_too_unlike_pytorch() -> None:
    """The deliberate difference: float64 is the scalar engine's default, so it is cast like float32."""
    x = mg.Value(3.0, requires_grad=True)
    with autocast("bfloat16"):
        assert (2.0 / x).dtype == "float32"
        assert x.exp().dtype == "float32"
        assert mg.dot([x], [x]).dtype == "bfloat16"


@pytest.mark.parametrize(
    "op",
    [lambda h, f: h + f, lambda h, f: h * f, lambda h, f: h - f, lambda h, f: h / f, lambda h, f: f / h],
)
def test_other_ops_follow_promotion(op) -> None:
    h = mg.Value(1.5, dtype="float16", requires_grad=True)
    f = mg.Value(2.0, dtype="float32", requires_grad=True)
    with autocast("float16"):
        out = op(h, f)
        assert out.dtype == "float32" and "ToCopyBackward0" not in names(out)
        assert (h * 2.0).dtype == "float16" and h.tanh().dtype == "float16" and h.relu().dtype == "float16"
        assert (h / 2.0).dtype == "float16"  # Value / number: not the float32 list


def test_every_loss_but_binary_cross_entropy_runs_in_float32_under_autocast() -> None:
    ps = [mg.Value(0.25, dtype="float16", requires_grad=True), mg.Value(0.75, dtype="float16", requires_grad=True)]
    with autocast("float16"):
        assert mse_loss(ps, [0.0, 1.0]).dtype == "float32"
        assert hinge_loss(ps, [1.0, -1.0]).dtype == "float32"
        bce = binary_cross_entropy_with_logits(ps, [0.0, 1.0])
        assert bce.dtype == "float32"
        loss = cross_entropy([ps], [1])
    assert loss.dtype == "float32"
    loss.backward()
    assert all(p.grad is not None for p in ps)


def test_binary_cross_entropy_is_unsafe_to_autocast_as_in_pytorch() -> None:
    """PyTorch's (CUDA) autocast bans binary_cross_entropy whatever the inputs' dtypes, and points to the
    with-logits form; switched off inside (enabled=False), it runs."""
    p = mg.Value(0.25, dtype="float32", requires_grad=True)
    with autocast("bfloat16"), pytest.raises(RuntimeError, match="binary_cross_entropy is unsafe to autocast") as e:
        binary_cross_entropy(p, 1.0)
    assert "binary_cross_entropy_with_logits" in str(e.value) and "What to do:" in str(e.value)
    with autocast("float16"), autocast(enabled=False):
        assert binary_cross_entropy(p, 1.0).dtype == "float32"
    assert binary_cross_entropy(p, 1.0).data == pytest.approx(-math.log(0.25))


def test_losses_outside_autocast_keep_the_inputs_dtype() -> None:
    ps = [mg.Value(0.25, dtype="float16", requires_grad=True)]
    assert mse_loss(ps, [0.0]).dtype == "float16"


def test_autocast_matches_pytorchs_dtypes_for_a_linear_layer_and_mse_loss() -> None:
    """D7: the product in float16, the loss in float32, parameters and their .grad in their own dtype."""
    torch = pytest.importorskip("torch")
    linear = torch.nn.Linear(2, 1)
    n = Neuron(2, nonlin=False)
    for p, v in zip(n.parameters(), [*linear.weight[0].tolist(), linear.bias.item()]):
        p.data = v
    x = [0.5, -1.5]
    with torch.autocast("cpu", dtype=torch.float16):
        t_out = linear(torch.tensor([x]))
        t_loss = torch.nn.functional.mse_loss(t_out, torch.zeros(1, 1))
    with autocast("float16"):
        out = n(x)
        loss = mse_loss(out, 0.0)
    assert (str(t_out.dtype), str(t_loss.dtype)) == ("torch.float16", "torch.float32")
    assert (out.dtype, loss.dtype) == ("float16", "float32")
    assert out.data == t_out.item() and loss.data == t_loss.item()
    t_loss.backward()
    loss.backward()
    assert [p.grad for p in n.parameters()] == [*linear.weight.grad[0].tolist(), linear.bias.grad.item()]
    # D8: between the product and each parameter's AccumulateGrad sits one ToCopyBackward0
    # (torch also transposes the weight: TBackward0, which a Neuron doesn't need)
    torch_paths = sorted(_path_to_leaf(node, "torch::autograd::AccumulateGrad")
                         for node, _ in t_out.grad_fn.next_functions if node is not None)
    our_paths = sorted(_path_to_leaf(node, "AccumulateGrad") for node, _ in out.grad_fn.next_functions
                       if node is not None)
    assert torch_paths == [["TBackward0", "ToCopyBackward0"], ["ToCopyBackward0"]]
    assert our_paths == [["ToCopyBackward0"]] * 3


def _path_to_leaf(node, leaf_name: str) -> list[str]:
    path = []
    while node.name() != leaf_name:
        path.append(node.name())
        node = node.next_functions[0][0]
    return path


# -- autocast: the context manager ---------------------------------------------------------------------
def test_autocast_sets_the_policy_only_while_active_and_restores_it_on_exceptions() -> None:
    assert grad_mode.autocast_policy() is None and not is_autocast_enabled()
    with pytest.raises(KeyError):
        with autocast("bfloat16"):
            assert is_autocast_enabled() and get_autocast_dtype() == "bfloat16"
            raise KeyError
    assert grad_mode.autocast_policy() is None and get_autocast_dtype() is None


def test_autocast_nests() -> None:
    x = mg.Value(1.0, requires_grad=True)
    with autocast("float16"):
        with autocast(enabled=False):
            assert mg.dot([x], [x]).dtype == "float64"
        with autocast("bfloat16"):
            assert mg.dot([x], [x]).dtype == "bfloat16"
        assert mg.dot([x], [x]).dtype == "float16"
    assert mg.dot([x], [x]).dtype == "float64"


def test_autocast_works_as_a_decorator() -> None:
    @autocast("bfloat16")
    def forward(x):
        return mg.dot([x], [x])

    assert forward(mg.Value(1.0)).dtype == "bfloat16"
    assert grad_mode.autocast_policy() is None


def test_autocast_refuses_a_dtype_that_is_not_low_precision() -> None:
    with pytest.raises(ValueError, match="float16 or bfloat16"):
        autocast("float32")
    with pytest.raises(ValueError, match="unknown dtype"):
        autocast("int8")


def test_mg_autocast_and_mg_gradscaler_are_the_amp_ones() -> None:
    assert mg.autocast is autocast and mg.GradScaler is GradScaler and mg.amp.autocast is autocast


def test_a_leaf_is_cast_once_per_autocast_block_and_the_cache_is_cleared_on_exit() -> None:
    w = mg.Value(0.5, requires_grad=True)
    with autocast("float16"):
        a, b = mg.dot([w], [1.0]), mg.dot([w], [2.0])
        assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]  # one ToCopyBackward0
        h = w * 1.0  # a non-leaf is not cached
        c, d = mg.dot([h], [1.0]), mg.dot([h], [1.0])
        assert c.grad_fn.next_functions[0][0] is not d.grad_fn.next_functions[0][0]
    with autocast("float16"):
        e = mg.dot([w], [1.0])
    assert e.grad_fn.next_functions[0][0] is not a.grad_fn.next_functions[0][0]
    assert mg.amp._thread_cache.casts == {}
    (a + b).backward()
    assert w.grad == 3.0


def test_the_cast_cache_is_per_thread_as_pytorchs() -> None:
    w = mg.Value(0.5, requires_grad=True)
    opened, done = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def other_thread() -> None:
        opened.wait(10)
        seen["autocast here"] = is_autocast_enabled()  # the main thread's block is open, not this thread's
        with autocast("float16"):
            seen["cast"] = mg.dot([w], [1.0]).grad_fn.next_functions[0][0]
        done.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with autocast("float16"):
        first = mg.dot([w], [1.0]).grad_fn.next_functions[0][0]
        opened.set()
        assert done.wait(10)
        again = mg.dot([w], [2.0]).grad_fn.next_functions[0][0]
    thread.join()
    assert seen["autocast here"] is False
    assert seen["cast"] is not first and seen["cast"].name() == "ToCopyBackward0"  # its own cast of w
    assert again is first  # and closing the other thread's block left this thread's cache alone


def test_cache_enabled_false_casts_every_time() -> None:
    w = mg.Value(0.5, requires_grad=True)
    with autocast("float16", cache_enabled=False):
        a, b = mg.dot([w], [1.0]), mg.dot([w], [2.0])
    assert a.grad_fn.next_functions[0][0] is not b.grad_fn.next_functions[0][0]


def test_the_casts_do_not_reenter_the_policy() -> None:
    seen: list[str] = []
    x = mg.Value(1.0, requires_grad=True)
    with autocast("float16"):
        policy = grad_mode.autocast_policy()

        def spy(fn, inputs):
            seen.append(fn.__name__)
            return policy(fn, inputs)

        grad_mode.set_autocast_policy(spy)
        try:
            mg.dot([x], [x])
            assert grad_mode.autocast_policy() is spy  # restored after the casts
        finally:
            grad_mode.set_autocast_policy(policy)
    assert seen == ["Dot"] and grad_mode.autocast_policy() is None


# -- GradScaler: scale ------------------------------------------------------------------------------------
def test_gradscaler_defaults_are_pytorchs() -> None:
    s = GradScaler()
    assert (s.get_scale(), s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval()) == (
        65536.0, 2.0, 0.5, 2000)
    assert s.is_enabled()


def test_scale_of_a_low_precision_loss_is_float32_as_pytorch() -> None:
    s = GradScaler()
    for dtype in ("float16", "bfloat16", "float32"):
        loss = mg.Value(2.0, dtype=dtype, requires_grad=True)
        scaled = s.scale(loss)
        assert scaled.dtype == "float32" and scaled.data == 131072.0 and scaled.grad_fn.name() == "MulBackward0"
    assert s.scale(mg.Value(2.0, requires_grad=True)).dtype == "float64"
    pair = s.scale([mg.Value(1.0), mg.Value(2.0)])
    assert isinstance(pair, list) and [v.data for v in pair] == [65536.0, 131072.0]


def test_a_disabled_scaler_passes_everything_through() -> None:
    s = GradScaler(enabled=False)
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.5)
    loss = p * 2.0
    assert s.scale(loss) is loss and s.get_scale() == 1.0 and not s.is_enabled()
    loss.backward()
    s.unscale_(opt)
    s.step(opt)
    s.update()
    assert p.data == 0.0


# -- GradScaler: E15 (underflow and rescue) and D17 (the 65536 trap) ---------------------------------------
def _tiny_gradient_loss(w):
    """A float16 product, then a float32 loss whose gradient with respect to w is 1e-8."""
    with autocast("float16"):
        h = mg.dot([w], [1.0])
        return mg.sum([h]) * 1e-8


def test_a_1e_8_gradient_underflows_to_zero_through_a_float16_op() -> None:
    w = mg.Value(1.0, dtype="float32", requires_grad=True)
    _tiny_gradient_loss(w).backward()
    assert w.grad == 0.0  # E15: the gradient at the float16 node is rounded to float16


def test_the_scaler_rescues_the_1e_8_gradient_with_pytorchs_numbers() -> None:
    w = mg.Value(1.0, dtype="float32", requires_grad=True)
    s = GradScaler()
    s.scale(_tiny_gradient_loss(w)).backward()
    assert w.grad == 0.0006551742553710938  # 1e-8·65536 in float16, as E15 (and torch on this graph)
    s.unscale_(SGD([w], lr=0.0))
    assert w.grad == 9.997165761888027e-09  # E15: relative error 2.8e-4


def test_the_rescue_matches_torch_on_the_same_graph() -> None:
    torch = pytest.importorskip("torch")
    tw = torch.tensor(1.0, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.float16):
        th = (tw.reshape(1, 1) @ torch.ones(1, 1)).reshape(())
        t_loss = th.float().sum() * 1e-8
    ts = torch.amp.GradScaler("cpu")
    ts.scale(t_loss).backward()
    scaled_torch = tw.grad.item()
    ts.unscale_(torch.optim.SGD([tw], lr=0.0))
    w = mg.Value(1.0, dtype="float32", requires_grad=True)
    s = GradScaler()
    s.scale(_tiny_gradient_loss(w)).backward()
    assert w.grad == scaled_torch
    s.unscale_(SGD([w], lr=0.0))
    assert w.grad == tw.grad.item()


def test_bfloat16_keeps_the_1e_8_gradient_without_a_scaler() -> None:
    w = mg.Value(1.0, dtype="float32", requires_grad=True)
    with autocast("bfloat16"):
        h = mg.dot([w], [1.0])
        loss = h * 1e-8  # stays bfloat16
    loss.backward()
    assert w.grad == 1.0011717677116394e-08  # D6/E15: 1e-8 in bfloat16


def test_a_loss_kept_in_float16_overflows_at_scale_65536_so_step_1_is_skipped() -> None:
    """D17: 65536 > 65504, so the gradient reaching a float16 loss is inf; the step is skipped, scale halves."""
    w = mg.Value(0.5, requires_grad=True)
    opt = SGD([w], lr=0.1)
    s = GradScaler()
    with autocast("float16"):
        loss = mg.dot([w], [1.0])  # the loss itself is float16
    s.scale(loss).backward()
    assert not math.isfinite(w.grad)
    assert s.step(opt) is None
    s.update()
    assert w.data == 0.5 and s.get_scale() == 32768.0
    opt.zero_grad()
    with autocast("float16"):
        loss = mg.dot([w], [1.0])
    s.scale(loss).backward()  # 32768 fits: the step goes through
    assert w.grad == 32768.0
    s.step(opt)
    s.update()
    assert w.data == pytest.approx(0.5 - 0.1, abs=1e-12) and s.get_scale() == 32768.0


def test_a_float32_loss_avoids_the_trap() -> None:
    w = mg.Value(0.5, requires_grad=True)
    opt = SGD([w], lr=0.1)
    s = GradScaler()
    with autocast("float16"):
        loss = mse_loss(mg.dot([w], [0.5]), 0.0)  # float32: d loss / d out = 2·0.25, so 65536·0.5 fits
    s.scale(loss).backward()
    s.step(opt)
    s.update()
    assert w.data != 0.5 and s.get_scale() == 65536.0


# -- GradScaler: E16 sequences -------------------------------------------------------------------------------
def scaler_step(s: GradScaler, p: mg.Value, opt: SGD, grad: float) -> tuple[float, bool, object]:
    """One iteration whose unscaled gradient is ``grad``.

    Returns (scale after update, were the params updated, what step returned)."""
    before = p.data
    opt.zero_grad()
    s.scale(p * 1.0).backward()
    p.grad = grad * s.get_scale() if math.isfinite(grad) else grad
    result = s.step(opt)
    s.update()
    return s.get_scale(), p.data != before, result


def test_e16_clean_step_then_inf_inf_and_nan() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.1)
    s = GradScaler()
    assert scaler_step(s, p, opt, 1.0)[:2] == (65536.0, True)
    assert scaler_step(s, p, opt, math.inf) == (32768.0, False, None)
    assert scaler_step(s, p, opt, math.inf) == (16384.0, False, None)
    s2 = GradScaler()
    assert scaler_step(s2, p, opt, math.nan) == (32768.0, False, None)


def test_e16_growth_after_growth_interval_clean_steps() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=1e-3)
    s = GradScaler(init_scale=8.0, growth_interval=3)
    assert [scaler_step(s, p, opt, 1.0)[0] for _ in range(6)] == [8.0, 8.0, 16.0, 16.0, 16.0, 32.0]


def test_growth_never_reaches_inf() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.0)
    s = GradScaler(init_scale=2.0**126, growth_interval=1)
    assert [scaler_step(s, p, opt, 1e-30)[0] for _ in range(3)] == [2.0**127] * 3  # 2**128 is inf in float32


def test_a_skipped_step_restarts_the_growth_count() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=1e-3)
    s = GradScaler(init_scale=8.0, growth_interval=2)
    grads = [1.0, math.inf, 1.0, 1.0, 1.0]
    assert [scaler_step(s, p, opt, g)[0] for g in grads] == [8.0, 4.0, 4.0, 8.0, 8.0]


def test_e16_sequences_match_torch_gradscaler() -> None:
    torch = pytest.importorskip("torch")
    grads = [1.0, math.inf, 1.0, 1.0, 1.0, math.nan, 1.0, 1.0, 1.0, 1.0]
    tp = torch.nn.Parameter(torch.tensor([1.0]))
    topt = torch.optim.SGD([tp], lr=0.1)
    ts = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
    theirs = []
    for g in grads:
        topt.zero_grad()
        ts.scale(tp.sum()).backward()
        tp.grad.fill_(g * ts.get_scale() if math.isfinite(g) else g)
        before = tp.item()
        ts.step(topt)
        ts.update()
        theirs.append((ts.get_scale(), tp.item() != before))
    p = mg.Value(1.0, dtype="float32", requires_grad=True)
    s = GradScaler(init_scale=8.0, growth_interval=3)
    ours = [scaler_step(s, p, SGD([p], lr=0.1), g)[:2] for g in grads]
    assert ours == theirs
    assert p.data == tp.item()


# -- GradScaler: unscale_, step, update rules ------------------------------------------------------------------
def test_unscale_then_clip_then_step_is_the_documented_pattern() -> None:
    """D5: step() after a manual unscale_ does not unscale twice."""
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=1.0)
    s = GradScaler()
    s.scale(p * 4.0).backward()
    assert p.grad == 4.0 * 65536
    s.unscale_(opt)
    assert p.grad == 4.0
    assert clip_grad_norm_([p], 1.0) == 4.0
    s.step(opt)
    s.update()
    assert p.data == pytest.approx(0.0, abs=1e-6) and s.get_scale() == 65536.0


def test_a_second_unscale_before_update_raises_pytorchs_error() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.1)
    s = GradScaler()
    s.scale(p * 1.0).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer since the "
                                           r"last update\(\)\."):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)\."):
        s.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)\."):
        s.step(opt)
    s.update()
    opt.zero_grad()
    s.scale(p * 1.0).backward()
    s.unscale_(opt)  # fine again after update()


def test_unscale_after_step_and_a_second_step_raise_pytorchs_errors() -> None:
    """The same sequence in torch raises the same first lines (ours add a "What to do" line)."""
    torch = pytest.importorskip("torch")
    tp = torch.nn.Parameter(torch.tensor([1.0]))
    topt, ts = torch.optim.SGD([tp], lr=0.1), torch.amp.GradScaler("cpu")
    ts.scale((tp * 1.0).sum()).backward()
    ts.step(topt)
    p = mg.Value(1.0, requires_grad=True)
    opt, s = SGD([p], lr=0.1), GradScaler()
    s.scale(p * 1.0).backward()
    s.step(opt)
    for ours, theirs in [(lambda: s.unscale_(opt), lambda: ts.unscale_(topt)),
                         (lambda: s.step(opt), lambda: ts.step(topt))]:
        with pytest.raises(RuntimeError) as mine:
            ours()
        with pytest.raises(RuntimeError) as torchs:
            theirs()
        assert str(mine.value).splitlines()[0] == str(torchs.value)
        assert str(mine.value).splitlines()[1].startswith("What to do:")


def test_update_without_a_step_and_step_without_scale_are_assertion_errors() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.1)
    s = GradScaler()
    with pytest.raises(AssertionError, match="did not use scaler.scale"):
        s.step(opt)
    s.scale(p * 1.0)
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update."):
        s.update()
    with pytest.raises(AssertionError, match="No inf checks were recorded for this optimizer."):
        s.step(opt)  # no parameter has a gradient


def test_unscaling_float16_gradients_is_refused_as_in_pytorch() -> None:
    p = mg.Value(1.0, dtype="float16", requires_grad=True)
    s = GradScaler()
    s.scale(p * 1.0).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        s.unscale_(SGD([p], lr=0.1))


def test_update_with_a_new_scale_sets_it() -> None:
    p = mg.Value(1.0, requires_grad=True)
    s = GradScaler()
    s.scale(p * 1.0)
    s.update(1024.0)
    assert s.get_scale() == 1024.0


def test_bad_factors_are_refused() -> None:
    with pytest.raises(AssertionError, match="growth factor must be > 1.0"):
        GradScaler(growth_factor=1.0)
    with pytest.raises(AssertionError, match="backoff factor must be < 1.0"):
        GradScaler(backoff_factor=1.0)


def test_state_dict_round_trip() -> None:
    p = mg.Value(1.0, requires_grad=True)
    s = GradScaler(init_scale=8.0, growth_interval=3)
    scaler_step(s, p, SGD([p], lr=0.1), 1.0)
    t = GradScaler()
    t.load_state_dict(s.state_dict())
    assert t.state_dict() == s.state_dict() == {"scale": 8.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                                                "growth_interval": 3, "_growth_tracker": 1}


# -- scale(loss): the dtype, as the texts say (issue 34, item 7) ---------------------------------------
def _scaled_dtypes(scale: Any) -> list[str]:
    """The dtypes of scale(loss) for a 0-d float16 Value, a 0-d and a 1-d float16 Tensor, a bfloat16 one."""
    return [str(scale(loss).dtype) for loss in (
        mg.Value(1.0, requires_grad=True, dtype="float16"),
        mg.tensor(1.0, dtype="float16", requires_grad=True),
        mg.tensor([1.0, 2.0], dtype="float16", requires_grad=True),
        mg.tensor([1.0, 2.0], dtype="bfloat16", requires_grad=True))]


PROMOTED = ["float32", "float32", "float16", "bfloat16"]  # PyTorch's: a float32 0-d scale promotes 0-d only


def test_scale_promotes_a_0d_loss_and_keeps_one_with_dimensions_as_the_texts_say() -> None:
    import importlib.util
    from pathlib import Path

    assert _scaled_dtypes(GradScaler().scale) == PROMOTED
    doc = " ".join((GradScaler.__doc__ or "").split())
    assert "a 0-d float16/bfloat16 loss (a Value) becomes float32, a loss with dimensions stays" in doc
    path = Path(__file__).parents[1] / "teacher" / "solutions" / "ex08_grad_scaler.py"
    spec = importlib.util.spec_from_file_location("ex08_solution", path)
    assert spec is not None and spec.loader is not None
    solution = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solution)
    assert _scaled_dtypes(solution.MiniGradScaler().scale) == PROMOTED  # the exercise's given scale
    assert "cast to float32" not in path.read_text()


def test_pytorch_scale_promotes_as_recorded_here() -> None:
    torch = pytest.importorskip("torch")
    scaler = torch.amp.GradScaler("cpu")
    losses = (torch.ones((), dtype=torch.float16), torch.ones((), dtype=torch.float16),
              torch.ones(2, dtype=torch.float16), torch.ones(2, dtype=torch.bfloat16))
    assert [str(scaler.scale(loss).dtype).removeprefix("torch.") for loss in losses] == PROMOTED
