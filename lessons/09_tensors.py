# %% [markdown]
# # Lesson 9: Tensors
#
# Broadcasting and sum_to, reductions with dim and keepdim, reshape and transpose, matmul's vector-Jacobian product, and
# a whole Jacobian from one backward pass per output, counted.
#
# A Tensor op runs the same autograd as a Value op: one node per op, a walk in reverse order. What changes is the shape
# of each gradient. Every input's gradient has that input's shape, and each section below is one rule for getting there.
# This lesson needs NumPy (`mg.tensor` stores NumPy arrays). Unit U3's exercises write these rules; those that are
# pieces of your engine (`sum_to`, the reductions' and matmul's backward) plug into it, and `micrograd2 lesson run 9
# --engine DIR` runs this lesson on them.

# %%
import numpy as np

import micrograd2 as mg
from micrograd2.lessons.measure import graph_nodes
from micrograd2.lessons.tools import Recorded, check, live_torch, predict, section, show_graph, summary

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")

# %% [markdown]
# Three helpers. `gradients` runs a function of Tensors forward, seeds backward with an upstream gradient `upstream` of
# the output's shape, and returns each input's `.grad`; it runs on micrograd2 and on PyTorch alike. `nudged` derives the
# same gradients without autograd, in NumPy: nudge one number of an input by ±1 and see how much L = Σ upstream · output
# moves (exact here, since L is at most quadratic in any one number). `attempt` turns an error into a result, so that on
# an engine whose piece raises (`--engine`) the check shows the error, fails, and the lesson goes on.

# %%
def gradients(lib, build, inputs, upstream):
    """[each input's .grad as a list] for build(*inputs) seeded with upstream; lib: mg or torch."""
    leaves = [lib.tensor(x, requires_grad=True) for x in inputs]
    build(*leaves).backward(lib.tensor(upstream))
    return [leaf.grad.tolist() for leaf in leaves]

def nudged(build, inputs, upstream):
    """The same gradients by central differences with a step of 1, in NumPy (float64)."""
    arrays = [np.array(x, dtype=float) for x in inputs]
    weights = np.array(upstream, dtype=float)
    found = []
    for array in arrays:
        grad = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            moved = []
            for step in (1.0, -1.0):
                array[index] += step
                moved.append(float((weights * build(*arrays)).sum()))
                array[index] -= step
            grad[index] = (moved[0] - moved[1]) / 2
        found.append(grad.tolist())
    return found

def attempt(compute):
    """compute()'s result, or the error it raised, in one line."""
    try:
        return compute()
    except Exception as error:  # a student's piece may fail in any way: that is the result
        return f"{type(error).__name__}: {(str(error).splitlines() or [''])[0]}"


# %% [markdown]
# ## Broadcasting, and its backward: sum_to
#
# `a + b` with `a` of shape (2, 3) and `b` of shape (3,) adds `b` to each row of `a`: broadcasting copies `b` along the
# axis it lacks. Each copy receives its own gradient. What does `b` get?

# %%
section("1. Broadcasting, and its backward: sum_to")
A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
B = [10.0, 20.0, 30.0]
prediction = ...  # your answer here (a list of 3 numbers); or `--interactive` asks for it
copies = predict("L9.broadcast", "y = a + b, a of shape (2, 3), b of shape (3,); y.backward() "
                 "with an upstream gradient of all ones. What is b.grad?", answer=prediction)

# %%
ONES = np.ones((2, 3)).tolist()
a, b = mg.tensor(A, requires_grad=True), mg.tensor(B, requires_grad=True)
y = a + b
attempt(lambda: y.backward(mg.tensor(ONES)))
copies.reveal(b.grad)
check("b.grad for y = a + b, upstream ones: one 1 per row b was copied to",
      attempt(lambda: b.grad.tolist()), [2.0, 2.0, 2.0],
      torch=lambda: gradients(torch, lambda a, b: a + b, [A, B], ONES)[1],
      recorded=Recorded("tensor([2., 2., 2.])", A=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                        B=[10.0, 20.0, 30.0]), inputs={"A": A, "B": B})

# %% [markdown]
# The copies' gradients are added: that is the whole rule. Autograd sums the broadcast gradient down to the input's
# shape (micrograd2 calls the step `sum_to`): first the leading axes the input lacks, then every axis where the input
# has size 1 and the output does not, keeping that axis. Here `c` of shape (2, 1) is copied along its size-1 axis; `G`
# is the upstream gradient.

# %%
C = [[1.0], [2.0]]
G = [[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]]

def scaled_sum(a, b, c):
    return (a + b) * c

