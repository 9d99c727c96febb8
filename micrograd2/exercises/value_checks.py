"""Check a Value written from scratch (exercise U1.0) against micrograd2, running the same code.

A *program* builds one graph with ordinary operators from the leaves a factory gives it:
``program(leaf)`` calls ``leaf(2.0, "x[0]")`` for each input and returns a dict, name -> value,
of every leaf and every intermediate it made, the root last.  It runs twice: on the student's
``Value`` and on ``mg.Value`` (leaves that require grad), so both graphs come from one text.

* ``compare(module, program, what)``: raise ``Mistake`` at the first difference, in this
  order: an intermediate's data; a named value ``_prev`` cannot reach; the order that
  ``reverse_topological_order`` returns; the order in which ``backward()`` calls the closures;
  each gradient (the root's, then each value's after all its consumers').  The message names
  the value and the misconception.
* ``order_problem(order, root, names)``: what is wrong with ``order`` as a backward order.

NOTE [The direction of a backward order]
A Value's gradient is complete only when every Value computed FROM it (its consumers) has
sent its share, so the backward order starts at the root and puts each Value before the
Values in its ``_prev`` (its inputs).  That is a topological order (inputs first), reversed.
A consumer placed after one of its inputs is the one mistake the order can make; the
messages say it in those words.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, close, show
from micrograd2.tracing.nodes import reachable

Leaf = Callable[[float, str], Any]
Program = Callable[[Leaf], dict[str, Any]]


@dataclass(frozen=True)
class Use:
    """One use of a value: the named value computed from it, and the gradient it sends back."""

    consumer: str
    sends: float


@dataclass(frozen=True)
class Reference:
    """micrograd2's numbers for a program: each named value's data and gradient, and each use."""

    data: dict[str, float]
    grad: dict[str, float]
    uses: dict[str, list[Use]]


@dataclass
class Built:
    """A program run on some Value class: its named values, which are leaves, and the root."""

    named: dict[str, Any]
    leaves: list[str]

    @property
    def root(self) -> Any:
        return list(self.named.values())[-1]


def build(program: Program, make: Callable[[float, str], Any]) -> Built:
    """Run ``program`` with leaves made by ``make(data, name)``."""
    leaves: list[str] = []

    def leaf(data: float, name: str) -> Any:
        leaves.append(name)
        return make(data, name)

    return Built(program(leaf), leaves)


def reference(program: Program) -> Reference:
    """Run ``program`` on micrograd2 and read every number the student's run must give."""
    built = build(program, lambda data, name: mg.Value(data, requires_grad=True, label=name))
    for name, value in built.named.items():
        if name not in built.leaves:
            value.retain_grad()
    with mg.trace() as t:
        built.root.backward()
    names = _node_names(built)
    unnamed = sum(node not in names for node in reachable([built.root.grad_fn]))
    if (
        unnamed
    ):  # a mistake in the program, not the student's: every use must have a consumer's name
        raise ValueError(
            f"the program leaves {unnamed} value(s) unnamed: name every leaf and intermediate"
        )
    uses: dict[str, list[Use]] = {name: [] for name in built.named}
    by_id = {t.known_id(node): node for node in names}
    for event in t.events:
        node = by_id.get(event.node_id)
        if event.kind != "backward" or node is None:
            continue
        for (nxt, _), (_, sends) in zip(node.next_functions, event.grad_inputs):
            if nxt in names and sends is not None:
                uses[names[nxt]].append(Use(names[node], float(sends)))
    return Reference(
        {n: float(v.data) for n, v in built.named.items()},
        {n: float(v.grad) for n, v in built.named.items()},
        uses,
    )


def _node_names(built: Built) -> dict[Any, str]:
    """micrograd2's node for each named value: its ``grad_fn``, or a leaf's ``AccumulateGrad``."""
    names = {v.grad_fn: n for n, v in built.named.items() if v.grad_fn is not None}
    by_leaf = {id(built.named[n]): n for n in built.leaves}
    for node in reachable([built.root.grad_fn]):
        variable = getattr(node, "variable", None)
        if node.name() == "AccumulateGrad" and id(variable) in by_leaf:
            names[node] = by_leaf[id(variable)]
    return names


