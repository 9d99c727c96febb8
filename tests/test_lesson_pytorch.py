"""``micrograd2.lessons.pytorch``: PyTorch can be switched off; ``error_of`` returns the error PyTorch raised."""
from __future__ import annotations

import pytest

from micrograd2.lessons import pytorch


def test_live_torch_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pytorch.NO_TORCH, "1")
    assert pytorch.live_torch() is None


def test_error_of_returns_the_error_raised_or_none() -> None:
    assert isinstance(pytorch.error_of(lambda: 1 / 0).value, ZeroDivisionError)
    assert pytorch.error_of(lambda: None).value is None


def test_the_short_version_is_major_and_minor() -> None:
    class Torch:
        __version__ = "2.13.0+cpu"

    assert pytorch.short_version(Torch()) == "2.13"