ours = attempt(lambda: gradients(mg, scaled_sum, [A, B, C], G))
check("(a + b) * c: [a.grad, b.grad, c.grad], each summed over its copies", ours,
      nudged(scaled_sum, [A, B, C], G), torch=lambda: gradients(torch, scaled_sum, [A, B, C], G),
      recorded=Recorded("tensor([[1., -1., 2.], [1., 6., -4.]]), tensor([2., 5., -2.]), tensor([[55.], [10.]])",
                        A=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], B=[10.0, 20.0, 30.0],
                        C=[[1.0], [2.0]], G=[[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]]),
      inputs={"A": A, "B": B, "C": C, "G": G})
shapes = attempt(lambda: [np.shape(g) for g in ours])
check("each gradient has its input's shape: (2, 3), (3,) and (2, 1), the size-1 axis kept", shapes,
      [(2, 3), (3,), (2, 1)],
      torch=lambda: [np.shape(g) for g in gradients(torch, scaled_sum, [A, B, C], G)],
      recorded="torch.Size([2, 3]), torch.Size([3]), torch.Size([2, 1])")

# %% [markdown]
# Both at once: `p` of shape (3, 1) meets `x` of shape (2, 3, 2). `p` lacks the leading axis and is copied along its
# size-1 axis too, so its gradient is the upstream summed over axes 0 and 2.

# %%
X = [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[-1.0, 0.0], [2.0, -2.0], [0.5, 1.0]]]
P = [[1.0], [-1.0], [2.0]]
G3 = np.ones((2, 3, 2)).tolist()

def product(x, p):
    return x * p

ours = attempt(lambda: gradients(mg, product, [X, P], G3)[1])
check("x * p, x (2, 3, 2), p (3, 1): p.grad summed over axes 0 and 2", ours,
      nudged(product, [X, P], G3)[1],
      torch=lambda: gradients(torch, product, [X, P], G3)[1],
      recorded=Recorded("tensor([[ 2.0000], [ 7.0000], [12.5000]])",
                        X=[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[-1.0, 0.0], [2.0, -2.0], [0.5, 1.0]]],
                        P=[[1.0], [-1.0], [2.0]], G3=np.ones((2, 3, 2)).tolist()),
      inputs={"X": X, "P": P, "G3": G3})

# %% [markdown]
# ## Reductions: dim and keepdim
#
# `x.sum(dim)` adds along `dim`; `keepdim=True` keeps that axis with size 1. Backward runs the other way: each element
# of `x` went into one sum, so it receives that sum's upstream gradient, copied back along the summed axis.
# `x.mean(dim)` is the sum divided by n, the count averaged, and so is its gradient.

# %%
section("2. Reductions: dim and keepdim")
x = mg.tensor(A, requires_grad=True)
for r in [x.sum(1), x.sum(1, keepdim=True), x.mean(0), x.sum()]:
    print(f"{r.grad_fn.name():14} shape {r.shape}")

def reductions(t):
    return [t.sum(1), t.sum(1, keepdim=True), t.mean(0), t.sum()]

check("shapes of x.sum(1), x.sum(1, keepdim=True), x.mean(0), x.sum()",
      [r.shape for r in reductions(x)], [(2,), (2, 1), (3,), ()],
      torch=lambda: [tuple(r.shape) for r in reductions(torch.tensor(A))],
      recorded="torch.Size([2]), torch.Size([2, 1]), torch.Size([3]), torch.Size([])")

# %%
prediction = ...  # your answer here (a list of 3 numbers)
means = predict("L9.mean", "y = x.mean(dim=0), x of shape (2, 3); upstream gradient "
                "[3., 6., 9.]. What is x.grad[0], the first row?", answer=prediction)

# %%
REDUCTIONS = {  # name -> (micrograd2 and PyTorch, NumPy, the upstream gradient)
    "x.sum(1)": (lambda t: t.sum(1), lambda t: t.sum(1), [1.0, -2.0]),
    "x.sum(1, keepdim=True)": (lambda t: t.sum(1, keepdim=True),
                               lambda t: t.sum(1, keepdims=True), [[1.0], [-2.0]]),
    "x.mean(0)": (lambda t: t.mean(0), lambda t: t.mean(0), [3.0, 6.0, 9.0]),
    "x.mean()": (lambda t: t.mean(), lambda t: t.mean(), 6.0),
}
found = {name: attempt(lambda f=f, up=up: gradients(mg, f, [A], up)[0])
         for name, (f, _, up) in REDUCTIONS.items()}
