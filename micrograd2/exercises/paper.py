"""U0, on paper: small random graphs whose gradients a student works out by hand, and forward
vs reverse mode, counted.

Gradients (exercise ``u0_gradients``):

* ``generate(seed)``: a seeded random scalar ``Graph`` — three leaves, four to six ops among
  ``+ * tanh exp **``, one op's value used by two ops (so its gradient is a sum) — kept only when
  its numbers are pleasant and every likely mistake gives a visibly different answer;
* ``gradients(graph)``: dL/dv for every value v, computed with micrograd2's ``Value`` and checked
  against ``finite_differences(graph)`` (central differences, each value nudged in turn);
* ``diagnose(graph, got)``: the first gradient, from L back, that does not follow from the
  student's own gradients after it, and the likely mistake (a use left out, a sign, the output
  used for the input, the upstream gradient forgotten);
* ``worksheet(graph, solved)``: the text of the student's file, the graph as Python lines
  ``d = a * b`` with their values, and ``dL["d"] = ...`` to fill in.

Forward vs reverse mode (exercise ``u0_modes``): ``random_function`` draws f: R^n -> R^m;
``forward_mode`` runs it on ``Dual`` numbers, one pass per input, ``reverse_mode`` on ``Value``,
one backward pass per output; each returns the Jacobian with the passes and operations counted.

``python -m micrograd2.exercises.paper SEED`` prints a fresh worksheet for more practice.
"""
from __future__ import annotations

import functools
import math
import random
import sys
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import micrograd2 as mg

BINARY = ("add", "mul")
UNARY = ("tanh", "exp", "pow")
LEAF_VALUES = (-2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0)
INNER_NAMES = "dfghkmnpqrs"  # no e (exp), i, j, l or o: a worksheet is read by eye
OUTPUT = "L"
DEFAULT_SEED = 4  # all five kinds of op, and g used by a product and a sum
REL_TOL, ABS_TOL = 1e-2, 2e-3  # a hand-rounded answer to three or four digits passes
SEPARATION = 5.0  # a likely mistake is kept this many tolerances away from the right answer
STEP = 1e-5  # of the central differences


@dataclass(frozen=True)
class Op:
    """One line of a graph: ``name = kind(args)``; a leaf holds ``value``, a ``pow`` its
    ``exponent``."""

    name: str
    kind: str  # "leaf", "add", "mul", "tanh", "exp" or "pow"
    args: tuple[str, ...] = ()
    value: float = 0.0
    exponent: int = 2

    def expression(self) -> str:
        """The right-hand side as Python: ``a * b``, ``tanh(d)``, ``g ** 2``, ``1.5``."""
        if self.kind == "leaf":
            return repr(self.value)
        if self.kind in BINARY:
            return f" {'+' if self.kind == 'add' else '*'} ".join(self.args)
        if self.kind == "pow":
            return f"{self.args[0]} ** {self.exponent}"
        return f"{self.kind}({self.args[0]})"


@dataclass(frozen=True)
class Graph:
    """Ops in forward order (leaves first); ``outputs`` names the values differentiated."""

    seed: int
    ops: tuple[Op, ...]
    outputs: tuple[str, ...] = (OUTPUT,)

    @property
    def names(self) -> list[str]:
        return [op.name for op in self.ops]

    @property
    def leaves(self) -> list[str]:
        return [op.name for op in self.ops if op.kind == "leaf"]

    def uses(self, name: str) -> list[tuple[Op, int]]:
        """Every use of value ``name``: (the op that reads it, at which argument position)."""
        return [(op, i) for op in self.ops for i, arg in enumerate(op.args) if arg == name]

    def shared(self) -> list[str]:
        """Values read by two or more different ops: their gradient is a sum over the uses."""
        return [n for n in self.names if len({op.name for op, _ in self.uses(n)}) >= 2]


# -- evaluating -------------------------------------------------------------------------------
def apply(kind: str, xs: Sequence[float], exponent: int = 2) -> float:
    """One op on plain floats."""
    if kind == "add":
        return xs[0] + xs[1]
    if kind == "mul":
        return xs[0] * xs[1]
    if kind == "tanh":
        return math.tanh(xs[0])
    if kind == "exp":
        return math.exp(xs[0])
    if kind == "pow":
        return float(xs[0] ** exponent)
    raise ValueError(f"unknown op kind {kind!r}")


