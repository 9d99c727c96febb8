"""The core's error messages: PyTorch's words, each with a second line saying what to do."""
from __future__ import annotations

import re
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


# How PyTorch prints a tensor's type in its messages (``Tensor.toString()``; bfloat16's is its own).
TORCH_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
               "int64": "LongTensor", "bool": "BoolTensor"}


def described(data: Any, dtype: str, device: str = "cpu") -> str:
    """A saved value as PyTorch names it in the version error: ``torch.FloatTensor [2, 3]``."""
    if dtype == "bfloat16":
        kind = "CUDABFloat16Type" if device == "cuda" else "CPUBFloat16Type"
    else:
        kind = ("torch.cuda." if device == "cuda" else "torch.") + TORCH_TYPES.get(dtype, dtype)
    return f"{kind} {list(getattr(data, 'shape', ()))}"


def modified_in_place(node: Any, role: str, variable: Any, now: int, expected: int) -> str:
    """PyTorch's version error for a saved value changed in place: named by type and shape, and by the
    op that made it (a saved output: ``node``'s; a saved input: its own ``grad_fn``, a leaf none)."""
    if variable is None:  # a saved output whose Variable is gone
        what, creator, nr = described(node._output, node._dtype), node, 0
    else:
        what = described(variable.data, variable.dtype, getattr(variable, "device", "cpu"))
        creator = node if role == "output" else variable.grad_fn
        nr = 0 if role == "output" else variable.output_nr
    made = "" if creator is None else f", which is output {nr} of {re.sub(r'Backward[0-9]*$', '', creator.name())},"
    return ("one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[{what}]{made} is at version {now}; expected version {expected} instead.\n"
            "What to do: don't change a value in place between the forward pass and backward; use an "
            "out-of-place op (y = x + 1 instead of x.add_(1)) or enable detect_anomaly to find it.")


def wrong_count(node: Any, got: int) -> str:
    return (f"function {node.name()} returned an incorrect number of gradients (expected {len(node._next)}, got "
            f"{got})\nWhat to do: return one gradient (or None) per input of forward, in the same order.")