mean_grad = found["x.mean(0)"]
means.reveal(mean_grad[0] if isinstance(mean_grad, list) else mean_grad)
RECORDED = {  # name -> PyTorch's x.grad, and the upstream gradient it was recorded for
    "x.sum(1)": ("tensor([[1., 1., 1.], [-2., -2., -2.]])", [1.0, -2.0]),
    "x.sum(1, keepdim=True)": ("tensor([[1., 1., 1.], [-2., -2., -2.]])", [[1.0], [-2.0]]),
    "x.mean(0)": ("tensor([[1.5000, 3.0000, 4.5000], [1.5000, 3.0000, 4.5000]])", [3.0, 6.0, 9.0]),
    "x.mean()": ("tensor([[1., 1., 1.], [1., 1., 1.]])", 6.0),
}
for name, (f, in_numpy, up) in REDUCTIONS.items():
    check(f"x.grad for {name}, upstream {up}", found[name], nudged(in_numpy, [A], up)[0],
          torch=lambda f=f, up=up: gradients(torch, f, [A], up)[0],
          recorded=Recorded(RECORDED[name][0], A=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], up=RECORDED[name][1]),
          inputs={"A": A, "up": up})

# %% [markdown]
# ## Reshape and transpose: the gradient moves back
#
# A view changes no number: it only moves them. Its backward moves the gradient back where each number came from:
# reshape's reshapes it to the input's shape, transpose's swaps the same two axes.

# %%
section("3. Reshape and transpose: the gradient moves back")

def views(t):
    return [t.reshape(3, 2), t.t(), t.transpose(0, 1)]

check("the nodes of x.reshape(3, 2), x.t(), x.transpose(0, 1)",
      [v.grad_fn.name() for v in views(mg.tensor(A, requires_grad=True))],
      ["ViewBackward0", "TBackward0", "TransposeBackward0"],
      torch=lambda: [v.grad_fn.name() for v in views(torch.tensor(A, requires_grad=True))],
      recorded="ViewBackward0, TBackward0, TransposeBackward0")

