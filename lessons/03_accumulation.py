# %% [markdown]
# # Lesson 3: Gradients accumulate
#
# Block 3 and the accumulation snippet: the NameError, why to divide by accum_steps, what zero_grad() really does.
#
# The article's section 3 runs `backward()` three times and shows that the gradients add up; its engineering note then
# shows gradient accumulation over micro-batches. Block 3 is right. The snippet does not run as published, its comment
# on normalizing misleads, and the article says less than it seems about `zero_grad()`. This lesson re-runs each of them
# on micrograd2 and, where PyTorch is installed, on PyTorch itself, live. (The codes D3, D16, D18 below refer to the
# README's list "Where the article is wrong".)

# %%
import micrograd2 as mg
from micrograd2.lessons.tools import Recorded, check, live_torch, predict, raises, section, show_graph, summary

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")

# %%
prediction = ...  # your answer here; or `micrograd2 lesson run 3 --interactive` asks for it
three_backwards = predict("L3.three-backwards", "x = 2, w = 3; z = x·w and z.backward(), three times "
                          "over. What is x.grad after the third?", answer=prediction)

# %% [markdown]
# The article's block 3, in PyTorch:
#
# ```python
# x = torch.tensor([2.0], requires_grad=True)
# w = torch.tensor([3.0], requires_grad=True)
#
# for i in range(3):
#     z = (x * w).sum()
#     z.backward()          # grads are ACCUMULATED into .grad by default
#
# print("x.grad =", x.grad)   # tensor([9.]), i.e., 3+3+3
# print("w.grad =", w.grad)   # tensor([6.]), i.e., 2+2+2
# ```
#
# The same on micrograd2's scalar engine. Try another count in `range(3)`: the checks below follow it.

# %%
section("1. backward() adds, it does not overwrite")
x = mg.Value(2.0, requires_grad=True, label="x")
w = mg.Value(3.0, requires_grad=True, label="w")

for i in range(3):
    z = x * w
    z.backward()          # adds dz/dx = w into x.grad, dz/dw = x into w.grad
    print(f"after backward {i + 1}: x.grad = {x.grad}, w.grad = {w.grad}")

# %% [markdown]
# Each pass adds dz/dx = w to `x.grad` and dz/dw = x to `w.grad`, so after n passes `x.grad` is n·w and `w.grad` is n·x.
# The narration walks the first pass step by step (`AccumulateGrad` finds `.grad` empty and writes 3.0), then gives each
# later pass one line: the same walk, `x.grad` up by w each time. PyTorch, run the same number of times:

# %%
three_backwards.reveal(x.grad)
passes = i + 1  # how many times the loop called backward()
if torch:
    tx = torch.tensor([2.0], requires_grad=True)
    tw = torch.tensor([3.0], requires_grad=True)
    for _ in range(passes):
        (tx * tw).sum().backward()

now = {"passes": passes, "x": x.item(), "w": w.item()}  # what the recorded outputs below must match
check(f"x.grad after {passes} backwards = {passes}·w", x.grad, passes * w.item(),
      torch=lambda: tx.grad, recorded=Recorded("tensor([9.])", passes=3, x=2.0, w=3.0), inputs=now)
check(f"w.grad after {passes} backwards = {passes}·x", w.grad, passes * x.item(),
      torch=lambda: tw.grad, recorded=Recorded("tensor([6.])", passes=3, x=2.0, w=3.0), inputs=now)

# %% [markdown]
# What the article concludes from block 3, in its words:
#
# > Three backward() calls accumulate x.grad from 3.0 to 9.0—Autograd does not zero gradients by default.
#
# > This is exactly why every training loop begins with optimizer.zero_grad(); without it, grads leak across
# > batches and updates are corrupted.
#
# Both hold. The second is also the pattern of gradient accumulation, which the article shows next.

# %% [markdown]
# Next, the article's engineering note. Its code is kept here as published, in a string, and run as it is:

# %%
section("2. The article's accumulation snippet, run as published")
ARTICLE_SNIPPET = """
# Gradient accumulation to simulate a large batch
optimizer.zero_grad()
for micro_batch in loader:
    loss = model(micro_batch)
    loss = loss / accum_steps          # normalize, otherwise effective batch grows
    loss.backward()
    if (step + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
print(ARTICLE_SNIPPET)

# %% [markdown]
# To run it we need what it assumes: a `model` that returns the loss of a micro-batch, a `loader`, an `optimizer` and
# `accum_steps`. Here: a line y = w·x + b fitted to 16 points, served as 8 micro-batches of 2 points. `make_line` is
# written once for any library with PyTorch's spelling, so the same code runs on `mg` (micrograd2's tensors) and on
# `torch`.

# %%
points = [(i / 8, 2 * i / 8 + 1 + 0.1 * (-1) ** i) for i in range(16)]  # y ≈ 2x + 1

def make_line(lib):
    """The parameters [w, b] of a line y = w·x + b, and the mean squared error of a batch of points."""
    w = lib.tensor([0.5], requires_grad=True)
    b = lib.tensor([0.0], requires_grad=True)

    def model(batch):
        xs = lib.tensor([p for p, _ in batch])
        ys = lib.tensor([q for _, q in batch])
        return ((w * xs + b - ys) ** 2).mean()

    return [w, b], model

params, model = make_line(mg)
loader = [points[i:i + 2] for i in range(0, 16, 2)]  # 8 micro-batches of 2 points
optimizer = mg.optim.SGD(params, lr=0.1)
accum_steps = 4

# %%
with raises("the snippet as published", NameError, "name 'step' is not defined",
            recorded="NameError: name 'step' is not defined"):
    exec(ARTICLE_SNIPPET)

check("it failed after the first loss.backward(): w.grad is set", params[0].grad is not None, True,
      recorded="raised after the first loss.backward()")

# %% [markdown]
# The loop never defines `step` (D3). It needs `enumerate`: `for step, micro_batch in enumerate(loader)`. Fixed, and
# counting the optimizer steps:

# %%
steps_taken = 0
optimizer.zero_grad()
for step, micro_batch in enumerate(loader):
    loss = model(micro_batch)
    loss = loss / accum_steps          # each micro-batch counts 1/accum_steps of the big batch
    loss.backward()
    if (step + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
        steps_taken += 1
print("micro-batches:", len(loader), "| optimizer steps:", steps_taken)
check(f"optimizer steps for {len(loader)} micro-batches, accum_steps {accum_steps}", steps_taken,
      len(loader) // accum_steps, inputs={"micro_batches": len(loader), "accum_steps": accum_steps},
      recorded=Recorded("optimizer steps taken = 2 for 8 micro-batches", micro_batches=8, accum_steps=4))

# %% [markdown]
# Why divide by `accum_steps`? The article's comment says: "normalize, otherwise effective batch grows". The batch is
# the same either way (D16). What changes is the gradient's size: each micro-batch's loss is a mean over its own points,
# so adding `accum_steps` of them gives `accum_steps` times the mean. Divided by `accum_steps`, the sum of the
# micro-batch gradients is the gradient of the full batch. Compare with one batch of the same points:

# %%
section("3. Why divide by accum_steps")

def grads(params, model, batches, divide):
    """The gradients [dw, db] after backward() on each batch's loss (divided by the number of batches)."""
    for p in params:
        p.grad = None
    for batch in batches:
        loss = model(batch)
        (loss / len(batches) if divide else loss).backward()
    return [p.grad.item() for p in params]

group = loader[:accum_steps]                         # accum_steps micro-batches
full = grads(params, model, [sum(group, [])], divide=False)   # one batch of the same points
normalized = grads(params, model, group, divide=True)
unnormalized = grads(params, model, group, divide=False)
ratio = [u / f for u, f in zip(unnormalized, full)]
print("full batch   [dw, db] =", full)
print("normalized   [dw, db] =", normalized)
print("unnormalized [dw, db] =", unnormalized)
print("unnormalized / full   =", ratio)

# %% [markdown]
# In float32 the sums are rounded in a different order, so "equal" means equal up to rounding: a few units in the last
# place of the largest gradient. The difference is computed here, and on PyTorch live:

# %%
eps32 = 2.0 ** -23  # float32's unit roundoff ×2: the gap between 1.0 and the next float32
max_diff = max(abs(n - f) for n, f in zip(normalized, full))
bound = 4 * eps32 * max(abs(f) for f in full)
print(f"micrograd2: max abs diff = {max_diff!r} (rounding bound {bound:.3g})")
if torch:
    t_params, t_model = make_line(torch)
    t_full = grads(t_params, t_model, [sum(group, [])], divide=False)
    t_diff = max(abs(n - f) for n, f in zip(grads(t_params, t_model, group, divide=True), t_full))
    print(f"PyTorch:    max abs diff = {t_diff!r}")

check("normalized accumulation = full-batch gradient, up to float32 rounding", max_diff <= bound, True,
      torch=lambda: t_diff <= bound, recorded="equal up to float32 rounding")
check(f"unnormalized / full = accum_steps = {accum_steps}", ratio, [accum_steps] * len(ratio),
      recorded="accum_steps× larger")

