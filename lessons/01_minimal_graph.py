"""Lesson 1 — a minimal graph (the article's block 1): leaves, requires_grad, grad_fn, next_functions.

Shows: the graph ``z = Σ xᵢ·wᵢ`` builds; which values are leaves (D13: every value
not made by a recorded op, not only those with ``requires_grad=True``); how the
flag spreads; PyTorch's real node names (D12: ``SumBackward0``, ``MulBackward0``,
``AccumulateGrad``); ``next_functions``; the autograd diagram.
"""
from __future__ import annotations

try:
    from ._kit import LessonResult, Story, main
except ImportError:  # run as a script: python lessons/01_minimal_graph.py
    from _kit import LessonResult, Story, main

NUMBER = 1
TITLE = "A minimal graph"
GOAL = "Block 1: leaves, requires_grad spreading, grad_fn, next_functions, AccumulateGrad (D12, D13)."

ARTICLE_BLOCK_1 = """
import torch

# Leaf tensors: requires_grad=True makes them tracked by the graph
x = torch.tensor([2.0, 3.0], requires_grad=True)
w = torch.tensor([4.0, 5.0], requires_grad=True)

# Forward: z = sum(x * w) elementwise
z = (x * w).sum()

print("z =", z.item())          # 2*4 + 3*5 = 23
print("z.requires_grad =", z.requires_grad)   # True
"""


