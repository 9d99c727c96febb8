# %% [markdown]
# # Lesson 1: A minimal graph
#
# Block 1: leaves, requires_grad spreading, grad_fn, next_functions, AccumulateGrad; which values are leaves.
#
# These lessons re-run the article *PyTorch Autograd Deep Dive: From Dynamic Computation Graphs to Backpropagation* (the
# copy they were written from names no author). They quote it in order to correct it: the article's code and sentences
# appear verbatim, each experiment runs on micrograd2 and, where PyTorch is installed, on PyTorch itself, live. Every
# result ends in a ✓ line saying what it was compared with. Codes such as D12 point to the README's list "Where the
# article is wrong".
#
# This lesson is the article's block 1: the graph that `z = sum(x * w)` builds.

# %%
import micrograd2 as mg
from micrograd2.lessons.tools import Recorded, check, live_torch, section, show_graph, summary

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")

# %% [markdown]
# The article's block 1, in PyTorch:
#
# ```python
# import torch
#
# # Leaf tensors: requires_grad=True makes them tracked by the graph
# x = torch.tensor([2.0, 3.0], requires_grad=True)
# w = torch.tensor([4.0, 5.0], requires_grad=True)
#
# # Forward: z = sum(x * w) elementwise
# z = (x * w).sum()
#
# print("z =", z.item())          # 2*4 + 3*5 = 23
# print("z.requires_grad =", z.requires_grad)   # True
# ```
#
# micrograd2's scalar engine works on single numbers, so each vector becomes a list of Values. `mg.sum` adds many Values
# as one node, as `tensor.sum()` does. Labels name the values in traces and diagrams.

# %%
section("1. The article's block 1, on micrograd2")
x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]

z = mg.sum(xi * wi for xi, wi in zip(x, w))     # z = x[0]*w[0] + x[1]*w[1]
z.label = "z"

print("z =", z.item())
print("z.requires_grad =", z.requires_grad)

# %% [markdown]
# The same numbers on PyTorch (its tensors made from the lesson's own inputs, so an edit above carries over):

# %%
if torch:
    tx = torch.tensor([v.item() for v in x], requires_grad=True)
    tw = torch.tensor([v.item() for v in w], requires_grad=True)
    tz = (tx * tw).sum()

now = {"x": [v.item() for v in x], "w": [v.item() for v in w]}  # the recorded outputs' inputs, now
check("z = Σ x[i]·w[i]", z.item(), sum(a.item() * b.item() for a, b in zip(x, w)),
      torch=lambda: tz.item(), recorded=Recorded("z = 23.0", x=[2.0, 3.0], w=[4.0, 5.0]), inputs=now)
check("z.requires_grad", z.requires_grad, True, torch=lambda: tz.requires_grad, recorded="True")

# %% [markdown]
# A leaf is a value that no recorded op produced: autograd stops there and, if the leaf requires grad, writes its
# `.grad`. A result requires grad as soon as one of its inputs does (and grad mode is on): that is how the flag spreads
# through the graph.

# %%
section("2. Leaves, and the flag that spreads")
print("x[0].is_leaf =", x[0].is_leaf, "| x[0].grad_fn =", x[0].grad_fn)
print("z.is_leaf    =", z.is_leaf, "| z.grad_fn =", z.grad_fn)

c = mg.Value(10.0)                          # a constant: requires_grad=False
print("(c * 2).requires_grad    =", (c * 2).requires_grad)
print("(c * x[0]).requires_grad =", (c * x[0]).requires_grad)

# %%
if torch:
    tc = torch.tensor(10.0)
    t_flags = [tx.is_leaf, tz.is_leaf, (tc * 2).requires_grad, (tc * tx[0]).requires_grad]

check("x[0].is_leaf", x[0].is_leaf, True, torch=lambda: t_flags[0], recorded="True")
check("z.is_leaf", z.is_leaf, False, torch=lambda: t_flags[1], recorded="False")
check("(c * 2).requires_grad", (c * 2).requires_grad, False, torch=lambda: t_flags[2], recorded="False")
check("(c * x[0]).requires_grad", (c * x[0]).requires_grad, True, torch=lambda: t_flags[3], recorded="True")

