# %% [markdown]
# # Lesson 8: Beyond the article
#
# Hooks, retain_grad, autograd.grad, second derivatives with create_graph, anomaly detection.
#
# The article's further reading points to PyTorch's autograd notes. This lesson goes there: five tools for looking
# inside backward, each run on micrograd2 and, where PyTorch is installed, on PyTorch live.

# %%
import inspect
import math
import re
import warnings

import micrograd2 as mg
from micrograd2.lessons.tools import Recorded, check, error_of, live_torch, raises, section, show_graph, summary

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")

# %% [markdown]
# ## Hooks: a look (and a hand) inside backward
#
# `register_hook(fn)` runs `fn` on a value's gradient the moment backward computes it; if `fn` returns something, that
# replaces the gradient. Debuggers print there; gradient tricks (clipping one layer, reversing a gradient) change it
# there.

# %%
section("1. Hooks: a look (and a hand) inside backward")
x = mg.Value(1.0, requires_grad=True, label="x")
handle = x.register_hook(lambda g: g * 2)      # double x's gradient on arrival
(x * 3).backward()
with_hook = x.grad
print("with the hook:  x.grad =", with_hook)

x.grad = None
handle.remove()
(x * 3).backward()
print("hook removed:   x.grad =", x.grad)

# %%
def hooked_grads(lib):
    """[x.grad with a doubling hook on x, after handle.remove(), with the hook on h = x·3 instead]."""
    x = lib.tensor(1.0, requires_grad=True)
    handle = x.register_hook(lambda g: g * 2)
    (x * 3).backward()
    result = [x.grad.item()]
    x.grad = None
    handle.remove()
    (x * 3).backward()
    result.append(x.grad.item())
    x.grad = None
    h = x * 3
    h.register_hook(lambda g: g * 2)          # on a non-leaf: changes what flows on to x
    (h + 1).backward()
    return result + [x.grad.item()]

ours = hooked_grads(mg)
print("micrograd2 tensors: [hook on x, removed, hook on h] =", ours)
check("x.grad: [3·2 with the hook, 3 without, 3·2 with the hook on h]", [with_hook, x.grad, ours[2]],
      [6.0, 3.0, 6.0], torch=lambda: hooked_grads(torch), recorded="tensor(6.), tensor(3.), tensor(6.)")

# %% [markdown]
# ## Gradients of non-leaves: retain_grad()
#
# Only leaves get `.grad`. A non-leaf's gradient is computed on the way and dropped, and reading its `.grad` gives
# `None` with a warning, unless it asked to keep it.

# %%
section("2. Gradients of non-leaves: retain_grad()")

def non_leaf_grads(lib, retain, x0):
    """(h.grad, x.grad) for z = h·h, h = 2·x at x = x0, with or without h.retain_grad()."""
    x = lib.tensor(x0, requires_grad=True)
    h = x * 2
    if retain:
        h.retain_grad()
    (h * h).backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # the warning that h.grad of a non-leaf is not kept
        h_grad = h.grad
    return (None if h_grad is None else h_grad.item()), x.grad.item()

x0 = 2.0
for retain in (False, True):
    print(f"retain_grad() {retain!s:5}: (h.grad, x.grad) =", non_leaf_grads(mg, retain, x0))

# %%
check("without retain_grad(): h.grad is None", non_leaf_grads(mg, False, x0)[0], None,
      torch=lambda: non_leaf_grads(torch, False, x0)[0], recorded="None, with a UserWarning")
check("with retain_grad(): (h.grad, x.grad) = (2h, 8x)", non_leaf_grads(mg, True, x0), [2 * 2 * x0, 8 * x0],
      torch=lambda: non_leaf_grads(torch, True, x0), inputs={"x0": x0},
      recorded=Recorded("h.grad = tensor(8.) | x.grad = tensor(16.)", x0=2.0))

# %% [markdown]
# ## autograd.grad: gradients without .grad
#
# `mg.autograd.grad(outputs, inputs)` returns the gradients instead of adding them into `.grad`: handy when the gradient
# is a value you compute with, not an update.

# %%
section("3. autograd.grad: gradients without .grad")

def grad_then_backward(lib):
    """[what autograd.grad returns, x.grad after it (set to 100 before), x.grad after a backward]."""
    x = lib.tensor(1.0, requires_grad=True)
    x.grad = lib.tensor(100.0)
    (g,) = lib.autograd.grad(x * 3, x)
    result = [g.item(), x.grad.item()]
    (x * 3).backward()
    return result + [x.grad.item()]

ours = grad_then_backward(mg)
print("autograd.grad returned", ours[0], "| x.grad untouched:", ours[1], "| backward() adds instead:", ours[2])
check("[autograd.grad, x.grad untouched, x.grad after backward]", ours, [3.0, 100.0, 103.0],
      torch=lambda: grad_then_backward(torch), recorded="tensor(3.), tensor(100.), tensor(103.)")

# %% [markdown]
# ## Second derivatives: create_graph=True
#
# With `create_graph=True`, backward itself is recorded: the gradient comes back as a value with a `grad_fn`, and
# differentiating it again gives the second derivative. y = x³ at x = 2: dy/dx = 3x² = 12, d²y/dx² = 6x = 12.

# %%
section("4. Second derivatives: create_graph=True")
x = mg.Value(2.0, requires_grad=True, label="x")
y = x ** 3
(dy_dx,) = mg.autograd.grad(y, x, create_graph=True)
print("dy/dx =", dy_dx)
(d2y_dx2,) = mg.autograd.grad(dy_dx, x)
print("d²y/dx² =", d2y_dx2)

