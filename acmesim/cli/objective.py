"""The one number a sweeper tunes: a summary column, or a statistic of one job type's jobs.

``objective=queue_delay_mean`` names a numeric column of ``summary.csv``;
``objective=Eval:queue_delay_p90`` names a statistic (``mean``, ``median``, ``min``, ``max``,
``sum``, ``count`` or a percentile ``p0``..``p100``) of a numeric ``jobs.csv`` column over the
jobs of one type (``all`` for every job). An optional upper bound on a second such value
(``objective_constraint=Pretrain:queue_delay_p99 objective_constraint_max=21600``) is enforced
by a penalty: the tuned value is the objective plus (for ``minimize``; minus for ``maximize``)
``objective_penalty`` times the excess over the bound.

Values are read from a finished run directory's files, so a run skipped as already complete
returns the same value as when it ran. Hydra-free; the replay command builds one of these from
its settings and returns :meth:`Objective.value` to Hydra's sweeper.
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from acmesim.core.errors import ConfigError
from acmesim.results.schema import JOBS, SUMMARY
from acmesim.trace.schema import JOB_TYPES

if TYPE_CHECKING:
    import pandas as pd

ALL_TYPES = "all"
"""The job-type name that selects every job of the run."""

Direction = Literal["minimize", "maximize"]
DIRECTIONS: tuple[str, ...] = ("minimize", "maximize")

STATISTICS: dict[str, str] = {
    "mean": "mean", "median": "median", "min": "min", "max": "max", "sum": "sum",
    "count": "size",
}
"""Named statistics of a per-type objective -> the numpy function computing it; ``pNN`` (a
percentile) is accepted as well. Names, so that reading the settings does not import numpy."""

PERCENTILE = re.compile(r"p(\d{1,3}(?:\.\d+)?)")


def summary_columns() -> list[str]:
    """The numeric ``summary.csv`` columns an objective may name."""
    return [c.name for c in SUMMARY.columns if c.kind in ("int", "float")]


def job_columns() -> list[str]:
    """The numeric ``jobs.csv`` columns a per-type objective may take a statistic of."""
    return [c.name for c in JOBS.columns if c.kind in ("int", "float")]


@dataclasses.dataclass(frozen=True)
class Metric:
    """One value of a finished run: a summary column, or a statistic over one type's jobs."""

    spec: str
    column: str
    job_type: str | None = None
    statistic: str = ""

    @classmethod
    def parse(cls, spec: str) -> Metric:
        """Read ``column`` or ``type:column_statistic``; an unknown part lists the valid ones."""
        text = str(spec).strip()
        if ":" not in text:
            if text not in summary_columns():
                raise ConfigError(
                    f"objective {text!r} is not a numeric summary.csv column; valid columns: "
                    f"{', '.join(summary_columns())}; or TYPE:COLUMN_STAT for one job type "
                    f"(e.g. Eval:queue_delay_p90)")
            return cls(text, text)
        job_type, _, rest = text.partition(":")
        if job_type not in (*JOB_TYPES, ALL_TYPES):
            raise ConfigError(f"objective {text!r}: unknown job type {job_type!r}; valid types: "
                              f"{', '.join((*JOB_TYPES, ALL_TYPES))}")
        column, _, statistic = rest.rpartition("_")
        if column not in job_columns():
            raise ConfigError(
                f"objective {text!r}: {column or rest!r} is not a numeric jobs.csv column; "
                f"valid columns: {', '.join(job_columns())} (then _STAT, e.g. queue_delay_p90)")
        if not _valid_statistic(statistic):
            raise ConfigError(
                f"objective {text!r}: unknown statistic {statistic!r}; valid statistics: "
                f"{', '.join(STATISTICS)}, or a percentile p0..p100 (e.g. p90)")
        return cls(text, column, job_type, statistic)

    def value(self, run_dir: Path) -> float:
        """This metric of the run in ``run_dir`` (read from its summary.csv or jobs.csv)."""
        if self.job_type is None:
            summary = _read_table(Path(run_dir) / SUMMARY.file_name, [self.column])
            return float(summary[self.column].iloc[0])
        jobs = _read_table(Path(run_dir) / JOBS.file_name, ["type", self.column])
        if self.job_type != ALL_TYPES:
            jobs = jobs[jobs["type"].astype(str) == self.job_type]
        values = jobs[self.column].to_numpy(dtype=float)
        if len(values) == 0 and self.statistic != "count":
            raise ConfigError(f"objective {self.spec!r}: the run has no {self.job_type} jobs")
        return float(_statistic(self.statistic)(values))


