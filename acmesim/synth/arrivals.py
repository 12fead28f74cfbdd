"""The arrival model: groups of jobs arriving with daily and weekly rhythms, and quiet spells.

Group arrivals (an evaluation batch, a user's burst or array job, the first job of a
pretraining restart chain) form a Poisson process whose rate follows the profile's hour-of-day
and day-of-week weights (in the cluster's local time), blended with a flat rate by the group
model's ``diurnal`` weight, and drops to zero during the cluster's quiet spells
(``quiet_spells``: cluster-wide lulls such as maintenance windows, when nobody submits). Each
group then holds a heavy-tailed (lognormal) number of jobs, submitted at one second (an
evaluation batch, a Slurm array job) or seconds apart (a user's session), and belongs to one
user of a Zipf popularity over the user pool (``zipf_users_by_jobs``: each user's share of the
jobs follows the Zipf shares). See docs/workload_arrivals.md.
"""

from __future__ import annotations

import heapq

import numpy as np

from acmesim.synth.distributions import discrete_lognormal, norm_cdf
from acmesim.synth.profiles import GroupModel, QuietModel, WorkloadProfile

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


def quiet_spells(rng: np.random.Generator, model: QuietModel, t0: int, t1: int
                 ) -> np.ndarray:
    """Quiet spells ``[[start, end), ...]`` (s from the trace start) covering ``[t0, t1)``.

    An alternating renewal process: active stretches (exponential, mean chosen so that the
    spells take ``model.share`` of the time) and quiet spells (lognormal, ``model.median``,
    ``model.sigma``), starting at a random phase. Returns an ``(n, 2)`` integer array.
    """
    if model.share <= 0.0 or t1 <= t0:
        return np.zeros((0, 2), dtype=np.int64)
    mean_spell = model.median * np.exp(model.sigma ** 2 / 2.0)
    mean_active = mean_spell * (1.0 - model.share) / model.share
    cycles = int(np.ceil((t1 - t0) / (mean_spell + mean_active) * 1.5)) + 8
    active = rng.exponential(mean_active, cycles)
    quiet = model.median * np.exp(model.sigma * rng.standard_normal(cycles))
    origin = t0 - rng.random() * (mean_spell + mean_active)  # a random phase
    while origin + (active + quiet).sum() < t1:  # (rarely) more cycles to cover the window
        active = np.concatenate([active, rng.exponential(mean_active, cycles)])
        quiet = np.concatenate([quiet, model.median * np.exp(
            model.sigma * rng.standard_normal(cycles))])
    starts = origin + np.cumsum(active + quiet) - quiet
    spells = np.rint(np.stack([starts, starts + quiet], axis=1)).astype(np.int64)
    spells = np.clip(spells, t0, t1)
    return spells[spells[:, 1] > spells[:, 0]]


