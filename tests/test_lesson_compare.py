"""``micrograd2.lessons.compare``: results compare as plain numbers, within a tolerance, NaN equal to NaN,
a list never equal to its one item; Values and Tensors by their numbers."""
from __future__ import annotations

from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.lessons.compare import SHORT, Live, as_value, plain, same, short, show


def agree(got: Any, expected: Any) -> bool:
    return same(plain(got), plain(expected), 1e-6, 1e-12)


@pytest.mark.parametrize(("got", "expected"), [
    (1.0 + 1e-12, 1.0), (float("nan"), float("nan")), ([1.0, None], [1.0, None]), (mg.Value(3.0), 3.0),
    (mg.tensor([1.0, 2.0]), [1.0, 2.0]), (Live(2.0), 2.0)])
def test_numbers_compare_within_tolerance_and_nan_equals_nan(got: Any, expected: Any) -> None:
    assert agree(got, expected)


@pytest.mark.parametrize(("got", "expected"), [
    (1.1, 1.0), (True, 1.0), ([1.0], [1.0, 2.0]), ([9.0], 9.0), (9.0, [9.0])])
def test_far_numbers_bools_lengths_and_one_item_lists_differ(got: Any, expected: Any) -> None:
    assert not agree(got, expected)


def test_a_scalar_stands_for_a_one_element_list_only() -> None:
    assert as_value(mg.Value(9.0), [9.0]) == 9.0 and as_value([9.0], [[9.0]]) == [[9.0]]


def test_results_are_shown_in_full_and_cut_with_an_ellipsis() -> None:
    assert show([0.1, (2,)]) == "[0.1, (2,)]" and show(Live(None)) == "None"
    assert short("x" * 200).endswith("…") and len(short("x" * 200)) == SHORT
