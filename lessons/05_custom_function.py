"""Lesson 5 — a custom Function (the article's block 5): forward, backward, ctx, and checking it.

Shows: ``SquareAndDouble`` runs unchanged on micrograd2 (``y = 18``, ``x.grad = 12``);
its node is ``SquareAndDoubleBackward`` as in PyTorch; ``gradcheck`` accepts it; a
wrong backward is caught by ``gradcheck`` (E12); and ``gradcheck`` wants float64.
"""
from __future__ import annotations

import re

import micrograd2 as mg

try:
    from ._kit import LessonResult, Story, main
except ImportError:  # run as a script: python lessons/05_custom_function.py
    from _kit import LessonResult, Story, main

NUMBER = 5
TITLE = "A custom Function"
GOAL = "Block 5: SquareAndDouble, its node, gradcheck passing, and a wrong backward caught (E12)."

ARTICLE_BLOCK_5 = """
class SquareAndDouble(torch.autograd.Function):
    \"\"\"Custom op: forward returns 2·x², backward grad = 4·x·g\"\"\"
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 2 * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 4 * x

x = torch.tensor([3.0], requires_grad=True)
y = SquareAndDouble.apply(x)   # 2*9 = 18
y.backward()
print("y =", y.item(), "| x.grad =", x.grad.item())   # 4*3 = 12
"""


def run(out: Story) -> LessonResult:
    out.lesson(NUMBER, TITLE, GOAL)

    out.section("1. SquareAndDouble, as the article writes it")
    out.article(ARTICLE_BLOCK_5, "block 5")
    out.say("""
        In micrograd2 every op is written this way — built-in ones too: MulBackward0 is the
        node of a Function called Mul. So the article's class runs with one change, the base
        class: mg.Function for torch.autograd.Function. forward receives the input's number,
        backward the upstream gradient; ctx.save_for_backward keeps x for backward.
    """)
    ns = out.run('''
        class SquareAndDouble(mg.Function):
            """Custom op: forward returns 2·x², backward grad = 4·x·g"""
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return 2 * x * x

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return grad_output * 4 * x

        x = mg.Value(3.0, requires_grad=True, label="x")
        y = SquareAndDouble.apply(x)   # 2*9 = 18
        y.backward()
        print("y =", y.item(), "| x.grad =", x.grad)   # 4*3 = 12
        print("y.grad_fn:", y.grad_fn.name())
    ''', main=True)
    y, x = ns["y"], ns["x"]
    out.check("y", y.item(), 18.0, torch="y = 18.0")
    out.check("x.grad", x.grad, 12.0, torch="x.grad = 12.0")
    out.check("y.grad_fn.name()", y.grad_fn.name(), "SquareAndDoubleBackward", torch="SquareAndDoubleBackward")
    out.say("""
        The narration shows the one thing autograd knows about this op: it calls your
        backward with the upstream gradient and trusts what comes back. Nothing checks
        that 4·x·g is the derivative of 2·x² — unless you ask.
    """)

    out.section("2. gradcheck: does backward agree with the function?")
    out.say("""
        gradcheck nudges each input by ±ε, measures the change of the output (a central
        difference) and compares it with what backward returns. Use float64 inputs: the
        difference quotient needs the digits (lesson 2 showed float32 giving 1.967 for 2).
    """)
    ns = out.run("""
        x = mg.Value(3.0, requires_grad=True, label="x")
        passed = mg.autograd.gradcheck(SquareAndDouble, (x,))
        print("gradcheck(SquareAndDouble):", passed)
    """, ns)
    out.check("gradcheck(SquareAndDouble, float64)", ns["passed"], True, torch="True")
    out.say("""
        Now a backward with a mistake: x² has derivative 2x, this one returns 3x. It runs
        without complaint — the training would just be wrong. gradcheck catches it:
    """)
    ns = out.run('''
        class WrongSquare(mg.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return grad_output * 3 * x     # wrong: d(x²)/dx = 2x

        x = mg.Value(1.0, requires_grad=True, label="x")
        y = WrongSquare.apply(x)
        y.backward()
        print("WrongSquare: y =", y.item(), "| x.grad =", x.grad, "(silently wrong)")
    ''', ns)
    error = out.fails("""
        mg.autograd.gradcheck(WrongSquare, (mg.Value(1.0, requires_grad=True, label="x"),))
    """, ns, mg.autograd.GradcheckError, "Jacobian mismatch for output 0 with respect to input 0",
                      what="gradcheck(WrongSquare)",
                      torch="GradcheckError: Jacobian mismatch for output 0 with respect to input 0")
    out.check("the numbers it names: [analytical, numerical]", _numbers(str(error or "")), [3.0, 2.0], rel=1e-6,
              torch="numerical 2.0000 vs analytical 3.")
    out.expect("GradcheckError is a RuntimeError", isinstance(error, RuntimeError), type(error).__name__,
               torch="GradcheckError subclasses RuntimeError")
    out.say("""
        And the float64 advice is not a detail: the CORRECT x·x checked in float32 fails,
        because the central difference itself is wrong there (PyTorch: numerical 1.9670
        vs analytical 2, with a warning to use double precision).
    """)
    ns = out.run("""
        x32 = mg.Value(1.0, requires_grad=True, dtype="float32")
        passed32 = mg.autograd.gradcheck(lambda v: v * v, (x32,), raise_exception=False)
        print("gradcheck(x·x, float32):", passed32)
    """, ns)
    out.check("gradcheck of a correct function in float32", ns["passed32"], False,
              torch="fails: numerical 1.9670 vs analytical 2.")

    out.diagram(ns["y"], view="autograd")
    return out.done()


def _numbers(message: str) -> list[float]:
    """[analytical, numerical] as gradcheck's message gives them (empty if it doesn't)."""
    found = [re.search(rf"{name}:\s*(\S+)", message) for name in ("analytical", "numerical")]
    return [float(m.group(1)) for m in found if m]


if __name__ == "__main__":
    raise SystemExit(main(run))
