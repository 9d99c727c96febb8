"""What the lessons measure: a recorded graph's nodes and the memory it keeps, and the time a run takes.

* ``graph_nodes(outputs)``: the ``grad_fn`` nodes the outputs keep alive;
* ``above_the_leaves(root)``: the names of the nodes right above each ``AccumulateGrad``;
* ``kept_bytes(output, parameters)``: the bytes of the arrays a Tensor graph keeps for backward;
* ``torch_kept_bytes(forward, parameters, grad_mode)``: the same for PyTorch, whose saved tensors
  ``torch.autograd.graph.saved_tensors_hooks`` sees;
* ``best_times(run, repeats)``: the best time of a run in grad mode and under ``no_grad``, taken in turns.

The graph walks take micrograd2's graphs and PyTorch's alike: ``tracing.nodes.reachable`` needs only
``next_functions``, and walks with a stack instead of recursion.  A lesson imports them as
``micrograd2.lessons.measure``.
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable, Iterable

import numpy as np

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


def best_times(run: Callable[[bool], Any], repeats: int) -> tuple[float, float]:
    """The best time (seconds) of ``run(grad_mode)`` for grad_mode True and False, taken in turns.

    The runs are not traced (a lesson run traces its cells): a tracer's cost is no part of the
    time measured."""
    times = {True: math.inf, False: math.inf}
    with events.silenced():
        for _ in range(repeats):
            for grad_mode in (True, False):
                start = time.perf_counter()
                run(grad_mode)
                times[grad_mode] = min(times[grad_mode], time.perf_counter() - start)
    return times[True], times[False]
