# %% [markdown]
# # Lesson 2: What backward() does
#
# Block 2: the narrated walk, what nodes save, what backward frees (values, not nodes), analytic not numerical.
#
# The article's section 2 runs `z.backward()` on block 1's graph and explains what happens inside. Its numbers are
# right. Three of its explanations are not: what a node stores (D10), what is freed (D9), and "numerical chain rule"
# (D11); the codes point to the README's list "Where the article is wrong".

# %%
import micrograd2 as mg
from micrograd2.lessons.tools import Recorded, check, error_of, live_torch, raises, section, show_graph, summary

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")
SECOND_BACKWARD = "Trying to backward through the graph a second time"

# %% [markdown]
# The article says each node stores "two kinds of info: the forward output value (needed for backward) and the backward
# function". What a node keeps is whatever its local derivative needs, and that depends on the op (D10): d(a·b)/da = b,
# so `MulBackward0` keeps its inputs; d(Σ)/d(each term) = 1, so `SumBackward0` keeps no value (PyTorch keeps only the
# input's shape); d(eˣ)/dx = eˣ, so `ExpBackward0` keeps its output; `AddBackward0` keeps no value (PyTorch keeps only
# the number `alpha` of `a + alpha·b`).

# %%
section("1. Before backward: what each node saved")
x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
z = mg.sum(xi * wi for xi, wi in zip(x, w))
z.label = "z"

mul = z.grad_fn.next_functions[0][0]
exp = x[0].exp()
print("SumBackward0 saved:", z.grad_fn.saved)
print("MulBackward0 saved:", [v.label for v in mul.saved])
print("ExpBackward0 saved:", exp.grad_fn.saved, " (e² = its output)")
print("AddBackward0 saved:", (x[0] + w[0]).grad_fn.saved)

# %% [markdown]
# To compare with PyTorch, say what each node saved in words. PyTorch names what a node saved in attributes that start
# with `_saved`: `_saved_self`/`_saved_other` are inputs, `_saved_result` the output, and sizes or `alpha` are no tensor
# values at all.

# %%
def saved_kind(node, output):
    """What a micrograd2 node saved: "its inputs", "its output" or "no value"."""
    if node.saved == ():
        return "no value"
    if node.saved == (output.item(),):
        return "its output"
    return "its inputs" if all(isinstance(v, mg.Value) for v in node.saved) else "something else"

def torch_saved_kind(node):
    """The same for a PyTorch node, read from its ``_saved_…`` attribute names."""
    names = {n for n in dir(node) if n.startswith("_saved")}
    if "_saved_result" in names:
        return "its output"
    return "its inputs" if names & {"_saved_self", "_saved_other"} else "no value"

if torch:
    ta, tb = torch.tensor([2.0], requires_grad=True), torch.tensor([4.0], requires_grad=True)
    t_nodes = [(ta * tb).sum().grad_fn, (ta * tb).grad_fn, ta.exp().grad_fn, (ta + tb).grad_fn]
    t_kinds = [torch_saved_kind(node) for node in t_nodes]
    for node in t_nodes:
        print("PyTorch:", node.name(), sorted(n for n in dir(node) if n.startswith("_saved")))

# %%
check("SumBackward0 saves", saved_kind(z.grad_fn, z), "no value",
      torch=lambda: t_kinds[0], recorded="['_saved_self_sym_sizes']: a shape")
check("MulBackward0 saves", saved_kind(mul, x[0] * w[0]), "its inputs",
      torch=lambda: t_kinds[1], recorded="['_saved_other', '_saved_self']")
check("ExpBackward0 saves", saved_kind(exp.grad_fn, exp), "its output",
      torch=lambda: t_kinds[2], recorded="['_saved_result']")
check("AddBackward0 saves", saved_kind((x[0] + w[0]).grad_fn, x[0] + w[0]), "no value",
      torch=lambda: t_kinds[3], recorded="['_saved_alpha']: a number")
check("MulBackward0's inputs, in order", [v.label for v in mul.saved], ["x[0]", "w[0]"])

# %% [markdown]
# A product keeps only what will be needed: if just one side requires grad, only the other side is kept, since the
# gradient of a is b and nobody wants the gradient of b.

# %%
c = mg.Value(10.0, label="c")                 # needs no gradient
kept = (x[0] * c).grad_fn.saved
print("(x[0] * c) saved:", kept)
if torch:
    t_node = (ta * torch.tensor([10.0])).grad_fn
    print("PyTorch: _saved_self =", t_node._saved_self, "| _saved_other =", t_node._saved_other)
check("x[0] * c keeps only c", [kept[0] is None, kept[1] is c], [True, True],
      torch=lambda: [t_node._saved_self is None, t_node._saved_other is not None],
      recorded="_saved_self None, _saved_other tensor([10.])")

