# %% [markdown]
# # Lesson 7: The engineering rules
#
# Section 7: one training run with every rule in place, then each rule broken once.
#
# The article ends with seven rules, "copy-paste ready for team rules":
#
# > 1. Always optimizer.zero_grad() before each step: Autograd accumulates by default.
# > 2. Use torch.no_grad() for inference/eval: no graph → ~50% activation memory saved, 30-50% faster.
# > 3. Use detach() when crossing branches: target networks, contrastive learning, feature freezing.
# > 4. Gradient accumulation for large-batch simulation: accumulate over micro-batches + normalize loss + step
# >    on schedule.
# > 5. AMP requires GradScaler: prevents small-gradient underflow; do not manually unscale before scaler.step.
# > 6. Custom ops via torch.autograd.Function: pair forward/backward, ctx.save_for_backward for intermediates.
# > 7. Keep in-place ops away from leaf tensors: on error, suspect graph corruption.
#
# This lesson trains one small model with all of them in place, then breaks each rule once and shows what happens, on
# micrograd2 and, where PyTorch is installed, on PyTorch live. Rule 6 is lesson 5's subject. (The codes D5, D14–D16
# refer to the README's list "Where the article is wrong".)

# %%
import math

import micrograd2 as mg
from micrograd2.lessons import torch_amp  # PyTorch's side of the experiments, run live
from micrograd2.lessons.measure import compare_modes, graph_nodes, kept_bytes, torch_kept_bytes
from micrograd2.lessons.tools import Recorded, check, error_of, live_torch, raises, section, show_graph, summary

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")

# %% [markdown]
# ## One training run, every rule in place
#
# Two interleaving moons, 40 points; an MLP with two hidden layers of 8 ReLU units; micrograd's hinge loss, plus a small
# consistency term that pulls each prediction toward the model's own prediction at a nudged copy of the point: a target,
# as in target networks and contrastive learning. The helpers first:

# %%
section("1. One training run, every rule in place")
X, y = mg.data.make_moons(40, noise=0.1, seed=2)                # 40 points, two classes
labels = [2.0 * c - 1.0 for c in y]                             # hinge loss wants -1 / +1
batches = [list(range(i, i + 10)) for i in range(0, 40, 10)]    # 4 micro-batches of 10 points
accum_steps = 2                                                 # 2 micro-batches per optimizer step


# %%
def jitter(x, k):
    """The same point, nudged (deterministically)."""
    return [x[0] + 0.05 * math.sin(k), x[1] + 0.05 * math.cos(k)]

def micro_loss(model, idx, detach=True):
    """Hinge loss of the micro-batch ``idx``, plus 0.1 × the distance to the model's own nearby predictions."""
    scores = [model(X[i]) for i in idx]
    targets = [model(jitter(X[i], i)) for i in idx]            # "what the model says nearby": a target
    if detach:
        targets = [t.detach() for t in targets]                 # rule 3: a target is a number, not a branch
    return (mg.nn.functional.hinge_loss(scores, [labels[i] for i in idx])
            + 0.1 * mg.nn.functional.mse_loss(scores, targets))

def accuracy(model):
    with mg.no_grad():                                          # rule 2: evaluation records no graph
        return sum((model(x).item() > 0) == (c == 1) for x, c in zip(X, y)) / len(y)

def grad_norm(grads):
    return math.sqrt(sum(g ** 2 for g in grads if g is not None))


# %% [markdown]
# The loop: 24 optimizer steps, each over 2 micro-batches, in mixed precision, with Adam.

# %%
model = mg.nn.MLP(2, [8, 8, 1], seed=3)
optimizer = mg.optim.Adam(model.parameters(), lr=0.05)
scaler = mg.GradScaler()
initial = accuracy(model)
print("before training: accuracy", initial)

