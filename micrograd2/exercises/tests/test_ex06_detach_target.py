"""Exercise U5.2 — A detached target network: the public tests (the grader runs these, not your copy)."""
from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, close, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_2]

GAMMA = 0.9
BATCH = [([0.5, -1.0], 1.0, [0.2, 0.3], False), ([-0.3, 0.8], 0.0, [1.0, -0.5], False),
         ([1.2, 0.1], -1.0, [0.0, 0.0], True), ([0.0, 0.4], 0.5, [-0.7, 0.9], False)]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex06_detach_target", __file__)


def nets() -> tuple[Any, Any]:
    return mg.nn.MLP(2, [4, 1], seed=1), mg.nn.MLP(2, [4, 1], seed=2)


def expected_loss_and_grads(q_net: Any, target_net: Any) -> tuple[float, list[float]]:
    """The TD loss with every target a plain number, and its gradient for q_net's parameters."""
    targets = [r if done else r + GAMMA * target_net(s2).data for _, r, s2, done in BATCH]
    q_net.zero_grad()
    loss = mg.sum([(q_net(s) - y) ** 2 for (s, _, _, _), y in zip(BATCH, targets)]) / len(BATCH)
    loss.backward()
    grads = [p.grad for p in q_net.parameters()]
    q_net.zero_grad()
    return loss.item(), grads


def test_td_loss_value(student: ModuleType) -> None:
    q_net, target_net = nets()
    want, _ = expected_loss_and_grads(q_net, target_net)
    got = student.td_loss(q_net, target_net, BATCH, GAMMA)
    expect(close(got, want), f"td_loss is {show(got)}, expected {show(want)}: the mean over the batch of "
                             "(q_net(s) − y)², y = r + γ·target_net(s2), and y = r alone when done")


def test_no_gradient_reaches_the_target_network(student: ModuleType) -> None:
    q_net, target_net = nets()
    student.td_loss(q_net, target_net, BATCH, GAMMA).backward()
    leaked = [p for p in target_net.parameters() if p.grad is not None]
    expect(not leaked, f"gradient flowed into the target network ({leaked[0].label if leaked else ''}.grad = "
                       f"{show(leaked[0].grad) if leaked else ''}): compute y under mg.no_grad() or .detach() it")
    expect(all(p.grad is not None for p in q_net.parameters()), "q_net's parameters got no gradient: the "
           "prediction q_net(s) must stay in the graph (only the target y is constant)")


def test_semi_gradient_when_the_target_is_the_online_network(student: ModuleType) -> None:
    q_net, _ = nets()
    _, want = expected_loss_and_grads(q_net, q_net)
    student.td_loss(q_net, q_net, BATCH, GAMMA).backward()
    for p, w in zip(q_net.parameters(), want):
        expect(close(p.grad, w), f"with target_net = q_net, {p.label}.grad is {show(p.grad)}, expected {show(w)}: "
                                 "the gradient also flowed through the target r + γ·q_net(s2) — treat y as a "
                                 "constant (mg.no_grad() or .detach())")


def test_soft_update_moves_the_target_in_place(student: ModuleType) -> None:
    q_net, target_net = nets()
    before = [(p, p.data, p._version) for p in target_net.parameters()]
    online = [p.data for p in q_net.parameters()]
    try:
        student.soft_update(target_net, q_net, 0.1)
    except RuntimeError as error:
        if "in-place" in str(error):
            raise Mistake("soft_update: an in-place op on a parameter that requires grad is refused in grad mode: "
                          "do the update under `with mg.no_grad():`") from None
        raise
    for (p, old, version), new, q in zip(before, target_net.parameters(), online):
        expect(new is p, "soft_update replaced a target parameter by a new Value: update the existing ones in "
                         "place (p.mul_(...).add_(...)), as optimizers do")
        want = 0.9 * old + 0.1 * q
        expect(close(p.data, want), f"after soft_update(tau=0.1) {p.label} is {show(p.data)}, expected "
                                    f"0.9·{show(old)} + 0.1·{show(q)} = {show(want)}")
        expect(p._version > version, f"{p.label}._version did not change: use in-place ops (mul_, add_) so that "
                                     "the change is seen, as an optimizer's is")
        expect(p.is_leaf and p.requires_grad, f"{p.label} is no longer a leaf that requires grad: the update "
                                              "must not be recorded — run it under mg.no_grad()")
    expect([p.data for p in q_net.parameters()] == online, "soft_update changed q_net: only the target moves")
