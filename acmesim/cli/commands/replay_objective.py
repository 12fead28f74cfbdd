"""What a replay returns to a Hydra sweeper (its objective); notes on settings that cannot matter.

Kept apart from ``acmesim.cli.commands.replay``, whose task it wraps: ``objective=...`` makes the
task return that value of the finished run (``acmesim.cli.objective``) instead of its exit code, and
a setting given on the command line that cannot change the results is said so in one line
(``acmesim.cli.no_effect``).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from acmesim.cli import hydra as hydra_app
from acmesim.cli.no_effect import no_effect_notes
from acmesim.cli.objective import DIRECTIONS, Objective
from acmesim.core.errors import AcmesimError, ConfigError


def run_with_objective(cfg: DictConfig, task: Callable[[DictConfig], int]) -> int | float:
    """Run ``task``; return the run's objective (``objective=...``) when one is set, else its code.

    Hydra's sweepers (Optuna, Nevergrad, Ax) tune what the task returns; without an objective it
    is the exit code. A run that failed, or whose objective cannot be computed, returns NaN,
    which a sweeper records as a failed trial (and the command counts as exit code 1).
    """
    try:
        objective = Objective.from_settings(cfg)
        if objective is not None:
            objective = with_sweeper_direction(objective, cfg)
    except AcmesimError as exc:
        print(f"acmesim replay: error: {exc}", file=sys.stderr)
        return 1 if objective_setting(cfg) is None else math.nan
    print_no_effect_notes(cfg)
    code = task(cfg)
    if objective is None:
        return code
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    if code != 0:
        return math.nan
    try:
        value = objective.value(run_dir)
    except AcmesimError as exc:
        print(f"acmesim replay: error: {exc}", file=sys.stderr)
        return math.nan
    print(f"{run_dir}: objective ({objective.describe()}) = {value:.6g}")
    return value


NOTED: set[str] = set()
"""Notes already printed by this process (a sweep says each once)."""


def print_no_effect_notes(cfg: DictConfig) -> None:
    """Say in one line each when a given setting (seed, checkpoint, ...) cannot matter here."""
    given = [arg.lstrip("+~").split("=", 1)[0] for arg in HydraConfig.get().overrides.task]
    try:
        config = hydra_app.to_replay_config(cfg, hydra_app.load_registries())
        notes = no_effect_notes(config, given)
    except AcmesimError:
        return  # replay_task reports the error itself
    for note in notes:
        if note not in NOTED:
            NOTED.add(note)
            print(note)


def objective_setting(cfg: DictConfig) -> str | None:
    """The ``objective`` setting of a composed config (None when unset)."""
    value = cfg.get("objective")
    return None if value in (None, "") else str(value)


def with_sweeper_direction(objective: Objective, cfg: DictConfig) -> Objective:
    """Take the sweeper's direction when the objective's is unset; reject a disagreement."""
    sweeper = HydraConfig.get().sweeper
    direction = sweeper.get("direction") if "direction" in sweeper else None
    if isinstance(direction, str) and direction in DIRECTIONS:
        if cfg.get("objective_direction") not in (None, direction):
            raise ConfigError(f"objective_direction={cfg.objective_direction} but "
                              f"hydra.sweeper.direction={direction}: they must agree")
        return dataclasses.replace(objective, direction=direction)  # type: ignore[arg-type]
    return objective
