# %% [markdown]
# # Lesson 10: Beyond reverse mode
#
# Forward mode with dual numbers against torch.func.jvp, Hessian-vector products by double backward, and checkpointing
# with the memory it saves counted.
#
# Reverse mode, lessons 1 to 9, gives the gradient of one output with respect to every input in one backward pass. Three
# tools go past it: forward mode, when there are few inputs and many outputs; second derivatives along a direction,
# without the whole Hessian; and checkpointing, which keeps less of the graph and computes part of it twice. This lesson
# needs NumPy. Unit U4's exercises write each of them.

# %%
import math
import warnings

import numpy as np

import micrograd2 as mg
from micrograd2.lessons.measure import graph_nodes, kept_bytes
from micrograd2.lessons.tools import Recorded, check, live_torch, predict, section, show_graph, summary
from micrograd2.tracing.nodes import saved_items

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")

# %% [markdown]
# ## Forward mode: dual numbers
#
# A dual number a + ȧε, with ε² = 0, carries a value and its derivative along one direction. Arithmetic on it is the
# chain rule, one op at a time:
#
# ```
# (a + ȧε) + (b + ḃε) = (a + b) + (ȧ + ḃ)ε
# (a + ȧε) · (b + ḃε) = ab + (ȧb + aḃ)ε          (the ε² term is 0)
# sin(a + ȧε)         = sin a + (cos a)·ȧ ε
# ```
#
# So one forward pass on duals gives f(x) and J·v, the derivative along v: a Jacobian-vector product, with no graph
# kept. PyTorch calls the primal and the tangent by these names (`torch.func.jvp`, `torch.autograd.forward_ad`).

# %%
section("1. Forward mode: dual numbers")

class Dual:
    """primal + tangent·ε, ε² = 0."""

    def __init__(self, primal, tangent=0.0):
        self.primal, self.tangent = float(primal), float(tangent)

    def __repr__(self):
        return f"Dual({self.primal:.6g}, {self.tangent:.6g})"

    def __add__(self, other):
        o = as_dual(other)
        return Dual(self.primal + o.primal, self.tangent + o.tangent)

    def __mul__(self, other):
        o = as_dual(other)
        return Dual(self.primal * o.primal, self.tangent * o.primal + self.primal * o.tangent)

    __radd__, __rmul__ = __add__, __mul__

    def sin(self):
        return Dual(math.sin(self.primal), math.cos(self.primal) * self.tangent)

def as_dual(x):
    """A plain number is a dual whose tangent is 0."""
    return x if isinstance(x, Dual) else Dual(x)


