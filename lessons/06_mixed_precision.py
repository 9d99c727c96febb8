# %% [markdown]
# # Lesson 6: Mixed precision
#
# Section 6: float16's range and rounding, the GradScaler, skipped steps, bfloat16, which op runs in which dtype.
#
# The article's section 6 trains under AMP with this code:
#
# ```python
# scaler = torch.cuda.amp.GradScaler()
#
# with torch.autocast(device_type="cuda", dtype=torch.float16):
#     loss = model(x)
#
# scaler.scale(loss).backward()        # scale loss first, then backward
# scaler.step(optimizer)               # unscale grads, then update
# scaler.update()
# ```
#
# and explains it in three points:
#
# > Under AMP the forward runs in FP16 (fast, memory-saving), but gradient accumulation and parameter updates
# > should stay FP32 to avoid precision drift.
#
# > GradScaler scales the loss (e.g., by 2¹⁶) before backward so that small gradients that would underflow in
# > FP16 stay representable; step() unscales automatically and skips updates when Inf/NaN appears
# > (scaler.update() maintains the dynamic scale factor).
#
# > For Autograd, AMP only changes the forward dtype and gradient scaling—graph construction and propagation
# > mechanics are unchanged.
#
# The scaling, the skipping and the dynamic scale are right. "the forward runs in FP16" and "unchanged" are not, and a
# few sentences one reads into them are false. micrograd2 emulates float16 and bfloat16 exactly (each value rounded as
# the hardware rounds it, each gradient to its value's dtype), so the whole story can be watched number by number on a
# CPU. Where PyTorch is installed, the same experiments run on it live, under its CPU autocast. (The codes D4–D8 and D17
# refer to the README's list "Where the article is wrong".)

# %%
import math
import textwrap
import warnings

import micrograd2 as mg
from micrograd2.lessons import torch_amp  # PyTorch's side of the experiments, run live
from micrograd2.lessons.measure import above_the_leaves
from micrograd2.lessons.tools import Recorded, check, error_of, live_torch, raises, section, show_graph, summary
from micrograd2.lessons.torch_amp import documented_scales, dtype_name, fp16_autocast, grad_scaler

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")

# %% [markdown]
# First the spelling. micrograd2 writes `mg.autocast(dtype="float16")` and `mg.GradScaler()`. The article's
# `torch.cuda.amp.GradScaler()` still works, but PyTorch deprecated it (D4):

# %%
if torch:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.amp.GradScaler()
    deprecation = [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]
    print("FutureWarning:", textwrap.fill(deprecation[0], 100) if deprecation else "(none)")
check("torch.cuda.amp.GradScaler() is deprecated", True, True,
      torch=lambda: bool(deprecation) and "is deprecated" in deprecation[0],
      recorded="FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
      "`torch.amp.GradScaler('cuda', args...)` instead.")

# %% [markdown]
# ## What float16 can hold
#
# float16 keeps 11 significant bits and its exponent stops early: the largest number is 65504, the smallest step near
# zero is 2⁻²⁴ ≈ 5.96e-08. A number is *rounded* to the nearest float16 (ties to even), never truncated: the function
# below does it by hand, and micrograd2's `Value(v, dtype="float16")` must agree.

# %%
section("1. What float16 can hold")
def nearest(v, bits, smallest_step, overflow=math.inf):
    """``v`` rounded by hand to the nearest float with ``bits`` significant bits and steps no finer than
    ``smallest_step``, ties to even; inf from ``overflow`` up."""
    if abs(v) >= overflow:
        return math.copysign(math.inf, v)
    if v == 0:
        return 0.0
    step = max(2.0 ** (math.frexp(v)[1] - bits), smallest_step)  # frexp: v = m·2^e with 0.5 ≤ |m| < 1
    return round(v / step) * step

def nearest_float16(v):
    """float16: 11 bits, steps down to 2⁻²⁴, inf from 65520 (half a step above the largest, 65504) up."""
    return nearest(v, 11, 2.0 ** -24, overflow=65504.0 + 16)