# %% [markdown]
# The article's block 2:
#
# ```python
# z.backward()
#
# print("x.grad =", x.grad)   # tensor([4., 5.])
# print("w.grad =", w.grad)   # tensor([2., 3.])
# ```
#
# `backward()` seeds z's gradient with 1.0 and visits each node once, in reverse topological order: a node runs only
# when every gradient headed for it has arrived. Each visit multiplies the upstream gradient by the node's local
# derivative, sends the results along `next_functions`, and `AccumulateGrad` adds them into the leaves' `.grad`. The
# narration below the cell shows each step.

# %%
section("2. backward(), narrated")
z.backward()

print("x.grad =", [xi.grad for xi in x])   # dz/dx[i] = w[i]
print("w.grad =", [wi.grad for wi in w])   # dz/dw[i] = x[i]

# %%
if torch:
    tx = torch.tensor([v.item() for v in x], requires_grad=True)
    tw = torch.tensor([v.item() for v in w], requires_grad=True)
    (tx * tw).sum().backward()

now = {"x": [v.item() for v in x], "w": [v.item() for v in w]}  # the recorded outputs' inputs, now
check("x.grad = w", [xi.grad for xi in x], [wi.item() for wi in w], torch=lambda: tx.grad,
      recorded=Recorded("tensor([4., 5.])", x=[2.0, 3.0], w=[4.0, 5.0]), inputs=now)
check("w.grad = x", [wi.grad for wi in w], [xi.item() for xi in x], torch=lambda: tw.grad,
      recorded=Recorded("tensor([2., 3.])", x=[2.0, 3.0], w=[4.0, 5.0]), inputs=now)

# %% [markdown]
# The order of the visits is PyTorch's too. A node runs once every gradient headed for it has arrived, and among the
# nodes ready at once the one created last runs first. A hook on each intermediate value fires when its gradient is
# complete, just before its node runs, so the hooks tell the order. (On your own engine, `--engine`, this is your
# `walk`'s order: a breadth-first walk visits `a` before `a + x` has delivered.)

# %%
def order_of_visits(make):
    """The intermediates of y = a·(a + x) + b·5 (a = x·w, b = x + w), in the order backward
    completes their gradients; ``make(number)`` makes a leaf that requires grad."""
    x, w = make(2.0), make(-3.0)
    a, b = x * w, x + w
    ax = a + x
    left, right = a * ax, b * 5.0
    order = []
    for label, v in (("a", a), ("b", b), ("a + x", ax), ("a * (a + x)", left), ("b * 5", right)):
        v.register_hook(lambda grad, label=label: order.append(label))
    (left + right).backward(retain_graph=True)  # kept: a walk that visits a node twice still ends
    return order

visits = order_of_visits(lambda v: mg.Value(v, requires_grad=True))
print("order of visits:", visits)
check("the order of visits: ready nodes, the one created last first", visits,
      ["b * 5", "a * (a + x)", "a + x", "b", "a"],
      torch=lambda: order_of_visits(lambda v: torch.tensor(v, requires_grad=True)),
      recorded=Recorded("['b * 5', 'a * (a + x)', 'a + x', 'b', 'a']", x=2.0, w=-3.0),
      inputs={"x": 2.0, "w": -3.0})

# %% [markdown]
# The same on `mg.tensor`, the article's blocks 1 and 2 as written with `torch` replaced by `mg`, prints what PyTorch
# prints:

# %%
mx = mg.tensor([2.0, 3.0], requires_grad=True)
mw = mg.tensor([4.0, 5.0], requires_grad=True)
(mx * mw).sum().backward()
print("x.grad =", mx.grad)
print("w.grad =", mw.grad)
check("x.grad (tensor)", repr(mx.grad), "tensor([4., 5.])",
      torch=lambda: repr(tx.grad), recorded="tensor([4., 5.])")
check("w.grad (tensor)", repr(mw.grad), "tensor([2., 3.])",
      torch=lambda: repr(tw.grad), recorded="tensor([2., 3.])")

# %% [markdown]
# The article's step 3 reads: "After leaf grads are filled, the graph is freed (default retain_graph=False)." Look (D9):
# `z.grad_fn` and its `next_functions` are all still there. What backward freed are the values the nodes had saved, and
# that is what makes a second backward through them fail.

# %%
section("3. After backward: the values are freed, the nodes stay")
print("z.grad_fn:", z.grad_fn.name(), "| next:", [n.name() for n, _ in z.grad_fn.next_functions])
print("MulBackward0 saved:", mul.saved)
check("the nodes survive backward", z.grad_fn.next_functions[0][0] is mul, True, recorded="grad_fn nodes survive")
check("MulBackward0's saved values after backward", mul.saved, "<freed>",
      recorded="mul._saved_self: RuntimeError (freed)")