def run(out: Story) -> LessonResult:
    out.lesson(NUMBER, TITLE, GOAL)

    out.section("1. The article's block 1, on micrograd2")
    out.article(ARTICLE_BLOCK_1, "block 1")
    out.say("""
        micrograd2's scalar engine works on single numbers, so each vector becomes a list of
        Values. mg.sum adds many Values as ONE node, as tensor.sum() does. Labels name the
        values in traces and diagrams.
    """)
    ns = out.run("""
        x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
        w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]

        z = mg.sum(xi * wi for xi, wi in zip(x, w))     # z = x[0]*w[0] + x[1]*w[1]
        z.label = "z"

        print("z =", z.item())                        # 2*4 + 3*5 = 23
        print("z.requires_grad =", z.requires_grad)
    """, trace=True)
    x, z = ns["x"], ns["z"]
    out.check("z", z.item(), 23.0, torch="z = 23.0")
    out.check("z.requires_grad", z.requires_grad, True, torch="True")

    out.section("2. Leaves, and the flag that spreads")
    out.say("""
        A leaf is a value that no recorded op produced: autograd stops there and, if the
        leaf requires grad, writes its .grad. A result requires grad as soon as one of its
        inputs does (and grad mode is on) — that is how the flag spreads through the graph.
    """)
    out.run("""
        print("x[0].is_leaf =", x[0].is_leaf, "| x[0].grad_fn =", x[0].grad_fn)
        print("z.is_leaf    =", z.is_leaf, "| z.grad_fn =", z.grad_fn)

        c = mg.Value(10.0)                          # a constant: requires_grad=False
        print("(c * 2).requires_grad    =", (c * 2).requires_grad)
        print("(c * x[0]).requires_grad =", (c * x[0]).requires_grad)
    """, ns)
    c = ns["c"]
    out.check("x[0].is_leaf", x[0].is_leaf, True, torch="True")
    out.check("z.is_leaf", z.is_leaf, False, torch="False")
    out.check("(c * 2).requires_grad", (c * 2).requires_grad, False, torch="False")
    out.check("(c * x[0]).requires_grad", (c * x[0]).requires_grad, True, torch="True")

    out.say("""
        The article says "requires_grad=True makes the tensor a leaf" (D13). Not quite: EVERY
        value that no recorded op made is a leaf — a plain constant, a result computed under
        no_grad(), the output of detach(). requires_grad only decides whether the leaf gets a
        .grad (and an AccumulateGrad node) when backward reaches it.
    """)
    out.run("""
        print("c.is_leaf =", c.is_leaf, "| c.requires_grad =", c.requires_grad, "| c.grad =", c.grad)

        with mg.no_grad():
            n = x[0] * 2
        print("made under no_grad: n.is_leaf =", n.is_leaf, "| n.requires_grad =", n.requires_grad)

        d = x[0].detach()
        print("made by detach():   d.is_leaf =", d.is_leaf, "| d.requires_grad =", d.requires_grad)
    """, ns)
    out.check("c.is_leaf (a constant)", c.is_leaf, True, torch="torch.tensor([1.]).is_leaf = True")
    out.check("c.grad", c.grad, None, torch="None")
    out.check("a no_grad result is a leaf", ns["n"].is_leaf, True, torch="True (E5)")
    out.check("a detach() output is a leaf", ns["d"].is_leaf, True, torch="True (E5)")

    out.section("3. The graph: grad_fn and next_functions")
    out.say("""
        Each recorded op leaves a node, the result's grad_fn. The article calls them
        "MulBackward / SumBackward"; their real names end in a number: SumBackward0,
        MulBackward0 (D12). next_functions says where each node sends its gradients: one
        (node, 0) pair per input. A leaf that requires grad appears there as an
        AccumulateGrad node, whose .variable is the leaf itself.
    """)
    out.run("""
        print(z.grad_fn.name(), z.grad_fn.next_functions)

        mul = z.grad_fn.next_functions[0][0]
        print(mul.name(), mul.next_functions)

        acc = mul.next_functions[0][0]
        print(acc.name(), "| acc.variable is x[0]:", acc.variable is x[0])
    """, ns)
    mul, acc = ns["mul"], ns["acc"]
    out.check("z.grad_fn.name()", z.grad_fn.name(), "SumBackward0", torch="SumBackward0")
    out.check("its input's node", mul.name(), "MulBackward0", torch="MulBackward0")
    out.check("a leaf's node", acc.name(), "AccumulateGrad", torch="torch::autograd::AccumulateGrad")
    out.check("AccumulateGrad.variable is x[0]", acc.variable is x[0], True, torch="True")
    out.check("a leaf has no grad_fn", x[0].grad_fn, None, torch="None")
    out.say("""
        One difference of shape, not of meaning: PyTorch multiplies the two vectors in ONE
        MulBackward0, so its SumBackward0 has one input; here each product x[i]*w[i] is its
        own MulBackward0, so SumBackward0 has two. Every node and edge has PyTorch's meaning.

        An input that needs no gradient gets no node at all: its entry is None.
    """)
    out.run("""
        y = x[0] * c                       # c needs no gradient
        print(y.grad_fn.name(), y.grad_fn.next_functions)
    """, ns)
    edges = ns["y"].grad_fn.next_functions
    out.check("next_functions of x[0] * c", [edges[0][0].name(), edges[1][0]], ["AccumulateGrad", None],
              torch="((<AccumulateGrad object>, 0), (None, 0))")

    out.section("4. The article's code itself, on mg.tensor")
    out.say("""
        micrograd2 also has a vectorized engine with PyTorch's spelling. With it the
        article's block runs with only torch replaced by mg — and the graph has exactly
        PyTorch's shape: one MulBackward0 for the whole vector product.
    """)
    ns = out.run("""
        x = mg.tensor([2.0, 3.0], requires_grad=True)
        w = mg.tensor([4.0, 5.0], requires_grad=True)

        z = (x * w).sum()

        print("z =", z.item())          # 2*4 + 3*5 = 23
        print("z.requires_grad =", z.requires_grad)   # True
        print(z)
        print(z.grad_fn.next_functions)
    """)
    tz = ns["z"]
    out.check("z (tensor)", repr(tz), "tensor(23., grad_fn=<SumBackward0>)",
              torch="z = tensor(23., grad_fn=<SumBackward0>)")
    nodes = [n.name() for n, _ in tz.grad_fn.next_functions]
    out.check("z.grad_fn.next_functions (tensor)", nodes, ["MulBackward0"], torch="((<MulBackward0 object>, 0),)")
    tmul = tz.grad_fn.next_functions[0][0]
    out.check("MulBackward0.next_functions (tensor)", [n.name() for n, _ in tmul.next_functions],
              ["AccumulateGrad", "AccumulateGrad"],
              torch="((<AccumulateGrad object>, 0), (<AccumulateGrad object>, 0))")

    out.section("5. The picture")
    out.say("""
        Walking next_functions from z down to the leaves gives the autograd graph, the path
        every gradient will take in lesson 2. (micrograd2 lesson run 1 --graph graph.svg draws
        it with Graphviz, as torchviz draws PyTorch's.)
    """)
    out.tree(z, "z's autograd graph (gradients flow from the top down):")
    out.diagram(z, view="autograd")
    return out.done()


if __name__ == "__main__":
    raise SystemExit(main(run))