numbers = [0.1, 65504.0, 65536.0, 2.0 ** -24, 4e-8, 3e-8, 2.0 ** -25, 1e-8]
in_float16 = [mg.Value(v, dtype="float16").item() for v in numbers]
RECORDED_FP16 = {0.1: "0.0999755859375", 65504.0: "65504.0", 65536.0: "inf", 2.0 ** -24: "5.960464477539063e-08",
                 4e-8: "5.960464477539063e-08", 3e-8: "5.960464477539063e-08", 2.0 ** -25: "0.0", 1e-8: "0.0"}
for v, half in zip(numbers, in_float16):
    check(f"{v!r} in float16 (nearest, ties to even)", half, nearest_float16(v),
          torch=lambda v=v: torch_amp.to_float16(v), recorded=RECORDED_FP16.get(v))

# %% [markdown]
# 65536 = 2¹⁶ does not fit (it becomes inf). And a number below the smallest step is rounded to the nearest multiple of
# 2⁻²⁴: 4e-8 and 3e-8 (just above half a step) both become 2⁻²⁴ = 5.96e-08. Only numbers up to half a step, 2⁻²⁵ ≈
# 2.98e-08, round to 0 (2⁻²⁵ itself is a tie, and 0 is the even neighbour); 1e-8 is one of them. This is rounding, not a
# "flush to zero" of everything below 2⁻²⁴.

# %% [markdown]
# bfloat16 is the other 16-bit format: 8 significant bits only, but float32's exponent range, so 1e-8 is far from its
# smallest number and is merely rounded to 8 bits:

# %%
def nearest_bfloat16(v):
    """bfloat16: 8 bits and float32's exponent range (steps down to 2⁻¹³³)."""
    return nearest(v, 8, 2.0 ** -133)

tiny = 1e-8
in_bfloat16 = mg.Value(tiny, dtype="bfloat16").item()
print(f"{tiny!r} in bfloat16 =", in_bfloat16)
check(f"{tiny!r} in bfloat16", in_bfloat16, nearest_bfloat16(tiny),
      torch=lambda: torch.tensor(tiny, dtype=torch.float64).to(torch.bfloat16).item(),
      recorded=Recorded("1.0011717677116394e-08", v=1e-8), inputs={"v": tiny})

# %% [markdown]
# ## A small gradient underflows
#
# A float32 parameter w, one product `mg.dot` (what every `Neuron` computes; it plays the part of a `Linear`, which
# autocast runs in float16), and a loss whose gradient with respect to w is 1e-8. On the way back that gradient passes
# through the float16 output of the product, is rounded to float16 there, and becomes 0.

# %%
section("2. A small gradient underflows")
w = mg.Value(0.5, requires_grad=True, dtype="float32", label="w")   # a float32 parameter
x = mg.Value(1.0, label="x")

with mg.autocast(dtype="float16"):
    h = mg.dot([w], [x])            # Linear's part: float16
    loss = mg.sum([h]) * 1e-8       # sum is on the float32 list: d loss / d w = 1e-8
print("h:", h.dtype, "| loss:", loss.dtype)

loss.backward()
print("w.grad =", w.grad, "(the true gradient is 1e-8)")

# %% [markdown]
# PyTorch, live: a `Linear(1, 1)` with weight 0.5 under CPU autocast. Its CPU autocast keeps `sum` in float16 (its lists
# differ from CUDA's, see part 5), so the float32 sum of CUDA's list is written by hand there with `.float()`.
# `torch_amp.small_gradient` (from `lessons/torch_amp.py`, where PyTorch's side of the experiments is) returns `[w.grad
# after backward, w.grad after unscale_]`.

# %%
check("w.grad without a scaler: 1e-8 rounded to float16", w.grad, nearest_float16(1e-8),
      torch=lambda: torch_amp.small_gradient(torch.float16, scaled=False)[1],
      recorded=Recorded("w.grad = 0.0", x=1.0), inputs={"x": x.item()})

