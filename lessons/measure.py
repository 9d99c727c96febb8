"""What the lessons measure: a recorded graph's nodes and the memory it keeps, and the time a run takes.

* ``graph_nodes(outputs)``: the ``grad_fn`` nodes the outputs keep alive;
* ``above_the_leaves(root)``: the names of the nodes right above each ``AccumulateGrad``;
* ``kept_bytes(output, parameters)``: the bytes of the arrays a Tensor graph keeps for backward;
* ``torch_kept_bytes(forward, parameters, grad_mode)``: the same for PyTorch, whose saved tensors
  ``torch.autograd.graph.saved_tensors_hooks`` sees;
* ``compare_modes(forward, rounds)``: the graph nodes grad mode records and ``no_grad`` does not, and
  the CPU time of each, in interleaved rounds (a ``Timing``, with its spread), shown, not concluded from.

The graph walks take micrograd2's graphs and PyTorch's alike: ``tracing.nodes.reachable`` needs only
``next_functions``, and walks with a stack instead of recursion.  A lesson imports them as
``micrograd2.lessons.measure``.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from micrograd2.autograd import events
from micrograd2.tracing.nodes import reachable, saved_items


def graph_nodes(outputs: Iterable[Any]) -> set[Any]:
    """The grad_fn nodes the outputs keep alive."""
    return set(reachable(o.grad_fn for o in outputs))


def above_the_leaves(root: Any) -> list[str]:
    """The names of the nodes right above each AccumulateGrad of ``root``'s graph."""
    return sorted({node.name() for node in reachable([root.grad_fn])
                   if any(child is not None and child.name().endswith("AccumulateGrad")
                          for child, _ in node.next_functions)})


def kept_bytes(output: Any, parameters: Iterable[Any]) -> tuple[int, int]:
    """Bytes of the arrays ``output``'s graph (micrograd2's Tensor engine) keeps for backward, parameters left
    out: (counted once per storage, counted once per node that saved it)."""
    import numpy as np  # here, not at the top: the playground runs lesson 7's scalar parts without it

    skip = {id(p.data) for p in parameters}
    storages, per_node = {}, 0
    for node in reachable([output.grad_fn]):
        items = saved_items(node)
        for item in items if not isinstance(items, str) else ():  # a str: FREED
            array = item.data  # a saved input's array, or the output's
            while isinstance(array, np.ndarray) and array.base is not None:
                array = array.base                              # a view: count the storage it looks into
            if isinstance(array, np.ndarray) and id(array) not in skip:
                storages[id(array)] = array.nbytes
                per_node += array.nbytes
    return sum(storages.values()), per_node


def torch_kept_bytes(forward: Callable[[], Any], parameters: Iterable[Any], grad_mode: bool) -> tuple[int, int]:
    """Bytes of what PyTorch's graph keeps for backward while ``forward()`` runs with grad mode ``grad_mode``,
    parameters left out: (counted once per storage, counted per saving node)."""
    import torch

    params = {p.untyped_storage().data_ptr() for p in parameters}
    saved: list[Any] = []

    def pack(t: Any) -> Any:  # each tensor a node saves passes here
        saved.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.set_grad_enabled(grad_mode):
            forward()
    kept = [t for t in saved if t.untyped_storage().data_ptr() not in params]
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in kept}
    return sum(storages.values()), sum(t.numel() * t.element_size() for t in kept)


# NOTE [Conclude from counts, show the clock]
# A forward pass's time depends on what else the machine does: on a loaded machine lesson 7 once
# printed no_grad twice as slow as grad mode.  What no_grad saves is counted instead, the same on
# any machine: the graph nodes recorded and the bytes they keep.  The clock is shown with its spread:
# CPU time (another process's work is not counted), grad mode and no_grad in interleaved rounds
# (each round starts with the other mode), the median of the per-round ratio; when the rounds
# disagree the timing is marked disturbed, and nothing is concluded from it either way.