# %%
if torch:
    tz = (tx * tw).sum()
    tz.backward()
with raises("a second backward", RuntimeError, SECOND_BACKWARD,
            torch=lambda: error_of(tz.backward), recorded=f"RuntimeError: {SECOND_BACKWARD} (or directly …"):
    z.backward()          # a second time: MulBackward0 needs x[0] and w[0], which are gone
check("x.grad unchanged by the failed pass", [xi.grad for xi in x], [wi.item() for wi in w])

# %% [markdown]
# `retain_graph=True` keeps the saved values, so the same graph can be walked again; since backward accumulates, the
# gradient adds up (lesson 3). d(a·a)/da = 2a:

# %%
a = mg.Value(2.0, requires_grad=True, label="a")
s = a * a
s.backward(retain_graph=True)
first = a.grad
print("after backward 1 (retain_graph=True):", first)
s.backward()
print("after backward 2:", a.grad)
check("a.grad after 1 backward = 2a", first, 2 * a.item(), recorded=Recorded("tensor([4.])", a=2.0),
      inputs={"a": a.item()})
check("a.grad after 2 backwards = 2·2a", a.grad, 4 * a.item(), recorded=Recorded("tensor([8.])", a=2.0),
      inputs={"a": a.item()})

# %%
with raises("a third backward", RuntimeError, SECOND_BACKWARD, recorded=f"RuntimeError: {SECOND_BACKWARD} …"):
    s.backward()          # the 2nd pass had retain_graph=False: now the values are gone

# %% [markdown]
# A graph whose nodes saved nothing can be walked twice without `retain_graph`: the error is about freed values, not
# about the graph.

# %%
b = mg.Value(1.0, requires_grad=True, label="b")
u = b + 1             # AddBackward0 saves no value
u.backward()
u.backward()          # no error
print("b.grad =", b.grad)
if torch:
    tb1 = torch.tensor([1.0], requires_grad=True)
    tu = (tb1 + 1).sum()
    tu.backward()
    tu.backward()
check("(b + 1) walked twice: b.grad = 2", b.grad, 2.0, torch=lambda: tb1.grad, recorded="tensor([2.])")

# %% [markdown]
# The article's "Key insight" says: "gradients are products of numerical chain rule, not analytic differentiation". It
# is the other way round (D11). Each node applies an exact, analytic formula for its local derivative (`MulBackward0`:
# d(a·b)/da = b) to concrete numbers; the chain rule multiplies those. Nothing is approximated. Numerical
# differentiation, nudging an input and watching the output, is another method, and it is only approximately right:

# %%
section("4. Analytic, not numerical")

def z_of(x0):
    """z as a function of x[0], the other inputs held at their values."""
    return x0 * w[0].item() + x[1].item() * w[1].item()

h = 1e-6
numeric = (z_of(x[0].item() + h) - z_of(x[0].item() - h)) / (2 * h)
print("backward: dz/dx[0] =", x[0].grad, "| central difference =", numeric)
check("backward's dz/dx[0] is exactly w[0]", x[0].grad, w[0].item(), rel=0.0, abs=0.0)
check("the central difference is only close", [numeric != w[0].item(), abs(numeric - w[0].item()) < 1e-6],
      [True, True])

# %% [markdown]
# In float32 the difference is worse: f(x) = x·x at x = 1 with h = 1e-6. Backward applies d(x·x)/dx = 2x exactly; the
# finite difference loses most of its digits to rounding. PyTorch's `gradcheck` on float32 meets the same number.

# %%
x32 = mg.Value(1.0, requires_grad=True, dtype="float32")
(x32 * x32).backward()

def f32(v, lib=None):
    """x·x in float32, on micrograd2 (or on PyTorch, with lib=torch)."""
    v = lib.tensor(v, dtype=lib.float32) if lib else mg.Value(v, dtype="float32")
    return (v * v).item()

numeric32 = (f32(1.0 + 1e-6) - f32(1.0 - 1e-6)) / 2e-6
print("backward:", x32.grad, "| central difference in float32:", numeric32)
if torch:
    t_numeric32 = (f32(1.0 + 1e-6, torch) - f32(1.0 - 1e-6, torch)) / 2e-6
    print("PyTorch: central difference in float32:", t_numeric32)

# %%
check("backward in float32 = 2x", x32.grad, 2 * x32.item(), recorded="analytical 2.")
check("central difference in float32", numeric32, 1.9669532775878906, rel=1e-12,
      torch=lambda: t_numeric32, recorded="numerical 1.9670")

# %% [markdown]
# Block 1's graph once more: each node of it ran once in the backward pass above.

# %%
show_graph(z, "z's autograd graph:")

# %%
summary("Lesson 2")