# %% [markdown]
# The GradScaler multiplies the loss by 2¹⁶ = 65536 before backward, so every gradient on the way is 65536 times larger:
# 6.55e-4 fits in float16. `unscale_` (or `step`) divides the parameters' gradients by 65536 again, in float32, where
# 1e-8 is no problem.

# %%
w.grad = None
optimizer = mg.optim.SGD([w], lr=1.0)
scaler = mg.GradScaler()

with mg.autocast(dtype="float16"):
    loss = mg.sum([mg.dot([w], [x])]) * 1e-8
scaler.scale(loss).backward()       # gradients × 65536
scaled = w.grad
print("scaled w.grad   =", scaled)
scaler.unscale_(optimizer)          # ÷ 65536, in float32
print("unscaled w.grad =", w.grad)

# %%
if torch:
    theirs = torch_amp.small_gradient(torch.float16, scaled=True)
check("scaled w.grad: 1e-8·65536 rounded to float16", scaled, nearest_float16(1e-8 * 65536),
      torch=lambda: theirs[0], recorded=Recorded("0.0006551742553710938", x=1.0), inputs={"x": x.item()})
check("unscaled w.grad: that ÷ 65536 (exact in float32)", w.grad, nearest_float16(1e-8 * 65536) / 65536,
      torch=lambda: theirs[1], recorded=Recorded("9.997165761888027e-09", x=1.0), inputs={"x": x.item()})

# %% [markdown]
# ## bfloat16 needs no scaler
#
# "AMP requires GradScaler" (takeaway 5) holds for float16 only (D6). bfloat16 keeps float32's exponent range (it gives
# up precision, not range), so the same 1e-8 gradient survives without any scaling:

# %%
section("3. bfloat16 needs no scaler")
w = mg.Value(0.5, requires_grad=True, dtype="float32", label="w")
with mg.autocast(dtype="bfloat16"):
    loss = mg.sum([mg.dot([w], [x])]) * 1e-8
loss.backward()
print("bfloat16, no scaler: w.grad =", w.grad)
check("w.grad in bfloat16 without a scaler: 1e-8 rounded to bfloat16", w.grad, nearest_bfloat16(1e-8),
      torch=lambda: torch_amp.small_gradient(torch.bfloat16, scaled=False)[1],
      recorded=Recorded("1.0011717677116394e-08", x=1.0), inputs={"x": x.item()})

# %% [markdown]
# ## Skipped steps and the dynamic scale
#
# A scale too large makes some gradient overflow to inf (or NaN). `scaler.step` then skips the update (the parameters
# are not touched) and `update()` halves the scale. After `growth_interval` clean steps in a row (2000 by default) it
# doubles it. PyTorch documents that rule; `documented_scales` (in `lessons/torch_amp.py`) writes it down as a function
# to derive what to expect, and the lesson runs the real scalers on micrograd2 and on PyTorch with the same code.

# %%
section("4. Skipped steps and the dynamic scale")

def amp_steps(lib, gradients, **options):
    """[(did p change?, the scale after update())] for one step per gradient, the loss being p·gradient."""
    p = lib.tensor(1.0, requires_grad=True)
    optimizer = lib.optim.SGD([p], lr=0.1)
    scaler = grad_scaler(lib, **options)
    result = []
    for g in gradients:
        optimizer.zero_grad()
        scaler.scale(p * g).backward()
        before = p.item()
        scaler.step(optimizer)          # unscale; skip the update if a gradient is inf/nan
        scaler.update()                 # halve the scale after a skip, double it after growth_interval clean steps
        result.append((p.item() != before, scaler.get_scale()))
    return result

gradients = [1.0, math.inf, math.inf, math.nan]
ours = amp_steps(mg, gradients)
print("gradients", gradients, "->", ours)
init_scale, growth_interval = 8.0, 3
grown = amp_steps(mg, [1.0] * 6, init_scale=init_scale, growth_interval=growth_interval)
print(f"growth_interval={growth_interval}, init_scale={init_scale:g}, six clean steps ->\n   ", grown)

