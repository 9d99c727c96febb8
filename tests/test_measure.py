"""``micrograd2.lessons.measure``: the graph walks count the nodes a graph keeps, name the nodes right above its
leaves, and add up the arrays it saved (once per storage, a view as the array it looks into, and once per saving
node), on micrograd2's graphs and PyTorch's alike; ``compare_modes`` concludes from the nodes each mode
records, never from the clock: under an injected clock that makes no_grad look slower the conclusion stands,
and rounds that disagree are marked disturbed.  No test here reads the real clock's figures."""
from __future__ import annotations

import importlib.util
import os
from typing import Any

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.lessons.measure import (
    Timing,
    above_the_leaves,
    compare_modes,
    graph_nodes,
    kept_bytes,
    time_modes,
    torch_kept_bytes,
)

HAS_TORCH = importlib.util.find_spec("torch") is not None and not os.environ.get("MICROGRAD2_NO_TORCH")
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")


def test_graph_nodes_counts_each_node_once_and_nothing_under_no_grad() -> None:
    a, b = mg.Value(2.0, requires_grad=True), mg.Value(3.0, requires_grad=True)
    y = (a * b + a).exp()  # exp, add, mul, and the two AccumulateGrads (a's reached twice)
    assert sorted(n.name() for n in graph_nodes([y])) == ["AccumulateGrad", "AccumulateGrad", "AddBackward0",
                                                          "ExpBackward0", "MulBackward0"]
    with mg.no_grad():
        assert graph_nodes([(a * b).exp(), a + b]) == set()


def test_a_long_chain_is_walked_without_recursion() -> None:
    h = mg.Value(1.0, requires_grad=True)
    for _ in range(20_000):
        h = h * 1.0
    assert len(graph_nodes([h])) == 20_001


def test_above_the_leaves_names_the_nodes_that_feed_the_accumulategrads() -> None:
    a, b = mg.Value(2.0, requires_grad=True), mg.Value(3.0, requires_grad=True)
    assert above_the_leaves((a * b + a).exp()) == ["AddBackward0", "MulBackward0"]
    w = mg.Value(0.5, requires_grad=True, dtype="float32")
    with mg.autocast(dtype="float16"):
        y = mg.dot([w], [1.0])
    assert above_the_leaves(y) == ["ToCopyBackward0"]  # the cast autocast inserts


def test_kept_bytes_counts_a_storage_once_and_per_node_each_time_it_is_saved() -> None:
    x = mg.tensor(np.ones((2, 3), np.float32), requires_grad=True)
    r = (x * 2).relu()  # relu keeps its output: 6 float32 = 24 bytes; x * 2 keeps the number only
    assert kept_bytes(r, []) == (24, 24)
    assert kept_bytes(r * r, []) == (24, 24 + 2 * 24)  # the product keeps r twice: one storage, three saves


def test_kept_bytes_counts_a_view_as_its_base_and_leaves_parameters_out() -> None:
    x = mg.tensor(np.ones((2, 3), np.float32), requires_grad=True)
    v = x.t()
    assert kept_bytes(v * v, []) == (24, 48)
    assert kept_bytes(v * v, [x]) == (0, 0)  # the view looks into the parameter's array


class FakeClock:
    """A clock that moves only when a forward pass runs: by ``costs[round][grad_mode]`` (the first two
    calls, ``compare_modes`` counting the nodes, are round 0 too; the last round's costs repeat)."""

    def __init__(self, costs: list[dict[bool, float]]) -> None:
        self.now, self.costs, self.calls = 0.0, costs, 0

    def __call__(self) -> float:
        return self.now

    def forward(self, x: Any) -> Any:
        def run(grad_mode: bool) -> Any:
            self.calls += 1
            with mg.set_grad_enabled(grad_mode):
                out = (x * 2.0).relu().sum()
            self.now += self.costs[min(max(self.calls - 3, 0) // 2, len(self.costs) - 1)][grad_mode]
            return out
        return run


def test_time_modes_takes_the_modes_in_turns_each_round_starting_with_the_other() -> None:
    calls: list[bool] = []
    timing = time_modes(calls.append, rounds=3, number=2, clock=lambda: 0.0)
    assert calls == [True, True, False, False, False, False, True, True, True, True, False, False]
    assert timing == Timing((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    assert timing.disturbed  # a clock that reads zero shows nothing


def test_the_conclusion_comes_from_the_nodes_and_does_not_flip_under_a_clock_where_no_grad_is_slower() -> None:
    x = mg.tensor(np.ones((2, 3), np.float32), requires_grad=True)
    faster, slower = FakeClock([{True: 2.0, False: 1.0}]), FakeClock([{True: 1.0, False: 2.0}])
    fast = compare_modes(faster.forward(x), rounds=5, clock=faster)
    slow = compare_modes(slower.forward(x), rounds=5, clock=slower)
    assert fast.timing.ratio == 0.5 and slow.timing.ratio == 2.0  # the clocks disagree...
    assert not fast.timing.disturbed and not slow.timing.disturbed
    assert fast.nodes == slow.nodes == (4, 0)  # sum, relu, mul, AccumulateGrad; nothing under no_grad
    assert fast.conclusion() == slow.conclusion()  # ...the conclusion does not
    assert "no_grad saves" in slow.conclusion() and "nothing" not in slow.conclusion()
    assert "ratio 2.00 (middle half 2.00–2.00)" in slow.timing.line()
    assert "disturbed" not in slow.timing.line()


def test_rounds_that_disagree_are_marked_disturbed_and_one_odd_round_is_not() -> None:
    x = mg.tensor(np.ones(3, np.float32), requires_grad=True)
    seesaw = FakeClock([{True: 1.0, False: 0.5}, {True: 1.0, False: 2.0}] * 3)
    timing = compare_modes(seesaw.forward(x), rounds=6, clock=seesaw).timing
    assert timing.ratios == [0.5, 2.0] * 3 and timing.disturbed
    assert timing.line().endswith(", disturbed: rounds disagree")
    assert not Timing((1.0,) * 7, (0.8,) * 6 + (3.0,)).disturbed  # the middle half leaves an outlier out
    assert Timing((1.0, 1.0), (0.8, 0.8)).disturbed  # two rounds are too few to agree


def test_when_no_grad_records_as_much_the_conclusion_says_nothing_is_saved() -> None:
    x = mg.tensor(np.ones(3, np.float32))  # requires no gradient: grad mode records nothing either
    clock = FakeClock([{True: 1.0, False: 1.0}])
    assert compare_modes(clock.forward(x), rounds=3, clock=clock).conclusion() == (
        "grad mode records 0 nodes and no_grad 0: no_grad saves nothing here")


@needs_torch
def test_above_the_leaves_and_graph_nodes_take_pytorchs_graphs_too() -> None:
    import torch

    a = torch.tensor(2.0, requires_grad=True)
    y = (a * 3).exp()
    assert above_the_leaves(y) == ["MulBackward0"]
    assert sorted(n.name() for n in graph_nodes([y])) == ["ExpBackward0", "MulBackward0",
                                                          "torch::autograd::AccumulateGrad"]


@needs_torch
def test_torch_kept_bytes_sees_what_pytorch_saves_and_nothing_under_no_grad() -> None:
    import torch

    w = torch.ones(3, requires_grad=True)
    x = torch.ones(3)

    def forward() -> Any:
        return (w * x).relu()  # mul keeps x (w, the parameter, is left out); relu keeps its output

    assert torch_kept_bytes(forward, [w], grad_mode=True) == (24, 24)
    assert torch_kept_bytes(forward, [w], grad_mode=False) == (0, 0)
