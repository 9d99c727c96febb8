"""The core's error messages: PyTorch's words, each with a second line saying what to do."""
from __future__ import annotations

from typing import Any

NO_GRAD_FN = (
    "element 0 of tensors does not require grad and does not have a grad_fn\n"
    "What to do: make sure a leaf it was computed from has requires_grad=True and that it was not "
    "computed under no_grad() or from a detach()ed value."
)
SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
    "or if you need to access saved tensors after calling backward.\n"
    "What to do: call the first backward with retain_graph=True, or run the forward pass again."
)


def modified_in_place(node: Any, role: str, variable: Any, now: int, expected: int) -> str:
    what = f"[output], which is output 0 of {node.name()}," if role == "output" else f"[{type(variable).__name__}]"
    return ("one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"{what} is at version {now}; expected version {expected} instead.\n"
            "What to do: don't change a value in place between the forward pass and backward; use an "
            "out-of-place op (y = x + 1 instead of x.add_(1)) or enable detect_anomaly to find it.")


def wrong_count(node: Any, got: int) -> str:
    return (f"function {node.name()} returned an incorrect number of gradients (expected {len(node._next)}, got "
            f"{got})\nWhat to do: return one gradient (or None) per input of forward, in the same order.")
