"""Shared test helpers: central differences and the article's small graphs."""
from __future__ import annotations

import importlib.util
from typing import Any, Callable, Sequence

import pytest

import micrograd2 as mg

# The teacher's kit (the top-level teacher/: model solutions, hidden tests, mutants) is data for
# the tests, outside testpaths: its pytest files grade a student's workspace (``micrograd2
# exercise check --tests teacher/hidden``), so the project's own run does not collect them.


def pytest_addoption(parser: pytest.Parser) -> None:
    """NOTE [timeout without its plugin]: setup.cfg's ``timeout = 300`` belongs to pytest-timeout (the
    ``[test]`` extra).  Without that plugin the name is registered here, so that pytest does not warn
    "Unknown config option: timeout"; the tests then simply run without a time limit."""
    if importlib.util.find_spec("pytest_timeout") is None:
        parser.addini("timeout", "pytest-timeout's limit per test (unused: pytest-timeout is not installed)")


def central_difference(f: Callable[..., float], xs: Sequence[float], i: int, eps: float = 1e-6) -> float:
    """(f(x + ε) − f(x − ε)) / 2ε in argument ``i``."""
    plus, minus = list(xs), list(xs)
    plus[i] += eps
    minus[i] -= eps
    return (f(*plus) - f(*minus)) / (2 * eps)


def values(*xs: float, requires_grad: bool = True) -> list[mg.Value]:
    return [mg.Value(x, requires_grad=requires_grad) for x in xs]


class Two(mg.Function):
    """A custom Function of two outputs, 2x and 3x (so output 1's gradient is told apart from output 0's)."""

    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + g2 * 3


class SumAndProduct(mg.Function):
    """A custom Function of two outputs, a + b and a·b, that saves its inputs."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a + b, a * b

    @staticmethod
    def backward(ctx, g_sum, g_product):
        a, b = ctx.saved_tensors
        return g_sum + g_product * b, g_sum + g_product * a


class SquareAndDouble(mg.Function):
    """y = 2x² (the article's custom Function), for Values and Tensors alike."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return 2 * x * x

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad_output * 4 * x


def second_output_graph() -> tuple[mg.Value, mg.Value, mg.Value]:
    """``z = 3·(a·b) + (a + b)`` through the outputs 1 and 0 of one ``SumAndProduct`` node, with (a, b) = (2, 5)
    (and the leaves, returned to keep them alive)."""
    a, b = mg.Value(2.0, requires_grad=True, label="a"), mg.Value(5.0, requires_grad=True, label="b")
    s, p = SumAndProduct.apply(a, b)
    z = p * 3 + s
    z.label = "z"
    return a, b, z


def block2() -> tuple[Any, list[mg.Value], list[mg.Value], mg.Value]:
    """The article's block 2, traced: z = Σ xᵢ·wᵢ with x = [2, 3], w = [4, 5], and z.backward(); the trace,
    x, w and z."""
    with mg.trace() as t:
        x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
        w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
        z = mg.sum(a * b for a, b in zip(x, w))
        z.label = "z"
        z.backward()
    return t, x, w, z


def block2_trace() -> Any:
    """Block 2's trace alone."""
    return block2()[0]


@pytest.fixture
def block1() -> dict[str, Any]:
    """The article's block 1 on scalars: z = Σ xᵢ·wᵢ with x = [2, 3], w = [4, 5]."""
    x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
    w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
    z = mg.sum(a * b for a, b in zip(x, w))
    return {"x": x, "w": w, "z": z}


# Labels a student may write (NOTE [Labels are text] in micrograd2/viz/dot.py): markup that would
# close a script, an HTML-like string, quotes, backslashes (one at the end), record braces and
# bars, a newline, Unicode.
HOSTILE_LABELS = (
    "</script><script>alert(1)</script><img src=x onerror=alert(1)>",
    "<b>bold</b>",
    'say "hi" \\"twice\\"',
    "C:\\temp\\new\\",
    "{a | b} <port>",
    "two\nlines",
    "x²·∑ → é ✓",
)


def hostile_trace() -> Any:
    """A traced backward pass of z = Σ aᵢ·bᵢ whose every Value has a hostile label."""
    with mg.trace() as t:
        xs = [mg.Value(float(k + 1), requires_grad=True, label=text) for k, text in enumerate(HOSTILE_LABELS)]
        z = mg.sum(a * b for a, b in zip(xs, reversed(xs)))
        z.label = HOSTILE_LABELS[0]
        z.backward()
    return t, xs, z


@pytest.fixture(autouse=True)
def _the_records_of_pieces_put_back() -> Any:
    """A command run in this process (CliRunner: ``lesson run``, ``trace``, ``exercise check``)
    chooses the reference record for the Value engine (NOTE [Teaching runs read as they run]);
    the next test starts on the record this process chose at import, as a new process would."""
    from micrograd2.autograd import pieces

    engines = {engine: engine.pieces for engine in (mg.Value, mg.Tensor)}
    yield
    for engine, record in engines.items():
        pieces.choose(engine, record)
