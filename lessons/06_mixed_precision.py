"""Lesson 6 — autograd under mixed precision (the article's section 6), emulated bit for bit.

Shows: float16's rounding and range; a 1e-8 gradient underflowing to 0 in float16;
the GradScaler rescuing it (numbers identical to PyTorch's); a step skipped and the
scale backed off on inf/NaN, and grown after clean steps; bfloat16 needing no
scaler (D6); which ops autocast really runs in float16 (D7) and the cast nodes it
adds to the graph (D8); unscale_ before clipping being the documented pattern (D5);
the 2¹⁶ trap of a loss kept in float16 (D17); the deprecated spelling (D4).
"""
from __future__ import annotations

import math

try:
    from ._kit import LessonResult, Story, main
except ImportError:  # run as a script: python lessons/06_mixed_precision.py
    from _kit import LessonResult, Story, main

NUMBER = 6
TITLE = "Mixed precision"
GOAL = "Section 6: fp16 underflow, the GradScaler, skips and back-off, bf16, cast nodes (D4-D8, D17)."

ARTICLE_SECTION_6 = """
scaler = torch.cuda.amp.GradScaler()

with torch.autocast(device_type="cuda", dtype=torch.float16):
    loss = model(x)

scaler.scale(loss).backward()        # scale loss first, then backward
scaler.step(optimizer)               # unscale grads, then update
scaler.update()
"""


