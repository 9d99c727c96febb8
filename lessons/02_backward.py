"""Lesson 2 — what backward() does (the article's block 2): the narrated walk, saved values, freeing.

Shows: the reverse walk node by node; what each node really saved (D10: it depends
on the op); that backward frees the saved values, not the nodes (D9), hence the
second-backward error and ``retain_graph``; and that reverse-mode AD applies exact
local derivatives — it is not numerical differentiation (D11).
"""
from __future__ import annotations

try:
    from ._kit import LessonResult, Story, main
except ImportError:  # run as a script: python lessons/02_backward.py
    from _kit import LessonResult, Story, main

NUMBER = 2
TITLE = "What backward() does"
GOAL = "Block 2: the narrated walk, what nodes save (D10), freed values vs nodes (D9), not numerical (D11)."

ARTICLE_BLOCK_2 = """
z.backward()

print("x.grad =", x.grad)   # tensor([4., 5.])
print("w.grad =", w.grad)   # tensor([2., 3.])
"""

SECOND_BACKWARD = "Trying to backward through the graph a second time"


def run(out: Story) -> LessonResult:
    out.lesson(NUMBER, TITLE, GOAL)

    out.section("1. Before backward: what each node saved")
    out.say("""
        Block 1's graph again. The article says each node stores "the forward output value".
        What a node keeps is whatever its local derivative needs, and that depends on the op
        (D10): d(a·b)/da = b, so MulBackward0 keeps its INPUTS; d(Σ)/d(each term) = 1, so
        SumBackward0 keeps no value at all (PyTorch keeps only the input's shape);
        d(eˣ)/dx = eˣ, so ExpBackward0 keeps its OUTPUT; AddBackward0 keeps nothing.
    """)
    ns = out.run("""
        x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
        w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
        z = mg.sum(xi * wi for xi, wi in zip(x, w))
        z.label = "z"

        mul = z.grad_fn.next_functions[0][0]
        print("SumBackward0 saved:", z.grad_fn.saved)
        print("MulBackward0 saved:", mul.saved)
        print("ExpBackward0 saved:", x[0].exp().grad_fn.saved, " (e² = its output)")
        print("AddBackward0 saved:", (x[0] + w[0]).grad_fn.saved)
    """, main=True)
    x, w, z, mul = ns["x"], ns["w"], ns["z"], ns["mul"]
    out.check("SumBackward0 saves no value", z.grad_fn.saved, (), torch="['_saved_self_sym_sizes'] = (2,): a shape")
    out.check("MulBackward0 saves its inputs", sorted(v.label for v in mul.saved), ["w[0]", "x[0]"],
              torch="['_saved_other', '_saved_self']")
    exp = x[0].exp()
    out.check("ExpBackward0 saves its output", exp.grad_fn.saved, (exp.data,), torch="['_saved_result'] == output")
    out.check("AddBackward0 saves no value", (x[0] + w[0]).grad_fn.saved, (), torch="['_saved_alpha'] only")
    out.say("""
        A product only keeps what will be needed: if just one side requires grad, only the
        OTHER side is kept (the gradient of a is b, and nobody wants the gradient of b).
    """)
    ns = out.run("""
        c = mg.Value(10.0, label="c")                 # needs no gradient
        print("(x[0] * c) saved:", (x[0] * c).grad_fn.saved)
    """, ns)
    kept = [v for v in (x[0] * ns["c"]).grad_fn.saved if v is not None]
    out.expect("x[0] * c keeps only c", len(kept) == 1 and kept[0] is ns["c"], kept,
               torch="MulBackward0 saves other only when self requires grad")

    out.section("2. backward(), narrated")
    out.article(ARTICLE_BLOCK_2, "block 2")
    out.say("""
        backward() seeds z's gradient with 1.0 and visits each node once, in reverse
        topological order: a node runs only when every gradient headed for it has arrived.
        Each visit multiplies the upstream gradient by the node's local derivative, sends
        the results along next_functions, and AccumulateGrad adds them into the leaves' .grad.
    """)
    out.run("""
        z.backward()

        print("x.grad =", [xi.grad for xi in x])   # dz/dx[i] = w[i]
        print("w.grad =", [wi.grad for wi in w])   # dz/dw[i] = x[i]
    """, ns, main=True)
    out.check("x.grad", [xi.grad for xi in x], [4.0, 5.0], torch="tensor([4., 5.])")
    out.check("w.grad", [wi.grad for wi in w], [2.0, 3.0], torch="tensor([2., 3.])")

    out.say("""
        The same on mg.tensor, the article's block 1 and 2 as written (torch → mg), prints
        exactly what PyTorch prints:
    """)
    tns = out.run("""
        tx = mg.tensor([2.0, 3.0], requires_grad=True)
        tw = mg.tensor([4.0, 5.0], requires_grad=True)
        (tx * tw).sum().backward()
        print("x.grad =", tx.grad)
        print("w.grad =", tw.grad)
    """)
    out.check("x.grad (tensor)", repr(tns["tx"].grad), "tensor([4., 5.])", torch="tensor([4., 5.])")
    out.check("w.grad (tensor)", repr(tns["tw"].grad), "tensor([2., 3.])", torch="tensor([2., 3.])")

    out.section("3. After backward: the values are freed, the nodes stay")
    out.say("""
        The article says "the graph is freed" (D9). Look: z.grad_fn and its next_functions are
        all still there. What backward freed (without retain_graph=True) are the values the
        nodes had saved — that is what makes a second backward through them impossible.
    """)
    out.run("""
        print("z.grad_fn:", z.grad_fn.name(), "| next:", [n.name() for n, _ in z.grad_fn.next_functions])
        print("MulBackward0 saved:", mul.saved)
    """, ns)
    out.check("the nodes survive backward", z.grad_fn.next_functions[0][0] is mul, True,
              torch="grad_fn nodes survive")
    out.check("MulBackward0's saved values after backward", mul.saved, "<freed>",
              torch="mul._saved_self: RuntimeError (freed)")
    out.fails("""
        z.backward()          # a second time: MulBackward0 needs x[0] and w[0], which are gone
    """, ns, RuntimeError, SECOND_BACKWARD, what="a second backward",
              torch="RuntimeError: Trying to backward through the graph a second time (or directly access saved …")
    out.check("x.grad unchanged by the failed pass", [xi.grad for xi in x], [4.0, 5.0], torch="tensor([4., 5.])")

    out.say("""
        retain_graph=True keeps the saved values, so the same graph can be walked again —
        and, since backward accumulates, the gradient adds up (lesson 3):
    """)
    ns2 = out.run("""
        a = mg.Value(2.0, requires_grad=True, label="a")
        s = a * a
        s.backward(retain_graph=True)
        first = a.grad
        print("after backward 1 (retain_graph=True):", first)
        s.backward()
        print("after backward 2:", a.grad)
    """, trace=True)
    out.check("a.grad after 1 backward", ns2["first"], 4.0, torch="tensor([4.])")
    out.check("a.grad after 2 backwards", ns2["a"].grad, 8.0, torch="tensor([8.])")
    out.fails("""
        s.backward()          # the 2nd pass had retain_graph=False: now the values are gone
    """, ns2, RuntimeError, SECOND_BACKWARD, what="a third backward", torch="RuntimeError: Trying to backward …")
    out.say("""
        And a graph whose nodes saved nothing can be walked twice without retain_graph: the
        error is about freed values, not about the graph.
    """)
    ns3 = out.run("""
        b = mg.Value(1.0, requires_grad=True, label="b")
        u = b + 1             # AddBackward0 saves nothing
        u.backward()
        u.backward()          # no error
        print("b.grad =", b.grad)
    """)
    out.check("(b + 1) walked twice: b.grad", ns3["b"].grad, 2.0, torch="(a+1).sum() twice: a.grad = tensor([2.])")

    out.section("4. Analytic, not numerical")
    out.say("""
        The article's "key insight" says the gradients are "products of numerical chain rule,
        not analytic differentiation". It is the other way round (D11). Each node applies an
        exact, analytic formula for its local derivative (MulBackward0: d(a·b)/da = b) to
        concrete numbers; the chain rule multiplies those. Nothing is approximated.
        Numerical differentiation — nudging an input and watching the output — is another
        method, and it is only approximately right:
    """)
    ns4 = out.run("""
        def z_of(x0):                          # z as a function of x[0], the rest held fixed
            return x0 * 4.0 + 3.0 * 5.0

        h = 1e-6
        numeric = (z_of(2.0 + h) - z_of(2.0 - h)) / (2 * h)
        print("backward: dz/dx[0] =", x[0].grad, "| central difference =", numeric)
    """, ns)
    out.check("backward's dz/dx[0] is exact", x[0].grad, 4.0, torch="4.")
    out.expect("the central difference is only close", ns4["numeric"] != 4.0 and abs(ns4["numeric"] - 4.0) < 1e-6,
               ns4["numeric"])
    out.say("""
        In float32 the difference is worse: f(x) = x·x at x = 1 with h = 1e-6. Backward
        applies d(x·x)/dx = 2x exactly; the finite difference loses most of its digits to
        rounding. (PyTorch's gradcheck on float32 gives the same 1.9670.)
    """)
    ns5 = out.run("""
        x32 = mg.Value(1.0, requires_grad=True, dtype="float32")
        (x32 * x32).backward()

        def f32(v):
            v = mg.Value(v, dtype="float32")
            return (v * v).item()

        numeric32 = (f32(1.0 + 1e-6) - f32(1.0 - 1e-6)) / 2e-6
        print("backward:", x32.grad, "| central difference in float32:", numeric32)
    """)
    out.check("backward in float32", ns5["x32"].grad, 2.0, torch="analytical 2.")
    out.check("central difference in float32", ns5["numeric32"], 1.9669532775878906, rel=1e-12,
              torch="numerical 1.9670")

    out.diagram(z, view="autograd")
    return out.done()


if __name__ == "__main__":
    raise SystemExit(main(run))
