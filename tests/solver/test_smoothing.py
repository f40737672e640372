"""Target smoothing before IK: removes noise from positions; One Euro lags less than an exponential."""

from __future__ import annotations

import numpy as np
import pytest

from solver import ExponentialFilter, OneEuroFilter, smooth_targets, solve_two_bone


def _noisy_path(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    t = np.arange(n) / 24.0
    clean = np.stack([150.0 + 40.0 * np.sin(0.1 * t), 60.0 * np.cos(0.05 * t)], axis=1)
    noise = np.random.default_rng(seed).normal(scale=2.0, size=clean.shape)
    return clean, clean + noise


@pytest.mark.parametrize("method", ["exponential", "one_euro"])
def test_filters_reduce_noise_variance(method: str) -> None:
    clean, noisy = _noisy_path()
    smoothed = smooth_targets(noisy, method)
    raw_var = np.var(noisy[50:] - clean[50:])
    assert np.var(smoothed[50:] - clean[50:]) < 0.5 * raw_var


def test_exponential_variance_matches_its_closed_form() -> None:
    noise = np.random.default_rng(1).normal(size=(200_000, 2))
    flt = ExponentialFilter(time_constant=3.0)
    out = flt.apply(noise)
    expected = flt.alpha / (2 - flt.alpha)
    assert np.var(out[100:]) == pytest.approx(expected, rel=0.03)


def test_one_euro_follows_fast_motion_with_less_lag_than_an_exponential() -> None:
    # Rest, then a fast ramp: same smoothing at rest (same cutoff), but One Euro opens up with speed.
    rate = 24.0
    n = 120
    x = np.where(np.arange(n) < 40, 0.0, (np.arange(n) - 40) * 20.0)
    path = np.stack([x, np.zeros(n)], axis=1)
    noise = np.random.default_rng(2).normal(scale=0.5, size=path.shape)
    euro = OneEuroFilter(rate=rate, min_cutoff=1.0, beta=0.05).apply(path + noise)
    plain = OneEuroFilter(rate=rate, min_cutoff=1.0, beta=0.0).apply(path + noise)  # = exponential, same cutoff
    lag_euro = np.abs(euro[60:, 0] - path[60:, 0]).mean()
    lag_plain = np.abs(plain[60:, 0] - path[60:, 0]).mean()
    assert lag_euro < 0.3 * lag_plain
    # At rest it still removes most of the jitter (its cutoff only rises with the measured speed).
    assert np.std(euro[10:40, 0]) < 0.6 * np.std(noise[10:40, 0])
    assert np.std(plain[10:40, 0]) < 0.6 * np.std(noise[10:40, 0])


def test_beta_zero_one_euro_is_an_exponential_filter() -> None:
    _, noisy = _noisy_path(100)
    euro = OneEuroFilter(rate=24.0, min_cutoff=1.0, beta=0.0)
    tau = 1.0 / (2 * np.pi * 1.0)
    alpha = 1.0 / (1.0 + tau * 24.0)
    expo = ExponentialFilter(time_constant=-1.0 / np.log(1.0 - alpha))
    np.testing.assert_allclose(euro.apply(noisy), expo.apply(noisy), rtol=0, atol=1e-9)


def test_solve_smooths_positions_before_ik_not_angles() -> None:
    _, noisy = _noisy_path()
    res = solve_two_bone(noisy, 150.0, 125.0, smoothing="one_euro")
    np.testing.assert_array_equal(res.target, smooth_targets(noisy, "one_euro"))
    plain = solve_two_bone(res.target, 150.0, 125.0)
    np.testing.assert_array_equal(res.shoulder_angle, plain.shoulder_angle)
    # The error is reported against the caller's (noisy) target, the solved one against the filtered.
    np.testing.assert_allclose(res.error, np.hypot(*(res.end - noisy).T), atol=1e-9)
    assert res.error_solved.max() < 1e-9 * 275
    flt = ExponentialFilter(time_constant=2.0)
    via_object = solve_two_bone(noisy, 150.0, 125.0, smoothing=flt)
    np.testing.assert_array_equal(via_object.target, flt.apply(noisy))


def test_smoothing_rejects_unknown_methods_and_bad_parameters() -> None:
    with pytest.raises(ValueError):
        smooth_targets(np.zeros((3, 2)), "median")
    with pytest.raises(ValueError):
        OneEuroFilter(rate=0.0)
    with pytest.raises(ValueError):
        ExponentialFilter(time_constant=-1.0)
