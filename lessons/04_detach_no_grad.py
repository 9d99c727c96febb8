# %% [markdown]
# # Lesson 4: detach, no_grad and in-place ops
#
# Block 4: case B really raises and x.grad stays None; detach shares data; the in-place traps as they are.
#
# The article's section 4 compares using `x` directly (case A) with using `x.detach()` (case B), then warns about
# in-place operations. Case A is right. Case B, as published, never prints its result (D1), and the in-place warning
# mixes up two different checks (D2, D15). The codes point to the README's list "Where the article is wrong".

# %%
import micrograd2 as mg
from micrograd2.lessons.tools import (
    Recorded,
    check,
    error_of,
    live_torch,
    predict,
    raises,
    section,
    show_graph,
    summary,
)

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")
NO_GRAD_FN = "does not require grad and does not have a grad_fn"
LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation"
MODIFIED = "modified by an inplace operation"

# %% [markdown]
# The article's block 4:
#
# ```python
# x = torch.tensor([2.0], requires_grad=True)
#
# # Case A: use x directly
# z1 = (x * 3).sum()
# z1.backward()
# print("A. x.grad =", x.grad)          # tensor([3.])
#
# x.grad = None
#
# # Case B: detach cuts the gradient flow (forward value stays, grad does not pass)
# y = x.detach()
# z2 = (y * 3).sum()
# z2.backward()
# print("B. x.grad =", x.grad)          # tensor([0.]) — gradient cut
# ```

# %%
section("1. Cases A and B")
x = mg.Value(2.0, requires_grad=True, label="x")

# Case A: use x directly
z1 = x * 3
z1.backward()
print("A. x.grad =", x.grad)

# %%
if torch:
    tx = torch.tensor([2.0], requires_grad=True)
    (tx * 3).sum().backward()
check("A. x.grad = 3", x.grad, 3.0, torch=lambda: tx.grad, recorded="tensor([3.])")

# %%
prediction = ...  # your answer here: a, b or c; or `micrograd2 lesson run 4 --interactive` asks for it
case_b = predict("L4.case-b", "Case B: y = x.detach(); z2 = y * 3; z2.backward(). Then: a) x.grad is "
                 "tensor([0.])  b) an error  c) x.grad is tensor([3.])?", answer=prediction)

# %% [markdown]
# Case B, run as published (the error is shown and the lesson goes on):

# %%
if torch:
    tx.grad = None
    t_case_b = error_of(lambda: (tx.detach() * 3).sum().backward())
with raises("B. z2.backward()", RuntimeError, NO_GRAD_FN,
            torch=lambda: t_case_b, recorded=f"RuntimeError: element 0 of tensors {NO_GRAD_FN}"):
    x.grad = None

    # Case B: detach cuts the gradient flow
    y = x.detach()
    z2 = y * 3
    z2.backward()
    print("B. x.grad =", x.grad)          # the article prints tensor([0.])

# %%
case_b.reveal("b", "b) an error: z2 has no grad_fn")
print("B. x.grad after the error =", x.grad)
check("B. x.grad (the article says tensor([0.]))", x.grad, None, torch=lambda: tx.grad, recorded="None")

# %% [markdown]
# Case B never gets to its print (D1). `y` is a leaf that does not require grad, so `z2 = y * 3` recorded no graph at
# all: `z2` has no `grad_fn`, and `backward()` has nothing to walk, which is an error. `x.grad` is still the `None` that
# case A's cleanup put there: no gradient flows through a detach as a zero; there is simply no path. The article's own
# words for it are right: "detach() returns a new tensor that shares the same data but has requires_grad=False and is
# not in the computation graph. Gradients short-circuit at it."

# %%
print("y.requires_grad =", y.requires_grad, "| y.is_leaf =", y.is_leaf, "| y.grad_fn =", y.grad_fn)
print("z2.requires_grad =", z2.requires_grad, "| z2.grad_fn =", z2.grad_fn)
if torch:
    ty = tx.detach()
    tz2 = (ty * 3).sum()
    t_flags = [[ty.requires_grad, ty.is_leaf, ty.grad_fn], [tz2.requires_grad, tz2.grad_fn]]
check("y = x.detach(): requires_grad, is_leaf, grad_fn", [y.requires_grad, y.is_leaf, y.grad_fn],
      [False, True, None], torch=lambda: t_flags[0], recorded="False True None")
check("z2: requires_grad, grad_fn", [z2.requires_grad, z2.grad_fn], [False, None],
      torch=lambda: t_flags[1], recorded="False None")

# %% [markdown]
# What `detach()` is for: a branch whose value is used but whose gradient must not reach the parameters (a target
# network, a frozen feature extractor). Mixed with a branch that does track `x`, the detached branch contributes nothing
# to `x.grad`: here only the second term's 5 arrives.