# %% [markdown]
# The article says, in its step-by-step notes:
#
# > With requires_grad=True, the tensor becomes a leaf node of the graph. Leaves are the "terminals" of
# > backpropagation—only leaf .grad gets filled.
#
# Not quite (D13). Every value that no recorded op made is a leaf, whether or not it requires grad: a plain constant, a
# result computed under `no_grad()`, the output of `detach()`. `requires_grad` decides only whether the leaf gets a
# `.grad` (and an `AccumulateGrad` node) when backward reaches it. And a non-leaf gets a `.grad` too if you ask for it
# with `retain_grad()` (lesson 8).

# %%
print("c.is_leaf =", c.is_leaf, "| c.requires_grad =", c.requires_grad, "| c.grad =", c.grad)

with mg.no_grad():
    n = x[0] * 2
print("made under no_grad: n.is_leaf =", n.is_leaf, "| n.requires_grad =", n.requires_grad)

d = x[0].detach()
print("made by detach():   d.is_leaf =", d.is_leaf, "| d.requires_grad =", d.requires_grad)

# %%
if torch:
    with torch.no_grad():
        tn = tx * 2
    t_leaves = [torch.tensor([1.0]).is_leaf, tn.is_leaf, tx.detach().is_leaf]

check("a constant is a leaf", c.is_leaf, True, torch=lambda: t_leaves[0], recorded="True")
check("a constant has no .grad", c.grad, None, recorded="None")
check("a no_grad result is a leaf", n.is_leaf, True, torch=lambda: t_leaves[1], recorded="True")
check("a detach() output is a leaf", d.is_leaf, True, torch=lambda: t_leaves[2], recorded="True")

# %% [markdown]
# Each recorded op leaves a node, the result's `grad_fn`. The article calls them "MulBackward / SumBackward"; their real
# names end in a number: `SumBackward0`, `MulBackward0` (D12). `next_functions` says where each node sends its
# gradients: one pair per input, `(node, k)`, where `node` is the input's own `grad_fn` and `k` is which output of that
# node the input is. A leaf that requires grad appears there as an `AccumulateGrad` node, whose `.variable` is the leaf
# itself.

# %%
section("3. The graph: grad_fn and next_functions")
print(z.grad_fn.name(), z.grad_fn.next_functions)

mul = z.grad_fn.next_functions[0][0]
print(mul.name(), mul.next_functions)

acc = mul.next_functions[0][0]
print(acc.name(), "| acc.variable is x[0]:", acc.variable is x[0])

# %%
if torch:
    t_mul = tz.grad_fn.next_functions[0][0]
    t_names = [tz.grad_fn.name(), t_mul.name(), t_mul.next_functions[0][0].name()]
    print("PyTorch:", t_names)

check("z.grad_fn.name()", z.grad_fn.name(), "SumBackward0", torch=lambda: t_names[0], recorded="SumBackward0")
check("its input's node", mul.name(), "MulBackward0", torch=lambda: t_names[1], recorded="MulBackward0")
check("a leaf's node", acc.name(), "AccumulateGrad",
      torch=lambda: t_names[2].split("::")[-1], recorded="torch::autograd::AccumulateGrad")
check("AccumulateGrad.variable is x[0]", acc.variable is x[0], True, recorded="True")
check("a leaf has no grad_fn", x[0].grad_fn, None, recorded="None")

# %% [markdown]
# One difference of shape, not of meaning: PyTorch multiplies the two vectors in one `MulBackward0`, so its
# `SumBackward0` has one input; here each product `x[i]*w[i]` is its own `MulBackward0`, so `SumBackward0` has two.
#
# The second number of each pair is an output index, not a count. It is 0 whenever the input is a node's only output, as
# every node of the scalar engine (`mg.Value`) has one. Some ops have several outputs, in PyTorch and in micrograd2's
# Tensor engine alike: `x.unbind(0)` gives one tensor per row, all from one `UnbindBackward0`, and row 1 is its output
# 1.

