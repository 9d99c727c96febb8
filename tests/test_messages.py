"""micrograd2/autograd/messages.py: the core's errors, PyTorch's words with a line saying what to do."""
from __future__ import annotations

import pytest

import micrograd2 as mg
from micrograd2.autograd import messages


def test_every_message_says_what_to_do() -> None:
    x = mg.Value(1.0, requires_grad=True)
    node = (x * 2).grad_fn
    for text in (messages.NO_GRAD_FN, messages.SECOND_BACKWARD, messages.modified_in_place(node, "input", x, 1, 0),
                 messages.wrong_count(node, 3)):
        assert "\nWhat to do: " in text


def test_a_saved_output_changed_in_place_names_its_node() -> None:
    x = mg.Value(1.0, requires_grad=True)
    y = x.exp()
    with mg.no_grad():
        y.add_(1.0)
    with pytest.raises(RuntimeError, match=r"\[torch.DoubleTensor \[\]\], which is output 0 of Exp, is at version 1; "
                                           r"expected version 0"):
        y.backward()


def test_a_wrong_gradient_count_gives_both_numbers() -> None:
    node = (mg.Value(1.0, requires_grad=True) * mg.Value(2.0)).grad_fn
    assert "(expected 2, got 3)" in messages.wrong_count(node, 3)


def test_the_version_error_describes_a_value_as_torch_a_0d_tensor() -> None:
    x = mg.Value(1.0, requires_grad=True)
    y = x * 2
    assert messages.described(y.data, y.dtype) == "torch.DoubleTensor []"
    assert messages.described(mg.tensor([[1.0]]).data, "bfloat16") == "CPUBFloat16Type [1, 1]"
    text = messages.modified_in_place(y.grad_fn, "input", x, 2, 1)  # a leaf: no op made it
    assert "[torch.DoubleTensor []] is at version 2; expected version 1 instead." in text
