"""How each op reads in a lesson (micrograd2/tracing/formulas.py): its forward formula and its local derivative.

It proves that every op of ``EXPLAIN`` shows its formula and its local derivative with the numbers used
(``→ a: 1.0 × b (5.0) = 5.0``), that the catalogue below covers the whole table, that relu explains its zero,
that formulas read as on paper: plain numbers shown, looser operands and negative numbers in parentheses;
that ``forward_formula`` and ``gradient_text`` read a hand-made event alone; and that a power reads
its base and exponent by PyTorch's names (``self``, ``exponent``), on Values and Tensors alike.
"""
from __future__ import annotations

from typing import Callable

import pytest
from conftest import SquareAndDouble

import micrograd2 as mg
from micrograd2.tracing import TraceEvent
from micrograd2.tracing.formulas import EXPLAIN, forward_formula, gradient_text


# -- every op explains its local derivative, with numbers ----------------------------------------
def _zeroed(a: mg.Value, b: mg.Value) -> mg.Value:
    c = a * 1.0
    c.zero_()
    return c


CATALOGUE: list[tuple[str, Callable[[mg.Value, mg.Value], mg.Value], list[str]]] = [
    ("AddBackward0", lambda a, b: a + b, ["= a + b = 7.0", "→ a: 1.0 × 1 = 1.0", "→ b: 1.0 × 1 = 1.0"]),
    ("SubBackward0", lambda a, b: a - b, ["= a − b = -3.0", "→ b: 1.0 × (−1) = -1.0"]),
    ("RsubBackward1", lambda a, b: 3.0 - a, ["= c − a = 1.0", "→ a: 1.0 × (−1) = -1.0"]),
    ("NegBackward0", lambda a, b: -a, ["= −a = -2.0", "→ a: 1.0 × (−1) = -1.0"]),
    ("MulBackward0", lambda a, b: a * b, ["= a·b = 10.0", "→ a: 1.0 × b (5.0) = 5.0", "→ b: 1.0 × a (2.0) = 2.0"]),
    ("DivBackward0", lambda a, b: a / b, ["= a / b = 0.4", "→ a: 1.0 × 1/b (1/5.0) = 0.2",
                                          "→ b: 1.0 × (−a/b²) (−2.0/5.0²) = -0.08"]),
    ("PowBackward0", lambda a, b: a**3, ["= a^3 = 8.0", "→ a: 1.0 × 3·a^2 (3·2.0^2) = 12.0"]),
    ("PowBackward1", lambda a, b: a**b, ["= a^b = 32.0", "→ a: 1.0 × b·a^(b−1) (5.0·2.0^(5.0−1)) = 80.0",
                                         "→ b: 1.0 × a^b·ln a (32.0·ln 2.0) = 22.1807"]),
    ("PowBackward2", lambda a, b: 2.0**a, ["= 2.0^a = 4.0", "→ a: 1.0 × c^a·ln c (4.0·ln 2.0) = 2.77259"]),
    ("ExpBackward0", lambda a, b: a.exp(), ["= exp(a) = 7.38906", "→ a: 1.0 × exp(a) (7.38906) = 7.38906"]),
    ("LogBackward0", lambda a, b: a.log(), ["= ln a = 0.693147", "→ a: 1.0 × 1/a (1/2.0) = 0.5"]),
    ("TanhBackward0", lambda a, b: a.tanh(), ["→ a: 1.0 × (1 − tanh²(a)) (1 − 0.964028²) = 0.0706508"]),
    ("ReluBackward0", lambda a, b: a.relu(), ["= relu(a) = 2.0", "→ a: 1.0 × 1 (since a > 0) = 1.0"]),
    ("SigmoidBackward0", lambda a, b: a.sigmoid(), ["→ a: 1.0 × σ·(1 − σ) (0.880797·(1 − 0.880797)) = 0.104994"]),
    ("SqrtBackward0", lambda a, b: a.sqrt(), ["= √a = 1.41421", "→ a: 1.0 × 1/(2√a) (1/(2·1.41421)) = 0.353553"]),
    ("AbsBackward0", lambda a, b: a.abs(), ["= |a| = 2.0", "→ a: 1.0 × sign(a) (1) = 1.0"]),
    ("SumBackward0", lambda a, b: mg.sum([a, b]), ["= a + b = 7.0", "→ b: 1.0 × 1 = 1.0"]),
    ("DotBackward0", lambda a, b: mg.dot([a], [b], 1.0), ["= a·b + 1.0 = 11.0", "→ a: 1.0 × b (5.0) = 5.0",
                                                          "→ b: 1.0 × a (2.0) = 2.0"]),
    ("ToCopyBackward0", lambda a, b: a.to("float32"), ["→ a: 1.0 × 1 = 1.0"]),
    ("ZeroBackward0", _zeroed, ["0 (zero_) = 0.0", "→ a·1.0: 1.0 × 0 = 0.0", "→ a: 0.0 × 1.0 = 0.0"]),
    ("SquareAndDoubleBackward", lambda a, b: SquareAndDouble.apply(a),
     ["= SquareAndDouble(a) = 8.0", "→ a: grad_input = SquareAndDouble.backward(ctx, 1.0) = 8.0"]),
]


