"""Tests for micrograd2.data: seeded, download-free datasets (scikit-learn's moons and circles,
CS231n's spirals, scikit-learn's bundled digits), as lists and as NumPy arrays."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.data import Dataset, load_digits, make_circles, make_moons, make_spirals

GENERATORS = [make_moons, make_circles, make_spirals]


@pytest.mark.parametrize("make", GENERATORS)
def test_a_dataset_is_lists_of_floats_and_int_labels(make) -> None:
    ds = make(30, seed=1)
    assert isinstance(ds, Dataset) and len(ds) == 30 and ds.n_features == 2
    assert all(isinstance(x, list) and len(x) == 2 and all(type(v) is float for v in x) for x in ds.X)
    assert all(type(t) is int and 0 <= t < ds.n_classes for t in ds.y)
    X, y = ds  # unpacks like a pair
    assert X is ds.X and y is ds.y


@pytest.mark.parametrize("make", GENERATORS)
def test_the_same_seed_gives_the_same_data_and_another_seed_other_data(make) -> None:
    assert make(40, seed=3).X == make(40, seed=3).X
    assert make(40, seed=3).X != make(40, seed=4).X


@pytest.mark.parametrize("make", GENERATORS)
def test_classes_are_balanced_and_shuffled(make) -> None:
    ds = make(61, seed=0)
    counts = [ds.y.count(k) for k in range(ds.n_classes)]
    assert max(counts) - min(counts) <= 1 and sum(counts) == 61
    assert ds.y != sorted(ds.y)


def test_moons_and_circles_without_noise_are_scikit_learns_points() -> None:
    sklearn = pytest.importorskip("sklearn.datasets")
    for ours, theirs in ((make_moons(25, noise=0.0), sklearn.make_moons(25, shuffle=False)),
                         (make_circles(25, noise=0.0), sklearn.make_circles(25, shuffle=False))):
        points, labels = theirs[0], theirs[1]
        for x, label in zip(ours.X, ours.y):  # every point of ours is one of theirs, with the same label
            nearest = int(np.argmin(np.linalg.norm(points - np.asarray(x), axis=1)))
            assert np.linalg.norm(points[nearest] - np.asarray(x)) < 1e-12 and labels[nearest] == label
        assert sorted(ours.y) == sorted(labels.tolist())


def _moon_residuals(ds: Dataset) -> np.ndarray:
    """Distance of each point from its moon's unit circle (centre (0, 0) for class 0, (1, 0.5) for class 1)."""
    X, y = np.asarray(ds.X), np.asarray(ds.y)
    centres = np.where(y[:, None] == 0, [0.0, 0.0], [1.0, 0.5])
    return np.linalg.norm(X - centres, axis=1) - 1.0


def test_noise_is_gaussian_with_the_given_standard_deviation() -> None:
    assert np.abs(_moon_residuals(make_moons(200, noise=0.0, seed=5))).max() < 1e-12
    spread = _moon_residuals(make_moons(2000, noise=0.1, seed=5)).std()
    assert 0.08 < spread < 0.12


def test_spirals_have_the_requested_number_of_arms_within_the_unit_disc() -> None:
    ds = make_spirals(90, classes=3, noise=0.0, seed=0)
    assert ds.n_classes == 3 and sorted(set(ds.y)) == [0, 1, 2]
    assert all(x * x + y * y <= 1.0 + 1e-12 for x, y in ds.X)
    assert make_spirals(20, classes=4).n_classes == 4


def test_numpy_form_for_the_tensor_engine() -> None:
    X, y = make_moons(12, seed=0).numpy()
    assert X.dtype == np.float32 and X.shape == (12, 2)
    assert y.dtype == np.int64 and y.shape == (12,)


def test_signed_labels_for_hinge_loss() -> None:
    ds = make_moons(10, seed=0)
    assert ds.signed_labels() == [2.0 * t - 1.0 for t in ds.y]
    with pytest.raises(ValueError, match="two classes"):
        make_spirals(9).signed_labels()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: make_moons(0), "at least one sample"),
        (lambda: make_moons(10, noise=-1.0), "can't be negative"),
        (lambda: make_circles(10, factor=1.5), "factor"),
        (lambda: make_spirals(10, classes=1), "at least 2 classes"),
    ],
)
def test_bad_arguments_are_value_errors(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_load_digits_reads_scikit_learns_bundled_images() -> None:
    pytest.importorskip("sklearn")
    ds = load_digits()
    assert len(ds) == 1797 and ds.n_features == 64 and ds.n_classes == 10
    assert all(0.0 <= v <= 1.0 for row in ds.X[:50] for v in row)
    small = load_digits(n=100, seed=1)
    assert len(small) == 100 and small.X == load_digits(n=100, seed=1).X


def test_load_digits_without_scikit_learn_says_how_to_install_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        load_digits()


def test_mg_data_is_this_module() -> None:
    assert mg.data.make_moons is make_moons