# %%
G32 = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
MOVES = (lambda t: t.reshape(3, 2), lambda t: t.t())
moved = attempt(lambda: [gradients(mg, f, [A], G32)[0] for f in MOVES])
check("x.grad through reshape(3, 2), then through .t(), upstream [[1, 2], [3, 4], [5, 6]]", moved,
      [nudged(f, [A], G32)[0] for f in (lambda t: t.reshape(3, 2), lambda t: t.T)],
      torch=lambda: [gradients(torch, f, [A], G32)[0] for f in MOVES],
      recorded=Recorded("tensor([[1., 2., 3.], [4., 5., 6.]]), tensor([[1., 3., 5.], [2., 4., 6.]])",
                        A=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], G32=[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
      inputs={"A": A, "G32": G32})

# %% [markdown]
# ## matmul: a vector-Jacobian product, never the Jacobian
#
# C = A @ B, with A of shape n×k and B of shape k×m. Backward receives G = ∂L/∂C (n×m) and must return ∂L/∂A (n×k) and
# ∂L/∂B (k×m). From C[i, j] = Σ_p A[i, p] B[p, j]: ∂L/∂A[i, p] = Σ_j G[i, j] B[p, j], which is `G @ Bᵀ`, and likewise
# ∂L/∂B = `Aᵀ @ G`. Two matrix products of the sizes already at hand. The Jacobian of C by A would have (n·m)·(n·k)
# entries:

# %%
section("4. matmul: a vector-Jacobian product, never the Jacobian")
MA = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
MB = [[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 3.0, 2.0]]
GC = [[1.0, 2.0, 3.0, 4.0], [0.0, -1.0, 1.0, 0.5], [2.0, 0.0, -2.0, 1.0]]
prediction = ...  # your answer here (a number)
entries = predict("L9.jacobian-size", "C = A @ B, A of shape 3×2, B of shape 2×4. How many "
                  "entries has the Jacobian of C with respect to A?", answer=prediction)

# %%
def matmul(a, b):
    return a @ b

with mg.trace() as vjp:
    ours = attempt(lambda: gradients(mg, matmul, [MA, MB], GC))
check("[A.grad, B.grad] for C = A @ B: [G @ Bᵀ, Aᵀ @ G]", ours, nudged(matmul, [MA, MB], GC),
      torch=lambda: gradients(torch, matmul, [MA, MB], GC),
      recorded=Recorded("tensor([[3.0000, 19.0000], [1.5000, 3.0000], [-3.0000, -4.0000]]), tensor([[11.0000, "
                        "-1.0000, -4.0000, 10.5000], [14.0000, 0.0000, -2.0000, 16.0000]])",
                        MA=[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], MB=[[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 3.0, 2.0]],
                        GC=[[1.0, 2.0, 3.0, 4.0], [0.0, -1.0, 1.0, 0.5], [2.0, 0.0, -2.0, 1.0]]),
      inputs={"MA": MA, "MB": MB, "GC": GC})
check("G @ Bᵀ and Aᵀ @ G, in NumPy: the same", ours,
      [(np.array(GC) @ np.array(MB).T).tolist(), (np.array(MA).T @ np.array(GC)).tolist()])

# %% [markdown]
# The long way round, for comparison: the whole Jacobian of C by A (`mg.autograd.functional.jacobian`, one backward pass
# per entry of C), then G, flattened, times it. The same gradient, at the cost of n·m backward passes and (n·m)·(n·k)
# numbers.

# %%
def jacobian_way(lib):
    """vec(G) @ (the Jacobian of A @ B by A, flattened), shaped as A; the Jacobian's shape."""
    jac = lib.autograd.functional.jacobian(lambda a: a @ lib.tensor(MB), lib.tensor(MA))
    flat = np.array(jac.tolist()).reshape(len(GC) * len(GC[0]), -1)
    return (np.array(GC).reshape(-1) @ flat).reshape(np.shape(MA)).tolist(), tuple(jac.shape)

with mg.trace() as t:
    long_way = attempt(lambda: jacobian_way(mg))
entries.reveal(int(np.prod(long_way[1])) if isinstance(long_way, tuple) else long_way)
check("vec(G) · Jacobian = A.grad, from a Jacobian of shape (3, 4, 3, 2)", long_way,
      (ours[0] if isinstance(ours, list) else ours, (3, 4, 3, 2)),
      torch=lambda: jacobian_way(torch),
      recorded=Recorded("tensor([[3.0000, 19.0000], [1.5000, 3.0000], [-3.0000, -4.0000]]), "
                        "torch.Size([3, 4, 3, 2])",
                        MA=[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], MB=[[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 3.0, 2.0]],
                        GC=[[1.0, 2.0, 3.0, 4.0], [0.0, -1.0, 1.0, 0.5], [2.0, 0.0, -2.0, 1.0]]),
      inputs={"MA": MA, "MB": MB, "GC": GC})
check("backward passes: the Jacobian way, then the VJP", [len(t.passes), len(vjp.passes)],
      [len(GC) * len(GC[0]), 1])

# %% [markdown]
# ## A whole Jacobian from m backward passes
#
# A backward pass seeded with v computes vᵀJ: one combination of J's rows. Seed it with the one-hot vector e_i and you
# get row i. So the Jacobian of f: Rⁿ → Rᵐ takes m backward passes through one recorded forward pass (kept with
# `retain_graph=True`), each visiting every node of the graph once. Here f(x) = (W * x * x).sum(1): n = 3 inputs, m = 2
# outputs.

# %%
section("5. A whole Jacobian from m backward passes")
W = [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]
X0 = [1.0, -1.0, 2.0]
prediction = ...  # your answer here (a number)
passes = predict("L9.passes", "f(x) = (W * x * x).sum(1) maps 3 inputs to 2 outputs. How many "
                 "backward passes build its whole Jacobian by reverse mode?", answer=prediction)

# %%
x = mg.tensor(X0, requires_grad=True)
x.label = "x"  # how the graph and the narration name it
y = (mg.tensor(W) * x * x).sum(1)
rows = []
with mg.trace() as t:
    for i in range(y.shape[0]):
        one_hot = mg.tensor([1.0 if j == i else 0.0 for j in range(y.shape[0])])
        row = attempt(lambda e=one_hot: mg.autograd.grad(y, x, e, retain_graph=True)[0])
        rows.append(row.tolist() if hasattr(row, "tolist") else row)
passes.reveal(len(t.passes))
nodes = [n for n in graph_nodes([y]) if n.name() != "AccumulateGrad"]
print("J =", rows, "|", len(t.passes), "passes,", len(t.backward_events()), "node visits,",
      len(nodes), "nodes:", ", ".join(sorted(n.name() for n in nodes)))
show_graph(y, "f(x) = (W * x * x).sum(1):")

# %%
check("J[i][j] = 2·W[i][j]·x[j], row by row", rows, (2 * np.array(W) * np.array(X0)).tolist(),
      torch=lambda: torch.autograd.functional.jacobian(
          lambda t: (torch.tensor(W) * t * t).sum(1), torch.tensor(X0)).tolist(),
      recorded=Recorded("tensor([[2., -4., 12.], [-2., -1., 8.]])",
                        W=[[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], X0=[1.0, -1.0, 2.0]),
      inputs={"W": W, "X0": X0})
check("[backward passes, node visits]: m, and m × the graph's nodes",
      [len(t.passes), len(t.backward_events())], [len(W), len(W) * len(nodes)])

# %%
summary("Lesson 9")
