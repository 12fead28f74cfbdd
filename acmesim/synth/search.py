"""Architecture and objective search: waves of short single-GPU trials, most stopped early.

Modeled on automated registration-network search (AutoReg, medical image registration): a
search samples candidate architectures and loss weightings and runs them by asynchronous
successive halving. Every candidate starts as a rung-0 trial with a small training budget, all
submitted at once (a wave); of the trials of a rung that complete, the best ``1/eta`` continue
(a new job that resumes the trial, submitted right after it ends) with ``eta`` times the budget;
the others are stopped early. After the last rung the best surviving candidate is trained to the
end in one long final job. So a search's GPU demand jumps when it starts and falls rung by rung
until the final job remains.

Every value of ``SearchModel`` is an **assumption** (no published search trace); the calibration
of the ``taskdl`` profile treats the class as given and fits the supervised class around it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from acmesim.core.rng import RngStreams
from acmesim.synth.arrivals import group_sizes
from acmesim.synth.jobs import STATE_NAMES, assign_states
from acmesim.synth.profiles import GroupModel, StateModel
from acmesim.synth.table import JobArrays
from acmesim.synth.taskmeta import CLASS_TYPES, TaskMeta

COMPLETED = STATE_NAMES.index("COMPLETED")
TRIAL, FINAL = "trial", "final"


@dataclasses.dataclass(frozen=True)
class SearchModel:
    """The shape of one search: trials, rungs, budgets, final training."""

    trials: GroupModel = GroupModel("batch", 24.0, 0.5, 243, diurnal=0.5)
    """Rung-0 trials per search (rounded lognormal); ``diurnal`` weighs the arrival rhythm."""
    min_trials: int = 9
    """At least ``eta ** (rungs - 1)`` trials, so the last rung is reachable."""
    rungs: int = 3
    eta: int = 3
    budget_median: float = 300.0
    """Median rung-0 training budget of a search, seconds (lognormal across searches)."""
    budget_sigma: float = 0.5
    trial_sigma: float = 0.3
    """Spread of a trial's run time around its rung budget (candidates differ in speed)."""
    final_median: float = 6 * 3600.0
    final_sigma: float = 0.7
    final_max: float = 7 * 86400.0
    resume_gap_median: float = 60.0
    """Seconds from a promoted trial's end to its continuation's submission (lognormal)."""
    resume_gap_sigma: float = 1.0

    def __post_init__(self) -> None:
        if self.rungs < 1 or self.eta < 2 or self.min_trials < self.eta ** (self.rungs - 1):
            raise ValueError("search model needs rungs >= 1, eta >= 2 and "
                             "min_trials >= eta ** (rungs - 1)")


@dataclasses.dataclass
class _Rung:
    """The jobs of one rung across every search (indices into the growing job list)."""

    index: np.ndarray
    group: np.ndarray
    score: np.ndarray
    state: np.ndarray


