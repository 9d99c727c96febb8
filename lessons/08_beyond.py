"""Lesson 8 — beyond the article: hooks, retain_grad, autograd.grad, higher-order gradients, anomaly mode.

Shows: a hook changing a gradient on its way (E10); ``.grad`` of a non-leaf is ``None``
with a warning, until ``retain_grad()`` (E3); ``autograd.grad`` returns gradients
without touching ``.grad`` (E11); ``create_graph=True`` makes the gradient itself
differentiable, so second derivatives work (E9); ``detect_anomaly`` names the node
whose backward produced NaN, and does not flag inf (E13).
"""
from __future__ import annotations

import math

try:
    from ._kit import LessonResult, Story, main
except ImportError:  # run as a script: python lessons/08_beyond.py
    from _kit import LessonResult, Story, main

NUMBER = 8
TITLE = "Beyond the article"
GOAL = "Hooks, retain_grad, autograd.grad, second derivatives with create_graph, anomaly detection."


def run(out: Story) -> LessonResult:
    out.lesson(NUMBER, TITLE, GOAL)

    out.section("1. Hooks: a look (and a hand) inside backward")
    out.say("""
        register_hook(fn) runs fn on a value's gradient the moment backward computes it; if
        fn returns something, that replaces the gradient. Debuggers print there; gradient
        tricks (clipping one layer, reversing a gradient) change it there.
    """)
    ns = out.run("""
        x = mg.Value(1.0, requires_grad=True, label="x")
        handle = x.register_hook(lambda g: g * 2)      # double x's gradient on arrival
        (x * 3).backward()
        with_hook = x.grad
        print("with the hook:  x.grad =", with_hook)

        x.grad = None
        handle.remove()
        (x * 3).backward()
        print("hook removed:   x.grad =", x.grad)
    """, main=True)
    out.check("x.grad with a doubling hook", ns["with_hook"], 6.0, torch="tensor([6., 6.])")
    out.check("x.grad after handle.remove()", ns["x"].grad, 3.0, torch="tensor([3., 3.])")
    ns = out.run("""
        x.grad = None
        h = x * 3
        h.label = "h"
        h.register_hook(lambda g: g * 2)               # on a non-leaf: changes what flows on to x
        (h + 1).backward()
        print("hook on h:      x.grad =", x.grad)
    """, ns, trace=True)
    out.check("x.grad with a hook on the non-leaf h", ns["x"].grad, 6.0, torch="tensor([6., 6.])")

    out.section("2. Gradients of non-leaves: retain_grad()")
    out.say("""
        Only leaves get .grad. A non-leaf's gradient is computed on the way and dropped, and
        reading its .grad gives None with a warning — unless it asked to keep it.
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        h = x * 2
        z = h * h
        z.backward()
        h_grad = h.grad
        print("h.grad =", h_grad)
    """)
    out.check("h.grad of a non-leaf", ns["h_grad"], None, torch="None, with a UserWarning")
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        h = x * 2
        h.retain_grad()
        z = h * h
        z.backward()
        print("h.grad =", h.grad, "| x.grad =", x.grad, "| h.retains_grad =", h.retains_grad)
    """)
    out.check("h.grad, x.grad after retain_grad()", [ns["h"].grad, ns["x"].grad], [8.0, 16.0],
              torch="h2.grad = tensor([ 8., 12.]) | x.grad = tensor([16., 24.]) for x = [2., 3.]")
    out.check("h.retains_grad", ns["h"].retains_grad, True, torch="True")

    out.section("3. autograd.grad: gradients without .grad")
    out.say("""
        mg.autograd.grad(outputs, inputs) returns the gradients instead of adding them into
        .grad — handy when the gradient is a value you compute with, not an update.
    """)
    ns = out.run("""
        x = mg.Value(1.0, requires_grad=True, label="x")
        x.grad = 100.0
        (g,) = mg.autograd.grad(x * 3, x)
        print("autograd.grad returned", g, "| x.grad untouched:", x.grad)
        (x * 3).backward()
        print("backward() adds instead: x.grad =", x.grad)
    """)
    out.check("autograd.grad", ns["g"], 3.0, torch="tensor([3.])")
    out.check("x.grad after autograd.grad and then backward()", ns["x"].grad, 103.0,
              torch="x.grad left at tensor([100.]), then backward: tensor([103.])")

    out.section("4. Second derivatives: create_graph=True")
    out.say("""
        With create_graph=True, backward itself is recorded: the gradient comes back as a
        Value with a grad_fn, and differentiating it again gives the second derivative.
        y = x³ at x = 2: dy/dx = 3x² = 12, d²y/dx² = 6x = 12.
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        y = x ** 3
        (dy_dx,) = mg.autograd.grad(y, x, create_graph=True)
        print("dy/dx =", dy_dx)
        (d2y_dx2,) = mg.autograd.grad(dy_dx, x)
        print("d²y/dx² =", d2y_dx2)
    """)
    out.check("dy/dx", ns["dy_dx"].item(), 12.0, torch="tensor(12., grad_fn=<MulBackward0>)")
    out.expect("dy/dx has a grad_fn", ns["dy_dx"].grad_fn is not None, ns["dy_dx"].grad_fn,
               torch="grad_fn=<MulBackward0>")
    out.check("d²y/dx²", ns["d2y_dx2"], 12.0, torch="tensor(12.)")
    out.say("""
        A custom Function gets this for free when its backward is ordinary arithmetic — here
        the article's SquareAndDouble: d²(2x²)/dx² = 4.
    """)
    ns = out.run("""
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
    """)
    out.check("SquareAndDouble: [d/dx, d²/dx²] at 3", [ns["g"].item(), ns["g2"]], [12.0, 4.0],
              torch="12. and 4. (4·x·g, differentiated again)")

    out.section("5. Anomaly detection: who made the NaN?")
    out.say("""
        sqrt(x²) at x = 0: sqrt's derivative there is inf, and inf · 0 in the next node is
        NaN. By default the NaN just lands in x.grad, silently; the narration shows where
        it appeared:
    """)
    ns = nan_ns = out.run("""
        x = [mg.Value(0.0, requires_grad=True, label="x[0]"), mg.Value(1.0, requires_grad=True, label="x[1]")]
        z = mg.sum((xi ** 2).sqrt() for xi in x)
        z.backward()
        print("x.grad =", [xi.grad for xi in x])
    """, trace=True)
    grads = [xi.grad for xi in ns["x"]]
    out.expect("x.grad = [nan, 1.0]", math.isnan(grads[0]) and grads[1] == 1.0, grads, torch="tensor([nan, 1.])")
    out.say("""
        detect_anomaly() checks every backward result for NaN and names the node that made
        it — here PowBackward0 (inf · 2 · 0), not SqrtBackward0 — with the place in your
        code where that node's forward ran:
    """)
    out.fails("""
        with mg.autograd.detect_anomaly():
            z = mg.sum((xi ** 2).sqrt() for xi in x)
            z.backward()
    """, ns, RuntimeError, "Function 'PowBackward0' returned nan values in its 0th output.",
              what="backward under detect_anomaly",
              torch="RuntimeError: Function 'PowBackward0' returned nan values in its 0th output.")
    out.say("""
        Infinities are not flagged, only NaN (as in PyTorch): log at 0 has gradient inf.
    """)
    ns = out.run("""
        with mg.autograd.detect_anomaly():
            x = mg.Value(0.0, requires_grad=True, label="x")
            x.log().backward()
        print("x.grad =", x.grad)
    """)
    out.check("x.grad of log at 0 under detect_anomaly", ns["x"].grad, math.inf, torch="tensor([inf]), not flagged")

    out.diagram(nan_ns["z"], view="autograd")
    return out.done()


if __name__ == "__main__":
    raise SystemExit(main(run))
