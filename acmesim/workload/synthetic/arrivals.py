"""The arrival model: groups of jobs arriving with daily and weekly rhythms.

Group arrivals (an evaluation batch, a user's burst, the first job of a pretraining restart
chain) form a Poisson process whose rate follows the profile's hour-of-day and day-of-week
weights (in the cluster's local time), blended with a flat rate by the group model's
``diurnal`` weight. Each group then holds a lognormal number of jobs: batches all at one
second, sessions spaced by exponential gaps.
"""

from __future__ import annotations

import numpy as np

from acmesim.workload.synthetic.distributions import discrete_lognormal, norm_cdf
from acmesim.workload.synthetic.profiles import GroupModel, WorkloadProfile

SECONDS_PER_DAY = 86_400


def rhythm(profile: WorkloadProfile, epoch_seconds: np.ndarray, diurnal: float) -> np.ndarray:
    """Relative arrival rate at the given UTC epoch seconds (mean 1 over a week)."""
    hours = np.asarray(profile.hour_weights, dtype=np.float64)
    days = np.asarray(profile.weekday_weights, dtype=np.float64)
    weekly = np.outer(days, hours)
    weekly = weekly / weekly.mean()
    local = epoch_seconds + profile.local_utc_offset_hours * 3600
    hour = (local // 3600) % 24
    weekday = (local // SECONDS_PER_DAY + 3) % 7  # 1970-01-01 was a Thursday; Monday = 0
    return (1.0 - diurnal) + diurnal * weekly[weekday, hour]


def group_times(rng: np.random.Generator, profile: WorkloadProfile, start_epoch: int,
                rate_per_day: float, t0: int, t1: int, diurnal: float) -> np.ndarray:
    """Sorted arrival times (s from the trace start) in ``[t0, t1)`` of a modulated process.

    The number of arrivals is the expected number (rounded), and the times are independent
    draws from the rate profile (hour by hour), i.e. the Poisson process conditioned on its
    mean count: the trace's volume matches the published one for every seed.
    """
    edges = np.arange(t0 - t0 % 3600, t1 + 3600, 3600, dtype=np.int64)
    lower, upper = np.maximum(edges[:-1], t0), np.minimum(edges[1:], t1)
    mass = (upper - lower) * rhythm(profile, lower + start_epoch, diurnal)
    cumulative = np.concatenate([[0.0], np.cumsum(mass)])
    count = int(round(rate_per_day * cumulative[-1] / SECONDS_PER_DAY))
    draws = rng.random(count) * cumulative[-1]
    hour = np.minimum(np.searchsorted(cumulative, draws, side="right") - 1, len(mass) - 1)
    within = (draws - cumulative[hour]) / np.maximum(mass[hour], 1e-12)
    times = lower[hour] + np.floor(within * (upper[hour] - lower[hour])).astype(np.int64)
    return np.sort(np.minimum(times, t1 - 1))


def group_sizes(rng: np.random.Generator, model: GroupModel, n: int) -> np.ndarray:
    """Numbers of jobs in ``n`` groups (rounded lognormal, 1 to ``size_max``)."""
    return discrete_lognormal(rng, model.size_median, model.size_sigma, n, 1, model.size_max)


def mean_group_size(model: GroupModel) -> float:
    """The exact mean of ``group_sizes`` (the rounded, clipped lognormal)."""
    k = np.arange(1, model.size_max + 1, dtype=np.float64)
    upper = np.log(k + 0.5)  # a value rounds to k when below k + 0.5 (and k = 1 takes all below)
    cdf = norm_cdf((upper - np.log(model.size_median)) / model.size_sigma)
    cdf[-1] = 1.0  # the clip at size_max takes the rest
    probs = np.diff(np.concatenate([[0.0], cdf]))
    return float((k * probs).sum())


def expand_groups(rng: np.random.Generator, model: GroupModel, times: np.ndarray,
                  sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per job: group index, position in the group, submission time (chains: first job only)."""
    group = np.repeat(np.arange(len(sizes)), sizes)
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if len(sizes) else np.zeros(0, int)
    position = np.arange(len(group)) - np.repeat(first, sizes)
    submit = times[group].astype(np.int64)
    if model.kind == "session" and len(group):
        gaps = np.rint(rng.exponential(model.gap_mean, len(group))).astype(np.int64)
        gaps[position == 0] = 0
        cumulative = np.cumsum(gaps)
        submit = submit + cumulative - np.repeat(cumulative[first], sizes)
    return group, position, submit


def zipf_users(rng: np.random.Generator, users: int, exponent: float, n: int,
               ranking: np.ndarray) -> np.ndarray:
    """``n`` user indices: Zipf popularity over a type-specific ``ranking`` of the pool."""
    weights = 1.0 / np.arange(1, users + 1, dtype=np.float64) ** exponent
    cumulative = np.cumsum(weights / weights.sum())
    rank = np.minimum(np.searchsorted(cumulative, rng.random(n), side="right"), users - 1)
    return ranking[rank]