# %% [markdown]
# A gradient `accum_steps` times too large acts like a larger learning rate, but only for an optimizer whose step is
# proportional to the gradient. For plain SGD the step is lr·grad, so it is exactly as if lr were `accum_steps` times
# larger. Adam divides by the gradient's running magnitude: scaling every gradient by the same factor leaves its step
# (almost exactly) unchanged. One step each, from the same start:

# %%
def one_step(lib, optimizer_class, lr, divide):
    """w after one step of ``optimizer_class`` on the accumulated (divided or not) gradient of ``group``."""
    params, model = make_line(lib)
    grads(params, model, group, divide)
    optimizer_class(params, lr=lr).step()
    return params[0].item()

sgd = [one_step(mg, mg.optim.SGD, 0.1, False), one_step(mg, mg.optim.SGD, 0.1 * accum_steps, True)]
adam = [one_step(mg, mg.optim.Adam, 0.1, False), one_step(mg, mg.optim.Adam, 0.1, True)]
print("SGD:  w after an unnormalized step, after a normalized step with lr ×", accum_steps, "=", sgd)
print("Adam: w after an unnormalized step, after a normalized step (same lr) =", adam)
if torch:
    t_sgd = [one_step(torch, torch.optim.SGD, 0.1, False), one_step(torch, torch.optim.SGD, 0.4, True)]
    t_adam = [one_step(torch, torch.optim.Adam, 0.1, False), one_step(torch, torch.optim.Adam, 0.1, True)]
    print("PyTorch: SGD", t_sgd, "| Adam", t_adam)

# %%
check(f"SGD: unnormalized = normalized with lr × {accum_steps}", sgd[0], sgd[1],
      torch=lambda: t_sgd[0])
check("Adam: unnormalized = normalized, same lr (the factor changes nothing)", adam[0], adam[1],
      torch=lambda: t_adam[0])

# %% [markdown]
# One more trap of the pattern: micro-batches left over at the end (5 micro-batches with `accum_steps` 4) are never
# stepped. Their gradient waits in `.grad`.

# %%
steps_taken = 0
optimizer.zero_grad()
for step, micro_batch in enumerate(loader[:accum_steps + 1]):
    loss = model(micro_batch) / accum_steps
    loss.backward()
    if (step + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
        steps_taken += 1
print("steps:", steps_taken, "| gradient left in w.grad:", params[0].grad)
check(f"steps for {accum_steps + 1} micro-batches", steps_taken, 1, recorded="steps = 1")
check("a gradient is left over, never stepped", params[0].grad is not None, True,
      recorded="leftover grad non-zero: True")

# %%
prediction = ...  # your answer here (a number, or None)
after_zero_grad = predict("L3.zero-grad", "optimizer.zero_grad(), with its defaults: what is w.grad "
                          "right after it?", answer=prediction)

# %% [markdown]
# The article's takeaway 1 reads:
#
# > Always optimizer.zero_grad() before each step: Autograd accumulates by default.
#
# The word "zeros" is not in it, and it does not say what `zero_grad()` does to `.grad`. Block 3's notes imply that it
# zeroes them: "Autograd does not zero gradients by default", and, for accumulation, "deliberately skip zeroing". By
# default it sets them to `None` (D18), as PyTorch does: no memory is kept, and the next backward writes a fresh
# gradient. `zero_grad(set_to_none=False)` writes zeros instead.

# %%
section("4. What zero_grad() does")
optimizer.zero_grad()
cleared = params[0].grad
after_zero_grad.reveal(cleared)
print("after zero_grad():", params[0].grad)
model(loader[0]).backward()
optimizer.zero_grad(set_to_none=False)
print("after zero_grad(set_to_none=False):", params[0].grad)

# %%
if torch:
    t_params, t_model = make_line(torch)
    t_optimizer = torch.optim.SGD(t_params, lr=0.1)
    t_model(loader[0]).backward()
    t_optimizer.zero_grad()
    t_cleared = t_params[0].grad
    t_model(loader[0]).backward()
    t_optimizer.zero_grad(set_to_none=False)

check("zero_grad(): w.grad is None", cleared, None, torch=lambda: t_cleared, recorded="p.grad = None")
check("zero_grad(set_to_none=False): w.grad is zero", params[0].grad, [0.0],
      torch=lambda: t_params[0].grad, recorded="tensor([0.])")

# %% [markdown]
# The graph of one micro-batch's loss, the last thing this lesson computed:

# %%
show_graph(model(loader[0]), "The loss of one micro-batch (gradients flow from the top down):")

# %%
summary("Lesson 3")