for step in range(24):
    optimizer.zero_grad()                                       # rule 1: clear last step's gradients
    for k in range(accum_steps):                                # rule 4: accumulate micro-batches...
        idx = batches[(step * accum_steps + k) % len(batches)]
        with mg.autocast(dtype="float16"):                      # rule 5: matrix products in float16
            loss = micro_loss(model, idx) / accum_steps         # ...each normalized
        scaler.scale(loss).backward()                           # rule 5: scale the loss, then backward
    scaler.unscale_(optimizer)                                  # rule 5: true gradients before clipping
    norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)                                      # rule 7: in-place updates of leaves, under no_grad
    scaler.update()
    if step % 8 == 7:
        print(f"step {step + 1:2d}: loss {loss.item() * accum_steps:.4f}  grad norm {norm:.3f}  "
              f"accuracy {accuracy(model):.3f}  scale {scaler.get_scale():.0f}")

# %%
final = accuracy(model)
check(f"the model learned: accuracy {initial} → ≥ 0.9", final >= 0.9 and final > initial, True)
check("no step was skipped: the scale stayed at 2¹⁶", scaler.get_scale(), 65536.0)

# %% [markdown]
# ## Rule 1 broken: no zero_grad()
#
# Without `zero_grad`, each backward adds to what the last step left. `autograd.grad` (lesson 8) shows what the current
# batch alone says; `.grad` is the sum of all of them:

# %%
section("2. Rule 1 broken: no zero_grad()")
model = mg.nn.MLP(2, [8, 8, 1], seed=3)
params = model.parameters()
optimizer = mg.optim.SGD(params, lr=0.1)
fresh_sum = [0.0] * len(params)
for step in range(4):
    loss = micro_loss(model, batches[step])
    fresh = mg.autograd.grad(loss, params, retain_graph=True)   # this batch's gradient
    loss.backward()                                             # no zero_grad: added to .grad
    fresh_sum = [s + g for s, g in zip(fresh_sum, fresh)]
    print(f"step {step + 1}: this batch's gradient norm {grad_norm(fresh):.3f}"
          f" | norm of .grad {grad_norm(p.grad for p in params):.3f}")
    optimizer.step()
check(".grad after 4 steps = the sum of the 4 batch gradients", [p.grad for p in params], fresh_sum, rel=1e-9)

# %% [markdown]
# ## Rule 2: what no_grad saves, measured
#
# Takeaway 2 promises "~50% activation memory saved, 30-50% faster". PyTorch publishes no such figure (D14). What
# `no_grad` saves is the values the graph keeps for backward (the activations), all of them; what that is worth depends
# on the model. First on this lesson's scalar MLP: evaluation in grad mode records a graph for every prediction, and
# keeps it as long as the predictions live (`graph_nodes`, from `lessons/measure.py`, counts the nodes they keep alive).

# %%
section("3. Rule 2: what no_grad saves, measured")
tracked = [model(x) for x in X]
with mg.no_grad():
    untracked = [model(x) for x in X]
print("graph nodes kept: in grad mode", len(graph_nodes(tracked)), "| under no_grad", len(graph_nodes(untracked)))
check("evaluation under no_grad keeps no graph", len(graph_nodes(untracked)), 0)

# %% [markdown]
# Now a model where memory matters: an MLP of 6 layers of 1024 units, each `Linear` followed by `relu`, at batch 256, in
# float32, on micrograd2's Tensor engine and on PyTorch. Each `Linear` keeps its input for backward and each `relu` its
# output, so every ReLU output but the last is kept twice, by its `relu` and by the next `Linear`, in one storage; the
# last is kept once, by its `relu`. Counted once per storage, grad mode keeps the input and the 6 ReLU outputs: 7 × 256
# × 1024 × 4 bytes. Counted per saving node: the input once, 5 ReLU outputs twice, the last once: 12 activations.

# %%
import numpy as np  # here, not at the top: the parts above run without NumPy, as in the playground

WIDTH, DEPTH, BATCH = 1024, 6, 256
MIB = 2 ** 20

