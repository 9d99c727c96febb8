"""micrograd2/autograd/display.py: what the tracer and diagrams read of a node, without raising."""
from __future__ import annotations

import micrograd2 as mg
from micrograd2.autograd.display import FREED


def test_a_node_shows_its_saved_values_inputs_and_output() -> None:
    x = mg.Value(3.0, requires_grad=True)
    y = x * 2.0
    node = y.grad_fn
    assert node.saved == (None, 2.0) and node.inputs == (3.0, 2.0) and node.output == 6.0
    assert node.saved_entries() == (("other", None, None), ("other", None, 2.0))


def test_a_saved_output_is_shown_as_it_is_now_and_as_made_once_it_is_gone() -> None:
    y = mg.Value(0.0, requires_grad=True).exp()
    node = y.grad_fn
    assert node.saved == (1.0,) and node.output == 1.0
    y.data = 10.0
    assert node.output == 10.0
    del y
    assert node.output == 1.0


def test_after_backward_the_saved_values_are_freed_and_shown_so() -> None:
    x = mg.Value(2.0, requires_grad=True)
    y = x * x
    node = y.grad_fn
    assert node.saved == (x, x)
    y.backward()
    assert node.saved is FREED and node.saved_entries() is FREED and node.output == 4.0