# -- the student's graph --------------------------------------------------------------------------
def graph_of(root: Any) -> list[Any]:
    """Every object reachable from ``root`` through ``_prev``, each once (an explicit stack)."""
    seen, stack, found = {id(root)}, [root], [root]
    while stack:
        for child in getattr(stack.pop(), "_prev", ()):
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
                found.append(child)
    return found


def describe(value: Any, names: dict[int, str]) -> str:
    """A student's Value by the program's name for it, else by its number."""
    if id(value) in names:
        return names[id(value)]
    data = getattr(value, "data", value)
    return (
        f"the constant Value({show(data)})"
        if not getattr(value, "_prev", ())
        else f"an unnamed Value(data={show(data)})"
    )


def order_problem(order: Any, root: Any, names: dict[int, str]) -> str | None:
    """What is wrong with ``order`` as a backward order of ``root``'s graph (None: nothing); see
    NOTE [The direction of a backward order]."""
    if not isinstance(order, (list, tuple)):
        return f"expected a list of Values, got {type(order).__name__}"
    nodes = {id(v): v for v in graph_of(root)}
    position: dict[int, int] = {}
    for i, value in enumerate(order):
        if id(value) not in nodes:
            return f"position {i} holds {value!r}, which {describe(root, names)} was not computed from"
        if id(value) in position:
            return (
                f"{describe(value, names)} appears twice (positions {position[id(value)]} and {i}): "
                "each Value must appear once; remember the Values already visited"
            )
        position[id(value)] = i
    missing = [v for key, v in nodes.items() if key not in position]
    if missing:
        return (
            f"{len(missing)} of the {len(nodes)} Values are missing, e.g. {describe(missing[0], names)}: "
            "follow _prev all the way down to the leaves (constants included)"
        )
    if order[0] is not root:
        turned = (
            " (it ends with the root: that is a topological order, inputs first; reverse it)"
            if order[-1] is root
            else ""
        )
        return f"the order must start with the root {describe(root, names)}{turned}"
    return _consumer_after_input(order, position, names)


def _consumer_after_input(
    order: Any, position: dict[int, int], names: dict[int, str]
) -> str | None:
    for i, value in enumerate(order):
        for child in value._prev:
            if position[id(child)] < i:
                return (
                    f"{describe(child, names)} comes at position {position[id(child)]}, before "
                    f"{describe(value, names)} at position {i}, which was computed from it: the order "
                    "visits a node before its consumer.  A backward order puts every Value BEFORE the "
                    "Values in its _prev (after all the Values that use it), so that its gradient is "
                    "complete when its _backward runs"
                )
    return None


@dataclass
class Call:
    """One call of a student's ``_backward``: whose it was, and what it added to each input's
    ``.grad`` (by ``id`` of the input)."""

    value: Any
    sent: dict[int, float]


def record_calls(root: Any) -> list[Call]:
    """Wrap the ``_backward`` of every Value of ``root``'s graph so that each call is logged with
    what it sent; the returned list fills, in call order, as ``root.backward()`` runs them."""
    calls: list[Call] = []
    for value in graph_of(root):
        inner = getattr(value, "_backward", None)
        if callable(inner):
            value._backward = _logged(value, inner, calls)
    return calls


def _logged(value: Any, inner: Callable[[], None], calls: list[Call]) -> Callable[[], None]:
    def call() -> None:
        inputs = {id(x): x for x in getattr(value, "_prev", ())}
        before = {key: _number(getattr(x, "grad", 0.0)) for key, x in inputs.items()}
        inner()
        calls.append(
            Call(
                value,
                {key: _number(getattr(x, "grad", 0.0)) - before[key] for key, x in inputs.items()},
            )
        )

    return call