def make_mlp(lib, width, depth, seed=0):
    """``depth`` layers ``Linear(width, width)`` of ``lib`` (micrograd2 or PyTorch)."""
    if lib is torch:
        torch.manual_seed(seed)
        return [torch.nn.Linear(width, width) for _ in range(depth)]
    return [mg.nn.Linear(width, width, seed=seed + i) for i in range(depth)]

def forward(layers, x):
    for layer in layers:
        x = layer(x).relu()
    return x

x_batch = np.random.default_rng(0).normal(size=(BATCH, WIDTH)).astype(np.float32)
layers = make_mlp(mg, WIDTH, DEPTH)

# %% [markdown]
# `kept_bytes` (from `lessons/measure.py`) walks the graph and adds up the arrays its nodes saved, once per storage (a
# view counts as the array it looks into) and once per node that saved it; parameters left out.

# %%
parameters = [p for layer in layers for p in layer.parameters()]
kept = kept_bytes(forward(layers, mg.tensor(x_batch)), parameters)
with mg.no_grad():
    kept_no_grad = kept_bytes(forward(layers, mg.tensor(x_batch)), parameters)
print(f"micrograd2, batch {BATCH}: grad mode keeps {kept[0] / MIB} MiB ({kept[1] / MIB} MiB counted per node);"
      f" no_grad keeps {kept_no_grad[0] / MIB} MiB")

# %% [markdown]
# PyTorch, live: its saved tensors are counted with `torch.autograd.graph.saved_tensors_hooks`, which sees each tensor a
# node saves (`torch_kept_bytes`, in bytes: shown here in MiB).

# %%
if torch:
    t_layers, t_x = make_mlp(torch, WIDTH, DEPTH), torch.from_numpy(x_batch)
    t_parameters = [p for layer in t_layers for p in layer.parameters()]
    t_forward = lambda: forward(t_layers, t_x)
    t_kept = [b / MIB for b in torch_kept_bytes(t_forward, t_parameters, grad_mode=True)]
    t_kept_no_grad = [b / MIB for b in torch_kept_bytes(t_forward, t_parameters, grad_mode=False)]
    print(f"PyTorch, batch {BATCH}: grad mode keeps {t_kept[0]} MiB ({t_kept[1]} MiB counted per node); "
          f"no_grad keeps {t_kept_no_grad[0]} MiB")

# %%
one_activation = BATCH * WIDTH * 4 / MIB
sizes = {"BATCH": BATCH, "WIDTH": WIDTH, "DEPTH": DEPTH}  # what the recorded MiB below were measured at
check(f"grad mode, batch {BATCH}: MiB kept, counted once per storage = (1 + {DEPTH}) activations",
      kept[0] / MIB, (1 + DEPTH) * one_activation, torch=lambda: t_kept[0],
      recorded=Recorded("7.0", BATCH=256, WIDTH=1024, DEPTH=6), inputs=sizes)
check(f"grad mode, batch {BATCH}: MiB kept, counted per saving node = 1 + 2 × ({DEPTH} − 1) + 1 activations",
      kept[1] / MIB, (1 + 2 * (DEPTH - 1) + 1) * one_activation, torch=lambda: t_kept[1],
      recorded=Recorded("12.0", BATCH=256, WIDTH=1024, DEPTH=6), inputs=sizes)
check("no_grad keeps nothing", kept_no_grad[0], 0, torch=lambda: t_kept_no_grad[0], recorded="0 B")

# %% [markdown]
# Whether that is "~50%" of the memory depends on everything else in memory: here the weights alone are 24 MiB, and the
# saving grows with the batch. Time is another matter: it depends on whatever else the machine is doing, so the
# conclusion comes from what does not, the graph nodes each mode records (and, above, the activations they keep). The
# time is shown beside it with its spread: `compare_modes` (from `lessons/measure.py`) runs one forward pass in grad
# mode and under `no_grad` in interleaved rounds, in CPU time, and gives the median of the per-round ratio no_grad/grad
# ("ratio") and the middle half of the ratios, marked "disturbed" when the rounds disagree. For this big MLP and for a
# small one (4 layers of 16 units, batch 4, 10 passes a round):