# %%
x = mg.Value(2.0, requires_grad=True, label="x")
z = x.detach() * 3 + x * 5            # only the second term reaches x
z.backward()
print("x.grad =", x.grad)
if torch:
    tx = torch.tensor([2.0], requires_grad=True)
    (tx.detach() * 3 + tx * 5).sum().backward()
check("x.grad with a detached branch = 5", x.grad, 5.0, torch=lambda: tx.grad, recorded="tensor([5.])")

# %%
prediction = ...  # your answer here
shared = predict("L4.detach-shares", "x = 2.0; d = x.detach(); d.add_(1). What is x now?", answer=prediction)

# %% [markdown]
# `detach()` copies nothing: the detached value shares `x`'s data and `x`'s version counter (the count of in-place
# changes). Change one in place and the other sees it.

# %%
section("2. detach() shares the data")
x = mg.Value(2.0, requires_grad=True, label="x")
x_before = x.item()
d = x.detach()
print("x._version =", x._version)
d.add_(1)                             # allowed: d is a leaf that needs no grad
shared.reveal(x.item())
print("after d.add_(1): x =", x.item(), "| x._version =", x._version)
if torch:
    tx = torch.tensor([x_before], requires_grad=True)
    tx.detach().add_(1)
check(f"x after d.add_(1) = {x_before:g} + 1", x.item(), x_before + 1, torch=lambda: tx.detach(),
      recorded=Recorded("tensor([3.])", x=2.0), inputs={"x": x_before})
check("x._version after d.add_(1)", x._version, 1, torch=lambda: tx._version, recorded="0 -> 1 (shared)")

# %% [markdown]
# The article: "torch.no_grad() is a context-level cut: all tensors created inside are not tracked and do not build
# graphs." Right: nothing computed inside is recorded. Its results are leaves that need no grad; `x` itself is
# unchanged.

# %%
section("3. no_grad()")
x = mg.Value(2.0, requires_grad=True, label="x")
with mg.no_grad():
    y = x * 2
print("y.requires_grad =", y.requires_grad, "| y.is_leaf =", y.is_leaf, "| y.grad_fn =", y.grad_fn)
print("x.requires_grad =", x.requires_grad)
if torch:
    tx = torch.tensor([2.0], requires_grad=True)
    with torch.no_grad():
        ty = tx * 2
check("under no_grad: requires_grad, is_leaf, grad_fn", [y.requires_grad, y.is_leaf, y.grad_fn],
      [False, True, None], torch=lambda: [ty.requires_grad, ty.is_leaf, ty.grad_fn], recorded="False True None")
check("x.requires_grad after no_grad", x.requires_grad, True, torch=lambda: tx.requires_grad, recorded="True")

# %% [markdown]
# The article's in-place warning reads:
#
# > ⚠️ The in-place trap: in-place ops like x.add_(1) on tensors that require grad destroy the old values
# > needed for backward and raise RuntimeError: a leaf Variable that requires grad is being used in an
# > in-place operation. Backward needs the old forward values; overwriting them invalidates the graph.
#
# The message is real, but the explanation mixes up two different checks (D2). Check 1: a leaf that requires grad may
# not be changed in place while grad mode is on. It fires at the call, before any backward, even when nothing saved `x`:

# %%
section("4. The in-place traps, as they really are")
x = mg.Value(2.0, requires_grad=True, label="x")
x_before = x.item()
if torch:
    tx = torch.tensor([x_before], requires_grad=True)
with raises("leaf x.add_(1) in grad mode", RuntimeError, LEAF_IN_PLACE,
            torch=lambda: error_of(lambda: tx.add_(1)), recorded=f"RuntimeError: {LEAF_IN_PLACE}."):
    x.add_(1)

# %% [markdown]
# Under `no_grad()` the same call is allowed: it is exactly how every optimizer updates its parameters. The article's
# takeaway 7, "Keep in-place ops away from leaf tensors: on error, suspect graph corruption", is not the rule (D15):
# `SGD.step()` changes leaves in place, under `no_grad`.

# %%
with mg.no_grad():
    x.add_(1)
print("x =", x.item(), "| is_leaf:", x.is_leaf, "| requires_grad:", x.requires_grad, "| _version:", x._version)

p = mg.Value(1.0, requires_grad=True, label="p")
p_before = p.item()
(p * 2).backward()                    # p.grad = 2
version_before = p._version
mg.optim.SGD([p], lr=0.5).step()      # p ← p − 0.5·2, in place, under no_grad
print("after SGD.step(): p =", p.item(), "| p._version", version_before, "->", p._version)

# %%
if torch:
    with torch.no_grad():
        tx.add_(1)
    tp = torch.tensor([p_before], requires_grad=True)
    (tp * 2).sum().backward()
    torch.optim.SGD([tp], lr=0.5).step()
