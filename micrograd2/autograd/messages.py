"""The core's error messages: PyTorch's words, each with a second line saying what to do."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .function import BackwardNode
    from .node import Node
    from .protocol import Data
    from .variable import Variable

NO_GRAD_FN = (
    "element 0 of tensors does not require grad and does not have a grad_fn\n"
    "What to do: make sure a leaf it was computed from has requires_grad=True and that it was not "
    "computed under no_grad() or from a detach()ed value."
)
SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.\n"
    "What to do: call the first backward with retain_graph=True, or run the forward pass again."
)


# How PyTorch prints a tensor's type in its messages (``Tensor.toString()``; bfloat16's is its own).
TORCH_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
               "int64": "LongTensor", "bool": "BoolTensor"}


def described(data: Data, dtype: str, device: str = "cpu") -> str:
    """A saved value as PyTorch names it in the version error: ``torch.FloatTensor [2, 3]``."""
    if dtype == "bfloat16":
        kind = "CUDABFloat16Type" if device == "cuda" else "CPUBFloat16Type"
    else:
        kind = ("torch.cuda." if device == "cuda" else "torch.") + TORCH_TYPES.get(dtype, dtype)
    return f"{kind} {list(getattr(data, 'shape', ()))}"


def legacy_type(dtype: str) -> str:
    """A dtype as PyTorch's hook errors name it: ``torch.FloatTensor``."""
    return "torch." + TORCH_TYPES.get(dtype, dtype)


def type_name(value: object) -> str:
    """The class of ``value`` as PyTorch's messages name it: ``float``, ``numpy.ndarray``."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def modified_in_place(node: BackwardNode, role: str, variable: Variable | None, now: int,
                      expected: int) -> str:
    """PyTorch's version error for a saved value changed in place.

    The value is named by type and shape, and by the op that made it: ``node`` for a saved
    output, its own ``grad_fn`` for a saved input (a leaf has none)."""
    creator: Node | None  # the op that made the value
    if variable is None:  # the op's own output, which a node does not keep
        what, creator, nr = described(node._output, node._dtype), node, 0
    else:
        what = described(variable.data, variable.dtype, getattr(variable, "device", "cpu"))
        creator = node if role == "output" else variable.grad_fn
        nr = 0 if role == "output" else variable.output_nr
    op = "" if creator is None else re.sub(r'Backward[0-9]*$', '', creator.name())
    made = "" if creator is None else f", which is output {nr} of {op},"
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{what}]{made} is at version {now}; "
            f"expected version {expected} instead.\n"
            "What to do: don't change a value in place between the forward pass and backward; "
            "use an out-of-place op (y = x + 1 instead of x.add_(1)) or enable detect_anomaly "
            "to find it.")


def wrong_count(node: Node, got: int) -> str:
    expected = len(node._next_nodes)
    return (f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {expected}, got {got})\n"
            "What to do: return one gradient (or None) per input of forward, in the same order.")