# %%
check("a clean step, inf, inf again, nan: (stepped?, scale)", ours, documented_scales(65536.0, 2000, gradients),
      torch=lambda: amp_steps(torch, gradients), inputs={"gradients": gradients},
      recorded=Recorded("65536 -> 65536 (updated) -> 32768 -> 16384 -> 8192 (skipped)",
                        gradients=[1.0, math.inf, math.inf, math.nan]))
check(f"growth_interval={growth_interval} from {init_scale:g}: (stepped?, scale)", grown,
      documented_scales(init_scale, growth_interval, [1.0] * 6),
      torch=lambda: amp_steps(torch, [1.0] * 6, init_scale=init_scale, growth_interval=growth_interval),
      recorded=Recorded("8 -> 8 -> 16 (after 3 clean steps) -> 16 -> 16 -> 32", init_scale=8.0, growth_interval=3),
      inputs={"init_scale": init_scale, "growth_interval": growth_interval})

# %% [markdown]
# ## What autocast really changes
#
# The article's "the forward runs in FP16" is not what autocast does. PyTorch's autocast documentation sorts ops into
# three kinds (D7):
#
# 1. ops on the **lower-precision list** run in float16: matrix products (`mm`, `matmul`, `linear`, …),
# convolutions, `prelu` and the RNN cells; in micrograd2, `@`, `Linear` and `mg.dot`, which plays `Linear`'s part in
# every `Neuron` (PyTorch's own `torch.dot` is on no lower-precision list: CUDA autocast has it on the promote list, and
# CPU autocast leaves it alone);
# 2. ops on the **float32 list** run in float32: `exp`, `log`, `pow`, `sum`, `softmax`, `log_softmax` and
# most losses (`mse_loss`, `cross_entropy`, `binary_cross_entropy_with_logits`, …);
# 3. **every other op runs in its inputs' dtype** (a few listed ones in the widest of them). So the
# elementwise ops that follow a float16 matrix product (`relu`, `sigmoid`, `+`, `*`) run in float16 too.
#
# Those are the CUDA lists, the article's setting, and micrograd2 follows them. PyTorch's CPU autocast has other lists.
# Parameters keep their own dtype (float32 here), and so do their gradients.

# %%
section("5. What autocast really changes")
weights, bias, inputs = [0.75, -0.5], 0.125, [0.5, -1.0]
ws = [mg.Value(v, requires_grad=True, dtype="float32", label=f"w[{i}]") for i, v in enumerate(weights)]
b = mg.Value(bias, requires_grad=True, dtype="float32", label="b")

with mg.autocast(dtype="float16"):
    y = mg.dot(ws, inputs, b)                                 # kind 1: Linear's part
    after = [y.relu(), y.sigmoid(), y + 1, y * 2]             # kind 3: their input's dtype
    fp32_list = [y.exp(), y.log(), mg.sum([y, y]), y ** 2]    # kind 2: float32
    mse = mg.nn.functional.mse_loss(y, 0.0)                   # kind 2: a loss
print("y = w·x + b:", y.dtype, "| relu, sigmoid, +, *:", [v.dtype for v in after])
print("exp, log, sum, **:", [v.dtype for v in fp32_list], "| mse_loss:", mse.dtype, "| w:", ws[0].dtype)

# %% [markdown]
# PyTorch, live, with the same weights in a `Linear(2, 1)` (`torch_amp.dtypes`: the dtypes of y, of relu, sigmoid, +, *
# of y, of exp, log, sum, softmax of y, of mse_loss and of the weight):

# %%
if torch:
    t_y, t_after, t_cpu_lists, t_mse, t_weight = torch_amp.dtypes(weights, bias, inputs)
    print("PyTorch (CPU autocast): y", t_y, "| relu, sigmoid, +, *:", t_after)
    print("exp, log, sum, softmax:", t_cpu_lists, "| mse_loss:", t_mse, "| weight:", t_weight)

# %%
check("kind 1: the matrix product runs in float16", y.dtype, "float16",
      torch=lambda: t_y, recorded="matmul float16")