def search_jobs(streams: RngStreams, model: SearchModel, states: StateModel,
                starts: np.ndarray) -> tuple[JobArrays, TaskMeta]:
    """Every job of the searches starting at ``starts`` (seconds), with links and attributes.

    ``user`` holds the search index (the caller maps searches to users). Continuations and final
    jobs are successors of the job they resume (their ``submit`` is -1 until packed).
    """
    rng = streams.stream("search/shape")
    searches = len(starts)
    trials = np.maximum(group_sizes(streams.stream("search/trials"), model.trials, searches),
                        model.min_trials)
    budget = model.budget_median * np.exp(model.budget_sigma * rng.standard_normal(searches))
    builder = _Builder(streams, states)
    group = np.repeat(np.arange(searches), trials)
    rung = builder.add(group, budget[group], rung=0, variant=TRIAL,
                       submit=np.asarray(starts, dtype=np.int64)[group],
                       score=rng.random(len(group)), spread=model.trial_sigma)
    for k in range(1, model.rungs):
        chosen = _best_completed(rung, quota=np.bincount(rung.group, minlength=searches)
                                 // model.eta)
        rung = builder.add(rung.group[chosen], budget[rung.group[chosen]] * model.eta ** k,
                           rung=k, variant=TRIAL, parent=rung.index[chosen],
                           score=rung.score[chosen], spread=model.trial_sigma)
    best = _best_completed(rung, quota=np.ones(searches, dtype=np.int64))
    final_time = np.minimum(model.final_median * np.exp(
        model.final_sigma * rng.standard_normal(len(best))), model.final_max)
    builder.add(rung.group[best], final_time, rung=model.rungs, variant=FINAL,
                parent=rung.index[best], score=rung.score[best], spread=0.0)
    gaps = model.resume_gap_median * np.exp(model.resume_gap_sigma * rng.standard_normal(
        len(builder.parent_all())))
    return builder.arrays(np.rint(gaps).astype(np.int64))


def _best_completed(rung: _Rung, quota: np.ndarray) -> np.ndarray:
    """Positions (in ``rung``) of the ``quota[group]`` best-scoring completed jobs per group."""
    eligible = np.flatnonzero(rung.state == COMPLETED)
    order = eligible[np.lexsort((-rung.score[eligible], rung.group[eligible]))]
    groups = rung.group[order]
    first = np.searchsorted(groups, groups, side="left")
    rank = np.arange(len(order)) - first
    return np.sort(order[rank < quota[groups]])


class _Builder:
    """Accumulates the jobs of all rungs, drawing run times and states per rung."""

    def __init__(self, streams: RngStreams, states: StateModel) -> None:
        self.streams, self.states = streams, states
        self.parts: list[dict[str, np.ndarray]] = []
        self.count = 0

    def add(self, group: np.ndarray, budget: np.ndarray, *, rung: int, variant: str,
            score: np.ndarray, spread: float, submit: np.ndarray | None = None,
            parent: np.ndarray | None = None) -> _Rung:
        """Append one rung's jobs; returns the rung (with its job indices and states)."""
        n = len(group)
        rng = self.streams.stream(f"search/rung{rung}")
        work = np.maximum(np.rint(budget * np.exp(spread * rng.standard_normal(n))), 1)
        work = work.astype(np.int64)
        state = assign_states(self.streams.stream(f"search/states{rung}"), self.states,
                              work.astype(np.float64))
        index = self.count + np.arange(n)
        self.parts.append({
            "group": group, "work": work, "state": state, "stage": np.full(n, rung),
            "variant": np.full(n, variant, dtype=object),
            "submit": np.full(n, -1, dtype=np.int64) if submit is None else submit,
            "parent": np.full(n, -1, dtype=np.int64) if parent is None else parent,
        })
        self.count += n
        return _Rung(index, group, score, state)

    def parent_all(self) -> np.ndarray:
        """The parent index of every job added so far."""
        return np.concatenate([p["parent"] for p in self.parts])

    def arrays(self, gaps: np.ndarray) -> tuple[JobArrays, TaskMeta]:
        """The accumulated jobs as ``JobArrays`` (successor links set) and ``TaskMeta``."""
        cat = {key: np.concatenate([p[key] for p in self.parts]) for key in self.parts[0]}
        n = self.count
        successor = np.full(n, -1, dtype=np.int64)
        gap = np.zeros(n, dtype=np.int64)
        linked = np.flatnonzero(cat["parent"] >= 0)
        successor[cat["parent"][linked]] = linked
        gap[cat["parent"][linked]] = gaps[linked]
        jobs = JobArrays(
            type_code=np.zeros(n, dtype=np.int16), gpus=np.ones(n, dtype=np.int64),
            submit=cat["submit"].astype(np.int64), work=cat["work"],
            state=cat["state"].astype(np.int8), user=cat["group"].astype(np.int64),
            klass=np.ones(n, dtype=np.int8), successor=successor, gap=gap,
            start=np.full(n, -1, dtype=np.int64), end=np.full(n, -1, dtype=np.int64),
        )
        meta = TaskMeta(workload=np.full(n, "search", dtype=object),
                        group=cat["group"].astype(np.int64), stage=cat["stage"].astype(np.int64),
                        variant=cat["variant"], parent=cat["parent"].astype(np.int64),
                        gpu_util=np.full(n, np.nan),
                        job_type=np.full(n, CLASS_TYPES["search"], dtype=object))
        return jobs, meta
