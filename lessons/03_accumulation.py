"""Lesson 3 — gradients accumulate (the article's block 3), and gradient accumulation for large batches.

Shows: three backward passes add up in ``.grad``; the article's accumulation snippet
as written dies with ``NameError: name 'step' is not defined`` (D3); the fixed loop;
normalized micro-batches give exactly the full-batch gradient, unnormalized ones
``accum_steps``× it, with the same batch size (D16); a trailing partial group is never
stepped; ``zero_grad()`` sets ``.grad`` to ``None``, not zero (D18).
"""
from __future__ import annotations

try:
    from ._kit import LessonResult, Story, main
except ImportError:  # run as a script: python lessons/03_accumulation.py
    from _kit import LessonResult, Story, main

NUMBER = 3
TITLE = "Gradients accumulate"
GOAL = "Block 3 and the accumulation snippet: NameError (D3), normalizing (D16), zero_grad sets None (D18)."

ARTICLE_BLOCK_3 = """
x = torch.tensor([2.0], requires_grad=True)
w = torch.tensor([3.0], requires_grad=True)

for i in range(3):
    z = (x * w).sum()
    z.backward()          # grads are ACCUMULATED into .grad by default

print("x.grad =", x.grad)   # tensor([9.]), i.e., 3+3+3
print("w.grad =", w.grad)   # tensor([6.]), i.e., 2+2+2
"""

# The article's snippet, exactly as published: it is run below, unchanged.
ARTICLE_SNIPPET = """
# Gradient accumulation to simulate a large batch
optimizer.zero_grad()
for micro_batch in loader:
    loss = model(micro_batch)
    loss = loss / accum_steps          # normalize, otherwise effective batch grows
    loss.backward()
    if (step + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
"""