def forward(graph: Graph, held: Mapping[str, float] | None = None) -> dict[str, float]:
    """Every value of ``graph`` as floats; ``held`` pins values (their ops are not evaluated:
    what nudging one value with all its inputs fixed means)."""
    held = held or {}
    values: dict[str, float] = {}
    for op in graph.ops:
        if op.name in held:
            values[op.name] = held[op.name]
        elif op.kind == "leaf":
            values[op.name] = op.value
        else:
            values[op.name] = apply(op.kind, [values[a] for a in op.args], op.exponent)
    return values


def local(graph: Graph, values: Mapping[str, float], op: Op, position: int) -> float:
    """∂op/∂(its argument at ``position``), from the forward ``values``."""
    xs = [values[a] for a in op.args]
    if op.kind == "add":
        return 1.0
    if op.kind == "mul":
        return xs[1 - position]
    if op.kind == "tanh":
        return 1.0 - values[op.name] ** 2
    if op.kind == "exp":
        return values[op.name]
    return float(op.exponent * xs[0] ** (op.exponent - 1))


def local_text(op: Op) -> str:
    """∂op/∂(argument) as the worksheet writes it: ``b``, ``(1 - g ** 2)``, ``2 * d``."""
    if op.kind == "add":
        return "1"
    if op.kind == "mul":
        return "{other}"
    if op.kind == "tanh":
        return f"(1 - {op.name} ** 2)"
    if op.kind == "exp":
        return op.name
    power = op.exponent - 1
    return f"{op.exponent} * {op.args[0]}" + (f" ** {power}" if power > 1 else "")


def gradients(graph: Graph) -> dict[str, float]:
    """dL/dv for every value v of ``graph`` (one output), by micrograd2's ``Value``: leaves'
    ``.grad`` and, through ``retain_grad()``, every other value's."""
    (output,) = graph.outputs
    built = build_values(graph)
    for op in graph.ops:
        if op.kind != "leaf":
            built[op.name].retain_grad()
    built[output].backward()
    return {name: float(v.grad) if v.grad is not None else 0.0 for name, v in built.items()}


def build_values(graph: Graph) -> dict[str, mg.Value]:
    """The graph built of ``Value``s, every leaf requiring grad."""
    built: dict[str, mg.Value] = {}
    for op in graph.ops:
        if op.kind == "leaf":
            built[op.name] = mg.Value(op.value, requires_grad=True, label=op.name)
            continue
        xs = [built[a] for a in op.args]
        if op.kind == "add":
            built[op.name] = xs[0] + xs[1]
        elif op.kind == "mul":
            built[op.name] = xs[0] * xs[1]
        elif op.kind == "tanh":
            built[op.name] = xs[0].tanh()
        elif op.kind == "exp":
            built[op.name] = xs[0].exp()
        else:
            built[op.name] = xs[0] ** op.exponent
    return built


def by_hand(graph: Graph, values: Mapping[str, float]) -> dict[str, float]:
    """dL/dv for every value v the way the worksheet asks for them: from L back, each the sum over
    its uses (``formula``), in plain floats (``generate`` tries many graphs; ``gradients`` is the
    answer the tests grade with)."""
    (output,) = graph.outputs
    grads = {output: 1.0}
    for name in reversed(graph.names[:-1]):
        grads[name] = sum(term(graph, values, grads, use) for use in graph.uses(name))
    return grads


def finite_differences(graph: Graph, step: float = STEP) -> dict[str, float]:
    """dL/dv for every value v by central differences: v held at v ± step, all after it
    recomputed (``forward(held=...)``)."""
    (output,) = graph.outputs
    values = forward(graph)
    estimate = {}
    for name in graph.names:
        up = forward(graph, held={name: values[name] + step})[output]
        down = forward(graph, held={name: values[name] - step})[output]
        estimate[name] = (up - down) / (2 * step)
    return estimate


def close(got: float, expected: float) -> bool:
    """Equal up to what a hand-rounded answer may be off by."""
    return abs(got - expected) <= max(ABS_TOL, REL_TOL * abs(expected))


# -- likely mistakes and the diagnosis --------------------------------------------------------
@dataclass(frozen=True)
class Mistake:
    """A wrong answer a likely mistake gives, and what to tell the student about it."""

    value: float
    why: str


def term(graph: Graph, values: Mapping[str, float], up: Mapping[str, float], use: tuple[Op, int]
         ) -> float:
    """What one use sends back: dL/d(op) × ∂op/∂(argument)."""
    op, position = use
    return up[op.name] * local(graph, values, op, position)