# %%
if torch:
    t_x = torch.tensor(x.item(), requires_grad=True)
    (t_dy,) = torch.autograd.grad(t_x ** 3, t_x, create_graph=True)
    (t_d2y,) = torch.autograd.grad(t_dy, t_x)
now = {"x": x.item()}  # the input the recorded outputs below must match
check("dy/dx = 3x²", dy_dx, 3 * x.item() ** 2, torch=lambda: t_dy, inputs=now,
      recorded=Recorded("tensor(12., grad_fn=<MulBackward0>)", x=2.0))
check("dy/dx has a grad_fn", dy_dx.grad_fn is not None, True,
      torch=lambda: t_dy.grad_fn is not None, recorded="grad_fn=<MulBackward0>")
check("d²y/dx² = 6x", d2y_dx2, 6 * x.item(), torch=lambda: t_d2y, recorded=Recorded("tensor(12.)", x=2.0),
      inputs=now)

# %% [markdown]
# A custom Function gets this for free when its backward is ordinary arithmetic; here the article's SquareAndDouble
# (lesson 5): d²(2x²)/dx² = 4.

# %%
class SquareAndDouble(mg.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 2 * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 4 * x

x = mg.Value(3.0, requires_grad=True, label="x")
(g,) = mg.autograd.grad(SquareAndDouble.apply(x), x, create_graph=True)
(g2,) = mg.autograd.grad(g, x)
print("d/dx =", g.item(), "| d²/dx² =", g2)
check(f"SquareAndDouble: [d/dx = 4x, d²/dx² = 4] at {x.item():g}", [g.item(), g2], [4 * x.item(), 4.0],
      recorded=Recorded("12. and 4. (4·x·g, differentiated again)", x=3.0), inputs={"x": x.item()})

# %% [markdown]
# ## Anomaly detection: who made the NaN?
#
# sqrt(x²) at x = 0: sqrt's derivative there is inf, and inf · 0 in the next node is NaN. By default the NaN just lands
# in `x.grad`, silently; the narration shows where it appeared:

# %%
section("5. Anomaly detection: who made the NaN?")
xs = [mg.Value(0.0, requires_grad=True, label="x[0]"), mg.Value(1.0, requires_grad=True, label="x[1]")]
z = mg.sum((xi ** 2).sqrt() for xi in xs)
z.backward()
print("x.grad =", [xi.grad for xi in xs])
if torch:
    t_x = torch.tensor([0.0, 1.0], requires_grad=True)
    (t_x ** 2).sqrt().sum().backward()
check("x.grad = [nan, 1.0]", [xi.grad for xi in xs], [math.nan, 1.0], torch=lambda: t_x.grad,
      recorded=Recorded("tensor([nan, 1.])", xs=[0.0, 1.0]), inputs={"xs": [xi.item() for xi in xs]})

# %% [markdown]
# `detect_anomaly()` checks every backward result for NaN and names the node that made it: here `PowBackward0` (inf · 2
# · 0), not `SqrtBackward0`. Its warning shows where that node's forward ran, in this file (or this notebook cell), at
# the line of the `mg.sum(...)` below:

# %%
def torch_anomaly():
    """PyTorch's error for the same backward under detect_anomaly (its own warning silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            t_x = torch.tensor([0.0, 1.0], requires_grad=True)
            (t_x ** 2).sqrt().sum().backward()

def this_line():
    """(file, line number) of the code that calls this function: this lesson's file, or its notebook cell."""
    caller = inspect.stack()[1]
    return caller.filename, caller.lineno


# %%
here, _ = this_line()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with raises("backward under detect_anomaly", RuntimeError,
                "Function 'PowBackward0' returned nan values in its 0th output.",
                torch=lambda: error_of(torch_anomaly),
                recorded="RuntimeError: Function 'PowBackward0' returned nan values in its 0th output."):
        with mg.autograd.detect_anomaly():
            forward_line = this_line()[1] + 1           # the line below: the forward that makes the NaN
            z = mg.sum((xi ** 2).sqrt() for xi in xs)
            z.backward()

# %%
report = next(str(w.message) for w in caught if "Traceback of forward call" in str(w.message))
pattern = rf'File "{re.escape(here)}", line (\d+)'
print("The warning's lines in this file:")
for line in report.splitlines():
    if re.search(pattern, line):
        print("  ", line.strip())
lines = [int(n) for n in re.findall(pattern, report)]
check("the anomaly report points at the forward call, in this file", lines[-1] if lines else None,
      forward_line, recorded="Traceback of forward call that caused the error: File \"…\", line …")

# %% [markdown]
# Infinities are not flagged, only NaN (as in PyTorch): log at 0 has gradient inf.

# %%
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # anomaly mode warns that it is on and slows backward: not shown
    with mg.autograd.detect_anomaly():
        x = mg.Value(0.0, requires_grad=True, label="x")
        x.log().backward()
    if torch:
        with torch.autograd.detect_anomaly():
            t_x = torch.tensor(0.0, requires_grad=True)
            t_x.log().backward()
print("x.grad =", x.grad)
check("x.grad of log at 0 under detect_anomaly: inf, not flagged", x.grad, math.inf, torch=lambda: t_x.grad,
      recorded=Recorded("tensor(inf), not flagged", x=0.0), inputs={"x": x.item()})

# %% [markdown]
# The graph whose backward made the NaN: each `xi ** 2` feeds a `SqrtBackward0`, and the sum adds them.

# %%
show_graph(z, "sqrt(x[0]²) + sqrt(x[1]²):")

# %%
summary("Lesson 8")