# %%
if torch:
    rows = torch.tensor([1.0, 2.0], requires_grad=True)
    y = rows.unbind(0)[1] * 2
    print("PyTorch: (x.unbind(0)[1] * 2).grad_fn.next_functions =", y.grad_fn.next_functions)
    t_edge = (y.grad_fn.next_functions[0][0].name(), y.grad_fn.next_functions[0][1])
indices = {k for node in (z.grad_fn, mul) for _, k in node.next_functions}
unbound = mg.tensor([1.0, 2.0], requires_grad=True).unbind(0)[1] * 2
m_edge = (unbound.grad_fn.next_functions[0][0].name(), unbound.grad_fn.next_functions[0][1])
print("micrograd2: (x.unbind(0)[1] * 2).grad_fn.next_functions =", unbound.grad_fn.next_functions)

check("the scalar engine: every node has one output, so every index is 0", indices, {0})
check("x.unbind(0)[1] * 2 sends its gradient to output 1 of UnbindBackward0", m_edge,
      ("UnbindBackward0", 1), torch=lambda: t_edge, recorded="((<UnbindBackward0 object>, 1), (None, 0))")

# %% [markdown]
# An input that needs no gradient gets no node at all: its entry is `(None, 0)`.

# %%
y = x[0] * c                       # c needs no gradient
print(y.grad_fn.name(), y.grad_fn.next_functions)
edges = y.grad_fn.next_functions
if torch:
    t_edges = (torch.tensor(2.0, requires_grad=True) * tc).grad_fn.next_functions
    print("PyTorch:", t_edges)
check("next_functions of x[0] * c", [edges[0][0].name(), edges[1][0]], ["AccumulateGrad", None],
      torch=lambda: [t_edges[0][0].name().split("::")[-1], t_edges[1][0]],
      recorded="((<AccumulateGrad object>, 0), (None, 0))")

# %% [markdown]
# micrograd2 also has a vectorized engine with PyTorch's spelling. With it the article's block runs with only `torch`
# replaced by `mg`, and the graph has exactly PyTorch's shape: one `MulBackward0` for the whole vector product.

# %%
section("4. The article's code itself, on mg.tensor")
z_values = z  # block 1 on Values, kept: the graph this lesson draws at its end (and --graph writes)
x = mg.tensor([2.0, 3.0], requires_grad=True)
w = mg.tensor([4.0, 5.0], requires_grad=True)

z = (x * w).sum()

print("z =", z.item())          # 2*4 + 3*5 = 23
print("z.requires_grad =", z.requires_grad)   # True
print(z)
print(z.grad_fn.next_functions)

# %%
if torch:  # the article's block 1 on PyTorch, as it ran above
    t_block1 = [repr(tz), [n.name() for n, _ in tz.grad_fn.next_functions],
                [n.name().split("::")[-1] for n, _ in tz.grad_fn.next_functions[0][0].next_functions]]
mul = z.grad_fn.next_functions[0][0]

check("z (tensor)", repr(z), "tensor(23., grad_fn=<SumBackward0>)", torch=lambda: t_block1[0],
      recorded=Recorded("tensor(23., grad_fn=<SumBackward0>)", x=[2.0, 3.0], w=[4.0, 5.0]),
      inputs={"x": x.tolist(), "w": w.tolist()})
check("z.grad_fn.next_functions (tensor)", [n.name() for n, _ in z.grad_fn.next_functions], ["MulBackward0"],
      torch=lambda: t_block1[1], recorded="((<MulBackward0 object>, 0),)")
check("MulBackward0.next_functions (tensor)", [n.name() for n, _ in mul.next_functions],
      ["AccumulateGrad", "AccumulateGrad"],
      torch=lambda: t_block1[2], recorded="((<AccumulateGrad object>, 0), (<AccumulateGrad object>, 0))")

# %% [markdown]
# Walking `next_functions` from `z` down to the leaves gives the autograd graph: the path every gradient will take in
# lesson 2. (`micrograd2 lesson run 1 --graph graph.svg` draws it with Graphviz.) This lesson runs no backward pass;
# lesson 2 walks this graph backward, step by step (`micrograd2 lesson run 2 --html steps.html`).

# %%
show_graph(z_values, "Block 1's graph, on Values as in the README (gradients flow from the top down):")

# %%
summary("Lesson 1")