def _number(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


# -- the comparison -------------------------------------------------------------------------------
def compare(module: ModuleType, program: Program, what: str) -> None:
    """Raise ``Mistake`` at the first way the student's ``module`` differs from micrograd2 on
    ``program`` (the article's graph, a value used twice…), naming the value and the mistake."""
    want = reference(program)
    built = build(program, lambda data, name: module.Value(data))
    names = {id(v): n for n, v in built.named.items()}
    root = built.root
    for name, value in built.named.items():
        got = getattr(value, "data", None)
        if not isinstance(value, module.Value):
            raise Mistake(
                f"{what}: {name} is {type(value).__name__}, not a Value: every op returns a "
                "new Value"
            )
        if not close(got, want.data[name]):
            raise Mistake(
                f"{what}: {name}.data is {show(got)}, expected {show(want.data[name])} "
                "(micrograd2 on the same code): the op that made it computes the wrong number"
            )
    cut = [n for n, v in built.named.items() if id(v) not in {id(u) for u in graph_of(root)}]
    if cut:
        raise Mistake(
            f"{what}: {cut[0]} cannot be reached from the root through _prev: an op must keep "
            "the Values it was computed from in the new Value's _prev"
        )
    problem = order_problem(module.reverse_topological_order(root), root, names)
    if problem is not None:
        raise Mistake(f"{what}: reverse_topological_order: {problem}")
    calls = record_calls(root)
    root.backward()
    problem = order_problem([c.value for c in calls], root, names) if calls else None
    if problem is not None:
        raise Mistake(
            f"{what}: backward() called the _backward closures in a wrong order: {problem}"
        )
    check_gradients(built, want, calls, what)


def check_gradients(built: Built, want: Reference, calls: list[Call], what: str) -> None:
    """Compare every named value's ``.grad``, the root first and each value after its consumers."""
    root_name = list(built.named)[-1]
    got_root = getattr(built.root, "grad", None)
    if not close(got_root, 1.0):
        raise Mistake(
            f"{what}: {root_name}.grad is {show(got_root)} after backward(), expected 1.0: "
            "backward() must first set the root's own gradient to 1.0 (dz/dz), then run the "
            "_backward closures"
        )
    names = {id(v): n for n, v in built.named.items()}
    for name in reversed(list(built.named)[:-1]):  # created after its inputs: consumers come first
        value = built.named[name]
        got = getattr(value, "grad", None)
        if not close(got, want.grad[name]):
            sent = {
                names.get(id(c.value), "?"): c.sent[id(value)]
                for c in calls
                if id(value) in c.sent
            }
            raise Mistake(
                f"{what}: {misconception(name, got, want.grad[name], want.uses[name], sent)}"
            )


def misconception(
    name: str, got: Any, expected: float, uses: list[Use], sent: dict[str, float]
) -> str:
    """Why ``name``'s gradient is ``got``, not ``expected``, once its consumers' gradients are right
    (``uses``: micrograd2's; ``sent``: what the student's ``_backward`` of each consumer
    added)."""
    head = f"{name}.grad is {show(got)}, expected {show(expected)} (micrograd2)"
    consumers = list(dict.fromkeys(u.consumer for u in uses))
    lone = next((u for u in uses if close(got, u.sends)), None) if len(uses) > 1 else None
    if lone is not None:
        where = ", ".join(
            c if n == 1 else f"{c} {n} times"
            for c in consumers
            if (n := sum(u.consumer == c for u in uses))
        )
        return (
            f"{head}: {name} is used {len(uses)} times (in {where}) and {show(got)} is "
            f"what its use in {lone.consumer} alone sends back.  A _backward that assigns instead of "
            "adding: a value used twice gets one gradient; every _backward must add into .grad"
        )
    for consumer in consumers:
        should = sum(u.sends for u in uses if u.consumer == consumer)
        if consumer not in sent:
            return (
                f"{head}: the _backward of {consumer} never ran, or never reached {name}: the op that "
                f"made {consumer} must set the new Value's _backward, and backward() must call it"
            )
        if not close(sent[consumer], should):
            return (
                f"{head}: the _backward of {consumer} sends {show(sent[consumer])} back to {name}, "
                f"expected {show(should)}: in that op's closure an input receives its local "
                "derivative times out.grad (the chain rule)"
            )
    return (
        f"{head}: what its consumers' _backward closures send is right, yet its .grad is not their "
        "sum: does a _backward set .grad (=) where it should add (+=), or write into another Value?"
    )