check("kind 3: relu, sigmoid, +, * after it run in float16 too", [v.dtype for v in after], ["float16"] * 4,
      torch=lambda: t_after, recorded="float16 (they follow their input)")
check("kind 2: exp, log, sum, ** run in float32 (CUDA's list)", [v.dtype for v in fp32_list], ["float32"] * 4,
      recorded="float32 on CUDA (PyTorch's autocast op reference, float32 list)")
check("kind 2: mse_loss runs in float32", mse.dtype, "float32", torch=lambda: t_mse, recorded="mse_loss float32")
check("parameters keep their dtype", ws[0].dtype, "float32", torch=lambda: t_weight, recorded="float32")
if torch:
    check("PyTorch's CPU autocast keeps exp, log, sum, softmax in the input's dtype", t_cpu_lists,
          ["float16"] * 4, torch=lambda: t_cpu_lists)
    t_dot = torch_amp.dot_under_autocast()
    check("PyTorch's torch.dot is on no lower-precision list: CPU autocast leaves it in float32", t_dot,
          "float32", torch=lambda: t_dot)

# %% [markdown]
# One loss is on none of CUDA's lists: `binary_cross_entropy` (`BCELoss`). PyTorch's CUDA autocast refuses it:
#
# ```
# RuntimeError: torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.
# ```
#
# and points to `binary_cross_entropy_with_logits`, which takes the logits (before the sigmoid) and is computed stably
# on the float32 list. micrograd2's autocast does the same:

# %%
with raises("binary_cross_entropy under autocast", RuntimeError, "unsafe to autocast",
            recorded="RuntimeError: torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to "
                    "autocast. (CUDA autocast)"):
    with mg.autocast(dtype="float16"):
        mg.nn.functional.binary_cross_entropy(y.sigmoid(), 1.0)

with mg.autocast(dtype="float16"):
    bce = mg.nn.functional.binary_cross_entropy_with_logits(y, 1.0)
print("binary_cross_entropy_with_logits(y, 1):", bce.item(), bce.dtype)

# %% [markdown]
# PyTorch's CPU autocast, run live, differs here too: it runs `binary_cross_entropy` (in float32). Both engines agree on
# the with-logits form, which is the one to use under autocast anyway:

# %%
if torch:
    t_error, t_bce = torch_amp.bce_under_autocast(y.item())
    t_raised = "no error" if t_error is None else f"{type(t_error).__name__}: {t_error}"
    check("PyTorch's CPU autocast runs binary_cross_entropy: the error it raises", t_raised, "no error",
          torch=lambda: t_raised)
check("binary_cross_entropy_with_logits(y, 1) = log(1 + e^−y), in float32", [bce.item(), bce.dtype],
      [math.log1p(math.exp(-y.item())), "float32"], rel=1e-6,
      torch=lambda: [t_bce.item(), dtype_name(t_bce)], recorded="float32")

# %% [markdown]
# And the graph is not unchanged (D8): each cast is an op, so autocast inserts `ToCopyBackward0` nodes between the
# parameters' `AccumulateGrad` and the product (in PyTorch between `AccumulateGrad` and `AddmmBackward0`):

# %%
show_graph(mse, "mse_loss(w·x + b, 0) under autocast:")

# %% [markdown]
# The same in PyTorch's graph, live: the node right above each parameter's `AccumulateGrad` is a cast
# (`above_the_leaves`, from `lessons/measure.py`, walks either library's graph).

# %%
if torch:
    linear = torch.nn.Linear(2, 1)
    with torch.autocast("cpu", dtype=torch.float16):
        t_loss = torch.nn.functional.mse_loss(linear(torch.tensor([inputs])), torch.zeros(1, 1))
check("every parameter reaches the product through a cast", above_the_leaves(mse), ["ToCopyBackward0"],
      torch=lambda: above_the_leaves(t_loss), recorded="ToCopyBackward0 > AccumulateGrad")