# %%
def compare_forward(lib, width, depth, batch, rounds, number):
    """``compare_modes`` of one forward pass of a ``depth`` × ``width`` MLP of ``lib`` at ``batch``."""
    layers = make_mlp(lib, width, depth)
    x = lib.tensor(np.random.default_rng(1).normal(size=(batch, width)).astype(np.float32))

    def run(grad_mode):
        with lib.set_grad_enabled(grad_mode):
            return forward(layers, x)

    return compare_modes(run, rounds, number)


# %%
shapes = {f"{DEPTH}×{WIDTH}, batch {BATCH}": (WIDTH, DEPTH, BATCH, 3, 1), "4×16, batch 4": (16, 4, 4, 5, 10)}
recorded_nodes = []
for lib in [mg, torch] if torch else [mg]:
    for name, (width, depth, batch, rounds, number) in shapes.items():
        compared = compare_forward(lib, width, depth, batch, rounds, number)
        recorded_nodes.append(compared.nodes[1])
        print(f"{lib.__name__} {name}: {compared.conclusion()}\n    {compared.timing.line()}")
check("no_grad records no node in any of these forward passes", recorded_nodes, [0] * len(recorded_nodes))

# %% [markdown]
# The nodes are counted, the same on any machine. The times are this machine's, from this run: they change with the
# model's shape and batch (how much arithmetic each op does against the fixed cost of recording it), the library, the
# processor, and the other programs competing for it (CPU time leaves their work out, not the caches they share). Run
# the cell again and they move; marked "disturbed", they say nothing either way. No flat "30-50% faster" follows from
# them.

# %% [markdown]
# ## Rule 3 broken: a target that is not detached
#
# The consistency target must act as a fixed number. Detached, the gradient is exactly the one we get by writing the
# targets down as plain numbers. Not detached, backward also runs through the target branch and moves the target toward
# the prediction: the collapse that target networks and stop-gradients prevent.

# %%
section("4. Rule 3 broken: a target that is not detached")
model = mg.nn.MLP(2, [8, 8, 1], seed=3)

def consistency_grads(targets_as):
    """The gradients of the consistency loss of batch 0, its targets "detached", "numbers" or "attached"."""
    model.zero_grad()
    idx = batches[0]
    scores = [model(X[i]) for i in idx]
    targets = [model(jitter(X[i], i)) for i in idx]
    if targets_as == "detached":
        targets = [t.detach() for t in targets]
    elif targets_as == "numbers":
        targets = [t.item() for t in targets]
    mg.nn.functional.mse_loss(scores, targets).backward()
    return [p.grad for p in model.parameters()]

detached, numbers, attached = (consistency_grads(a) for a in ("detached", "numbers", "attached"))
print("gradient norm: detached", grad_norm(detached), "| plain numbers", grad_norm(numbers),
      "| not detached", grad_norm(attached))
check("detached target = a constant target", detached, numbers, rel=1e-12)
check("an undetached target changes the gradient", attached != numbers, True)

# %% [markdown]
# Watch it on a tiny model and one point: the detached target enters the loss as a leaf that needs no gradient, so the
# walk never goes down the target's branch.

# %%
tiny = mg.nn.MLP(2, [2, 1], seed=1)
score = tiny(X[0])
target = tiny(jitter(X[0], 0)).detach()
target.label = "target"
tiny_loss = (score - target) ** 2
tiny_loss.backward()
check("the target's branch got no gradient", target.grad, None, recorded="detach(): no grad_fn, no .grad")

# %% [markdown]
# ## Rule 4 broken: accumulating without normalizing
#
# Without the division by `accum_steps`, the gradient of the same batch is `accum_steps` times larger (D16):

# %%
section("5. Rule 4 broken: accumulating without normalizing")
model = mg.nn.MLP(2, [8, 8, 1], seed=3)

