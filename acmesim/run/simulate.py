"""``acmesim.simulate``: everything ``acmesim replay`` does, from Python, with the tables in memory.

The arguments become the run's ``ReplayConfig`` and go through the one run lifecycle
(``acmesim.run.lifecycle``), so a result equals the CLI's files (``result.save(dir)`` writes
them). A plug-in argument may be

- a registered name: ``failure="acme"``;
- a name with options: ``scheduler={"name": "sjf", "predictor": "oracle"}``, or a ``Choice``;
- the plug-in's typed ``Config``: ``checkpoint=FixedInterval.Config(interval_min=20)``;
- a ready instance (a ``Scheduler``, a ``ClusterSpec``, a failure model, ...): used as is, and
  recorded in the configuration by its registered name and options.

Named plug-ins get every option filled in with its default, as the CLI records them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from acmesim.cluster import CLUSTERS, ClusterSpec
from acmesim.core.config import Choice, ReplayConfig
from acmesim.core.errors import ConfigError
from acmesim.core.registry import Registry
from acmesim.evaluation.modes import EVALS
from acmesim.evaluation.scheduling import SCHEDULERS, split_legacy
from acmesim.evaluation.scheduling.base import EvalReplayScheduler
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.power import POWERS
from acmesim.policies.recovery import RECOVERIES
from acmesim.run.lifecycle import run
from acmesim.run.progress import ProgressArgument
from acmesim.run.result import DISPLAYED_FIELDS, SimulationResult
from acmesim.sim.extension import Extension
from acmesim.sim.preemption import PreemptionModel

PLUG_INS: dict[str, Registry] = {
    "cluster": CLUSTERS, "scheduler": SCHEDULERS, "placement": PLACEMENTS,
    "failure": FAILURES, "checkpoint": CHECKPOINTS, "recovery": RECOVERIES, "eval": EVALS,
    "power": POWERS,
}
"""The plug-in groups of ``simulate`` and their registries (the CLI's groups but ``trace``)."""


def simulate(
    trace: pd.DataFrame | str | Path | Mapping[str, Any] | Choice,
    cluster: Any = "seren",
    scheduler: Any = "fifo",
    placement: Any = "consolidate",
    *,
    failure: Any = "none",
    checkpoint: Any = "none",
    recovery: Any = "automatic",
    eval: Any = "none",  # noqa: A002 - the name of the config group
    power: Any = "none",
    mode: Literal["recorded", "scheduled"] = "scheduled",
    seed: int = 0,
    cpu_jobs: Literal["skip", "replay"] = "skip",
    oversize_jobs: Literal["error", "skip"] = "error",
    utilization_interval: float = 3600.0,
    run_id: str = "",
    extensions: Sequence[Extension] = (),
    preemption: PreemptionModel | None = None,
    progress: ProgressArgument = None,
    audit: bool = False,
) -> SimulationResult:
    """Replay ``trace`` on ``cluster`` and return every result table in memory.

    ``trace`` is a normalized job table (``acmesim.load_trace``), a trace file's path, or a
    trace source by name (``"sample"``) or with options (``{"name": "synthetic", "days": 5}``).
    Plug-ins (``cluster`` ... ``power``) by name, name with options, ``Config`` or instance
    (module docstring); ``eval`` is ``none``, ``coupled`` or ``decoupled``. The settings mean
    what they mean in ``acmesim replay`` (``docs/cli.md``); ``run_id`` names the run in its
    summary (empty: derived from the configuration); the configuration records ``progress``
    as whether a bar or callback was asked for. ``extensions`` (``acmesim.sim.extension``)
    are attached after the run's own (an instance of a built-in kind, such as a
    ``FaultInjector``, replaces the run's). ``progress=True`` draws a progress bar (a widget in
    Jupyter), a callable is called as ``progress(fraction_of_span, jobs_done)``;
    ``audit=True`` re-verifies the cluster bookkeeping after every pass (slow, for tests).
    """
    given: dict[str, Any] = {}
    choices: dict[str, Choice] = {}
    values = {"cluster": cluster, "scheduler": scheduler, "placement": placement,
              "failure": failure, "checkpoint": checkpoint, "recovery": recovery,
              "eval": eval, "power": power}
    for group, value in values.items():
        choices[group], instance = as_choice(group, value)
        if instance is not None:
            given[group] = instance
    _split_legacy_scheduler(choices, given)
    jobs, trace_choice = _trace(trace)
    config = ReplayConfig(
        trace=trace_choice, cluster=choices["cluster"], scheduler=choices["scheduler"],
        placement=choices["placement"], failure=choices["failure"],
        checkpoint=choices["checkpoint"], recovery=choices["recovery"], eval=choices["eval"],
        power=choices["power"], mode=mode, seed=seed, cpu_jobs=cpu_jobs,
        oversize_jobs=oversize_jobs, utilization_interval=utilization_interval,
        progress=progress is not None and progress is not False, run_id=run_id)
    return run(config, jobs=jobs, given=given, extensions=extensions, progress=progress,
               preemption=preemption, audit=audit)


# ---------------------------------------------------------------------- arguments
def as_choice(group: str, value: Any) -> tuple[Choice, Any]:
    """``(choice, instance or None)`` of a plug-in argument of ``group`` (module docstring)."""
    registry = PLUG_INS[group]
    if isinstance(value, str):
        return full_choice(registry, Choice(value)), None
    if isinstance(value, Choice):
        return full_choice(registry, value), None
    if isinstance(value, Mapping):
        options = dict(value)
        if "name" not in options:
            raise ConfigError(f"{group}: a dict names its plug-in with key 'name', got "
                              f"{sorted(options)}")
        return full_choice(registry, Choice(str(options.pop("name")), options)), None
    if isinstance(value, ClusterSpec):
        return Choice(value.name, _options(value, skip=("name",))), value
    name = _config_owner(registry, value)
    if name is not None:
        return full_choice(registry, Choice(name, _options(value))), None
    name = getattr(value, "registry_name", None)
    if name is None:
        raise ConfigError(f"{group}: expected a registered name (one of "
                          f"{', '.join(registry.names())}), a dict with 'name', its Config or "
                          f"an instance, got {type(value).__name__}")
    return Choice(name, _options(getattr(value, "config", None))), value


def full_choice(registry: Registry, choice: Choice) -> Choice:
    """``choice`` with its canonical name and every option (defaults filled in, validated)."""
    name = registry.canonical(choice.name)
    return Choice(name, _options(registry.make_config(name, choice.options)))


def _options(config: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """A dataclass's fields as plain data (what the CLI records), else no options."""
    if not dataclasses.is_dataclass(config) or isinstance(config, type):
        return {}
    return {k: v for k, v in dataclasses.asdict(config).items() if k not in skip}


def _config_owner(registry: Registry, value: Any) -> str | None:
    """The plug-in whose own ``Config`` class ``value`` is an instance of (None: not one)."""
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return None
    owners = [n for n in registry.names() if registry.config_class(n) is type(value)]
    return owners[0] if len(owners) == 1 else None


def _split_legacy_scheduler(choices: dict[str, Choice], given: dict[str, Any]) -> None:
    """Turn ``scheduler="eval_*"`` (name or instance) into the scheduler plus ``eval``."""
    instance = given.get("scheduler")
    if isinstance(instance, EvalReplayScheduler):
        given["scheduler"] = instance.base
        given.pop("eval", None)
    split = split_legacy(choices["scheduler"])
    if split is not None:
        scheduler, mode = split
        choices["scheduler"] = full_choice(SCHEDULERS, scheduler)
        choices["eval"] = full_choice(EVALS, mode)


def _trace(trace: Any) -> tuple[pd.DataFrame | None, Choice]:
    """The job table given (or None: the run loads it) and the trace choice to record."""
    from acmesim.sources import TRACES

    if isinstance(trace, pd.DataFrame):
        return trace, Choice("table", {"rows": len(trace)})
    if isinstance(trace, Choice):
        return None, full_choice(TRACES, trace)
    if isinstance(trace, Mapping):
        options = dict(trace)
        return None, full_choice(TRACES, Choice(str(options.pop("name", "")), options))
    if isinstance(trace, str | Path):
        path = Path(trace)
        if path.exists() or not isinstance(trace, str) or trace not in TRACES.aliases():
            if not path.exists():
                raise ConfigError(f"trace {str(trace)!r}: no such file (a trace source would be "
                                  f"one of {', '.join(TRACES.names())})")
            return None, full_choice(TRACES, Choice("file", {"path": str(path.resolve())}))
        return None, full_choice(TRACES, Choice(trace))
    raise ConfigError(f"trace: expected a job table, a file path or a trace source, got "
                      f"{type(trace).__name__}")


__all__ = ["DISPLAYED_FIELDS", "SimulationResult", "as_choice", "simulate"]