def _segments(t0: int, t1: int, quiet: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hour-aligned segments of ``[t0, t1)`` split at quiet-spell bounds: lower, upper, open."""
    edges = np.arange(t0 - t0 % 3600, t1 + 3600, 3600, dtype=np.int64)
    edges = np.clip(edges, t0, t1)
    if quiet is not None and len(quiet):
        edges = np.union1d(edges, np.clip(quiet.ravel(), t0, t1))
    else:
        edges = np.unique(edges)
    lower, upper = edges[:-1], edges[1:]
    open_ = np.ones(len(lower), dtype=bool)
    if quiet is not None and len(quiet):
        index = np.searchsorted(quiet[:, 0], lower, side="right") - 1
        inside = (index >= 0) & (lower < quiet[np.maximum(index, 0), 1])
        open_ = ~inside
    return lower, upper, open_


def expected_arrivals(profile: WorkloadProfile, start_epoch: int, rate_per_day: float,
                      t0: int, t1: int, diurnal: float) -> int:
    """The expected number of arrivals in ``[t0, t1)`` of the rhythm-modulated process."""
    lower, upper, _ = _segments(t0, t1, None)
    mass = (upper - lower) * rhythm(profile, lower + start_epoch, diurnal)
    return int(round(rate_per_day * mass.sum() / SECONDS_PER_DAY))


def group_times(rng: np.random.Generator, profile: WorkloadProfile, start_epoch: int,
                rate_per_day: float, t0: int, t1: int, diurnal: float,
                quiet: np.ndarray | None = None, count: int | None = None) -> np.ndarray:
    """Sorted arrival times (s from the trace start) in ``[t0, t1)`` of a modulated process.

    The number of arrivals is ``count``, by default the expected number (rounded) of the
    rhythm-modulated process without quiet spells, and the times are independent draws from the
    rate profile outside the ``quiet`` spells (segment by segment), i.e. the process conditioned
    on its count: the trace's volume matches the published one for every seed, and what the
    quiet spells hold back arrives in the open time. A window that lies wholly inside a quiet
    spell (a short trace) has no open time, so its arrivals follow the rhythm alone.
    """
    if count is None:
        count = expected_arrivals(profile, start_epoch, rate_per_day, t0, t1, diurnal)
    lower, upper, open_ = _segments(t0, t1, quiet)
    full = (upper - lower) * rhythm(profile, lower + start_epoch, diurnal)
    mass = np.where(open_, full, 0.0)
    if mass.sum() <= 0.0:  # the whole window is quiet: its volume still arrives, unsilenced
        mass = full
    cumulative = np.concatenate([[0.0], np.cumsum(mass)])
    if cumulative[-1] <= 0.0:
        return np.zeros(0, dtype=np.int64)
    draws = rng.random(count) * cumulative[-1]
    seg = np.minimum(np.searchsorted(cumulative, draws, side="right") - 1, len(mass) - 1)
    within = (draws - cumulative[seg]) / np.maximum(mass[seg], 1e-12)
    times = lower[seg] + np.floor(within * (upper[seg] - lower[seg])).astype(np.int64)
    return np.sort(np.minimum(times, t1 - 1))


def sizes_for_jobs(rng: np.random.Generator, model: GroupModel, jobs: int) -> np.ndarray:
    """Group sizes adding up to exactly ``jobs``, in random order.

    ``jobs / mean`` groups are drawn stratified (``group_sizes``: one per equal probability
    stratum, so a window holds its expected number of storms), then the total is made exact:
    the smallest groups are dropped when it is over, single-job groups added when it is under
    (a heavy tail's top stratum decides most of the difference).
    """
    if jobs <= 0:
        return np.zeros(0, dtype=np.int64)
    n = max(int(round(jobs / mean_group_size(model))), 1)
    sizes = group_sizes(rng, model, n)
    excess = int(sizes.sum()) - jobs
    if excess > 0:
        order = np.argsort(sizes, kind="stable")
        dropped = np.cumsum(sizes[order])
        k = min(int(np.searchsorted(dropped, excess)) + 1, n)
        keep = np.ones(n, dtype=bool)
        keep[order[:k]] = False
        sizes = np.concatenate([sizes[keep], np.ones(int(dropped[k - 1]) - excess, np.int64)])
    elif excess < 0:
        sizes = np.concatenate([sizes, np.ones(-excess, dtype=np.int64)])
    return rng.permutation(sizes)


def merge_storms(sizes: np.ndarray, threshold: int, factor: float) -> np.ndarray:
    """``sizes`` with its storms (groups of ``threshold`` jobs or more) merged ``factor`` at a time.

    A lab ``factor`` times larger draws ``factor`` x the groups; its storms (the array jobs
    that set the busiest hour) are lab-wide, so it has as many as the profile's, each
    ``factor`` x larger (``scale.py``). The storms are ranked by size and cut into
    ``round(n / factor)`` consecutive runs, each summed into one group at the position of its
    largest member; the other groups and the total number of jobs are unchanged.
    """
    storm = np.flatnonzero(sizes >= threshold)
    if factor <= 1.0 or threshold <= 0 or len(storm) < 2:
        return sizes
    order = storm[np.argsort(-sizes[storm], kind="stable")]
    runs = max(int(round(len(order) / factor)), 1)
    run_of = (np.arange(len(order)) * runs) // len(order)
    merged = np.bincount(run_of, weights=sizes[order], minlength=runs).astype(np.int64)
    firsts = order[np.flatnonzero(np.diff(np.concatenate([[-1], run_of])))]
    out = sizes.copy()
    out[firsts] = merged
    keep = np.ones(len(sizes), dtype=bool)
    keep[np.setdiff1d(storm, firsts)] = False
    return out[keep]


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
    """Per job: group index, position in the group, submission time (chains: first job only).

    A group is submitted at one second with probability ``model.at_once_share`` (a batch, an
    array job), else its jobs follow each other after exponential gaps (``gap_mean``).
    """
    group = np.repeat(np.arange(len(sizes)), sizes)
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if len(sizes) else np.zeros(0, int)
    position = np.arange(len(group)) - np.repeat(first, sizes)
    submit = times[group].astype(np.int64)
    share = model.at_once_share
    if model.kind != "chain" and share < 1.0 and len(group):
        spread = max(model.gap_mean - model.gap_min, 0.0)
        gaps = model.gap_min + np.rint(rng.exponential(spread, len(group))).astype(np.int64)
        gaps[position == 0] = 0
        at_once = at_once_groups(rng, sizes, share) if share > 0.0 else np.zeros(len(sizes), bool)
        if model.array_min > 0:
            at_once |= sizes >= model.array_min
        gaps[at_once[group]] = 0
        cumulative = np.cumsum(gaps)
        submit = submit + cumulative - np.repeat(cumulative[first], sizes)
    return group, position, submit


def at_once_groups(rng: np.random.Generator, sizes: np.ndarray, share: float) -> np.ndarray:
    """Which groups are submitted at one second: ``share`` of them, stratified by size.

    Systematic sampling along the groups ranked by size (ties in random order): of every
    ``1 / share`` groups of neighbouring size one is flagged, so the largest groups (the storms
    that set the busiest hour) hold their share of arrays for every seed.
    """
    n = len(sizes)
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((rng.random(n), -np.asarray(sizes)))] = np.arange(n)
    offset = rng.random()
    return np.floor((rank + 1) * share + offset) > np.floor(rank * share + offset)


def zipf_users(rng: np.random.Generator, users: int, exponent: float, n: int,
               ranking: np.ndarray) -> np.ndarray:
    """``n`` user indices: Zipf popularity over a type-specific ``ranking`` of the pool."""
    weights = 1.0 / np.arange(1, users + 1, dtype=np.float64) ** exponent
    cumulative = np.cumsum(weights / weights.sum())
    rank = np.minimum(np.searchsorted(cumulative, rng.random(n), side="right"), users - 1)
    return ranking[rank]


def zipf_shares(users: int, exponent: float) -> np.ndarray:
    """Each popularity rank's share of the jobs: ``rank ** -exponent``, normalized."""
    weights = 1.0 / np.arange(1, users + 1, dtype=np.float64) ** exponent
    return weights / weights.sum()


def zipf_exponent_for_top_share(users: int, top: int, share: float) -> float:
    """The Zipf exponent whose ``top`` ranks of ``users`` hold ``share`` of the jobs."""
    low, high = 0.0, 10.0
    for _ in range(80):  # bisection: the top share grows with the exponent
        middle = (low + high) / 2.0
        if zipf_shares(users, middle)[:top].sum() < share:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def zipf_users_by_jobs(rng: np.random.Generator, users: int, exponent: float,
                       group_jobs: np.ndarray, ranking: np.ndarray) -> np.ndarray:
    """One user per group such that each user's share of the *jobs* follows the Zipf shares.

    Groups are dealt largest first (ties in random order), each to the user furthest below
    their Zipf share of the jobs so far: the heaviest users (pipeline accounts) run the largest
    sweeps, and every user's share stays within about one group of the model's, at any trace
    length (a random deal would let a storm of thousands of jobs lift an arbitrary user into
    the top five of a short trace).
    """
    n = len(group_jobs)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    sizes = np.asarray(group_jobs, dtype=np.int64)
    quota = zipf_shares(users, exponent) * float(sizes.sum())
    heap = [(-q, rank) for rank, q in enumerate(quota.tolist())]
    heapq.heapify(heap)
    order = np.lexsort((rng.random(n), -sizes))
    rank_of = np.empty(n, dtype=np.int64)
    for index, size in zip(order.tolist(), sizes[order].tolist(), strict=True):
        deficit, rank = heapq.heappop(heap)
        rank_of[index] = rank
        heapq.heappush(heap, (deficit + size, rank))
    return ranking[rank_of]


def split_batches(sizes: np.ndarray, gpus: np.ndarray, gpu_max: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Batches of at most ``gpu_max`` GPUs in total: parent index, jobs and GPU count of each.

    A batch of ``n`` jobs of ``g`` GPUs with ``n g > gpu_max`` becomes the fewest batches of at
    most ``max(gpu_max // g, 1)`` jobs, of near-equal sizes (they differ by at most one job),
    listed in place of their parent (its pieces in a row); the others are kept as they are.
    Every GPU count keeps its jobs, so the jobs' GPU-count distribution is unchanged.
    ``gpu_max`` 0 keeps every batch.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    gpus = np.asarray(gpus, dtype=np.int64)
    if gpu_max <= 0 or len(sizes) == 0:
        return np.arange(len(sizes)), sizes, gpus
    per_piece = np.maximum(gpu_max // np.maximum(gpus, 1), 1)
    pieces = -(-sizes // per_piece)  # ceil: the fewest pieces within the bound
    parent = np.repeat(np.arange(len(sizes)), pieces)
    first = np.concatenate([[0], np.cumsum(pieces)[:-1]])
    index = np.arange(len(parent)) - np.repeat(first, pieces)
    base, extra = sizes[parent] // pieces[parent], sizes[parent] % pieces[parent]
    return parent, base + (index < extra), gpus[parent]