def accumulated_grads(normalize):
    """The gradients after accum_steps micro-batches (each loss divided by accum_steps, or not)."""
    model.zero_grad()
    for idx in batches[:accum_steps]:
        loss = micro_loss(model, idx)
        (loss / accum_steps if normalize else loss).backward()
    return [p.grad for p in model.parameters()]

normalized, unnormalized = accumulated_grads(True), accumulated_grads(False)
print("gradient norm: normalized", grad_norm(normalized), "| not normalized", grad_norm(unnormalized))
check("not normalized / normalized gradient", grad_norm(unnormalized) / grad_norm(normalized), accum_steps,
      rel=1e-9)

# %% [markdown]
# What a doubled gradient does depends on the optimizer. Plain SGD steps lr·grad: a doubled gradient is a doubled step,
# as if the learning rate were doubled. This lesson trains with Adam, whose first step is lr·g / (|g| + eps) per
# parameter: the size of g cancels, and a doubled gradient gives (almost exactly) the same step. One step each, from the
# same parameters, with the two gradients above:

# %%
def one_step(lib, values, grads, optimizer_class, lr):
    """The change one step of ``optimizer_class`` makes to parameters ``values`` with gradients ``grads``."""
    params = [lib.tensor(v, requires_grad=True, dtype=lib.float64 if lib is torch else "float64") for v in values]
    for p, g in zip(params, grads):
        p.grad = lib.tensor(g, dtype=p.dtype)
    optimizer_class(params, lr=lr).step()
    return [p.item() - v for p, v in zip(params, values)]

def step_ratio(lib, optimizer_class):
    """|step with the unnormalized gradient| / |step with the normalized one|."""
    values = [p.item() for p in model.parameters()]
    big, small = (one_step(lib, values, g, optimizer_class, 0.05) for g in (unnormalized, normalized))
    return grad_norm(big) / grad_norm(small)


# %%
def adam_first_step(grads, lr=0.05, eps=1e-8):
    """Adam's first step, by its formula: m̂ = g, v̂ = g², step = −lr·m̂ / (√v̂ + eps)."""
    return [-lr * g / (abs(g) + eps) for g in grads]

sgd, adam = step_ratio(mg, mg.optim.SGD), step_ratio(mg, mg.optim.Adam)
print(f"step with the doubled gradient / step with the right one: SGD {sgd}, Adam {adam}")
check("SGD: the doubled gradient doubles the step", sgd, accum_steps,
      torch=lambda: step_ratio(torch, torch.optim.SGD), recorded="2.0")
check("Adam: the doubled gradient leaves the step (almost) unchanged", adam,
      grad_norm(adam_first_step(unnormalized)) / grad_norm(adam_first_step(normalized)),
      torch=lambda: step_ratio(torch, torch.optim.Adam), recorded="1.0000008925135895")

# %% [markdown]
# So with Adam the missing division costs nothing on the first step; later ones differ only through eps and the running
# averages. With SGD (or any optimizer whose step is proportional to the gradient) it is a silently larger learning
# rate.

# %% [markdown]
# ## Rule 5 broken: clipping before unscale_
#
# Clip the gradients while they are still multiplied by the scale, and `clip_grad_norm_` sees a norm 65536 times too
# large: it shrinks them to max_norm, and `unscale_` then divides by 65536. The step then uses gradients of norm
# max_norm / 65536 (D5: `unscale_` before clipping is the documented pattern).

# %%
section("6. Rule 5 broken: clipping before unscale_")

def clipped(unscale_first, max_norm):
    """(norm of the gradients the step uses, their true norm, the scaled gradients) for batch 0."""
    model = mg.nn.MLP(2, [8, 8, 1], seed=3)
    optimizer, scaler = mg.optim.SGD(model.parameters(), lr=0.1), mg.GradScaler()
    with mg.autocast(dtype="float16"):
        loss = micro_loss(model, batches[0])
    scaler.scale(loss).backward()
    scaled = [p.grad for p in model.parameters()]
    if unscale_first:
        scaler.unscale_(optimizer)
    mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
    if not unscale_first:
        scaler.unscale_(optimizer)
    return grad_norm(p.grad for p in model.parameters()), grad_norm(scaled) / 65536, scaled