DISAGREE = 0.2  # rounds disagree when their middle half of no_grad/grad ratios spans 20% of the median


@dataclass(frozen=True)
class Timing:
    """CPU seconds of grad mode and of no_grad, one of each per round (NOTE [Conclude from counts,
    show the clock])."""

    grad: tuple[float, ...]
    no_grad: tuple[float, ...]

    @property
    def ratios(self) -> list[float]:
        """no_grad's time over grad mode's, round by round."""
        return [n / g if g > 0 else float("nan") for g, n in zip(self.grad, self.no_grad)]

    @property
    def ratio(self) -> float:
        """The median of the per-round ratios."""
        return statistics.median(self.ratios)

    @property
    def quartiles(self) -> tuple[float, float]:
        """The first and third quartiles of the per-round ratios (their middle half)."""
        ratios = self.ratios
        if len(ratios) < 2:
            return ratios[0], ratios[0]
        q1, _, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
        return q1, q3

    @property
    def disturbed(self) -> bool:
        """The rounds disagree: their middle half spans more than DISAGREE of the median (or a
        clock read zero, or there are fewer than 3 rounds)."""
        if len(self.grad) < 3 or not all(r > 0 for r in self.ratios):  # nan: a clock read zero
            return True
        q1, q3 = self.quartiles
        return (q3 - q1) / self.ratio > DISAGREE

    def line(self) -> str:
        """The timing, with its spread, as one line (no verdict): the medians of each mode's times,
        the median of the per-round ratios and their middle half."""
        grad, no_grad = statistics.median(self.grad), statistics.median(self.no_grad)
        q1, q3 = self.quartiles
        line = (f"CPU time, {len(self.grad)} rounds: grad {grad * 1e3:.1f} ms, no_grad "
                f"{no_grad * 1e3:.1f} ms; ratio {self.ratio:.2f} (middle half {q1:.2f}–{q3:.2f})")
        return line + (", disturbed: rounds disagree" if self.disturbed else "")


def time_modes(run: Callable[[bool], Any], rounds: int, number: int = 1,
               clock: Callable[[], float] = time.process_time) -> Timing:
    """``Timing`` of ``number`` calls of ``run(grad_mode)`` per mode and round, the modes taken in
    turns, each round starting with the mode the last one ended with.

    The runs are not traced (a lesson run traces its cells): a tracer's cost is no part of the
    time measured."""
    times: dict[bool, list[float]] = {True: [], False: []}
    with events.silenced():
        for r in range(rounds):
            for grad_mode in ((True, False) if r % 2 == 0 else (False, True)):
                start = clock()
                for _ in range(number):
                    run(grad_mode)
                times[grad_mode].append(clock() - start)
    return Timing(tuple(times[True]), tuple(times[False]))


@dataclass(frozen=True)
class Comparison:
    """One forward pass in grad mode and under no_grad: the nodes each records, and their timing."""

    nodes: tuple[int, int]  # graph nodes the output keeps alive: (grad mode, no_grad)
    timing: Timing

    def conclusion(self) -> str:
        """What no_grad saves, from the counts alone (NOTE [Conclude from counts, show the clock])."""
        grad, no_grad = self.nodes
        if no_grad >= grad:
            return f"grad mode records {grad} nodes and no_grad {no_grad}: no_grad saves nothing here"
        return (f"grad mode records {grad} nodes and no_grad {no_grad}, at any load: no_grad saves "
                f"their work and memory")


def compare_modes(forward: Callable[[bool], Any], rounds: int, number: int = 1,
                  clock: Callable[[], float] = time.process_time) -> Comparison:
    """Run ``forward(grad_mode)`` (it returns the output) once per mode to count the nodes its
    output keeps, then time it (``time_modes``)."""
    with events.silenced():
        nodes = (len(graph_nodes([forward(True)])), len(graph_nodes([forward(False)])))
    return Comparison(nodes, time_modes(forward, rounds, number, clock))