check("x after add_ under no_grad: value, is_leaf, requires_grad, _version",
      [x.item(), x.is_leaf, x.requires_grad, x._version], [x_before + 1, True, True, 1],
      torch=lambda: [tx.item(), tx.is_leaf, tx.requires_grad, tx._version],
      recorded=Recorded("tensor([3.], requires_grad=True) True True 1", x=2.0), inputs={"x": x_before})
check(f"SGD.step(): p = {p_before:g} − 0.5·2, _version 0 → 1", [p.item(), version_before, p._version],
      [p_before - 0.5 * 2, 0, 1], torch=lambda: [tp.item(), 0, tp._version],
      recorded=Recorded("p = tensor([0.]) | p._version 0 -> 1", p=1.0), inputs={"p": p_before})

# %% [markdown]
# Check 2: a value that some node saved for backward must not change before that backward. Each save records the value's
# version; backward compares. This error comes later, at backward, and it concerns leaves and non-leaves alike:

# %%
x = mg.Value(2.0, requires_grad=True, label="x")
z = x * x                             # MulBackward0 saves x (at version 0)
with mg.no_grad():
    x.add_(1)                         # allowed here... (x is now at version 1)

if torch:
    tx = torch.tensor([2.0], requires_grad=True)
    tz = (tx * tx).sum()
    with torch.no_grad():
        tx.add_(1)
with raises("backward after changing a saved leaf", RuntimeError, MODIFIED,
            torch=lambda: error_of(tz.backward), recorded=f"RuntimeError: one of the variables … {MODIFIED} …"):
    z.backward()                      # ...but backward needs the x it saved

# %%
a = mg.Value(1.0, requires_grad=True, label="a")
b = a.exp()                           # ExpBackward0 saves its output b
b.add_(1)                             # no error here: b is not a leaf

if torch:
    tb = torch.tensor([1.0], requires_grad=True).exp()
    tb.add_(1)
with raises("backward after changing a saved output", RuntimeError, MODIFIED,
            torch=lambda: error_of(tb.sum().backward),
            recorded="RuntimeError: … which is output 0 of Exp, is at …"):
    b.backward()

# %% [markdown]
# An in-place op on a non-leaf that nobody saved is fine:

# %%
x = mg.Value(2.0, requires_grad=True, label="x")
a = x + 0                             # a non-leaf; AddBackward0 saves nothing
a.add_(1)
(a * 3).backward()
print("x.grad =", x.grad)
if torch:
    tx = torch.tensor([2.0], requires_grad=True)
    ta = tx + 0
    ta.add_(1)
    (ta * 3).sum().backward()
check("in-place on an unsaved non-leaf: x.grad = 3", x.grad, 3.0, torch=lambda: tx.grad, recorded="tensor([3.])")

# %%
prediction = ...  # your answer here
through_data = predict("L4.data", "z = x * x at x = 2; then x.data += 1; then z.backward(). What is x.grad?",
                       answer=prediction)

# %% [markdown]
# Writing through `.data` bypasses autograd entirely: no version bump, so no error, and backward reads the saved value
# as it is now. The gradient is silently wrong: d(x·x)/dx = 2x is 4 at the forward point, but backward uses x = 3.

# %%
section("5. The silent one: .data")
x = mg.Value(2.0, requires_grad=True, label="x")
x_before = x.item()
z = x * x                             # dz/dx = 2x = 4 at the forward point
x.data += 1                           # bypasses autograd: x is 3 now, version still 0
z.backward()
through_data.reveal(x.grad)
print("x.grad =", x.grad, "(the right gradient at the forward point is 4.0)")
if torch:
    tx = torch.tensor([x_before], requires_grad=True)
    tz = (tx * tx).sum()
    tx.data.add_(1)
    tz.backward()
check("x.grad after a .data change = 2·(x + 1), not 2·x", x.grad, 2 * x.item(),
      torch=lambda: tx.grad, recorded=Recorded("tensor([6.])", x=2.0), inputs={"x": x_before})

# %% [markdown]
# The same change made through `detach()` is caught, because `detach` shares the version counter. Prefer `detach()` (or
# `no_grad`) to `.data`:

# %%
x = mg.Value(2.0, requires_grad=True, label="x")
z = x * x
x.detach().add_(1)                    # the version counter goes up: backward will notice

if torch:
    tx = torch.tensor([2.0], requires_grad=True)
    tz = (tx * tx).sum()
    tx.detach().add_(1)
with raises("backward after x.detach().add_(1)", RuntimeError, MODIFIED,
            torch=lambda: error_of(tz.backward), recorded=f"RuntimeError: one of the variables … {MODIFIED} …"):
    z.backward()

# %% [markdown]
# The graph of case A's experiment with a detached branch: the detached term is not in it.

# %%
x = mg.Value(2.0, requires_grad=True, label="x")
show_graph(x.detach() * 3 + x * 5, "x.detach() * 3 + x * 5 (the detached branch is a leaf that needs no gradient):")

# %%
summary("Lesson 4")
