"""Lesson 4 — detach and no_grad (the article's block 4), and the in-place traps as they really are.

Shows: case A; case B as the article claims it (``x.grad = tensor([0.])``) and as it
really is — ``backward`` raises and ``x.grad`` stays ``None`` (D1); the flags of a
detached value and of a ``no_grad`` result; that ``detach`` shares data and version
counter; the two in-place errors (the leaf error at the call, the saved-value error
at backward), in-place allowed under ``no_grad`` (how optimizers work), and ``.data``
silently giving a wrong gradient (D2, D15, E6, E7).
"""
from __future__ import annotations

try:
    from ._kit import LessonResult, Story, main
except ImportError:  # run as a script: python lessons/04_detach_no_grad.py
    from _kit import LessonResult, Story, main

NUMBER = 4
TITLE = "detach, no_grad and in-place ops"
GOAL = "Block 4: case B really raises and x.grad stays None (D1); the in-place traps as they are (D2, D15)."

ARTICLE_BLOCK_4 = """
x = torch.tensor([2.0], requires_grad=True)

# Case A: use x directly
z1 = (x * 3).sum()
z1.backward()
print("A. x.grad =", x.grad)          # tensor([3.])

x.grad = None

# Case B: detach cuts the gradient flow (forward value stays, grad does not pass)
y = x.detach()
z2 = (y * 3).sum()
z2.backward()
print("B. x.grad =", x.grad)          # tensor([0.]) — gradient cut
"""

NO_GRAD_FN = "does not require grad and does not have a grad_fn"
LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation"
MODIFIED = "modified by an inplace operation"