# %%
def torch_jvp(fn, primals, tangents):
    """torch.func.jvp in float64, its outputs' tangents as numbers (its warnings about torch.jit
    silenced: they are not about this lesson)."""
    as_tensors = lambda xs: tuple(torch.tensor(x, dtype=torch.float64) for x in xs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs, tangents_out = torch.func.jvp(fn, as_tensors(primals), as_tensors(tangents))
    return outs, tangents_out


# %% [markdown]
# f(a, b) = a·b + sin a, written once: it runs on duals, on Values and on PyTorch's tensors. Along v = (1, 0.5), J·v =
# (b + cos a)·1 + a·0.5.

# %%
def f(a, b):
    return a * b + a.sin()

AB, V = (2.0, 3.0), (1.0, 0.5)
out = f(*[Dual(x, v) for x, v in zip(AB, V)])
print("f on duals:", out)
a, b = AB
check("[f(a, b), J·v] from one pass on duals", [out.primal, out.tangent],
      [a * b + math.sin(a), (b + math.cos(a)) * V[0] + a * V[1]],
      torch=lambda: [t.item() for t in torch_jvp(f, AB, V)],
      recorded=Recorded("(tensor(6.9093, dtype=torch.float64), "
                        "tensor(3.5839, dtype=torch.float64))", AB=(2.0, 3.0), V=(1.0, 0.5)),
      inputs={"AB": AB, "V": V})

# %%
leaves = [mg.Value(x, requires_grad=True) for x in AB]
f(*leaves).backward()
grad = [leaf.grad for leaf in leaves]
print("reverse mode: the gradient", grad, "· v =", sum(g * v for g, v in zip(grad, V)))
check("reverse mode's gradient · v = forward mode's J·v", sum(g * v for g, v in zip(grad, V)),
      out.tangent)

# %% [markdown]
# Which mode costs less depends on the shape of J. Forward mode gives one column of J per pass (one input direction);
# reverse mode one row per backward pass (one output). A curve g: R → R³ has a 3×1 Jacobian:

# %%
def g(t):
    return [t * t, t.sin(), t * t.sin()]

T0 = 0.5
prediction = ...  # your answer here (a number)
rows = predict("L10.rows", "g(t) = (t², sin t, t·sin t): one input, three outputs. How many "
               "backward passes does reverse mode need for g's whole Jacobian?", answer=prediction)

# %%
column = [o.tangent for o in g(Dual(T0, 1.0))]  # one forward pass, the whole column
t0 = mg.Value(T0, requires_grad=True)
outputs = g(t0)
with mg.trace() as traced:
    by_rows = [mg.autograd.grad(o, t0, retain_graph=True)[0] for o in outputs]
rows.reveal(len(traced.passes))
print("forward mode, 1 pass:", column)
print(f"reverse mode, {len(traced.passes)} passes:", by_rows)
check("dg/dt = [2t, cos t, sin t + t·cos t], by forward and by reverse mode", [column, by_rows],
      [[2 * T0, math.cos(T0), math.sin(T0) + T0 * math.cos(T0)]] * 2,
      torch=lambda: [[x.item() for x in torch_jvp(g, [T0], [1.0])[1]]] * 2,
      recorded=Recorded("[tensor(1., dtype=torch.float64), tensor(0.8776, dtype=torch.float64), "
                        "tensor(0.9182, dtype=torch.float64)]", T0=0.5), inputs={"T0": T0})
check("[forward passes, backward passes] for the 3×1 Jacobian", [1, len(traced.passes)], [1, 3])

# %% [markdown]
# A loss has one output and many inputs (every parameter): one backward pass gives all of its gradient, where forward
# mode would need one pass per parameter. That is why training uses reverse mode.
#
# ## Hessian-vector products: double backward
#
# The Hessian H of f: Rⁿ → R has n² entries. Its product with a vector v needs none of them: H·v is the gradient of g·v,
# where g = ∇f was computed with `create_graph=True`, so that the backward pass itself was recorded and can be
# differentiated. Here f(x) = q², q = Σ xᵢ², so g = 4q·x, H = 4q·I + 8·x·xᵀ, and H·v = 4q·v + 8·(x·v)·x.

# %%
section("2. Hessian-vector products: double backward")
X0, V0 = [1.0, 2.0, 3.0], [1.0, 0.0, 1.0]
prediction = ...  # your answer here (a number)
double = predict("L10.hvp-passes", "How many backward passes compute H·v here, with n = 3 inputs?",
                 answer=prediction)

def square_norm_squared(x):
    return (x * x).sum() ** 2

def torch_gradient():
    """∇f at X0 in PyTorch, recorded (create_graph=True)."""
    t_x = torch.tensor(X0, requires_grad=True)
    return torch.autograd.grad(square_norm_squared(t_x), t_x, create_graph=True)[0]


# %%
x, v = mg.tensor(X0, requires_grad=True), mg.tensor(V0)
with mg.trace() as traced:
    (gradient,) = mg.autograd.grad(square_norm_squared(x), x, create_graph=True)
    (hv,) = mg.autograd.grad((gradient * v).sum(), x)
double.reveal(len(traced.passes))
print("g =", gradient, "\nH·v =", hv)
check("g = ∇f has a grad_fn (create_graph=True recorded the backward)",
      gradient.grad_fn is not None, True,
      torch=lambda: torch_gradient().grad_fn is not None,
      recorded=Recorded("tensor([ 56., 112., 168.], grad_fn=<AddBackward0>)", X0=[1.0, 2.0, 3.0]),
      inputs={"X0": X0})
q, along = float(np.dot(X0, X0)), float(np.dot(X0, V0))
check("H·v = 4q·v + 8·(x·v)·x", hv.tolist(),
      (4 * q * np.array(V0) + 8 * along * np.array(X0)).tolist(),
      torch=lambda: torch.autograd.functional.hvp(
          square_norm_squared, torch.tensor(X0), torch.tensor(V0))[1].tolist(),
      recorded=Recorded("tensor([ 88.,  64., 152.])", X0=[1.0, 2.0, 3.0], V0=[1.0, 0.0, 1.0]),
      inputs={"X0": X0, "V0": V0})
check("backward passes for H·v: 2, whatever n is", len(traced.passes), 2)

# %% [markdown]
# ## Checkpointing: memory for compute
#
# Until backward, a graph keeps every node of the forward pass and what each saved: `tanh` saves its output. A
# checkpoint records a whole segment as ONE node that saves only its input. Its forward runs the segment under
# `no_grad`; its backward runs the segment again, this time recorded, and backpropagates through that fresh graph.
# PyTorch's `torch.utils.checkpoint.checkpoint(fn, x, use_reentrant=True)` is this design. Here it is as a custom
# Function (lesson 5), on Tensors: its `forward` receives NumPy arrays, its `backward` Tensors.

# %%
section("3. Checkpointing: memory for compute")

class Checkpointed(mg.Function):
    """segment(x) as one node: forward keeps only x, backward runs segment again."""

    @staticmethod
    def forward(ctx, segment, x):
        ctx.segment = segment
        ctx.save_for_backward(x)
        with mg.no_grad():
            return segment(mg.tensor(x)).numpy()

    @staticmethod
    def backward(ctx, grad):
        (saved,) = ctx.saved_tensors
        with mg.enable_grad():
            again = saved.detach().requires_grad_()
            (dx,) = mg.autograd.grad(ctx.segment(again), again, grad)
        return None, dx


# %% [markdown]
# The segment: eight `tanh`s on 1,000 float32 numbers.

# %%
N, SIZE = 8, 1000
runs: list[int] = []  # one entry per run of the segment

def chain(x):
    runs.append(1)
    for _ in range(N):
        x = x.tanh()
    return x

def kept(y, x):
    """[nodes, saved values, bytes of saved arrays] of y's graph (AccumulateGrad, x left out)."""
    nodes = [n for n in graph_nodes([y]) if not n.name().endswith("AccumulateGrad")]
    saved = sum(len(saved_items(n)) for n in nodes)
    return [len(nodes), saved, kept_bytes(y, [x])[0]]

prediction = ...  # your answer here (a number)
one_node = predict("L10.checkpoint", f"After the forward pass, how many nodes does the "
                   f"checkpointed chain of {N} tanh keep (AccumulateGrad not counted)?",
                   answer=prediction)

# %%
x = mg.tensor(np.linspace(-2.0, 2.0, SIZE, dtype=np.float32), requires_grad=True)
x.label = "x"  # how the graph and the narration name it
plain, checkpointed = chain(x), Checkpointed.apply(chain, x)
memory = [kept(plain, x), kept(checkpointed, x)]
one_node.reveal(memory[1][0])
print("[nodes, saved values, bytes] without the checkpoint:", memory[0], "| with it:", memory[1])
show_graph(checkpointed, "The checkpointed chain's graph: one node above the leaf")

# %% [markdown]
# PyTorch's graphs, measured the same way: the nodes reachable from `y.grad_fn`, and each tensor a node saves, seen by
# `torch.autograd.graph.saved_tensors_hooks` as the forward runs.

# %%
def torch_kept(run, x):
    """The same for run()'s graph in PyTorch (AccumulateGrad, x left out)."""
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda s: saved.append(s) or s, lambda s: s):
        y = run()
    nodes = [n for n in graph_nodes([y]) if not n.name().endswith("AccumulateGrad")]
    mine = x.untyped_storage().data_ptr()
    extra = [s for s in saved if s.untyped_storage().data_ptr() != mine]
    return [len(nodes), len(saved), sum(s.numel() * s.element_size() for s in extra)]

