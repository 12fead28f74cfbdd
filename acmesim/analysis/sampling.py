"""Sampling error of a percentile: the distribution-free confidence band of a sample quantile.

A percentile of ``n`` jobs is a random quantity: with ``n`` small or ``p`` near 0 or 100 it
rests on a handful of jobs (the p99 of 385 jobs is about the fourth-longest), and a fixed
tolerance then often fails a perfect sample of the published distribution: of 2,000 samples of
800 independent draws from the generator's Kalos Debug run times, whose p99 is the published
3,992 s, 24.3 % miss a 25 % tolerance at p99 (and 97.4 % hold 3,992 s inside the band below).
The band needs no model of the distribution: the number ``B`` of the ``n`` values below the
true ``p``-th percentile is Binomial(n, p / 100), so the order statistics ``x_(l)`` and
``x_(u)`` with ``P(l <= B < u) >= confidence`` bracket the true percentile with at least that
probability (the textbook interval from order statistics, e.g. Hahn & Meeker, *Statistical
Intervals*, §5.2). A published percentile inside a sample's band is one the sample cannot tell
apart from its own; ``acmesim characterize`` and ``acmesim validate`` pass a percentile check
that is within its fixed tolerance *or* inside that band, and say which. The band assumes
independent jobs; jobs of one session or restart chain are not quite, so it is a lower bound
on the sampling error.
"""

from __future__ import annotations

import math

import numpy as np

CONFIDENCE = 0.95
"""Coverage of the band [chosen: the usual two-sided 95 %]."""
_WINDOW_SD = 12.0
"""Binomial terms farther than this many standard deviations (plus 10) from the mean are left
out of the sums: their mass is below 1e-30."""


def order_statistic_ranks(n: int, p: float, confidence: float = CONFIDENCE) -> tuple[int, int]:
    """1-based ranks ``(l, u)`` of the order statistics bracketing the ``p``-th percentile
    (``0 < p < 100``) of ``n`` values with at least ``confidence``: ``B`` ~ Binomial(n, p/100)
    values lie below the true percentile, ``l`` is the largest rank with ``P(B < l) <=
    (1 - confidence) / 2`` and ``u - 1`` the smallest count with ``P(B <= u - 1) >= (1 +
    confidence) / 2``. ``l`` may be 0 (no lower order statistic: unbounded below) and ``u``
    ``n + 1`` (unbounded above)."""
    if n < 1 or not 0.0 < p < 100.0 or not 0.0 < confidence < 1.0:
        raise ValueError(f"need n >= 1, 0 < p < 100, 0 < confidence < 1; got {n}, {p}, "
                         f"{confidence}")
    q = p / 100.0
    ks, cdf = _binomial_cdf(n, q)
    tail = (1.0 - confidence) / 2.0
    below = np.flatnonzero(cdf <= tail)  # P(B <= k) <= tail: rank k + 1 still covers
    lower = int(ks[below[-1]]) + 1 if len(below) else 0
    upper = int(ks[min(int(np.searchsorted(cdf, 1.0 - tail)), len(ks) - 1)]) + 1
    return lower, min(upper, n + 1)


def percentile_band(values: np.ndarray, p: float, confidence: float = CONFIDENCE, *,
                    presorted: bool = False) -> tuple[float, float]:
    """The band of the ``p``-th percentile of ``values`` (``order_statistic_ranks``): ``-inf``
    or ``inf`` where it reaches past the sample, ``(nan, nan)`` for no values."""
    if len(values) == 0:
        return math.nan, math.nan
    ordered = values if presorted else np.sort(np.asarray(values, dtype=np.float64))
    lower, upper = order_statistic_ranks(len(ordered), p, confidence)
    low = float(ordered[lower - 1]) if lower >= 1 else -math.inf
    high = float(ordered[upper - 1]) if upper <= len(ordered) else math.inf
    return low, high


def percentile_bands(values: np.ndarray, points: tuple[int, ...],
                     confidence: float = CONFIDENCE) -> dict[int, tuple[float, float]]:
    """``percentile_band`` of each of ``points`` (one sort)."""
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    return {p: percentile_band(ordered, p, confidence, presorted=True) for p in points}


def within(band: tuple[float, float] | None, value: float) -> bool:
    """Whether ``value`` lies inside ``band`` (False for no band or a NaN)."""
    if band is None or math.isnan(value) or any(math.isnan(b) for b in band):
        return False
    return band[0] <= value <= band[1]


def _binomial_cdf(n: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``k`` around the mean of Binomial(n, q) and ``P(B <= k)`` at each: the first
    term's log from ``lgamma``, each next one's by the ratio ``(n - k) / (k + 1) * q / (1 -
    q)`` (summed in logs, vectorized; the mass outside the window is negligible)."""
    mean, sd = n * q, math.sqrt(n * q * (1.0 - q))
    first = max(0, int(mean - _WINDOW_SD * sd) - 10)
    last = min(n, int(mean + _WINDOW_SD * sd) + 10)
    ks = np.arange(first, last + 1)
    log_first = (math.lgamma(n + 1) - math.lgamma(first + 1) - math.lgamma(n - first + 1)
                 + first * math.log(q) + (n - first) * math.log1p(-q))
    steps = np.log((n - ks[:-1]) / (ks[:-1] + 1.0)) + (math.log(q) - math.log1p(-q))
    log_pmf = log_first + np.concatenate(([0.0], np.cumsum(steps)))
    return ks, np.cumsum(np.exp(log_pmf))
