"""Eligibility delay: jobs held by their users, which enter the scheduler's queue late.

A batch scheduler counts a job's queue time from its submission, also while the job is not yet
eligible to run: held by its user (Slurm's ``scontrol hold``, a ``--begin`` time) or waiting on
another job (``--dependency=afterok``). Such waits are set by a person or by another job, not
by the load. The model: a GPU job of type ``t`` is held with probability ``share`` (its type's
row of ``by_type`` if there is one, else the cluster's), for a hold drawn log-uniformly between
``minimum`` and ``maximum`` seconds (``minimum * (maximum / minimum) ** V``, ``V`` uniform on
[0, 1); ``minimum == maximum`` is a fixed hold). A held job enters the pending queue at submit +
hold: it holds no GPUs meanwhile, the scheduler (and its ``on_arrival``) sees it only then, and
its queue delay still counts from its submission. Only a job's first submission is held (a
requeued job is not); CPU-only jobs are never held; recorded mode ignores it. Each job gets two
uniform draws, ``U`` (held if ``U < share``) and ``V``, by job index from its own stream
(``eligibility``), so a job's hold depends neither on the schedule nor on the other jobs'
types. The default (``share`` 0 everywhere) holds nobody. Cluster presets set their own
(``acmesim.cluster.presets.acme``: Seren and Kalos hold 1.5 % of Other's GPU jobs for 2^15 to
2^17 s and 1 % of MLLM's for 2^13 to 2^15 s, ``HOLDS``); ``cluster.eligibility={}`` turns it
off,
``cluster.eligibility={by_type:{Other:{share:0.02,minimum:32768,maximum:65536}}}`` sets
another. ``within`` gives holds only to jobs with room for them (the generator's replay of a
profile whose durations count from the submission, Kalos) and ``GivenHolds`` replays holds
fixed per job.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from acmesim.cluster.per_type import given_values, type_rows
from acmesim.core.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

HOLD_FIELDS = ("share", "minimum", "maximum")
"""What ``by_type`` may set per job type."""


@dataclasses.dataclass(frozen=True)
class EligibilityDelay:
    """Share of GPU jobs held by their users and the log-uniform range of a hold (s)."""

    share: float = 0.0
    """Probability that a GPU job of a type without a row of its own is held."""
    minimum: float = 1.0
    """Shortest hold (s)."""
    maximum: float = 1.0
    """Longest hold (s; the log-uniform's upper end, not reached)."""
    by_type: Any = ()
    """Job type -> its own {share, minimum, maximum} (a dict; kept as sorted tuples; a row
    without ``minimum`` or ``maximum`` takes the cluster's)."""

    def __post_init__(self) -> None:
        _check("eligibility", self.share, self.minimum, self.maximum)
        object.__setattr__(self, "by_type", _type_table(self.by_type, self.minimum,
                                                        self.maximum))

    @property
    def active(self) -> bool:
        """Whether any job can be held."""
        return self.share > 0.0 or any(row[1] > 0.0 for row in self.by_type)

    def draw(self, rng: np.random.Generator, n: int,
             types: Sequence[str] | None = None) -> np.ndarray:
        """``n`` holds (s; 0 for a job not held, zeros when inactive, without drawing): job
        ``i`` of type ``types[i]`` uses its type's row if ``by_type`` has one."""
        import numpy as np
        if not self.active:
            return np.zeros(n)
        held, length = rng.random(n), rng.random(n)
        return self.at(held, length, types)

    def at(self, held: np.ndarray, length: np.ndarray,
           types: Sequence[str] | None = None) -> np.ndarray:
        """The holds at given uniform draws ``held`` (``U``) and ``length`` (``V``)."""
        import numpy as np
        share, hold = self._share_and_hold(length, types)
        return np.where(held < share, hold, 0.0)

    def draw_within(self, rng: np.random.Generator, room: np.ndarray,
                    types: Sequence[str] | None = None) -> np.ndarray:
        """One hold per job (s) that fits in the job's ``room`` (s; ``within``), from the two
        uniform draws per job ``draw`` makes (zeros when inactive, without drawing)."""
        import numpy as np
        if not self.active:
            return np.zeros(len(room))
        held, length = rng.random(len(room)), rng.random(len(room))
        return self.within(held, length, room, types)

    def within(self, held: np.ndarray, length: np.ndarray, room: np.ndarray,
               types: Sequence[str] | None = None) -> np.ndarray:
        """The holds at draws ``U`` and ``V`` given only to jobs with room for them.

        Job ``i``'s hold (at ``V``) is given only if it is at most ``room[i]``; within each
        type the share is raised among the jobs with room, to ``share x n / k`` (``n`` jobs of
        the type, ``k`` of them with room; at most 1), so the type keeps its expected count of
        held jobs when enough of them have room. The generator uses it where a job's sampled
        duration counts from its submission (Kalos's ``duration`` is end - submit,
        schema_examples.md): a held job's duration then includes its hold.
        """
        import numpy as np
        share, hold = self._share_and_hold(length, types)
        fits = hold <= np.asarray(room, dtype=np.float64)
        kinds = np.zeros(len(hold), dtype=np.int64) if types is None else np.unique(
            np.asarray(types, dtype=str), return_inverse=True)[1].reshape(-1)
        count = np.bincount(kinds)
        with_room = np.bincount(kinds, weights=fits)
        raise_by = np.divide(count, with_room, out=np.zeros(len(count)), where=with_room > 0)
        raised = np.minimum(share * raise_by[kinds], 1.0)
        return np.where(fits & (held < raised), hold, 0.0)

    def _share_and_hold(self, length: np.ndarray, types: Sequence[str] | None
                        ) -> tuple[np.ndarray, np.ndarray]:
        """Each job's share (its type's row or the cluster's) and its hold at draw ``V``."""
        import numpy as np
        n = len(length)
        share = np.full(n, self.share)
        low = np.full(n, self.minimum)
        high = np.full(n, self.maximum)
        if types is not None and self.by_type:
            kinds = np.asarray(types, dtype=object)
            for name, p, lo, hi in self.by_type:
                rows = kinds == name
                share[rows], low[rows], high[rows] = p, lo, hi
        return share, low * np.power(high / low, length)

    @classmethod
    def of(cls, value: EligibilityDelay | Mapping[str, Any] | None) -> EligibilityDelay:
        """A delay from itself, a dict of its fields (unknown keys rejected) or None."""
        if isinstance(value, EligibilityDelay):
            return value
        if value is None:
            return cls()
        names = [f.name for f in dataclasses.fields(cls)]
        if not isinstance(value, Mapping):
            raise ConfigError(f"eligibility must be a dict of {names}, got {value!r}")
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ConfigError(f"eligibility has no field(s) {unknown}; valid: {names}")
        try:
            return cls(**{k: v if k == "by_type" else float(v) for k, v in value.items()})
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"eligibility: {exc}") from None


