"""U4.2 — Hooks: the public tests (the grader runs these, not your copy).

The values are checked against the gradients worked out by hand, the order in which the hooks
fire against a twin recorder written here (NOTE [The tests' own twins] in test_ex07), and both
against PyTorch's ``register_hook``, live, where torch is installed.
"""
from __future__ import annotations

import math
from types import ModuleType
from typing import Any, Callable

import pytest

import micrograd2 as mg
from micrograd2.autograd import events
from micrograd2.exercises.harness import expect, load_student, show

pytestmark = [pytest.mark.u4, pytest.mark.u4_2]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u4_hooks", __file__)


def build(lib: Any, x0: float = 0.8, w0: float = -1.5) -> tuple[dict[str, Any], Any]:
    """x, w leaves; h = x·w used twice; k = tanh h; y = 3k + h²: the named values and y, in
    micrograd2 (``lib`` = mg) or torch."""
    if lib is mg:
        x, w = mg.Value(x0, requires_grad=True), mg.Value(w0, requires_grad=True)
    else:
        x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
        w = lib.tensor(w0, dtype=lib.float64, requires_grad=True)
    h = x * w
    k = h.tanh()
    y = k * 3.0 + h * h
    return {"x": x, "w": w, "h": h, "k": k}, y


def reference_log(named: dict[str, Any], run: Callable[[], Any]) -> list[tuple[str, float]]:
    """What record_norms should log while ``run()`` backpropagates, found without hooks: each
    named Value's gradient as the core stores it (retain_grad on the non-leaves), in the order
    the core announces it (the ``accumulate`` events of autograd/events.py)."""
    names = {id(v): n for n, v in named.items()}
    for value in named.values():
        if not value.is_leaf:
            value.retain_grad()
    log: list[tuple[str, float]] = []

    def heard(kind: str, fields: dict[str, Any]) -> None:
        if kind == "accumulate" and id(fields["variable"]) in names:
            old = 0.0 if fields["old"] is None else float(fields["old"])
            log.append((names[id(fields["variable"])], abs(float(fields["new"]) - old)))

    events.subscribe(heard)
    try:
        run()
    finally:
        events.unsubscribe(heard)
    return log


def same_log(got: Any, want: list[tuple[str, float]]) -> bool:
    return (isinstance(got, list) and len(got) == len(want)
            and all(isinstance(e, tuple) and len(e) == 2 and e[0] == n and math.isclose(e[1], v)
                    for e, (n, v) in zip(got, want)))


def test_clamp_hook_clamps_both_ways(student: ModuleType) -> None:
    hook = student.clamp_hook(1.0)
    for grad, want in ((5.0, 1.0), (-5.0, -1.0), (0.3, 0.3), (-1.0, -1.0)):
        got = hook(grad)
        expect(got is not None, f"clamp_hook(1.0)({show(grad)}) returned None: a hook's result "
               "REPLACES the gradient (None leaves it as it is), so return the clamped gradient")
        expect(got == want, f"clamp_hook(1.0)({show(grad)}) = {show(got)}, expected {show(want)}"
               ": clamp to [-limit, limit], from below as well as from above")


def test_a_clipped_gradient_is_what_the_leaves_below_receive(student: ModuleType) -> None:
    x, w = mg.Value(0.5, requires_grad=True), mg.Value(-2.0, requires_grad=True)
    h = x * w
    handles = student.clip_gradients([h, w], 1.0)
    (h * 10.0).backward()  # dy/dh = 10, clipped to 1; then dy/dw = 1·x = 0.5, dy/dx = 1·w = -2
    expect(x.grad == -2.0 and w.grad == 0.5,
           f"with h's gradient 10 clipped to 1: x.grad = {show(x.grad)}, w.grad = {show(w.grad)}, "
           "expected -2.0 and 0.5 (a hook's result is what the nodes below h receive)")
    expect(isinstance(handles, list) and len(handles) == 2,
           f"clip_gradients should return one handle per Value, got {handles!r}")
    x.grad = w.grad = None
    big = x * 100.0
    student.clip_gradients([x], 0.25)
    big.backward()
    expect(x.grad == 0.25, f"a leaf's hook runs before its .grad is written: x.grad = "
           f"{show(x.grad)}, expected 0.25")