# %%
MAX_NORM = 0.01
right, true_norm, scaled = clipped(True, MAX_NORM)
wrong, _, _ = clipped(False, MAX_NORM)
print(f"true gradient norm {true_norm:.6g}, max_norm {MAX_NORM}")
print(f"norm the step uses: unscale_ then clip {right:.6g} | clip then unscale_ {wrong:.6g}")

# %% [markdown]
# PyTorch, live, with the same scaled gradients, in either order (`torch_amp.clipped`: the norm of the gradients after
# `unscale_` and `clip_grad_norm_` in the given order):

# %%
check("unscale_ then clip: the step's gradient norm is max_norm", right, MAX_NORM, rel=1e-4,
      torch=lambda: torch_amp.clipped(scaled, True, MAX_NORM), recorded="0.01")
check("clip then unscale_: the step's gradient norm is max_norm / 65536", wrong, MAX_NORM / 65536, rel=1e-4,
      torch=lambda: torch_amp.clipped(scaled, False, MAX_NORM), recorded="1.5259e-07")

# %% [markdown]
# "65536 times too small" holds only when the true norm is at least max_norm, as here. If it is below, the right order
# does not clip at all, while the wrong order still clips the scaled gradients to max_norm; the step is then too small
# by true norm × 65536 / max_norm, a smaller factor. With max_norm ten times the true norm:

# %%
loose = 10 * true_norm
right_loose, _, _ = clipped(True, loose)
wrong_loose, _, _ = clipped(False, loose)
print(f"max_norm {loose:.6g}: unscale_ then clip {right_loose:.6g} | clip then unscale_ {wrong_loose:.6g}"
      f" | too small by {right_loose / wrong_loose:.6g}")
check("max_norm above the true norm: too small by true norm × 65536 / max_norm", right_loose / wrong_loose,
      true_norm * 65536 / loose, rel=1e-4,
      torch=lambda: torch_amp.clipped(scaled, True, loose) / torch_amp.clipped(scaled, False, loose),
      recorded="6553.6")

# %% [markdown]
# ## Rule 7, as it really is
#
# "Keep in-place ops away from leaf tensors" (D15): every optimizer step is an in-place op on leaves, under `no_grad`.
# What is refused is the same update in grad mode:

# %%
section("7. Rule 7, as it really is")
model = mg.nn.MLP(2, [8, 8, 1], seed=3)
micro_loss(model, batches[0]).backward()
w = model.parameters()[0]
if torch:
    t_w = torch.tensor([w.item()], requires_grad=True)
    (t_w * 2).sum().backward()

with raises("an in-place update of a parameter in grad mode", RuntimeError,
            "a leaf Variable that requires grad is being used in an in-place operation",
            torch=lambda: error_of(lambda: t_w.sub_(0.1 * t_w.grad)),
            recorded="RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."):
    w.sub_(0.1 * w.grad)                                        # a hand-written SGD step, in grad mode

# %%
with mg.no_grad():
    w.sub_(0.1 * w.grad)                                        # what optimizer.step() does
print("under no_grad: done | w._version =", w._version, "| still a leaf:", w.is_leaf)
if torch:
    torch.optim.SGD([t_w], lr=0.1).step()
check("the update under no_grad: (_version, is_leaf)", [w._version, w.is_leaf], [1, True],
      torch=lambda: [t_w._version, t_w.is_leaf], recorded="SGD.step(): p._version 0 -> 1")

# %% [markdown]
# `micrograd2 train` runs the loop of part 1 on any of the generated datasets (micro-batches, accumulation, clipping,
# `--amp`), with a progress bar. The tiny consistency loss of part 4, whose target was detached:

# %%
show_graph(tiny_loss, "(score − target)², the target detached:")

# %%
summary("Lesson 7")