@dataclasses.dataclass(frozen=True)
class GivenHolds(EligibilityDelay):
    """Holds fixed per job, in the engine's job order (submission order, stable), instead of
    drawn; the other fields are the delay they stand for (``active``). The generator uses it
    to replay jobs with holds that fit their sampled durations (``acmesim.synth.baseline``)."""

    values: Any = dataclasses.field(default=None, compare=False, repr=False)
    """One hold (s; 0 for a job not held) per job of the replayed table."""

    def draw(self, rng: np.random.Generator, n: int,
             types: Sequence[str] | None = None) -> np.ndarray:
        """The given values (``n`` must be their count)."""
        return given_values(self.values, n, "holds")


def _check(what: str, share: float, minimum: float, maximum: float) -> None:
    """Reject a share outside [0, 1] or a range outside 0 < minimum <= maximum < inf."""
    if not 0.0 <= share <= 1.0:
        raise ConfigError(f"{what} share must be in [0, 1], got {share!r}")
    if not (0.0 < minimum <= maximum and math.isfinite(maximum)):
        raise ConfigError(f"{what} needs 0 < minimum <= maximum < inf (s), got minimum "
                          f"{minimum!r}, maximum {maximum!r}")


def _type_table(value: Any, minimum: float, maximum: float
                ) -> tuple[tuple[str, float, float, float], ...]:
    """``by_type`` as sorted (type, share, minimum, maximum) tuples, each checked (a row
    without its own ``minimum`` or ``maximum`` takes the cluster's; without ``share``, 0)."""
    table = []
    defaults = {"share": 0.0, "minimum": minimum, "maximum": maximum}
    for name, fields, row in type_rows(value, HOLD_FIELDS, defaults, "eligibility"):
        try:
            share, low, high = (float(row[k]) for k in HOLD_FIELDS)
        except (TypeError, ValueError):
            raise ConfigError(f"eligibility by_type[{name!r}] needs numbers, got "
                              f"{fields!r}") from None
        _check(f"eligibility by_type[{name!r}]", share, low, high)
        table.append((name, share, low, high))
    return tuple(table)
