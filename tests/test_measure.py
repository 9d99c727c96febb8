"""``micrograd2.lessons.measure``: the graph walks count the nodes a graph keeps, name the nodes right above its
leaves, and add up the arrays it saved (once per storage, a view as the array it looks into, and once per saving
node), on micrograd2's graphs and PyTorch's alike; ``best_times`` takes grad mode and no_grad in turns."""
from __future__ import annotations

import importlib.util
import os
from typing import Any

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.lessons.measure import above_the_leaves, best_times, graph_nodes, kept_bytes, torch_kept_bytes

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


def test_best_times_runs_grad_mode_and_no_grad_in_turns_and_keeps_the_best() -> None:
    calls: list[bool] = []
    grad_time, no_grad_time = best_times(calls.append, repeats=3)
    assert calls == [True, False] * 3
    assert 0 <= grad_time < 1 and 0 <= no_grad_time < 1


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