def test_clip_gradients_hands_back_removable_handles(student: ModuleType) -> None:
    x = mg.Value(2.0, requires_grad=True)
    handles = student.clip_gradients([x], 1.0)
    for handle in handles:
        handle.remove()
    (x * 7.0).backward()
    expect(x.grad == 7.0, f"after handle.remove() the gradient is no longer clipped: x.grad = "
           f"{show(x.grad)}, expected 7.0 (return what register_hook returns)")


def test_record_norms_logs_each_name_and_changes_no_gradient(student: ModuleType) -> None:
    named, y = build(mg)
    log = student.record_norms(named)
    y.backward()
    named2, y2 = build(mg)
    want = reference_log(named2, y2.backward)
    names = [e[0] for e in log] if isinstance(log, list) else []
    last = list(named)[-1]
    expect(not (len(names) > 1 and set(names) == {last}),
           f"every hook logged the name {last!r}: a lambda made in a loop reads `name` when it "
           "RUNS, after the loop has ended; bind it when the hook is made (a function that "
           "returns the hook, or lambda g, name=name: ...)")
    for key in ("x", "w"):
        expect(named[key].grad == named2[key].grad,
               f"record_norms changed a gradient: {key}.grad = {show(named[key].grad)}, expected "
               f"{show(named2[key].grad)}: a recording hook must return None")
    expect(same_log(log, want), f"the log is {log!r}, expected {want!r}: (name, |gradient|), "
           "one entry each time a hook fires")


def test_hooks_fire_in_the_walks_order_once_per_backward(student: ModuleType) -> None:
    named, y = build(mg, 0.3, 0.9)
    log = student.record_norms(named)
    y.backward(retain_graph=True)
    y.backward()
    order = [e[0] for e in log] if isinstance(log, list) else log
    named2, y2 = build(mg, 0.3, 0.9)
    want = reference_log(named2, lambda: (y2.backward(retain_graph=True), y2.backward()))
    expect(order == [n for n, _ in want],
           f"the hooks fired as {order}, expected {[n for n, _ in want]}: one entry per hook "
           "call, appended as it fires (h's hook fires once per pass, with its two uses summed)")


def test_registration_order_decides_what_a_later_hook_sees(student: ModuleType) -> None:
    x = mg.Value(1.0, requires_grad=True)
    h = x * 1.0
    first = student.record_norms({"before": h})
    student.clip_gradients([h], 2.0)
    after = student.record_norms({"after": h})
    (h * -6.0).backward()
    expect(first == [("before", 6.0)] and after == [("after", 2.0)] and x.grad == -2.0,
           f"hooks on one Value run in the order registered, each given the previous result: "
           f"expected before 6.0, after 2.0 and x.grad = -2.0, got {first}, {after}, "
           f"{show(x.grad)}")


def test_the_log_and_the_clipped_gradients_match_torch(student: ModuleType) -> None:
    named, y = build(mg)
    student.clip_gradients([named["h"]], 0.5)
    log = student.record_norms(named)
    y.backward()
    torch = pytest.importorskip("torch")
    tnamed, ty = build(torch)
    tnamed["h"].register_hook(lambda g: g.clamp(-0.5, 0.5))
    for value in tnamed.values():
        if not value.is_leaf:
            value.retain_grad()  # torch runs it after the Value's other hooks: h's is clipped
    ty.backward()
    want = [(name, abs(float(value.grad))) for name, value in tnamed.items()]
    # NOTE [Which order is torch's]: a hook fires after the hooks of all the Values that use
    # its Value (k before h, h before x and w); between x and w, siblings, either engine may
    # choose, so the order is compared as that rule, and each name's norm as torch's.
    names = [e[0] for e in log] if isinstance(log, list) else []
    expect(sorted(map(str, names)) == sorted(n for n, _ in want) and same_log(
        sorted(log), sorted(want)), f"the log is {log!r}; torch's gradients give {want!r}")
    at = {name: names.index(name) for name in names}
    expect(at["k"] < at["h"] < min(at["x"], at["w"]),
           f"the hooks fired as {names}: a hook fires after the hooks of the Values that use "
           "its Value (k before h, h before x and w), as torch's do")
    for key in ("x", "w"):
        expect(math.isclose(named[key].grad, tnamed[key].grad.item()),
               f"{key}.grad = {show(named[key].grad)}; torch gives {tnamed[key].grad.item():.6g}")
