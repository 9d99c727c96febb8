"""Lesson 7 — the engineering rules (the article's section 7) in one real training run, each broken once.

Shows: a small MLP learning the two moons with every rule in place — zero_grad,
normalized gradient accumulation, a detached target, mixed precision with a
GradScaler, unscale_ before clipping, no_grad evaluation, in-place updates under
no_grad — and then what goes wrong when each rule is broken: stale gradients pile
up, evaluation keeps a graph (D14), an undetached target trains through the target,
unnormalized accumulation doubles the gradient (D16), clipping still-scaled
gradients shrinks the step 65536× (D5), an in-place update in grad mode is refused
while the optimizer's is not (D15).
"""
from __future__ import annotations

try:
    from ._kit import LessonResult, Story, main
except ImportError:  # run as a script: python lessons/07_engineering_rules.py
    from _kit import LessonResult, Story, main

NUMBER = 7
TITLE = "The engineering rules"
GOAL = "Section 7: one training run with every rule in place, then each rule broken once (D5, D14-D16)."

ARTICLE_TAKEAWAYS = """
1. Always optimizer.zero_grad() before each step: Autograd accumulates by default.
2. Use torch.no_grad() for inference/eval: no graph → ~50% activation memory saved, 30-50% faster.
3. Use detach() when crossing branches: target networks, contrastive learning, feature freezing.
4. Gradient accumulation for large-batch simulation: accumulate over micro-batches + normalize loss + step on schedule.
5. AMP requires GradScaler: prevents small-gradient underflow; do not manually unscale before scaler.step.
6. Custom ops via torch.autograd.Function: pair forward/backward, ctx.save_for_backward for intermediates.
7. Keep in-place ops away from leaf tensors: on error, suspect graph corruption.
"""

SETUP = """
import math

X, y = mg.data.make_moons(40, noise=0.1, seed=2)        # 40 points, two classes
labels = [2.0 * c - 1.0 for c in y]                      # hinge loss wants -1 / +1
batches = [list(range(i, i + 10)) for i in range(0, 40, 10)]   # 4 micro-batches of 10 points
accum_steps = 2                                          # 2 micro-batches per optimizer step

def jitter(x, k):                                        # the same point, nudged (deterministically)
    return [x[0] + 0.05 * math.sin(k), x[1] + 0.05 * math.cos(k)]

def micro_loss(model, idx, detach=True):
    scores = [model(X[i]) for i in idx]
    targets = [model(jitter(X[i], i)) for i in idx]      # "what the model says nearby": a target
    if detach:
        targets = [t.detach() for t in targets]          # rule 3: a target is a number, not a branch to train
    return (mg.nn.functional.hinge_loss(scores, [labels[i] for i in idx])
            + 0.1 * mg.nn.functional.mse_loss(scores, targets))

def accuracy(model):
    with mg.no_grad():                                   # rule 2: evaluation records no graph
        return sum((model(x).item() > 0) == (c == 1) for x, c in zip(X, y)) / len(y)

def grad_norm(grads):
    return math.sqrt(sum(g ** 2 for g in grads if g is not None))
"""

TRAINING = """
model = mg.nn.MLP(2, [8, 8, 1], seed=3)
optimizer = mg.optim.Adam(model.parameters(), lr=0.05)
scaler = mg.GradScaler()
initial = accuracy(model)
print("before training: accuracy", initial)

for step in range(24):
    optimizer.zero_grad()                                # rule 1: clear last step's gradients
    for k in range(accum_steps):                         # rule 4: accumulate micro-batches...
        idx = batches[(step * accum_steps + k) % len(batches)]
        with mg.autocast(dtype="float16"):               # rule 5: matrix products in float16
            loss = micro_loss(model, idx) / accum_steps  # ...each normalized
        scaler.scale(loss).backward()                    # rule 5: scale the loss, then backward
    scaler.unscale_(optimizer)                           # rule 5: true gradients before clipping
    norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)                               # rule 7: in-place updates of leaves, under no_grad
    scaler.update()
    if step % 8 == 7:
        print(f"step {step + 1:2d}: loss {loss.item() * accum_steps:.4f}  grad norm {norm:.3f}  "
              f"accuracy {accuracy(model):.3f}  scale {scaler.get_scale():.0f}")
"""