# %% [markdown]
# ## The 2¹⁶ trap, and where a float32 loss stops helping
#
# The scaler starts at 2¹⁶ = 65536, which is beyond float16's largest number. If the loss itself is float16 (here y·y,
# an op that follows its input), the first gradient backward sends into it, d(scaled loss)/d(loss) = 65536, is rounded
# to float16: inf. Step 1 is skipped and the scale halves (D17).
#
# A float32 loss such as `mse_loss` moves the trap, it does not remove it. Its gradient with respect to the float16
# output y, 2·y·65536 for `mse_loss(y, 0)`, must itself fit in float16: y = 0.45 gives 58976, y = 0.6 gives 78656, which
# is inf. Below, one function runs two steps of either library from w = y0 (y = x·w with x = 1, under float16 autocast)
# and says, per step: (loss dtype, w.grad finite?, step taken?, scale after).

# %%
section("6. The 2¹⁶ trap, and where a float32 loss stops helping")

def two_amp_steps(lib, y0, float32_loss):
    """[(loss dtype, w.grad finite?, step taken?, scale after)] for two steps on y = x·w, w = y0, of the loss
    y·y or mse_loss(y, 0)."""
    x, w = lib.tensor([1.0]), lib.tensor([y0], requires_grad=True)
    optimizer, scaler, result = lib.optim.SGD([w], lr=0.1), grad_scaler(lib), []
    for _ in range(2):
        optimizer.zero_grad()
        with fp16_autocast(lib):
            y = x @ w                                         # a float16 product
            loss = lib.nn.functional.mse_loss(y, lib.tensor(0.0)) if float32_loss else y * y
        scaler.scale(loss).backward()
        finite, before = math.isfinite(w.grad.item()), w.item()
        scaler.step(optimizer)
        scaler.update()
        result.append((dtype_name(loss), finite, w.item() != before, scaler.get_scale()))
    return result


# %%
def expected_steps(y0, float32_loss):
    """What to expect, derived: a step is skipped (and the scale halved) when the gradient reaching the
    float16 output y overflows float16; the loss is y² either way, so a step does w ← w − 0.1·2y."""
    w, scale, result = y0, 65536.0, []
    for _ in range(2):
        y = nearest_float16(w)
        into_loss = scale if float32_loss else nearest_float16(scale)  # the loss's gradient, in its dtype
        finite = math.isfinite(nearest_float16(2 * y * into_loss))     # the gradient reaching y
        w, scale = (w - 0.1 * 2 * y, scale) if finite else (w, scale / 2)
        result.append(("float32" if float32_loss else "float16", finite, finite, scale))
    return result

for y0 in (0.45, 0.6):
    reaching = 2 * nearest_float16(y0) * 65536           # mse_loss(y, 0)'s gradient at the float16 y, scaled
    print(f"y = {y0}: dL/dy · 65536 = {reaching} -> in float16: {nearest_float16(reaching)}")
print("a float32 mse_loss(y, 0) steps while 2·y·65536 < 65520, that is y <", 65520 / (2 * 65536))

# %%
cases = {"y·y, y = 0.45": (0.45, False), "mse_loss, y = 0.45": (0.45, True), "mse_loss, y = 0.6": (0.6, True)}
for name, (y0, float32_loss) in cases.items():
    check(f"{name}: (loss dtype, grad finite?, stepped?, scale), steps 1, 2", two_amp_steps(mg, y0, float32_loss),
          expected_steps(y0, float32_loss),
          torch=lambda y0=y0, f32=float32_loss: two_amp_steps(torch, y0, f32))

# %% [markdown]
# The float16 loss y·y and the float32 `mse_loss` at y = 0.6 both skip step 1 and halve the scale; at 32768 the next
# step goes through. PyTorch's `GradScaler` documentation calls this normal:
#
# > The scale factor often causes infs/NaNs to appear in gradients for the first few iterations as its
# > value calibrates.
#
# So a skipped first step is calibration, not a bug, and a float32 loss only avoids it while
# |dL/dy|·65536 stays below 65520 for the float16 output y (up to there it rounds to float16's largest,
# 65504; from 65520 it is inf).