@pytest.mark.parametrize("node, build, expected", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_each_op_explains_its_local_derivative(node: str, build: Callable, expected: list[str]) -> None:
    with mg.trace() as t:
        a = mg.Value(2.0, requires_grad=True, label="a")
        b = mg.Value(5.0, requires_grad=True, label="b")
        y = build(a, b)
        y.label = "y"
        y.backward()
    text = t.narrate(color=False)
    assert node in text
    for piece in expected:
        assert piece in text


def test_the_catalogue_covers_the_whole_table() -> None:
    assert set(EXPLAIN) <= {c[0] for c in CATALOGUE}


def test_relu_at_a_negative_input_explains_the_zero() -> None:
    with mg.trace() as t:
        a = mg.Value(-2.0, requires_grad=True, label="a")
        a.relu().backward()
    assert "→ a: 1.0 × 0 (since a ≤ 0) = 0.0" in t.narrate(color=False)


def test_formulas_read_as_on_paper_negative_numbers_and_looser_operands_in_parentheses() -> None:
    with mg.trace() as t:
        x = mg.Value(-0.07657, requires_grad=True, label="x")
        c = mg.Value(2.0, requires_grad=True, label="c")
        y = ((x - 1.0) ** 2) * (c + x) / -2.0
        y.backward()
    lines = t.narrate(color=False).splitlines()
    assert lines[:3] == [
        "backward pass 1 from v1 = -1.11463 (DivBackward0), seed gradient 1.0",  # too long to be a name
        "step 1   DivBackward0     v1 = (x − 1.0)^2·(c + x) / (-2.0) = -1.11463   upstream 1.0",
        "        → (x − 1.0)^2·(c + x): 1.0 × 1/(-2.0) = -0.5",
    ]
    assert "        → c + x: -0.5 × (x − 1.0)^2 (1.159) = -0.579501" in lines
    assert "        → x − 1.0: -0.961715 × 2·(x − 1.0)^1 (2·(-1.07657)^1) = 2.07071" in lines


def test_forward_formula_and_gradient_text_read_an_event_alone() -> None:
    """The two functions the narration calls, on hand-made events: names in the formula, numbers in the gradient."""
    mul = TraceEvent("backward", node="MulBackward0", op="Mul", output=15.0, inputs=(("x[1]", 3.0), ("w[1]", 5.0)),
                     grad_output=1.0, grad_inputs=(("x[1]", 5.0), ("w[1]", 3.0)))
    assert forward_formula(mul) == "x[1]·w[1]"
    assert (gradient_text(mul, 0), gradient_text(mul, 1)) == ("1.0 × w[1] (5.0) = 5.0", "1.0 × x[1] (3.0) = 3.0")
    add = TraceEvent("backward", node="AddBackward0", op="Add", output=7.0, inputs=(("a·b", 6.0), ("const", 1.0)),
                     grad_output=2.0, grad_inputs=(("a·b", 2.0), ("const", None)))
    assert (forward_formula(add), gradient_text(add, 0)) == ("a·b + 1.0", "2.0 × 1 = 2.0")  # the number, not const
    scaled = TraceEvent("backward", node="MulBackward0", op="Mul", output=-6.0,
                        inputs=(("a + b", 3.0), ("const", -2.0)), grad_output=1.0,
                        grad_inputs=(("a + b", -2.0), ("const", None)))
    assert (forward_formula(scaled), gradient_text(scaled, 0)) == ("(a + b)·(-2.0)", "1.0 × (-2.0) = -2.0")



# -- saved values are read by PyTorch's names, not by position --------------------------------
def _pow_narration(x: mg.Value | mg.Tensor, build: Callable) -> list[str]:
    x.label = "x"
    with mg.trace() as t:
        y = build(x)
        (y.sum() if isinstance(y, mg.Tensor) else y).backward()
    assert not t.errors
    return t.narrate(color=False).splitlines()


POWERS = [  # (build, the line of its step, its local derivative) on x = 2.0, or on x = [1.0, 2.0]
    (lambda x: 2 ** x, "2^x = 4.0", "→ x: 1.0 × c^x·ln c (4.0·ln 2) = 2.77259",
     "2^x = [2.0, 4.0]", "→ x: [1.0, 1.0] × c^x·ln c ([2.0, 4.0]·ln 2) = [1.38629, 2.77259]"),
    (lambda x: 0 ** x, "0^x = 0.0", "→ x: 1.0 × c^x·ln c (0.0·ln 0) = 0.0",
     "0^x = [0.0, 0.0]", "→ x: [1.0, 1.0] × c^x·ln c ([0.0, 0.0]·ln 0) = [0.0, 0.0]"),
    (lambda x: x**3, "x^3 = 8.0", "→ x: 1.0 × 3·x^2 (3·2.0^2) = 12.0",
     "x^3 = [1.0, 8.0]", "→ x: [1.0, 1.0] × 3·x^2 (3·[1.0, 2.0]^2) = [3.0, 12.0]"),
]
IDS = ["2**x", "0**x", "x**3"]


@pytest.mark.parametrize("build, step, local, _t_step, _t_local", POWERS, ids=IDS)
def test_a_power_reads_its_base_and_exponent_by_name(build: Callable, step: str, local: str,
                                                     _t_step: str, _t_local: str) -> None:
    lines = _pow_narration(mg.Value(2.0, requires_grad=True), build)
    assert any(line.startswith("step 1") and step in line for line in lines), lines
    assert "        " + local in lines


@pytest.mark.parametrize("build, _step, _local, step, local", POWERS, ids=IDS)
def test_a_tensor_power_reads_its_base_and_exponent_by_name(build: Callable, _step: str,
                                                            _local: str, step: str, local: str) -> None:
    lines = _pow_narration(mg.tensor([1.0, 2.0], requires_grad=True), build)
    assert any(line.startswith("step 2") and step in line for line in lines), lines
    assert "        " + local in lines


def test_formulas_find_a_saved_item_by_its_name_in_any_order() -> None:
    ev = TraceEvent("backward", node="PowBackward2", inputs=(("x", 2.0),), output=9.0,
                    grad_output=1.0, grad_inputs=(("x", 9.88751),),
                    saved=(("x", 2.0), ("y", 9.0), (None, 3.0)), saved_names=("exponent", "result", "self"))
    assert forward_formula(ev) == "3.0^x"
    assert gradient_text(ev, 0) == "1.0 × c^x·ln c (9.0·ln 3.0) = 9.88751"
    bare = TraceEvent("backward", node="PowBackward0", inputs=(("x", 2.0),), output=8.0,
                      grad_output=1.0, grad_inputs=(("x", 12.0),), saved=(("x", 2.0),),
                      saved_names=("self",))
    assert (forward_formula(bare), gradient_text(bare, 0)) == ("x^p", "1.0 × p·x^(p−1) = 12.0")


def test_a_negative_number_in_a_formula_is_parenthesized() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        ((x - (-1.0)) * -2.0).backward()
    text = t.narrate()
    assert "(x − (-1.0))·(-2.0) = -6.0" in text and " − -" not in text