def formula(graph: Graph, name: str) -> str:
    """dL/d``name`` as the sum over its uses, in the worksheet's words:
    ``dL["g"] * (1 - g ** 2) + dL["f"]``."""
    parts = []
    for op, position in graph.uses(name):
        factor = local_text(op).format(other=op.args[1 - position] if op.kind == "mul" else "")
        parts.append(f'dL["{op.name}"]' + ("" if factor == "1" else f" * {factor}"))
    return " + ".join(parts) or "0"


def mistakes(graph: Graph, values: Mapping[str, float], up: Mapping[str, float], name: str
             ) -> list[Mistake]:
    """The answers that likely mistakes give for dL/d``name``, given the gradients ``up`` of the
    values after it: most telling first."""
    uses = graph.uses(name)
    terms = [term(graph, values, up, use) for use in uses]
    right = sum(terms)
    found: list[Mistake] = []
    if len(uses) >= 2:
        for (op, _), t in zip(uses, terms):
            found.append(Mistake(right - t, (
                f"you left out the use in `{op.name} = {op.expression()}`: {name} is used "
                f"{len(uses)} times, and its gradient is the SUM of what each use sends back "
                "(add, don't assign)")))
    for (op, position), t in zip(uses, terms):
        for value, why in _wrong_locals(op, position, values):
            found.append(Mistake(right - t + up[op.name] * value,
                                 f"in `{op.name} = {op.expression()}`: {why}"))
        if not math.isclose(up[op.name], 1.0, rel_tol=0.1):
            found.append(Mistake(right - t + local(graph, values, op, position), (
                f"in `{op.name} = {op.expression()}`: you forgot to multiply by the upstream "
                f'gradient dL["{op.name}"] (the chain rule: upstream × local derivative)')))
    found.append(Mistake(-right, "the sign is wrong"))
    return found


def _wrong_locals(op: Op, position: int, values: Mapping[str, float]) -> list[tuple[float, str]]:
    """Wrong local derivatives ∂op/∂(argument) a student is likely to write, and why each is
    wrong."""
    x, y = values[op.args[position]], values[op.name]
    if op.kind == "mul":
        other = op.args[1 - position]
        if other == op.args[position]:
            return []
        return [(y, f"you used {op.name}, the product's OUTPUT: ∂{op.name}/∂{op.args[position]} "
                    "is the other INPUT"),
                (x, f"∂{op.name}/∂{op.args[position]} is the OTHER input of the product, not "
                    f"{op.args[position]} itself")]
    if op.kind == "tanh":
        return [(1 - x * x, f"tanh's derivative is written with its OUTPUT {op.name}; you used "
                            f"its input {op.args[0]}")]
    if op.kind == "exp":
        return [(x, f"exp's derivative is written with its OUTPUT {op.name}; you used its "
                    f"input {op.args[0]}")]
    if op.kind == "pow":
        k = op.exponent
        return [(k * y ** (k - 1), f"∂{op.name}/∂{op.args[0]} is written with the INPUT "
                                   f"{op.args[0]}; you used the output {op.name}"),
                (k * x ** k, f"the power of {op.args[0]} drops by one in the derivative; you "
                             f"kept it at {k:g}")]
    return []


def diagnose(graph: Graph, got: Mapping[str, float]) -> str | None:
    """Why ``got`` (dL/dv by name) is wrong, from L back: the first gradient that does not follow
    from the student's own gradients after it, with the likely mistake; ``None`` if all do."""
    (output,) = graph.outputs
    if not close(got[output], 1.0):
        return f'dL["{output}"] is {got[output]:.6g}; dL/dL is 1 (L changes exactly as L does)'
    values = forward(graph)
    for name in reversed(graph.names[:-1]):
        uses = graph.uses(name)
        # NOTE [A mistake carried down]: each gradient is checked against the student's OWN
        # gradients of the values after it, so a wrong dL/dh is named once, where it starts, not
        # again in every value before it that was rightly worked out from it.
        expected = sum(term(graph, values, got, use) for use in uses)
        if close(got[name], expected):
            continue
        upstream = ", ".join(sorted({f'dL["{op.name}"] = {got[op.name]:.6g}' for op, _ in uses}))
        used_in = "; ".join(dict.fromkeys(f"`{op.name} = {op.expression()}`" for op, _ in uses))
        text = (f'dL["{name}"] is {got[name]:.6g}, expected {expected:.6g} from its uses in '
                f"{used_in} (with your {upstream})")
        why = next((m.why for m in mistakes(graph, values, got, name) if close(got[name], m.value)),
                   None)
        return f"{text}: {why}" if why else text
    return None