def run(out: Story) -> LessonResult:
    out.lesson(NUMBER, TITLE, GOAL)

    out.section("1. backward() adds, it does not overwrite")
    out.article(ARTICLE_BLOCK_3, "block 3")
    ns = out.run("""
        x = mg.Value(2.0, requires_grad=True, label="x")
        w = mg.Value(3.0, requires_grad=True, label="w")

        for i in range(3):
            z = x * w
            z.backward()          # adds dz/dx = 3 into x.grad, dz/dw = 2 into w.grad

        print("x.grad =", x.grad)   # 3 + 3 + 3
        print("w.grad =", w.grad)   # 2 + 2 + 2
    """, main=True)
    out.check("x.grad after 3 backwards", ns["x"].grad, 9.0, torch="tensor([9.])")
    out.check("w.grad after 3 backwards", ns["w"].grad, 6.0, torch="tensor([6.])")
    out.say("""
        The narration shows it: each AccumulateGrad step reads the old .grad and adds.
        That is why a training loop clears the gradients before each step — and why it
        can also choose NOT to, to add up several micro-batches into one step.
    """)

    out.section("2. The article's accumulation snippet, run as written")
    out.article(ARTICLE_SNIPPET, "section 3, engineering note")
    out.say("""
        To run it we need what it assumes: a model that returns the loss of a micro-batch,
        a loader, an optimizer and accum_steps. Here: a line y = w·x + b fitted to 16
        points, served as 8 micro-batches of 2.
    """)
    ns = out.run("""
        points = [(i / 8, 2 * i / 8 + 1 + 0.1 * (-1) ** i) for i in range(16)]   # y ≈ 2x + 1
        w = mg.Value(0.5, requires_grad=True, label="w")
        b = mg.Value(0.0, requires_grad=True, label="b")

        def model(batch):                       # the loss of one (micro-)batch: mean squared error
            return mg.nn.functional.mse_loss([w * x + b for x, _ in batch], [y for _, y in batch])

        loader = [points[i:i + 2] for i in range(0, 16, 2)]    # 8 micro-batches of 2 points
        optimizer = mg.optim.SGD([w, b], lr=0.1)
        accum_steps = 4
    """)
    out.fails(ARTICLE_SNIPPET, ns, NameError, "name 'step' is not defined", what="the snippet as written",
              torch="NameError: name 'step' is not defined")
    out.check("the error came after the first loss.backward(): w.grad is set", ns["w"].grad is not None, True,
              torch="raised after the first loss.backward()")
    out.say("""
        The loop never defines step (D3). It needs enumerate: for step, micro_batch in
        enumerate(loader). Fixed, and counting the optimizer steps:
    """)
    out.run("""
        steps_taken = 0
        optimizer.zero_grad()
        for step, micro_batch in enumerate(loader):
            loss = model(micro_batch)
            loss = loss / accum_steps          # each micro-batch counts 1/accum_steps of the big batch
            loss.backward()
            if (step + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
                steps_taken += 1
        print("micro-batches:", len(loader), "| optimizer steps:", steps_taken)
    """, ns)
    out.check("optimizer steps for 8 micro-batches, accum_steps 4", ns["steps_taken"], 2,
              torch="optimizer steps taken = 2")

    out.section("3. Why divide by accum_steps")
    out.say("""
        The article's comment says: normalize, "otherwise effective batch grows". The batch is
        the same either way (D16). What changes is the gradient's SIZE: the loss of each
        micro-batch is a mean over its own points, so adding 4 of them gives 4 times the
        mean. Divided by accum_steps, the sum of micro-batch gradients IS the gradient of
        the full batch; undivided it is accum_steps times larger — as if the learning rate
        were 4 times larger. Compare with one batch of the same 8 points:
    """)
    ns = out.run("""
        def grads(batches, divide):
            optimizer.zero_grad()
            for batch in batches:
                loss = model(batch)
                (loss / accum_steps if divide else loss).backward()
            return [w.grad, b.grad]

        full = grads([points[:8]], divide=False)            # one batch of 8 points
        normalized = grads(loader[:4], divide=True)         # 4 micro-batches of 2, loss / 4
        unnormalized = grads(loader[:4], divide=False)      # the same without / 4
        print("full batch   [dw, db] =", full)
        print("normalized   [dw, db] =", normalized)
        print("unnormalized [dw, db] =", unnormalized)
        print("unnormalized / full   =", [round(u / f, 12) for u, f in zip(unnormalized, full)])
    """, ns)
    full, normalized, unnormalized = ns["full"], ns["normalized"], ns["unnormalized"]
    out.check("normalized accumulation = full-batch gradient", normalized, full, rel=1e-12,
              torch="equal (max abs diff 5.96e-08 in float32)")
    out.check("unnormalized / full", [u / f for u, f in zip(unnormalized, full)], [4.0, 4.0], rel=1e-12,
              torch="accum_steps× larger")
    out.say("""
        One more trap of the pattern: micro-batches left over at the end (5 micro-batches with
        accum_steps 4) are never stepped. Their gradient waits in .grad.
    """)
    out.run("""
        steps_taken = 0
        optimizer.zero_grad()
        for step, micro_batch in enumerate(loader[:5]):
            loss = model(micro_batch) / accum_steps
            loss.backward()
            if (step + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
                steps_taken += 1
        print("steps:", steps_taken, "| gradient left in w.grad:", w.grad)
    """, ns)
    out.check("steps for 5 micro-batches", ns["steps_taken"], 1, torch="steps = 1")
    out.check("leftover gradient", ns["w"].grad is not None and ns["w"].grad != 0.0, True,
              torch="leftover grad non-zero: True")

    out.section("4. zero_grad() sets .grad to None")
    out.say("""
        The article's takeaway 1 says zero_grad "zeros" the gradients. By default it sets them
        to None (D18), as PyTorch does: no memory kept, and the next backward simply writes a
        fresh gradient. zero_grad(set_to_none=False) writes zeros instead.
    """)
    out.run("""
        optimizer.zero_grad()
        cleared = w.grad
        print("after zero_grad():", w.grad, b.grad)

        model(loader[0]).backward()
        optimizer.zero_grad(set_to_none=False)
        print("after zero_grad(set_to_none=False):", w.grad, b.grad)
    """, ns)
    out.check("zero_grad(): w.grad", ns["cleared"], None, torch="p.grad = None")
    out.check("zero_grad(set_to_none=False): w.grad", ns["w"].grad, 0.0, torch="tensor([0.])")

    out.diagram(ns["model"](ns["loader"][0]), view="autograd")
    return out.done()


if __name__ == "__main__":
    raise SystemExit(main(run))
