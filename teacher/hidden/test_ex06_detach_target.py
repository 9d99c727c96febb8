"""Hidden tests of exercise U5.2, a detached target network: terminal transitions whose next
state is garbage, other discounts, soft updates at tau 1 and 0, never shown.  ``micrograd2
exercise check WORKSPACE --tests teacher/hidden U5.2`` grades with them.
"""
from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import close, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_2]

NAN = [math.nan, math.nan]  # a terminal transition's next state, as some replay buffers store it
BATCH = [([0.1, 0.2], 1.0, [0.4, -0.3], False), ([-0.6, 0.9], 2.0, NAN, True),
         ([0.8, -0.1], -0.5, [0.2, 0.2], False)]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex06_detach_target", __file__)


def test_a_terminal_transition_never_reads_the_next_state(student: ModuleType) -> None:
    q_net, target_net = mg.nn.MLP(2, [3, 1], seed=4), mg.nn.MLP(2, [3, 1], seed=5)
    gamma = 0.99
    targets = [r if done else r + gamma * target_net(s2).data for _, r, s2, done in BATCH]
    want = sum((q_net(s).data - y) ** 2 for (s, _, _, _), y in zip(BATCH, targets)) / len(BATCH)
    got = student.td_loss(q_net, target_net, BATCH, gamma)
    expect(close(got, want),
           f"td_loss is {show(got)}, expected {show(want)}; the terminal transition's next state "
           "is NaN: y = r alone when done, without evaluating target_net(s2) (a mask such as "
           "(1 − done) · γ · target still lets NaN or inf through: 0 · NaN = NaN)")


@pytest.mark.parametrize("tau", [1.0, 0.0])
def test_soft_update_at_the_ends(student: ModuleType, tau: float) -> None:
    q_net, target_net = mg.nn.MLP(2, [3, 1], seed=6), mg.nn.MLP(2, [3, 1], seed=7)
    old = [p.data for p in target_net.parameters()]
    new = [p.data for p in q_net.parameters()]
    student.soft_update(target_net, q_net, tau)
    for p, o, q in zip(target_net.parameters(), old, new):
        want = (1 - tau) * o + tau * q
        expect(close(p.data, want), f"soft_update(tau={tau}) left {p.label} = {show(p.data)}, "
                                    f"expected {show(want)}: θ′ ← (1 − τ)·θ′ + τ·θ")


def test_the_gradient_reaches_every_online_parameter_once(student: ModuleType) -> None:
    q_net, target_net = mg.nn.MLP(2, [3, 1], seed=8), mg.nn.MLP(2, [3, 1], seed=9)
    batch = [(s, r, s2, done) for s, r, s2, done in BATCH if not done]
    targets = [r + 0.5 * target_net(s2).data for _, r, s2, _ in batch]
    reference: Any = mg.sum([(q_net(s) - y) ** 2 for (s, _, _, _), y in zip(batch, targets)])
    (reference / len(batch)).backward()
    want = [p.grad for p in q_net.parameters()]
    q_net.zero_grad()
    student.td_loss(q_net, target_net, batch, 0.5).backward()
    for p, w in zip(q_net.parameters(), want):
        expect(close(p.grad, w), f"{p.label}.grad is {show(p.grad)}, expected {show(w)} (γ = 0.5)")
    expect(all(p.grad is None for p in target_net.parameters()),
           "a gradient reached the target network: y must be a constant")