def run(out: Story) -> LessonResult:
    out.lesson(NUMBER, TITLE, GOAL)
    out.article(ARTICLE_TAKEAWAYS, "section 7, the takeaways")

    out.section("1. One training run, every rule in place")
    out.say("""
        Two interleaving moons, 40 points; an MLP with two hidden layers of 8 ReLU units,
        micrograd's hinge loss, plus a small consistency term that pulls each prediction
        toward the model's own prediction at a nudged copy of the point — a target, as in
        target networks and contrastive learning. The helpers first:
    """)
    ns = out.run(SETUP)
    out.say("""
        The loop: 24 optimizer steps, each over 2 micro-batches, in mixed precision.
        Rule 6 (custom Functions) is lesson 5's subject; everything else is here.
    """)
    out.run(TRAINING, ns)
    final = ns["accuracy"](ns["model"])
    out.expect(f"the model learned: accuracy {ns['initial']} → ≥ 0.9", final >= 0.9 and final > ns["initial"],
               final, torch="(no PyTorch number: a property of this run)")
    out.check("no step skipped: the scale stayed at 2¹⁶", ns["scaler"].get_scale(), 65536.0,
              torch="GradScaler init_scale 65536.0")

    out.section("2. Rule 1 broken: no zero_grad()")
    out.say("""
        Without zero_grad, each backward adds to what the last step left. autograd.grad
        (lesson 8) shows what the current batch alone says; .grad is the sum of all of them:
    """)
    ns = out.run("""
        model = mg.nn.MLP(2, [8, 8, 1], seed=3)
        params = model.parameters()
        optimizer = mg.optim.SGD(params, lr=0.1)
        fresh_sum = [0.0] * len(params)
        for step in range(4):
            loss = micro_loss(model, batches[step])
            fresh = mg.autograd.grad(loss, params, retain_graph=True)   # this batch's gradient
            loss.backward()                                             # no zero_grad: added to .grad
            fresh_sum = [s + g for s, g in zip(fresh_sum, fresh)]
            print(f"step {step + 1}: this batch's gradient norm {grad_norm(fresh):.3f}"
                  f" | norm of .grad {grad_norm(p.grad for p in params):.3f}")
            optimizer.step()
    """, ns)
    params = ns["params"]
    out.check(".grad after 4 steps = the sum of the 4 batch gradients", [p.grad for p in params],
              ns["fresh_sum"], rel=1e-9, torch="backward accumulates (block 3: 3 + 3 + 3 = 9)")

    out.section("3. Rule 2 broken: evaluating in grad mode")
    out.say("""
        Evaluation in grad mode records a graph for every prediction, saved values and all,
        and keeps it as long as the predictions live. Under no_grad nothing is recorded. How
        much that saves depends on the model (D14: the article promises "~50% memory, 30-50%
        faster"; PyTorch measured 6% faster for a 6×1024 MLP and 39% for a tiny one).
    """)
    ns = out.run("""
        import time

        def graph_size(outputs):                         # count the grad_fn nodes the outputs keep alive
            seen, stack = set(), [o.grad_fn for o in outputs if o.grad_fn is not None]
            while stack:
                node = stack.pop()
                if node not in seen:
                    seen.add(node)
                    stack.extend(n for n, _ in node.next_functions if n is not None)
            return len(seen)

        start = time.perf_counter()
        tracked = [model(x) for x in X]
        grad_mode_time = time.perf_counter() - start
        start = time.perf_counter()
        with mg.no_grad():
            untracked = [model(x) for x in X]
        no_grad_time = time.perf_counter() - start
        print("graph nodes kept: in grad mode", graph_size(tracked), "| under no_grad", graph_size(untracked))
        print(f"time here: no_grad takes {no_grad_time / grad_mode_time:.0%} of grad mode's (varies run to run)")
    """, ns)
    out.expect("evaluation in grad mode keeps a graph", ns["graph_size"](ns["tracked"]) > 0,
               ns["graph_size"](ns["tracked"]), torch="12 MiB of activations kept for a 6×1024 MLP")
    out.check("evaluation under no_grad keeps none", ns["graph_size"](ns["untracked"]), 0, torch="0 B")

    out.section("4. Rule 3 broken: a target that is not detached")
    out.say("""
        The consistency target must act as a fixed number. Detached, the gradient is exactly
        the one we get by writing the targets down as plain numbers. Not detached, backward
        also runs through the target branch and moves the target toward the prediction —
        the collapse that target networks and stop-gradients exist to prevent.
    """)
    ns = out.run("""
        def consistency_grads(targets_as):
            model.zero_grad()
            idx = batches[0]
            scores = [model(X[i]) for i in idx]
            targets = [model(jitter(X[i], i)) for i in idx]
            if targets_as == "detached":
                targets = [t.detach() for t in targets]
            elif targets_as == "numbers":
                targets = [t.item() for t in targets]
            mg.nn.functional.mse_loss(scores, targets).backward()
            return [p.grad for p in model.parameters()]

        detached, numbers, attached = (consistency_grads(a) for a in ("detached", "numbers", "attached"))
        print("gradient norm: detached", round(grad_norm(detached), 6), "| plain numbers",
              round(grad_norm(numbers), 6), "| not detached", round(grad_norm(attached), 6))
    """, ns)
    out.say("""
        Watch it on a tiny model and one point: the detached target enters the loss as a
        leaf that needs no gradient, so the walk never goes down the target's branch.
    """)
    ns = out.run("""
        tiny = mg.nn.MLP(2, [2, 1], seed=1)
        score = tiny(X[0])
        target = tiny(jitter(X[0], 0)).detach()
        target.label = "target"
        tiny_loss = (score - target) ** 2
        tiny_loss.backward()
    """, ns, main=True)
    out.check("the target's branch got no gradient", ns["target"].grad, None, torch="detach(): no grad_fn, no .grad")
    out.check("detached target = a constant target", ns["detached"], ns["numbers"], rel=1e-12,
              torch="detach(): no gradient flows into the target branch")
    out.expect("an undetached target changes the gradient", ns["attached"] != ns["numbers"],
               round(ns["grad_norm"](ns["attached"]), 6), torch="the target branch gets gradients too")

    out.section("5. Rule 4 broken: accumulating without normalizing")
    ns = out.run("""
        def first_step_norm(normalize):
            model.zero_grad()
            for idx in batches[:accum_steps]:
                loss = micro_loss(model, idx)
                (loss / accum_steps if normalize else loss).backward()
            return grad_norm(p.grad for p in model.parameters())

        print("gradient norm: normalized", round(first_step_norm(True), 6),
              "| not normalized", round(first_step_norm(False), 6))
    """, ns)
    out.check("not normalized / normalized", ns["first_step_norm"](False) / ns["first_step_norm"](True), 2.0,
              rel=1e-9, torch="accum_steps× larger (D16)")
    out.say("""
        Same batch, twice the gradient: a silently doubled learning rate (lesson 3, D16).
    """)

    out.section("6. Rule 5 broken: clipping before unscale_")
    out.say("""
        Clip the gradients while they are still multiplied by the scale, and clip_grad_norm_
        sees a norm 65536 times too large: it shrinks them to max_norm, and unscale_ then
        divides by 65536 again. The step is 65536 times too small, silently (D5: unscale_
        BEFORE clipping is the documented pattern).
    """)
    ns = out.run("""
        def clipped_norm(unscale_first):
            model = mg.nn.MLP(2, [8, 8, 1], seed=3)
            optimizer = mg.optim.SGD(model.parameters(), lr=0.1)
            scaler = mg.GradScaler()
            with mg.autocast(dtype="float16"):
                loss = micro_loss(model, batches[0])
            scaler.scale(loss).backward()
            if unscale_first:
                scaler.unscale_(optimizer)
            mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.01)
            if not unscale_first:
                scaler.unscale_(optimizer)
            return grad_norm(p.grad for p in model.parameters())

        right, wrong = clipped_norm(True), clipped_norm(False)
        print("gradient norm the step uses: unscale_ then clip", right, "| clip then unscale_", wrong)
    """, ns)
    out.check("unscale_ then clip: the norm is max_norm", ns["right"], 0.01, rel=1e-4,
              torch="clip_grad_norm_ after unscale_ (0.2886 → clipped)")
    out.check("clip then unscale_: max_norm / 65536", ns["wrong"] * 65536, 0.01, rel=1e-3,
              torch="(the scale is 2¹⁶)")

    out.section("7. Rule 7, as it really is")
    out.say("""
        "Keep in-place ops away from leaf tensors" (D15): every optimizer step IS an in-place
        op on leaves — under no_grad. What is refused is the same update in grad mode:
    """)
    ns = out.run("""
        model = mg.nn.MLP(2, [8, 8, 1], seed=3)
        micro_loss(model, batches[0]).backward()
        w = model.parameters()[0]
    """, ns)
    out.fails("""
        w.sub_(0.1 * w.grad)                              # a hand-written SGD step, in grad mode
    """, ns, RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation",
              what="an in-place update of a parameter in grad mode",
              torch="RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.")
    ns = out.run("""
        with mg.no_grad():
            w.sub_(0.1 * w.grad)                          # what optimizer.step() does
        print("under no_grad: done | w._version =", w._version, "| still a leaf:", w.is_leaf)
    """, ns)
    out.check("the update under no_grad: (_version, is_leaf)", [ns["w"]._version, ns["w"].is_leaf], [1, True],
              torch="SGD.step(): p._version 0 -> 1")

    out.say("""
        micrograd2 train runs this same loop on any of the generated datasets (micro-batches,
        accumulation, clipping, --amp), with a progress bar.
    """)
    out.diagram(ns["tiny_loss"], view="autograd")
    return out.done()


if __name__ == "__main__":
    raise SystemExit(main(run))
