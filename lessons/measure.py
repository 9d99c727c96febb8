"""What the lessons measure: a recorded graph's nodes and the memory it keeps, and the time a run takes.

* ``graph_nodes(outputs)``: the ``grad_fn`` nodes the outputs keep alive;
* ``above_the_leaves(root)``: the names of the nodes right above each ``AccumulateGrad``;
* ``kept_bytes(output, parameters)``: the bytes of the arrays a Tensor graph keeps for backward;
* ``torch_kept_bytes(forward, parameters, grad_mode)``: the same for PyTorch, whose saved tensors
  ``torch.autograd.graph.saved_tensors_hooks`` sees;
* ``best_times(run, repeats)``: the best time of a run in grad mode and under ``no_grad``, taken in turns.

The graph walks take micrograd2's graphs and PyTorch's alike (``next_functions``, ``name()``), with a
stack instead of recursion.  A lesson imports them as ``micrograd2.lessons.measure``.
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable, Iterable

import numpy as np


def graph_nodes(outputs: Iterable[Any]) -> set[Any]:
    """The grad_fn nodes the outputs keep alive (walked without recursion)."""
    seen, stack = set(), [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(n for n, _ in node.next_functions)
    return seen


def above_the_leaves(root: Any) -> list[str]:
    """The names of the nodes right above each AccumulateGrad of ``root``'s graph (walked without recursion)."""
    names, seen, stack = set(), set(), [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for child, _ in node.next_functions:
            if child is not None and child.name().endswith("AccumulateGrad"):
                names.add(node.name())
            stack.append(child)
    return sorted(names)


def kept_bytes(output: Any, parameters: Iterable[Any]) -> tuple[int, int]:
    """Bytes of the arrays ``output``'s graph (micrograd2's Tensor engine) keeps for backward, parameters left
    out: (counted once per storage, counted once per node that saved it)."""
    import micrograd2 as mg

    skip = {id(p.data) for p in parameters}
    storages, per_node, seen, stack = {}, 0, set(), [output.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(n for n, _ in node.next_functions)
        for item in getattr(node, "saved", ()):
            array = item.data if isinstance(item, mg.Tensor) else item  # a saved input, or an output's array
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
    """The best time (seconds) of ``run(grad_mode)`` for grad_mode True and False, taken in turns."""
    times = {True: math.inf, False: math.inf}
    for _ in range(repeats):
        for grad_mode in (True, False):
            start = time.perf_counter()
            run(grad_mode)
            times[grad_mode] = min(times[grad_mode], time.perf_counter() - start)
    return times[True], times[False]