def torch_both():
    t_x = torch.linspace(-2.0, 2.0, SIZE, requires_grad=True)
    return [torch_kept(lambda: chain(t_x), t_x),
            torch_kept(lambda: torch.utils.checkpoint.checkpoint(chain, t_x, use_reentrant=True),
                       t_x)]

check(f"[nodes, saved values, bytes] after forward, without and with the checkpoint ({N} tanh)",
      memory, [[N, N, N * SIZE * 4], [1, 1, 0]], torch=torch_both,
      recorded=Recorded("[[8, 8, 32000], [1, 1, 0]]: 8 TanhBackward0, "
                        "1 CheckpointFunctionBackward",
                        N=8, SIZE=1000),
      inputs={"N": N, "SIZE": SIZE})

# %% [markdown]
# The price: backward runs the segment a second time. The gradients are the same.

# %%
runs.clear()
plain, checkpointed = chain(x), Checkpointed.apply(chain, x)
plain.sum().backward()
without = x.grad.tolist()
x.grad = None
checkpointed.sum().backward()
print("the segment ran", len(runs), "times: once plain, twice checkpointed")
check("runs of the segment: 1 plain + 2 checkpointed (forward, then in backward)", len(runs), 3)
check("the largest |x.grad with the checkpoint − x.grad without it|",
      float(np.abs(np.array(x.grad.tolist()) - np.array(without)).max()), 0.0)

# %%
summary("Lesson 10")
