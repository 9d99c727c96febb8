"""The Engine Protocol (protocol.py): both engines' Variable classes have every member the core
calls, and a class without them is told apart."""
from __future__ import annotations

import inspect
from typing import Any, get_args

import pytest

import micrograd2 as mg
from micrograd2.autograd.protocol import Array, Data, Engine, Gradient


def _members() -> list[str]:
    names = [n for n, v in vars(Engine).items() if not n.startswith("__")
             and (callable(v) or isinstance(v, (classmethod, staticmethod)))]
    return sorted(names + list(Engine.__annotations__))


def test_the_protocol_names_what_the_core_asks() -> None:
    assert {"_wrap", "_round_gradient", "_add_gradients", "_seed", "_accumulate",
            "pieces", "backward_receives_variables"} <= set(_members())
    assert {"_promote", "_assign", "_snapshot", "_in_place", "_rebase", "_bump_version",
            "_share_version_counter", "_zeros_like", "_as_grad"} <= set(_members())


def test_data_and_gradient_say_what_they_are() -> None:
    assert Data is not Any and Gradient is not Any
    assert float in get_args(Data) and Array in get_args(Data)  # a float, or an array
    assert float in get_args(Gradient) and len(get_args(Gradient)) == 2  # or a Variable


@pytest.mark.parametrize("engine", ["Value", "Tensor"])
def test_each_engine_has_every_member_of_the_protocol(engine: str) -> None:
    cls = mg.Value if engine == "Value" else type(mg.tensor([1.0]))
    missing = [name for name in _members() if not hasattr(cls, name)]
    assert missing == []


def test_a_class_without_the_members_lacks_them() -> None:
    class NotAnEngine:
        pass

    assert [n for n in _members() if not hasattr(NotAnEngine, n)] == _members()
    assert inspect.isclass(Engine)


def test_the_core_says_what_its_values_are_any_at_most_50_times() -> None:
    """Issue 33 §3: the word ``Any`` in the code of ``autograd/*.py`` (not in comments or docstrings,
    imports included) at most 50 times: the core's types say what a value is."""
    import io
    import pathlib
    import tokenize

    import micrograd2.autograd

    folder = pathlib.Path(micrograd2.autograd.__file__).parent
    count = {path.name: sum(t.type == tokenize.NAME and t.string == "Any" for t in
                            tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
             for path in folder.glob("*.py")}
    assert sum(count.values()) <= 50, count
