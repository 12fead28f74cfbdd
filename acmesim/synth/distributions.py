"""Vectorized building blocks of the synthetic workload model (numpy only).

Normal CDF and quantile (for the Gaussian copula that couples job size and duration), a
log-space piecewise-linear quantile function through published percentiles, stratified uniforms
and discrete draws. Nothing here knows about clusters or job types.
"""

from __future__ import annotations

import numpy as np

# Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9).
_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
      1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
      6.680131188771972e01, -1.328068155288572e01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
      -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00,
      3.754408661907416e00)
_P_LOW = 0.02425

# Chebyshev fit of erfc (Numerical Recipes ``erfcc``; fractional error < 1.2e-7 everywhere).
_ERFC = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
         -1.13520398, 1.48851587, -0.82215223, 0.17087277)


def _poly(coefficients: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    """Horner evaluation of a polynomial with ``coefficients`` from the highest degree down."""
    result = np.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        result = result * x + c
    return result


def norm_ppf(p: np.ndarray) -> np.ndarray:
    """Standard normal quantile of probabilities in (0, 1), elementwise."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-300, 1 - 1e-16)
    x = np.empty_like(p)
    low, high = p < _P_LOW, p > 1 - _P_LOW
    mid = ~(low | high)
    q = p[mid] - 0.5
    r = q * q
    x[mid] = _poly(_A, r) * q / (_poly(_B, r) * r + 1.0)
    for mask, sign, tail in ((low, 1.0, p[low]), (high, -1.0, 1.0 - p[high])):
        q = np.sqrt(-2.0 * np.log(tail))
        x[mask] = sign * _poly(_C, q) / (_poly(_D, q) * q + 1.0)
    return x


def norm_cdf(x: np.ndarray) -> np.ndarray:
    """Standard normal CDF, elementwise."""
    z = np.abs(np.asarray(x, dtype=np.float64)) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.5 * z)
    erfc = t * np.exp(-z * z + _poly(_ERFC[::-1], t))
    return np.where(np.asarray(x) >= 0, 1.0 - 0.5 * erfc, 0.5 * erfc)


class LogQuantile:
    """A quantile function linear in log(value) between knots ``(probability, value)``.

    This is how the published percentile tables are read (acme_facts.md §2.4: "percentiles in
    between use log-linear interpolation"); the first knot must be at probability 0 and the last
    at 1, so the support is ``[value_0, value_last]``.
    """

    def __init__(self, knots: tuple[tuple[float, float], ...]) -> None:
        probs = np.array([k[0] for k in knots], dtype=np.float64)
        values = np.array([k[1] for k in knots], dtype=np.float64)
        if probs[0] != 0.0 or probs[-1] != 1.0:
            raise ValueError(f"quantile knots must span probability 0..1, got {probs.tolist()}")
        if np.any(np.diff(probs) <= 0) or np.any(np.diff(values) < 0) or values[0] <= 0:
            raise ValueError(f"quantile knots must increase: {list(knots)}")
        self.probs, self.log_values = probs, np.log(values)

    def __call__(self, u: np.ndarray) -> np.ndarray:
        """Values at probabilities ``u``."""
        return np.exp(np.interp(u, self.probs, self.log_values))

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """Probability of a value at most ``x`` (the inverse of the quantile function)."""
        return np.interp(np.log(np.maximum(x, 1e-300)), self.log_values, self.probs)

    def mean(self) -> float:
        """The exact mean of the distribution (integral of the quantile function)."""
        total = 0.0
        for i in range(len(self.probs) - 1):
            dp = self.probs[i + 1] - self.probs[i]
            a, b = self.log_values[i], self.log_values[i + 1]
            total += dp * (np.exp(a) if b == a else (np.exp(b) - np.exp(a)) / (b - a))
        return float(total)


def stratified_uniforms(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` uniforms in (0, 1), exactly one in each of ``n`` equal strata, in random order."""
    return (rng.permutation(n) + rng.random(n)) / max(n, 1)


def rank_stratified_uniforms(rng: np.random.Generator, key: np.ndarray, block: int
                             ) -> np.ndarray:
    """Uniforms stratified within blocks of ``block`` jobs of consecutive rank of ``key``.

    Jobs are ranked by ``key`` (largest first) and cut into blocks; inside a block the uniforms
    take distinct equal strata in random order. A categorical draw by inverse CDF then gives
    every block (nearly) its expected count of each category, which keeps weighted shares
    dominated by a few heavy jobs close to their expectation.
    """
    n = len(key)
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(-np.asarray(key), kind="stable")] = np.arange(n)
    blocks = rank // block
    order = np.lexsort((rng.random(n), blocks))
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n) - blocks[order] * block
    size = np.minimum(block, n - blocks * block)
    return (position + rng.random(n)) / size


def discrete_quantile(values: np.ndarray, probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The values of a discrete distribution (``probs`` need not sum to 1) at quantiles ``u``."""
    cumulative = np.cumsum(probs, dtype=np.float64)
    index = np.searchsorted(cumulative / cumulative[-1], u, side="right")
    return np.asarray(values)[np.minimum(index, len(values) - 1)]


def discrete_draws(rng: np.random.Generator, values: np.ndarray, probs: np.ndarray,
                   n: int, stratified: bool = False) -> np.ndarray:
    """``n`` draws of ``values`` with probabilities ``probs``, independent or stratified."""
    u = stratified_uniforms(rng, n) if stratified else rng.random(n)
    return discrete_quantile(values, probs, u)


def discrete_lognormal(rng: np.random.Generator, median: float, sigma: float, n: int,
                       low: int, high: int) -> np.ndarray:
    """``n`` integers: a lognormal(median, sigma) rounded and clipped to ``[low, high]``.

    The draws are stratified (one per equal probability stratum, in random order), so their sum
    stays close to ``n`` times the mean even for a skewed distribution.
    """
    values = np.rint(median * np.exp(sigma * norm_ppf(stratified_uniforms(rng, n))))
    return np.clip(values, low, high).astype(np.int64)
