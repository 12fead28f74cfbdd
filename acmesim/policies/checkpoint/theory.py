"""Analytic checkpoint theory: Young, Daly and the exact Lambert-W optimum (pure functions).

Every formula is quoted from ``reliability_facts.md`` §1 and uses one consistent time unit of the
caller's choice (seconds or minutes). Symbols follow §1.1:

- ``mtbf`` ``M``: mean time between failures seen by the job (Poisson failures, rate ``1/M``);
- ``delta`` ``δ``: blocking time of one checkpoint;
- ``tau`` ``τ``: useful compute between two checkpoints;
- ``restart`` ``R``: restart time after a failure, itself exposed to failures (retried);
- ``downtime`` ``D``: failure-free time before a restart begins;
- ``solve_time`` ``T_s``: failure-free compute of the whole job.

Model (Daly 2006, §1.4): the job is cut into segments of ``τ`` compute + ``δ`` checkpoint, every
segment ends with a checkpoint, a failure rolls work back to the last checkpoint, and after each
failure a downtime ``D`` then a restart ``R`` are paid. Numpy/math only (no scipy).
"""

from __future__ import annotations

import math

from acmesim.core.bounds import require_finite_non_negative, require_positive

_INV_E = math.exp(-1.0)


def lambert_w0(z: float) -> float:
    """Principal branch ``W0(z)`` of the Lambert W function (``w·e^w = z``), for ``z ≥ -1/e``.

    Start from the branch-point series ``w ≈ -1 + p - p²/3 + 11p³/72`` with ``p = sqrt(2(e·z+1))``
    near ``-1/e`` (reliability_facts.md §1.7), from ``log1p`` for moderate ``z`` and from
    ``log z - log log z`` for large ``z``; then refine with Halley iterations.
    """
    z = float(z)
    if math.isnan(z) or z < -_INV_E * (1.0 + 1e-15):
        raise ValueError(f"lambert_w0 is real only for z >= -1/e, got {z!r}")
    if z == 0.0 or math.isinf(z):
        return z
    w = _initial_guess(max(z, -_INV_E))
    for _ in range(64):
        step = _halley_step(w, z)
        w -= step
        if abs(step) <= 4e-16 * (1.0 + abs(w)):
            break
    return w


def _initial_guess(z: float) -> float:
    """A starting point for Halley's iteration on the principal branch."""
    if z < -0.25:
        p = math.sqrt(max(2.0 * (math.e * z + 1.0), 0.0))
        return -1.0 + p - p * p / 3.0 + 11.0 * p**3 / 72.0
    if z < 3.0:
        lz = math.log1p(z)
        return lz * (1.0 - math.log1p(lz) / (2.0 + lz))
    lz = math.log(z)
    return lz - math.log(lz)


def _halley_step(w: float, z: float) -> float:
    """The Halley correction for ``f(w) = w·e^w - z`` (0 when the derivative vanishes)."""
    ew = math.exp(w)
    f = w * ew - z
    if f == 0.0:
        return 0.0
    denominator = ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0)
    if denominator == 0.0 or not math.isfinite(denominator):
        return 0.0
    return f / denominator


def young_interval(delta: float, mtbf: float) -> float:
    """Young's first-order optimum ``τ_Y = sqrt(2·δ·M)`` (reliability_facts.md §1.2)."""
    require_positive(mtbf=mtbf)
    require_finite_non_negative(delta=delta)
    return math.sqrt(2.0 * delta * mtbf)


def daly_interval(delta: float, mtbf: float) -> float:
    """Daly's higher-order estimate, his eq. 37 (reliability_facts.md §1.5, LLNL SCR).

    With ``x = δ/(2M)``: ``τ = sqrt(2δM)·(1 + sqrt(x)/3 + x/9) - δ`` when ``δ < 2M``, else ``M``.
    """
    require_positive(mtbf=mtbf)
    require_finite_non_negative(delta=delta)
    if delta >= 2.0 * mtbf:
        return float(mtbf)
    x = delta / (2.0 * mtbf)
    return math.sqrt(2.0 * delta * mtbf) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta


def optimal_interval(delta: float, mtbf: float) -> float:
    """The exact optimum of Daly's complete model, ``τ* = M·[1 + W0(-e^{-(δ/M + 1)})]``.

    It does not depend on ``R``, ``D`` or ``T_s`` (reliability_facts.md §1.5).
    """
    require_positive(mtbf=mtbf)
    require_finite_non_negative(delta=delta)
    return mtbf * (1.0 + lambert_w0(-math.exp(-(delta / mtbf + 1.0))))


def expected_segment_time(
    tau: float, delta: float, mtbf: float, restart: float = 0.0, downtime: float = 0.0
) -> float:
    """Expected wall time to complete one segment of ``τ + δ``: ``e^{R/M}(M + D)(e^{(τ+δ)/M} - 1)``.

    ``D = 0`` is Daly's formula (§1.4); the downtime term is the derivation in §1.4 (each of the
    expected ``e^{R/M}(e^{(τ+δ)/M} - 1)`` failures costs ``D`` more).
    """
    require_positive(mtbf=mtbf)
    require_finite_non_negative(tau=tau, delta=delta, restart=restart, downtime=downtime)
    return math.exp(restart / mtbf) * (mtbf + downtime) * math.expm1((tau + delta) / mtbf)


def expected_wall_time(
    tau: float,
    delta: float,
    mtbf: float,
    solve_time: float,
    restart: float = 0.0,
    downtime: float = 0.0,
) -> float:
    """Daly's expected wall time ``T_w(τ) = M·e^{R/M}·(e^{(τ+δ)/M} - 1)·T_s/τ`` (plus downtime).

    Exact when ``T_s`` is a multiple of ``τ``; ``τ = inf`` (never checkpoint) gives the
    no-checkpoint time ``(M + D)·e^{R/M}·(e^{T_s/M} - 1)``.
    """
    require_positive(tau=tau)
    if math.isinf(tau):
        return expected_segment_time(solve_time, 0.0, mtbf, restart, downtime)
    return expected_segment_time(tau, delta, mtbf, restart, downtime) * solve_time / tau


def expected_efficiency(
    tau: float, delta: float, mtbf: float, restart: float = 0.0, downtime: float = 0.0
) -> float:
    """Expected efficiency (ETTR) ``T_s/T_w = τ·e^{-R/M} / ((M + D)·(e^{(τ+δ)/M} - 1))``."""
    require_positive(tau=tau)
    return tau / expected_segment_time(tau, delta, mtbf, restart, downtime)


def max_efficiency(delta: float, mtbf: float, restart: float = 0.0) -> float:
    """The efficiency at the exact optimum, ``E_max = -e^{-R/M}·W0(-e^{-(1 + δ/M)})`` (§1.6)."""
    require_positive(mtbf=mtbf)
    require_finite_non_negative(delta=delta, restart=restart)
    return -math.exp(-restart / mtbf) * lambert_w0(-math.exp(-(1.0 + delta / mtbf)))