# %% [markdown]
# ## Clipping with a scaler: unscale_ first
#
# Takeaway 5 says "do not manually unscale before scaler.step". For clipping you must (D5): `clip_grad_norm_` has to see
# the true gradients, not gradients × 65536. PyTorch's documented pattern is `unscale_` → clip → `step`; `step` knows,
# and does not unscale twice.

# %%
section("7. Clipping with a scaler: unscale_ first")

def unscale_then_clip(lib, max_norm):
    """scale, backward, unscale_, clip: returns (w, optimizer, scaler, scaled norm, norm after unscale_)."""
    x, w = lib.tensor([3.0, 4.0]), lib.tensor([0.05, -0.05], requires_grad=True)
    optimizer, scaler = lib.optim.SGD([w], lr=0.1), grad_scaler(lib)
    with fp16_autocast(lib):
        loss = lib.nn.functional.mse_loss(x @ w, lib.tensor(0.0))
    scaler.scale(loss).backward()
    scaled_norm = (w.grad * w.grad).sum().item() ** 0.5
    scaler.unscale_(optimizer)
    norm = lib.nn.utils.clip_grad_norm_([w], max_norm=max_norm)
    return w, optimizer, scaler, scaled_norm, float(norm)

w, optimizer, scaler, scaled_norm, norm = unscale_then_clip(mg, max_norm=0.1)
print("gradient norm: scaled", scaled_norm, "| after unscale_", norm)
if torch:
    t_w, t_optimizer, t_scaler, t_scaled_norm, t_norm = unscale_then_clip(torch, max_norm=0.1)
check("scaled norm / norm after unscale_ = the scale", scaled_norm / norm, 65536.0,
      torch=lambda: t_scaled_norm / t_norm, recorded="32755.20062524423 / 0.49980470538139343 = 65535.99890631127")

# %% [markdown]
# What the scaler refuses: a second `unscale_` before `update()`, `unscale_` after `step`, and a second `step` before
# `update()`. Each, on micrograd2 and (live) on PyTorch:

# %%
with raises("a second unscale_ before update()", RuntimeError,
            "unscale_() has already been called on this optimizer since the last update().",
            torch=lambda: error_of(lambda: t_scaler.unscale_(t_optimizer)),
            recorded="RuntimeError: unscale_() has already been called on this optimizer since the last update()."):
    scaler.unscale_(optimizer)

# %%
scaler.step(optimizer)              # no second unscale: the gradients stay clipped
if torch:
    t_scaler.step(t_optimizer)

with raises("unscale_ after step", RuntimeError, "unscale_() is being called after step().",
            torch=lambda: error_of(lambda: t_scaler.unscale_(t_optimizer)),
            recorded="RuntimeError: unscale_() is being called after step()."):
    scaler.unscale_(optimizer)

with raises("a second step before update()", RuntimeError,
            "step() has already been called since the last update().",
            torch=lambda: error_of(lambda: t_scaler.step(t_optimizer)),
            recorded="RuntimeError: step() has already been called since the last update()."):
    scaler.step(optimizer)

# %%
scaler.update()
clipped = math.sqrt(sum(g * g for g in w.grad.tolist()))
print("after step + update: gradient norm", clipped, "| scale =", scaler.get_scale())
if torch:
    t_scaler.update()
    t_clipped = math.sqrt(sum(g * g for g in t_w.grad.tolist()))

# %% [markdown]
# `clip_grad_norm_` multiplies the gradients by max_norm / (norm + 1e-6), PyTorch's formula, so the clipped norm is a
# hair below max_norm; and `step` left it alone:

# %%
check("gradient norm after clip and step (not unscaled twice)", clipped, 0.1 * norm / (norm + 1e-6),
      torch=lambda: t_clipped, recorded="clip_grad_norm_ -> norm ≈ max_norm; step does not unscale twice")
check("scale after step + update", scaler.get_scale(), 65536.0,
      torch=lambda: t_scaler.get_scale(), recorded="OK, scale = 65536.0")

# %%
summary("Lesson 6")