def run(out: Story) -> LessonResult:
    out.lesson(NUMBER, TITLE, GOAL)

    out.section("1. Cases A and B")
    out.article(ARTICLE_BLOCK_4, "block 4")
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")

        # Case A: use x directly
        z1 = x * 3
        z1.backward()
        print("A. x.grad =", x.grad)          # 3.0
    """, main=True)
    out.check("A. x.grad", ns["x"].grad, 3.0, torch="tensor([3.])")
    out.fails("""
        x.grad = None

        # Case B: detach cuts the gradient flow
        y = x.detach()
        z2 = y * 3
        z2.backward()
        print("B. x.grad =", x.grad)          # the article prints tensor([0.])
    """, ns, RuntimeError, NO_GRAD_FN, what="B. z2.backward()",
              torch="RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn")
    out.run("""
        print("B. x.grad after the error =", x.grad)
    """, ns)
    out.check("B. x.grad", ns["x"].grad, None, torch="None (the article says tensor([0.]))")
    out.say("""
        The article prints "B. x.grad = tensor([0.])". Run as written, case B never gets to
        its print (D1): y is a leaf that does not require grad, so z2 = y * 3 recorded no
        graph at all — z2 has no grad_fn, and backward() has nothing to walk, which is an
        error. x.grad is still the None that case A's cleanup put there: no gradient ever
        "flows as zero" through a detach; there is simply no path.
    """)
    out.run("""
        print("y.requires_grad =", y.requires_grad, "| y.is_leaf =", y.is_leaf, "| y.grad_fn =", y.grad_fn)
        print("z2.requires_grad =", z2.requires_grad, "| z2.grad_fn =", z2.grad_fn)
    """, ns)
    y, z2 = ns["y"], ns["z2"]
    out.check("y = x.detach(): requires_grad, is_leaf, grad_fn", [y.requires_grad, y.is_leaf, y.grad_fn],
              [False, True, None], torch="False True None")
    out.check("z2: requires_grad, grad_fn", [z2.requires_grad, z2.grad_fn], [False, None], torch="False None")
    out.say("""
        What detach() is for: a branch whose value is used but whose gradient must not reach
        the parameters (a target network, a frozen feature extractor). Mixed with a branch
        that does track x, the detached branch contributes nothing to x.grad:
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        z = x.detach() * 3 + x * 5            # only the second term reaches x
        z.backward()
        print("x.grad =", x.grad)
    """, trace=True)
    out.check("x.grad with a detached branch", ns["x"].grad, 5.0, torch="tensor([5.])")

    out.section("2. detach() shares the data")
    out.say("""
        detach() copies nothing: the detached value shares x's data and x's version counter
        (the count of in-place changes). Change one in place and the other sees it.
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        d = x.detach()
        print("x._version =", x._version)
        d.add_(1)                             # allowed: d is a leaf that needs no grad
        print("after d.add_(1): x =", x.item(), "| x._version =", x._version)
    """)
    out.check("x after d.add_(1)", ns["x"].item(), 3.0, torch="x = tensor([3., 4.]) for x = [2., 3.]")
    out.check("x._version after d.add_(1)", ns["x"]._version, 1, torch="x._version 0 -> 1 (counter shared)")

    out.section("3. no_grad()")
    out.say("""
        no_grad() cuts at the level of a whole block: nothing computed inside is recorded.
        Its results are leaves that need no grad; x itself is unchanged.
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        with mg.no_grad():
            y = x * 2
        print("y.requires_grad =", y.requires_grad, "| y.is_leaf =", y.is_leaf, "| y.grad_fn =", y.grad_fn)
        print("x.requires_grad =", x.requires_grad)
    """)
    y = ns["y"]
    out.check("under no_grad: requires_grad, is_leaf, grad_fn", [y.requires_grad, y.is_leaf, y.grad_fn],
              [False, True, None], torch="False True None")
    out.check("x.requires_grad after no_grad", ns["x"].requires_grad, True, torch="True")

    out.section("4. The in-place traps, as they really are")
    out.say("""
        The article says x.add_(1) "destroys the old values needed for backward" and raises
        "a leaf Variable that requires grad is being used in an in-place operation". The
        message is real, but the explanation mixes up two different checks (D2).

        Check 1 — a leaf that requires grad may not be changed in place while grad mode is
        on. It fires AT THE CALL, before any backward, even when nothing saved x:
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
    """)
    out.fails("""
        x.add_(1)
    """, ns, RuntimeError, LEAF_IN_PLACE, what="leaf x.add_(1) in grad mode",
              torch="RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.")
    out.say("""
        Under no_grad() the same call is allowed — it is exactly how every optimizer updates
        its parameters (D15: "keep in-place ops away from leaf tensors" is not the rule;
        SGD.step() does x.sub_(lr * grad) on leaves, under no_grad):
    """)
    ns = out.run("""
        with mg.no_grad():
            x.add_(1)
        print("x =", x.item(), "| is_leaf:", x.is_leaf, "| requires_grad:", x.requires_grad,
              "| _version:", x._version)

        p = mg.Value(1.0, requires_grad=True, label="p")
        (p * 2).backward()                    # p.grad = 2
        optimizer = mg.optim.SGD([p], lr=0.5)
        version_before = p._version
        optimizer.step()                      # p ← p − 0.5·2, in place, under no_grad
        print("after SGD.step(): p =", p.item(), "| p._version", version_before, "->", p._version)
    """, ns)
    x, p = ns["x"], ns["p"]
    out.check("x after add_ under no_grad: value, is_leaf, requires_grad, _version",
              [x.item(), x.is_leaf, x.requires_grad, x._version], [3.0, True, True, 1],
              torch="tensor([3.], requires_grad=True) True True 1")
    out.check("SGD.step(): p and its _version", [p.item(), ns["version_before"], p._version], [0.0, 0, 1],
              torch="p = tensor([0.]) | p._version 0 -> 1")
    out.say("""
        Check 2 — a value that some node SAVED for backward must not change before that
        backward. Each save records the value's version; backward compares. This error comes
        later, AT BACKWARD, and it concerns leaves and non-leaves alike:
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        z = x * x                             # MulBackward0 saves x (at version 0)
        with mg.no_grad():
            x.add_(1)                         # allowed here... (x is now at version 1)
    """)
    out.fails("""
        z.backward()                          # ...but backward needs the x it saved
    """, ns, RuntimeError, MODIFIED, what="backward after changing a saved leaf",
              torch="RuntimeError: one of the variables needed for gradient computation has been modified by an "
                    "inplace operation: … is at version 1; expected version 0 instead.")
    ns = out.run("""
        a = mg.Value(1.0, requires_grad=True, label="a")
        b = a.exp()                           # ExpBackward0 saves its output b
        b.add_(1)                             # no error here: b is not a leaf
    """)
    out.fails("""
        b.backward()
    """, ns, RuntimeError, MODIFIED, what="backward after changing a saved output",
              torch="RuntimeError: … which is output 0 of Exp, is at version 1; expected version 0 instead.")
    out.say("""
        And an in-place op on a non-leaf that nobody saved is simply fine:
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        a = x + 0                             # a non-leaf; AddBackward0 saves nothing
        a.add_(1)
        (a * 3).backward()
        print("x.grad =", x.grad)
    """)
    out.check("in-place on an unsaved non-leaf: x.grad", ns["x"].grad, 3.0, torch="x.grad = tensor([3.])")

    out.section("5. The silent one: .data")
    out.say("""
        Writing through .data bypasses autograd entirely: no version bump, so no error —
        and backward reads the saved value as it is NOW. The gradient is silently wrong:
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        z = x * x                             # dz/dx = 2x = 4 at the forward point
        x.data += 1                           # bypasses autograd: x is 3 now, version still 0
        z.backward()
        print("x.grad =", x.grad, "(the right gradient at the forward point is 4.0)")
    """)
    out.check("x.grad after a .data change", ns["x"].grad, 6.0,
              torch="x.data.add_(1): x.grad = tensor([6., 8.]) for x = [2., 3.] (right: [4., 6.])")
    out.say("""
        The same change made through detach() IS caught, because detach shares the version
        counter. Prefer detach() (or no_grad) to .data:
    """)
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        z = x * x
        x.detach().add_(1)                    # the version counter goes up: backward will notice
    """)
    out.fails("""
        z.backward()
    """, ns, RuntimeError, MODIFIED, what="backward after x.detach().add_(1)",
              torch="RuntimeError: one of the variables needed for gradient computation has been modified by an "
                    "inplace operation …")

    out.diagram(ns["z"], view="autograd")
    return out.done()


if __name__ == "__main__":
    raise SystemExit(main(run))
