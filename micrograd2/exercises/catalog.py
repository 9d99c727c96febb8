"""The list of classroom exercises: number, module, title, lesson, goal and hints (in increasing detail).

Each exercise ``N`` has one solution-bearing source, ``sources/exNN_name.py``
(the stub a student gets is made from it by ``stubs.py``), and one pristine
test file, ``tests/test_exNN_name.py``, marked ``exN`` for pytest.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources"
TESTS = HERE / "tests"
PYTEST_INI = HERE / "pytest.ini"
README_TEMPLATE = HERE / "WORKSPACE_README.md"


@dataclass(frozen=True)
class Exercise:
    """One exercise: what the student writes, after which lesson, and hints from gentle to explicit."""

    number: int
    name: str  # the module the student edits, e.g. "ex01_mul_sum"
    title: str
    lesson: int
    goal: str
    hints: tuple[str, ...]

    @property
    def marker(self) -> str:
        """The pytest marker of its tests: ``pytest -m ex3``."""
        return f"ex{self.number}"

    @property
    def filename(self) -> str:
        return f"{self.name}.py"

    @property
    def source(self) -> Path:
        """The solution-bearing source (never copied to a workspace as it is)."""
        return SOURCES / self.filename

    @property
    def test_file(self) -> Path:
        """The pristine tests the grader runs."""
        return TESTS / f"test_{self.filename}"

    @property
    def test_count(self) -> int:
        """How many tests its pristine test file holds."""
        lines = self.test_file.read_text(encoding="utf-8").splitlines()
        return sum(line.startswith("def test_") for line in lines)


EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        1, "ex01_mul_sum", "Mul and Sum as Functions", 2,
        "write the forward and backward of a product and of an n-input sum",
        (
            "forward receives plain floats and returns a float; backward receives the upstream "
            "gradient and returns one gradient per forward input, in the same order.",
            "For z = a·b the chain rule gives ∂L/∂a = ∂L/∂z · b and ∂L/∂b = ∂L/∂z · a, so backward "
            "needs a and b: keep them with ctx.save_for_backward(a, b) in forward.",
            "Mul.backward: `a, b = ctx.saved_tensors; return grad * b, grad * a`.  Sum.forward: remember "
            "how many inputs there were (`ctx.n = len(xs)`); Sum.backward: `return (grad,) * ctx.n` — "
            "a sum passes the upstream gradient unchanged to every term.",
        ),
    ),
    Exercise(
        2, "ex02_activations", "Tanh, Exp and Sigmoid backward", 2,
        "write the backward of three activations from their saved outputs",
        (
            "Each forward saved its own output (t, e or s).  The derivative of each of these "
            "functions can be written with the output alone.",
            "In terms of the saved outputs: with t = tanh(x), d t/dx = 1 − t²; with e = eˣ, d e/dx = e; "
            "with s = σ(x), d s/dx = s·(1 − s).  No need to compute tanh, exp or σ again: multiply the "
            "upstream gradient by these (the chain rule).",
            "Tanh.backward: `(t,) = ctx.saved_tensors; return grad * (1 - t * t)`; Exp: `return grad * e`; "
            "Sigmoid: `return grad * s * (1 - s)`.",
        ),
    ),
    Exercise(
        3, "ex03_topo_order", "Reverse topological order, without recursion", 2,
        "order the graph's nodes so that each comes after all its consumers, on a 10^5-deep chain too",
        (
            "A node may be visited only when every node that uses it (every consumer) has been visited: "
            "count, for each node, how many edges of next_functions point at it.",
            "Kahn's algorithm: a first walk with an explicit stack counts the incoming edges of every "
            "reachable node; then start from root.grad_fn and emit a node when its count drops to 0.  "
            "A Python list as a stack (append/pop) replaces recursion.",
            "counts = {}; stack = [root.grad_fn]; seen = {root.grad_fn} — for each popped node, for each "
            "(nxt, _) in node.next_functions with nxt not None: counts[nxt] += 1 and push it if unseen.  "
            "Then ready = [root.grad_fn]; while ready: node = ready.pop(); order.append(node); for each "
            "nxt: counts[nxt] -= 1; if counts[nxt] == 0: ready.append(nxt).",
        ),
    ),
    Exercise(
        4, "ex04_backprop", "Backpropagation by hand", 2,
        "walk the nodes in order, call each node's backward and add up the gradients",
        (
            "Keep a dictionary node → gradient received so far, starting with {root.grad_fn: 1.0}.  "
            "A node's gradient is complete when the walk reaches it.",
            "A node used twice (x * x, or a non-leaf h used by two ops) receives one gradient per use: "
            "they must be ADDED (+=), not assigned (=).  A leaf's .grad accumulates across backward calls too.",
            "for node in order: g = grads.pop(node, None); skip if None; if node.name() == 'AccumulateGrad': "
            "leaf = node.variable; leaf.grad = g if leaf.grad is None else leaf.grad + g; else: for "
            "(nxt, _), gi in zip(node.next_functions, local_backward(node, g)): if nxt is not None and gi is "
            "not None: grads[nxt] = grads.get(nxt, 0.0) + gi.",
        ),
    ),
    Exercise(
        5, "ex05_grad_accumulation", "Gradient accumulation over micro-batches", 3,
        "fill .grad with the full-batch gradient, one micro-batch graph at a time",
        (
            "backward() adds into .grad: run it once per micro-batch and the gradients sum up.  Start "
            "from clean gradients (p.grad = None).",
            "The batch loss is a mean over all samples; each micro-batch's loss is a mean over its own "
            "samples, so it counts for 1/n_micro of the batch loss.",
            "size = len(batch) // n_micro; for k in range(n_micro): loss = loss_fn(batch[k*size:(k+1)*size]) "
            "/ n_micro; loss.backward(); total += loss.item(); return total.",
        ),
    ),
    Exercise(
        6, "ex06_detach_target", "A detached target network", 4,
        "compute TD targets that no gradient flows through, and update the target network in place",
        (
            "The target y = r + γ·max Q_target(s′) is a constant for the loss: gradients must reach the "
            "online network only, never the target network.",
            "Compute the target under `with mg.no_grad():` (or call .detach() on it).  For soft_update, "
            "in-place ops on parameters that require grad are only allowed under no_grad.",
            "td_loss: `with mg.no_grad(): y = r + (0 if done else gamma * target_net(s2))`; then "
            "`(q_net(s) - y) ** 2`, averaged.  soft_update: `with mg.no_grad(): for pt, p in zip(...): "
            "pt.mul_(1 - tau).add_(tau * p.data)`.",
        ),
    ),
    Exercise(
        7, "ex07_custom_function", "Custom Functions that pass gradcheck", 5,
        "write SquareAndDouble (the article's block 5) and Hypot, and check them with gradcheck",
        (
            "forward gets floats; save what backward needs with ctx.save_for_backward (inputs or the "
            "output you return).  backward returns one gradient per input.",
            "d(2x²)/dx = 4x.  For h = √(a² + b²): ∂h/∂a = a/h and ∂h/∂b = b/h — save a, b and the output h.",
            "SquareAndDouble: `ctx.save_for_backward(x); return 2 * x * x` and `(x,) = ctx.saved_tensors; "
            "return grad * 4 * x`.  Hypot: `h = math.hypot(a, b); ctx.save_for_backward(a, b, h); return h` "
            "and `a, b, h = ctx.saved_tensors; return grad * a / h, grad * b / h`.",
        ),
    ),
    Exercise(
        8, "ex08_grad_scaler", "A minimal GradScaler", 6,
        "unscale gradients, skip steps with inf/NaN gradients, and adapt the loss scale",
        (
            "unscale_ divides every gradient by the scale and remembers whether one was inf or NaN; "
            "step unscales (unless already done) and calls optimizer.step() only if all were finite; "
            "update adapts the scale.",
            "update: after a skipped step multiply the scale by backoff_factor and restart the count of "
            "clean steps; after growth_interval clean steps in a row multiply it by growth_factor.  Then "
            "forget this iteration's state (unscaled? found inf?).",
            "unscale_: if self._unscaled: raise RuntimeError('unscale_() has already been called on this "
            "optimizer since the last update().'); inv = 1 / self._scale; for p in parameters_of(optimizer): "
            "if p.grad is not None: p.grad = p.grad * inv; found_inf |= not math.isfinite(p.grad).",
        ),
    ),
    Exercise(
        9, "ex09_train_moons", "A training loop on two moons", 7,
        "write train_step and fit so that an MLP separates two moons (95% accuracy)",
        (
            "One step: clear the gradients, compute the loss, backward, optimizer step.  Forgetting the "
            "first part makes the gradients of all past steps pile up.",
            "optimizer.zero_grad() (or model.zero_grad()) must come before loss.backward(), "
            "optimizer.step() after it.  fit builds one SGD optimizer and calls train_step `steps` times.",
            "train_step: `optimizer.zero_grad(); loss = moons_loss(model, X, y); loss.backward(); "
            "optimizer.step(); return loss.item()`.  fit: `opt = mg.optim.SGD(model.parameters(), lr=lr); "
            "return [train_step(model, opt, X, y) for _ in range(steps)]`.",
        ),
    ),
)

NUMBERS = tuple(e.number for e in EXERCISES)


def get(number: int) -> Exercise:
    """Exercise ``number``; ``KeyError`` naming the valid numbers if there is none."""
    for exercise in EXERCISES:
        if exercise.number == number:
            return exercise
    raise KeyError(f"there is no exercise {number}; valid numbers: {valid_numbers()}")


def valid_numbers() -> str:
    """The valid exercise numbers, as ``1-9``."""
    return f"{NUMBERS[0]}-{NUMBERS[-1]}" if NUMBERS == tuple(range(NUMBERS[0], NUMBERS[-1] + 1)) \
        else ", ".join(map(str, NUMBERS))


def hint(number: int, level: int = 1) -> str:
    """Hint ``level`` (from 1, gentle, to the last, nearly the solution) of exercise ``number``."""
    hints = get(number).hints
    if not 1 <= level <= len(hints):
        raise IndexError(f"exercise {number} has hints 1-{len(hints)}, not {level}")
    return hints[level - 1]