def _valid_statistic(name: str) -> bool:
    """True for a named statistic or a percentile between p0 and p100."""
    match = PERCENTILE.fullmatch(name)
    return name in STATISTICS or (match is not None and float(match.group(1)) <= 100)


def _statistic(name: str) -> Any:
    """The function computing statistic ``name`` of an array."""
    import numpy as np

    if name in STATISTICS:
        return getattr(np, STATISTICS[name])
    quantile = float(name[1:])
    return lambda values: np.percentile(values, quantile)


def _read_table(path: Path, columns: list[str]) -> pd.DataFrame:
    """The ``columns`` of a result table, with a clear error when it is missing."""
    import pandas as pd  # only when an objective is read: the CLI's help does not need pandas

    if not path.is_file():
        raise ConfigError(f"{path}: not found, so the objective cannot be computed")
    return pd.read_csv(path, usecols=columns)


@dataclasses.dataclass(frozen=True)
class Objective:
    """What the replay task returns to a sweeper: a metric, its direction, an optional bound."""

    metric: Metric
    direction: Direction = "minimize"
    constraint: Metric | None = None
    constraint_max: float = math.inf
    penalty: float = 1.0

    @classmethod
    def from_settings(cls, settings: Any) -> Objective | None:
        """Build from the ``objective*`` settings (a mapping); None when no objective is set."""
        spec = settings.get("objective")
        if spec is None or spec == "":
            return None
        direction = str(settings.get("objective_direction") or "minimize")
        if direction not in DIRECTIONS:
            raise ConfigError(f"objective_direction must be one of {', '.join(DIRECTIONS)}; "
                              f"got {direction!r}")
        constraint = settings.get("objective_constraint")
        bound = settings.get("objective_constraint_max")
        if (constraint is None) != (bound is None):
            raise ConfigError("objective_constraint and objective_constraint_max go together: "
                              "set both (a value and its upper bound) or neither")
        penalty = float(settings.get("objective_penalty", 1.0))
        if not penalty >= 0:
            raise ConfigError(f"objective_penalty must be >= 0, got {penalty!r}")
        return cls(Metric.parse(spec), cast(Direction, direction),  # checked just above
                   Metric.parse(constraint) if constraint is not None else None,
                   float(bound) if bound is not None else math.inf, penalty)

    def excess(self, run_dir: Path) -> float:
        """How far the constrained value is over its bound (0 when within it or unset)."""
        if self.constraint is None:
            return 0.0
        return max(0.0, self.constraint.value(run_dir) - self.constraint_max)

    def value(self, run_dir: Path) -> float:
        """The penalized objective of the run in ``run_dir`` (what the sweeper sees)."""
        sign = 1.0 if self.direction == "minimize" else -1.0
        excess = self.excess(run_dir)
        penalty = sign * self.penalty * excess if excess > 0 else 0.0
        return self.metric.value(run_dir) + penalty

    def describe(self) -> str:
        """One line naming the objective, its direction and its bound."""
        text = f"{self.direction} {self.metric.spec}"
        if self.constraint is not None:
            text += (f" with {self.constraint.spec} <= {self.constraint_max:g} "
                     f"(penalty {self.penalty:g} per unit over)")
        return text


OBJECTIVE_SETTINGS: dict[str, str] = {
    "objective": "value a sweeper tunes: a summary column (queue_delay_mean) or "
                 "TYPE:COLUMN_STAT (Eval:queue_delay_p90); the run returns it",
    "objective_direction": "minimize or maximize (default: the sweeper's direction, else "
                           "minimize)",
    "objective_constraint": "a second value, same syntax, kept under objective_constraint_max",
    "objective_constraint_max": "upper bound of objective_constraint",
    "objective_penalty": "added to the objective per unit objective_constraint is over its bound",
}
"""The objective settings of ``acmesim replay`` with their one-line meanings."""


def check_objective_setting(key: str, value: Any) -> None:
    """Reject a bad value of one ``objective*`` setting before anything runs."""
    if value is None:
        return
    if key in ("objective", "objective_constraint"):
        Metric.parse(value)
    elif key == "objective_direction" and value not in DIRECTIONS:
        raise ConfigError(f"objective_direction must be one of {', '.join(DIRECTIONS)}; "
                          f"got {value!r}")
    elif key in ("objective_constraint_max", "objective_penalty") and (
            isinstance(value, bool) or not isinstance(value, int | float)):
        raise ConfigError(f"{key} must be a number, got {value!r}")