def problem_with(graph: Graph, got: object) -> str | None:
    """What is wrong with the shape of a student's answer (a dict, a number for every value),
    or ``None``."""
    if not isinstance(got, dict):
        return f"gradients() should return a dict of dL/dv by name, got {type(got).__name__}"
    missing = [n for n in reversed(graph.names) if n not in got]  # from L back, as worked
    if missing:
        return (f"gradients() gives no dL/dv for {', '.join(missing)}: fill in "
                f'dL["{missing[0]}"] = ... (every value of the graph has one)')
    unknown = sorted(str(k) for k in got if k not in graph.names)
    if unknown:
        return f"gradients() names {', '.join(unknown)}, which the graph does not have"
    for name in reversed(graph.names):
        value = got[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            return f'dL["{name}"] is {value!r}: write a finite number (or an expression of them)'
    return None


# -- drawing a worksheet graph ----------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def generate(seed: int = DEFAULT_SEED) -> Graph:
    """The worksheet graph of ``seed``: the first draw of ``random.Random(seed)`` that is
    ``pleasant`` (the same graph for the same seed, on every machine)."""
    rng = random.Random(seed)
    for _ in range(10_000):
        graph = _draw(rng, seed)
        if pleasant(graph):
            return graph
    raise RuntimeError(f"no pleasant graph for seed {seed}")  # pragma: no cover - never seen


def _draw(rng: random.Random, seed: int) -> Graph:
    """Three leaves of simple values, then four to six ops; later ops read unused values first."""
    ops = [Op(n, "leaf", value=v) for n, v in zip("abc", rng.sample(LEAF_VALUES, 3))]
    count = rng.randint(4, 6)
    unused = [op.name for op in ops]
    for k in range(count):
        name = OUTPUT if k == count - 1 else INNER_NAMES[k]
        kind = rng.choice(BINARY + UNARY)
        first = unused.pop(0) if unused and rng.random() < 0.85 else rng.choice(ops).name
        args = (first, rng.choice(unused or [op.name for op in ops])) if kind in BINARY \
            else (first,)
        for arg in args[1:]:
            if arg in unused:
                unused.remove(arg)
        ops.append(Op(name, kind, args, exponent=rng.choice((2, 2, 3))))
        unused.append(name)
    return Graph(seed, tuple(ops))


def pleasant(graph: Graph) -> bool:
    """Worth a student's time: every value used, a non-leaf used by two ops, no op twice, a
    nonlinear op and a product,
    values and gradients of a handy size, every likely mistake clearly off the right answer."""
    names = graph.names
    if any(not graph.uses(n) for n in names[:-1]) or not set(graph.shared()) - set(graph.leaves):
        return False
    inner = [(op.kind, op.args, op.exponent) for op in graph.ops if op.kind != "leaf"]
    if len(set(inner)) < len(inner):
        return False  # the same op twice
    kinds = {op.kind for op in graph.ops}
    if "mul" not in kinds or not kinds & set(UNARY):
        return False
    try:
        values = forward(graph)
        grads = by_hand(graph, values)
    except (OverflowError, ZeroDivisionError):
        return False
    if any(abs(v) > 20 for v in values.values()) or \
            any(not 0.05 <= abs(g) <= 50 for g in grads.values()):
        return False
    # NOTE [Tolerance and separation]: a hand-rounded answer passes within REL_TOL (ABS_TOL near
    # 0); so that a diagnosis can name the mistake, every likely mistake's answer must lie
    # SEPARATION tolerances away from the right one and from the other mistakes'.
    return all(_separated(grads[n], [m.value for m in mistakes(graph, values, grads, n)])
               for n in names[:-1])


def _separated(right: float, wrong: Iterable[float]) -> bool:
    """Each wrong answer is ``SEPARATION`` tolerances away from ``right`` and from each other."""
    seen = [right]
    for value in wrong:
        if any(abs(value - s) <= SEPARATION * max(ABS_TOL, REL_TOL * abs(s)) for s in seen):
            return False
        seen.append(value)
    return True


# -- forward vs reverse mode, counted -------------------------------------------------------------
@dataclass(frozen=True)
class Dual:
    """A dual number ``value + tangent·ε`` (ε² = 0): the value and its derivative along ONE
    direction, carried forward together."""

    value: float
    tangent: float


def apply_dual(kind: str, xs: Sequence[Dual], exponent: int = 2) -> Dual:
    """One op on dual numbers: the value as ``apply``, the tangent by the chain rule."""
    value = apply(kind, [x.value for x in xs], exponent)
    if kind == "add":
        return Dual(value, xs[0].tangent + xs[1].tangent)
    if kind == "mul":
        return Dual(value, xs[0].tangent * xs[1].value + xs[0].value * xs[1].tangent)
    if kind == "tanh":
        return Dual(value, (1.0 - value * value) * xs[0].tangent)
    if kind == "exp":
        return Dual(value, value * xs[0].tangent)
    return Dual(value, exponent * xs[0].value ** (exponent - 1) * xs[0].tangent)


@dataclass(frozen=True)
class Cost:
    """What one mode measured for the whole Jacobian: ``passes`` (forward mode: passes over the
    graph on dual numbers; reverse mode: backward passes), ``ops`` (forward mode: dual-number ops
    evaluated; reverse mode: backward calls of nodes), and the Jacobian, one row per output."""

    passes: int
    ops: int
    jacobian: tuple[tuple[float, ...], ...]


def forward_mode(graph: Graph) -> Cost:
    """The Jacobian by forward mode: one pass on dual numbers per input (tangent 1 on that input,
    0 on the others) gives its column, the derivatives of every output along that input."""
    leaves = graph.leaves
    columns, passes, ops = [], 0, 0
    for seeded in leaves:
        duals: dict[str, Dual] = {}
        for op in graph.ops:
            if op.kind == "leaf":
                duals[op.name] = Dual(op.value, 1.0 if op.name == seeded else 0.0)
            else:
                duals[op.name] = apply_dual(op.kind, [duals[a] for a in op.args], op.exponent)
                ops += 1
        passes += 1
        columns.append([duals[out].tangent for out in graph.outputs])
    rows = tuple(tuple(col[i] for col in columns) for i in range(len(graph.outputs)))
    return Cost(passes, ops, rows)


def reverse_mode(graph: Graph) -> Cost:
    """The Jacobian by reverse mode: one forward pass records the graph of ``Value``s, then one
    backward pass per output (``retain_graph``) gives its row, the derivatives along every input;
    the node calls are counted from a trace."""
    built = build_values(graph)
    leaves = [built[n] for n in graph.leaves]
    rows, passes, calls = [], 0, 0
    for out in graph.outputs:
        for leaf in leaves:
            leaf.grad = None
        with mg.trace() as t:
            built[out].backward(retain_graph=True)
        passes += 1
        calls += sum(e.kind == "backward" for e in t.events)
        rows.append(tuple(float(leaf.grad) if leaf.grad is not None else 0.0 for leaf in leaves))
    return Cost(passes, calls, tuple(rows))


def random_function(seed: int, n_inputs: int, n_ops: int, n_outputs: int = 1) -> Graph:
    """A random f: R^n -> R^m of ``n_ops`` ops (``+ * tanh **2``, no exp: no overflow) over inputs
    ``x1…xn`` in [-1, 1]; every value is read by a later op except the m outputs, the last ones
    (``ValueError`` if ``n_ops`` ops cannot do it)."""
    rng = random.Random(seed)
    ops = [Op(f"x{i + 1}", "leaf", value=round(rng.uniform(-1, 1), 2)) for i in range(n_inputs)]
    unused = [op.name for op in ops]  # values no op reads yet: the outputs, at the end
    for k in range(n_ops):
        left, gap = n_ops - k, len(unused) - n_outputs
        used = [op.name for op in ops if op.name not in unused]
        # NOTE [Reaching m outputs]: an op reading two unused values closes one (-1), one unused
        # value keeps the count (0), only used values opens one (+1); pick a change after which
        # the ops left can still end with exactly n_outputs unused values.
        steps = [d for d, can in ((-1, len(unused) >= 2), (0, bool(unused)), (1, bool(used)))
                 if can and abs(gap + d) <= left - 1]
        if not steps:
            raise ValueError(f"{n_ops} ops cannot use {n_inputs} inputs and leave exactly "
                             f"{n_outputs} outputs")
        ops.append(_op_for(rng, f"v{k + 1}", rng.choice(steps), unused, used))
        unused.append(f"v{k + 1}")
    return Graph(seed, tuple(ops), tuple(unused))


def _op_for(rng: random.Random, name: str, change: int, unused: list[str], used: list[str]
            ) -> Op:
    """A random op that changes the count of ``unused`` values by ``change`` (and updates it)."""
    if change == -1:
        args = (unused.pop(rng.randrange(len(unused))), unused.pop(rng.randrange(len(unused))))
        return Op(name, rng.choice(BINARY), args)
    if change == 0:
        first = unused.pop(rng.randrange(len(unused)))
        if used and rng.random() < 0.4:
            return Op(name, rng.choice(BINARY), (first, rng.choice(used)))
        return Op(name, rng.choice(("tanh", "tanh", "pow")), (first,))
    if rng.random() < 0.5:
        return Op(name, rng.choice(BINARY), (rng.choice(used), rng.choice(used)))
    return Op(name, rng.choice(("tanh", "pow")), (rng.choice(used),))




# -- the worksheet file -------------------------------------------------------------------------
WORKSHEET_DOC = '''"""U0.1 — Gradients on paper (the graph of seed {seed}).

Below, a small graph is written as Python, one op per line, each value in a comment.  Work out
dL/dv for every value v by hand, from L back to the leaves, and write it into gradients(): a
number (three or four digits are enough) or an expression of the values above and of the
gradients you have already written.

The rules you need:
  * dL/dL = 1;
  * c = a + b:     dL/da = dL/dc               and  dL/db = dL/dc;
  * c = a * b:     dL/da = dL/dc * b           and  dL/db = dL/dc * a;
  * t = tanh(x):   dL/dx = dL/dt * (1 - t ** 2)     (written with the output t);
  * y = exp(x):    dL/dx = dL/dy * y;
  * y = x ** k:    dL/dx = dL/dy * k * x ** (k - 1);
  * a value used by several ops gets the SUM of what each use sends back.

Check: ``micrograd2 exercise check U0.1`` (it names the first wrong gradient and the likely
mistake).  Hints: ``micrograd2 exercise hint U0.1``.
Another graph to practise on: ``python -m micrograd2.exercises.paper 12 > u0_gradients.py``
(the checks follow this file's SEED).
"""
'''


def worksheet(graph: Graph, solved: bool = True) -> str:
    """The student's file for ``graph``: the graph as Python lines with their values, and
    ``gradients()``; ``solved``: with the model answer (one line per value, from L back) between
    ``# BEGIN SOLUTION`` and ``# END SOLUTION``, else a ``None`` to replace on each line."""
    values = forward(graph)
    used = sorted({op.kind for op in graph.ops} & {"exp", "tanh"})
    lines = [WORKSHEET_DOC.format(seed=graph.seed).rstrip("\n"),
             "from __future__ import annotations"]
    if used:
        lines += ["", f"from math import {', '.join(used)}"]
    lines += ["", f"SEED = {graph.seed}", ""]
    width = max(len(f"{op.name} = {op.expression()}") for op in graph.ops) + 2
    for op in graph.ops:
        line = f"{op.name} = {op.expression()}"
        lines.append(line if op.kind == "leaf" else f"{line:<{width}}# = {values[op.name]:.6g}")
    lines += ["", "", "def gradients() -> dict[str, float]:",
              '    """dL/dv for every value v above, by name.  From L back, each value and its '
              "uses:",
              ""]
    order = list(reversed(graph.names[:-1]))
    for name in order:
        lines_of = (f"{op.name} = {op.expression()}" for op, _ in graph.uses(name))
        uses = "; ".join(dict.fromkeys(lines_of))  # in forward order, each op once
        lines.append(f"        {name} is used in  {uses}")
    lines += ['    """', f'    dL = {{"{graph.outputs[0]}": 1.0}}  # dL/dL']
    if solved:
        lines.append("    # BEGIN SOLUTION: fill in dL[name] = ... for every value, from L back to "
                     "the leaves")
    for name in order:
        lines.append(f'    dL["{name}"] = {formula(graph, name) if solved else "None"}')
    if solved:
        lines.append("    # END SOLUTION")
    lines.append("    return dL")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m micrograd2.exercises.paper [SEED] [--solved]``: print a worksheet."""
    args = list(sys.argv[1:] if argv is None else argv)
    solved = "--solved" in args
    rest = [a for a in args if a != "--solved"]
    if len(rest) > 1 or (rest and not rest[0].lstrip("-").isdigit()):
        print("usage: python -m micrograd2.exercises.paper [SEED] [--solved]", file=sys.stderr)
        return 2
    sys.stdout.write(worksheet(generate(int(rest[0]) if rest else DEFAULT_SEED), solved))
    return 0


if __name__ == "__main__":
    sys.exit(main())