def run(out: Story) -> LessonResult:
    out.lesson(NUMBER, TITLE, GOAL)
    out.article(ARTICLE_SECTION_6, "section 6")
    out.say("""
        micrograd2 emulates float16 and bfloat16 exactly: every value is rounded to its dtype
        as the hardware would round it, and every gradient to the dtype of the value it
        belongs to. So the AMP story can be watched number by number on a CPU. The spelling:
        mg.autocast(dtype="float16") and mg.GradScaler(). (The article's
        torch.cuda.amp.GradScaler() still works in PyTorch but is deprecated (D4): "FutureWarning:
        `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use
        `torch.amp.GradScaler('cuda', args...)` instead.")
    """)

    out.section("1. What float16 can hold")
    ns = out.run("""
        print("0.1     in float16 =", mg.Value(0.1, dtype="float16").item())      # 11 significant bits
        print("65504   in float16 =", mg.Value(65504.0, dtype="float16").item())  # the largest float16
        print("65536   in float16 =", mg.Value(65536.0, dtype="float16").item())  # 2¹⁶ does not fit
        print("2**-24  in float16 =", mg.Value(2.0 ** -24, dtype="float16").item())   # the smallest
        print("1e-8    in float16 =", mg.Value(1e-8, dtype="float16").item())     # below it: flushed to 0
        print("1e-8    in bfloat16 =", mg.Value(1e-8, dtype="bfloat16").item())   # float32's range, 8 bits
    """)
    out.check("0.1 in float16", mg_value(ns, 0.1, "float16"), 0.0999755859375, torch="0.0999755859375")
    out.check("65536 in float16", mg_value(ns, 65536.0, "float16"), math.inf, torch="inf (max 65504)")
    out.check("1e-8 in float16", mg_value(ns, 1e-8, "float16"), 0.0, torch="0.0")
    out.check("2**-24 in float16 (smallest subnormal)", mg_value(ns, 2.0 ** -24, "float16"), 5.960464477539063e-08,
              torch="5.96e-08")
    out.check("1e-8 in bfloat16", mg_value(ns, 1e-8, "bfloat16"), 1.0011717677116394e-08,
              torch="1.0011717677116394e-08")

    out.section("2. A small gradient underflows")
    out.say("""
        A float32 parameter w, a matrix product (mg.dot: what every Neuron computes) that
        autocast runs in float16, and a loss whose gradient with respect to w is 1e-8. On the
        way back the gradient passes through the float16 output of the product, is rounded
        to float16 there — and becomes 0.
    """)
    ns = out.run("""
        w = mg.Value(0.5, requires_grad=True, dtype="float32", label="w")   # a float32 parameter
        x = mg.Value(1.0, label="x")

        with mg.autocast(dtype="float16"):
            h = mg.dot([w], [x])            # a matrix product: float16
            loss = mg.sum([h]) * 1e-8       # sum runs in float32: d loss / d w = 1e-8
        print("h:", h.dtype, "| loss:", loss.dtype)

        loss.backward()
        print("w.grad =", w.grad, "(the true gradient is 1e-8)")
    """, trace=True)
    out.check("w.grad without a scaler", ns["w"].grad, 0.0, torch="w.grad = 0.0")
    out.say("""
        The GradScaler multiplies the loss by 2¹⁶ = 65536 before backward, so every gradient
        on the way is 65536 times larger: 6.55e-4 fits in float16. unscale_ (or step) divides
        the parameters' gradients by 65536 again — in float32, where 1e-8 is no problem.
    """)
    ns = out.run("""
        w.grad = None
        optimizer = mg.optim.SGD([w], lr=1.0)
        scaler = mg.GradScaler()

        with mg.autocast(dtype="float16"):
            loss = mg.sum([mg.dot([w], [x])]) * 1e-8
        scaler.scale(loss).backward()       # gradients × 65536
        scaled = w.grad
        print("scaled w.grad   =", scaled)
        scaler.unscale_(optimizer)          # ÷ 65536, in float32
        print("unscaled w.grad =", w.grad)
    """, ns, main=True)
    out.check("scaled w.grad (1e-8·65536 rounded to float16)", ns["scaled"],
              0.0006551742553710938, torch="0.0006551742553710938")
    out.check("unscaled w.grad", ns["w"].grad, 9.997165761888027e-09, torch="9.997165761888027e-09")

    out.section("3. Skipped steps and the dynamic scale")
    out.say("""
        A scale too large makes some gradient overflow to inf (or NaN). scaler.step then
        skips the update — the parameters are not touched — and update() halves the scale.
        After growth_interval clean steps in a row (2000 by default) it doubles it again.
    """)
    ns = out.run("""
        import math

        p = mg.Value(1.0, requires_grad=True, dtype="float32", label="p")
        optimizer = mg.optim.SGD([p], lr=0.1)

        def amp_step(scaler, gradient):
            \"\"\"One step whose true gradient is `gradient`: (did p change?, the scale after).\"\"\"
            optimizer.zero_grad()
            scaler.scale(p * gradient).backward()
            before = p.item()
            scaler.step(optimizer)          # unscale; skip the update if a gradient is inf/nan
            scaler.update()                 # halve the scale after a skip
            return p.item() != before, scaler.get_scale()

        scaler = mg.GradScaler()
        clean, inf1, inf2 = amp_step(scaler, 1.0), amp_step(scaler, math.inf), amp_step(scaler, math.inf)
        print("clean step:", clean, "| inf gradient:", inf1, "| inf again:", inf2)
        nan = amp_step(mg.GradScaler(), math.nan)
        print("nan gradient:", nan)

        grower = mg.GradScaler(init_scale=8.0, growth_interval=3)
        scales = [amp_step(grower, 1.0)[1] for _ in range(6)]
        print("growth_interval=3, scale after each clean step:", scales)
    """)
    out.check("clean step: (updated, scale)", list(ns["clean"]), [True, 65536.0],
              torch="scale 65536.0 -> 65536.0 | params updated: True")
    out.check("inf gradient: (updated, scale)", list(ns["inf1"]), [False, 32768.0],
              torch="scale 65536.0 -> 32768.0 | params updated: False")
    out.check("inf again: (updated, scale)", list(ns["inf2"]), [False, 16384.0],
              torch="scale 32768.0 -> 16384.0 | params updated: False")
    out.check("nan gradient: (updated, scale)", list(ns["nan"]), [False, 32768.0], torch="65536.0 -> 32768.0")
    out.check("growth_interval=3 from 8", ns["scales"], [8.0, 8.0, 16.0, 16.0, 16.0, 32.0],
              torch="8 -> 8 -> 16 (after 3 clean steps) -> 16 -> 16 -> 32")

    out.section("4. bfloat16 needs no scaler")
    out.say("""
        "AMP requires GradScaler" (takeaway 5) holds for float16 only (D6). bfloat16 keeps
        float32's exponent range — it gives up precision, not range — so the same 1e-8
        gradient survives without any scaling:
    """)
    ns = out.run("""
        w = mg.Value(0.5, requires_grad=True, dtype="float32", label="w")
        with mg.autocast(dtype="bfloat16"):
            loss = mg.sum([mg.dot([w], [mg.Value(1.0)])]) * 1e-8
        loss.backward()
        print("bfloat16, no scaler: w.grad =", w.grad)
    """)
    out.check("w.grad in bfloat16 without a scaler", ns["w"].grad, 1.0011717677116394e-08,
              torch="1e-8 -> 1.0012e-08 in bf16")

    out.section("5. What autocast really changes")
    out.say("""
        The article says the forward "runs in FP16" and the graph mechanics are "unchanged".
        Only ops on autocast's low-precision list run in float16: matrix products (mg.dot
        here; matmul, linear, conv in PyTorch). exp, log, sums and every loss run in float32;
        other ops follow their inputs (D7). Parameters keep their own dtype (float64 is the
        scalar engine's default; float32 in PyTorch), and so do their gradients.
    """)
    ns = out.run("""
        model = mg.nn.MLP(2, [3, 1], seed=0)
        with mg.autocast(dtype="float16"):
            y = model([0.5, -1.0])                      # Neurons: mg.dot
            e, s = y.exp(), y.sigmoid()
            loss = mg.nn.functional.mse_loss(y, 0.0)
        print("model output:", y.dtype, "| y.exp():", e.dtype, "| y.sigmoid():", s.dtype, "| loss:", loss.dtype)
        print("a parameter:", model.parameters()[0].dtype)
    """)
    y, loss = ns["y"], ns["loss"]
    out.check("dtype of a matrix product under autocast", y.dtype, "float16", torch="matmul float16")
    out.check("dtype of the loss under autocast", loss.dtype, "float32", torch="mse_loss float32")
    out.check("dtype of sigmoid under autocast (follows its input)", ns["s"].dtype, "float16",
              torch="float16 (follows its input)")
    out.check("dtype of exp under autocast", ns["e"].dtype, "float32",
              torch="float32 on CUDA's autocast list (CPU autocast keeps exp in float16)")
    out.check("parameters keep their dtype", ns["model"].parameters()[0].dtype, "float64",
              torch="weight.dtype = float32 (its own)")
    out.say("""
        And the graph is not unchanged (D8): each cast is an op, so autocast inserts
        ToCopyBackward0 nodes between the parameters' AccumulateGrad and the product
        (PyTorch: between AccumulateGrad and AddmmBackward0). The output neuron's node:
    """)
    ns = out.run("""
        dot = y.grad_fn
        print(dot.name(), "←", [n.name() for n, _ in dot.next_functions])
        print("ToCopyBackward0 ←", [n.name() for n, _ in dot.next_functions[0][0].next_functions])
    """, ns)
    dot = y.grad_fn
    names = [n.name() for n, _ in dot.next_functions]
    first = dot.next_functions[0][0]
    out.check("the product's weight input", [names[0], first.next_functions[0][0].name()],
              ["ToCopyBackward0", "AccumulateGrad"], torch="ToCopyBackward0 > AccumulateGrad")
    out.say("""
        The whole graph of one linear neuron's loss under autocast, casts included:
    """)
    ns = out.run("""
        neuron = mg.nn.Neuron(2, nonlin=False)
        with mg.autocast(dtype="float16"):
            small = mg.nn.functional.mse_loss(neuron([0.5, -1.0]), 0.0)
    """, ns)
    out.tree(ns["small"], "mse_loss(neuron(x), 0) under autocast:")

    out.section("6. The 2¹⁶ trap")
    out.say("""
        The scaler starts at 2¹⁶ = 65536 — which is beyond float16's largest number, 65504.
        If the loss itself is float16 (here y·y, an op that follows its inputs), the very
        first gradient backward sends into it, d(scaled)/d(loss) = 65536, is rounded to
        float16: inf. Step 1 is skipped and the scale halves (D17). The same loss computed
        by mse_loss (which autocast runs in float32) steps normally.
    """)
    ns = out.run("""
        def one_amp_step(make_loss):
            model = mg.nn.MLP(2, [3, 1], seed=0)
            optimizer = mg.optim.SGD(model.parameters(), lr=0.1)
            scaler = mg.GradScaler()
            with mg.autocast(dtype="float16"):
                loss = make_loss(model([0.5, -1.0]))
            scaler.scale(loss).backward()
            finite = all(math.isfinite(p.grad) for p in model.parameters())
            before = [p.item() for p in model.parameters()]
            scaler.step(optimizer)
            scaler.update()
            changed = before != [p.item() for p in model.parameters()]
            return loss.dtype, finite, changed, scaler.get_scale()

        fp16 = one_amp_step(lambda y: y * y)
        fp32 = one_amp_step(lambda y: mg.nn.functional.mse_loss(y, 0.0))
        print("fp16 loss y*y:            dtype, grads finite, params changed, scale =", fp16)
        print("fp32 loss mse_loss(y, 0): dtype, grads finite, params changed, scale =", fp32)
    """, {"math": math})
    out.check("float16 loss: (dtype, grads finite, params changed, scale)", list(ns["fp16"]),
              ["float16", False, False, 32768.0], torch="loss float16, grad nan, params changed: False, scale 32768.0")
    out.check("float32 loss: (dtype, grads finite, params changed, scale)", list(ns["fp32"]),
              ["float32", True, True, 65536.0], torch="loss float32, grads finite, params changed, scale 65536.0")

    out.section("7. Clipping with a scaler: unscale_ first")
    out.say("""
        Takeaway 5 says "do not manually unscale before scaler.step". For clipping you must
        (D5): clip_grad_norm_ has to see the TRUE gradients, not gradients × 65536. The
        documented pattern is unscale_ → clip → step; step knows, and does not unscale
        twice. Only a second unscale_ before update() is an error.
    """)
    ns = out.run("""
        model = mg.nn.MLP(2, [3, 1], seed=0)
        optimizer = mg.optim.SGD(model.parameters(), lr=0.1)
        scaler = mg.GradScaler()
        with mg.autocast(dtype="float16"):
            loss = mg.nn.functional.mse_loss(model([0.5, -1.0]), 0.0)
        scaler.scale(loss).backward()
        scaled_norm = math.sqrt(sum(p.grad ** 2 for p in model.parameters()))
        scaler.unscale_(optimizer)
        norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.1)
        print("gradient norm: scaled", round(scaled_norm, 2), "| after unscale_", round(norm, 4))
    """, {"math": math})
    out.check("scaled norm / unscaled norm", ns["scaled_norm"] / ns["norm"], 65536.0, rel=1e-2,
              torch="18914.08 -> 0.2886 (= 65536×, up to float16 rounding)")
    out.fails("""
        scaler.unscale_(optimizer)          # a second time before update()
    """, ns, RuntimeError, "unscale_() has already been called on this optimizer since the last update().",
              what="a second unscale_",
              torch="RuntimeError: unscale_() has already been called on this optimizer since the last update().")
    ns = out.run("""
        scaler.step(optimizer)              # no second unscale: the gradients stay clipped
        scaler.update()
        clipped = math.sqrt(sum(p.grad ** 2 for p in model.parameters()))
        print("after step + update: gradient norm", round(clipped, 6), "| scale =", scaler.get_scale())
    """, ns)
    out.check("gradient norm after clip and step (not unscaled twice)", ns["clipped"], 0.1, rel=1e-4,
              torch="clip_grad_norm_ → norm ≤ max_norm; step does not unscale twice")
    out.check("scale after step + update", ns["scaler"].get_scale(), 65536.0, torch="OK, scale = 65536.0")

    out.diagram(loss, view="autograd")
    return out.done()


def mg_value(ns: dict, number: float, dtype: str) -> float:
    """``number`` rounded to ``dtype`` by micrograd2 (as printed above)."""
    return ns["mg"].Value(number, dtype=dtype).item()


if __name__ == "__main__":
    raise SystemExit(main(run))
