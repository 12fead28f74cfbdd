"""Running the replay task under ``hydra.main`` in-process, and collecting exit codes.

Two compositions Hydra repeats are done once, each giving what Hydra's own would:

- ``hydra.main`` composes the whole configuration once only to read ``hydra.mode`` from it
  (``Hydra.get_mode``), then again to run or sweep. When the command line holds only
  ``key=value`` overrides and ``-m`` (``mode_unset``: none of them on ``hydra.mode`` or a Hydra
  config group), that first composition can only answer "not set" —
  ``acmesim/conf/config.yaml`` leaves ``hydra.mode`` unset, which a test checks — so it is
  skipped (``_mode_unset``) and Hydra takes the path it takes on that answer (a run, or with
  ``-m`` a sweep, recording ``hydra.mode=RUN`` or ``MULTIRUN`` among the overrides). Any other
  command line (``--cfg``, ``--info``, ``-cn``, ...) goes through ``hydra.main`` untouched.
- A sweeper composes every job of a batch to check it can be composed
  (``Sweeper.validate_batch_is_legal``, which keeps nothing), then the launcher composes each
  job again to run it. ``_compose_each_job_once`` keeps the checked compositions (at most
  ``KEPT_COMPOSITIONS``) and hands each to the launcher's request for the same job, with the
  sweep's resolved values (timestamps) copied at that moment as Hydra does.

Either way the run directories, ``.hydra/*.yaml``, ``multirun.yaml`` and every result file are
the same (``tests/cli/test_one_composition.py``).

One scan is narrowed: Hydra imports every module of every installed plugin package to find its
plugins, and the launcher and sweeper packages acmesim's extras install (``LAUNCHER_PLUGINS``:
joblib, submitit, Optuna, Ray) hold only launchers, sweepers and their config entries. A command
line that can only use Hydra's basic launcher and sweeper (``basic_launcher_only``) is run
without importing them (``_basic_launcher_scan``); every other plugin package is scanned as
Hydra scans it, so a search-path or config-source plugin installed by another package still
counts. Any other command line (``hydra/launcher=joblib``, ``--info plugins``, ``--help``, ``-cn``,
...) scans them all (``tests/cli/test_plugin_scan.py``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import os
import pkgutil
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from hydra.core.global_hydra import GlobalHydra
from hydra.experimental.callback import Callback
from omegaconf import DictConfig

CONFIG_MODULE = "acmesim.conf"
CONFIG_NAME = "config"

@dataclasses.dataclass
class Outcome:
    """Exit codes of the jobs Hydra ran in this process, and of the last sweep."""

    codes: list[int] = dataclasses.field(default_factory=list)
    sweep_code: int | None = None


OUTCOME = Outcome()


def exit_code(value: Any) -> int:
    """A job's exit code from what its task returned: an int as is, an objective 0 (NaN: 1)."""
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return 0 if math.isfinite(value) else 1
    return 0


class OutcomeCallback(Callback):
    """Records each in-process job's exit code and reports a finished sweep."""

    def on_job_end(self, config: DictConfig, job_return: Any, **kwargs: Any) -> None:
        """Keep the job's exit code (1 when it raised)."""
        try:
            value = job_return.return_value
        except BaseException:  # noqa: BLE001 - the job raised; Hydra reports it
            value = 1
        OUTCOME.codes.append(exit_code(value))

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        """Print how many runs of the sweep completed and where to collect them."""
        from acmesim.results.rundirs import sweep_report

        text, code = sweep_report(Path(config.hydra.sweep.dir))
        print(text)
        OUTCOME.sweep_code = code


@contextlib.contextmanager
def _argv(prog: str, args: list[str]) -> Iterator[None]:
    """Temporarily present ``args`` as the process arguments (``hydra.main`` reads sys.argv)."""
    saved = sys.argv
    sys.argv = [prog, *args]
    try:
        yield
    finally:
        sys.argv = saved


@contextlib.contextmanager
def _restored_logging() -> Iterator[None]:
    """Undo Hydra's logging configuration afterwards (it rewires the root logger)."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


KEPT_COMPOSITIONS = 64
"""Checked job compositions kept for the launcher [chosen]: each is a few hundred kB, and a
sweep of more jobs per batch composes the jobs past the 64th twice, as Hydra alone does."""


def mode_unset(argv: list[str]) -> bool:
    """Whether ``argv`` is a run or a sweep whose ``hydra.mode`` no config or override can set.

    Only ``key=value`` overrides and ``-m`` (no other flag such as ``--cfg`` or ``-cn``), none
    of them on ``hydra.mode`` or selecting a Hydra config group (``hydra/...=``).
    """
    for arg in argv:
        if arg in ("-m", "--multirun"):
            continue
        if arg.startswith("-") or "=" not in arg:
            return False
        key = arg.split("=", 1)[0].lstrip("+~")
        if key.startswith(("hydra/", "hydra.mode")):
            return False
    return True


LAUNCHER_PLUGINS = ("hydra_plugins.hydra_joblib_launcher", "hydra_plugins.hydra_submitit_launcher",
                    "hydra_plugins.hydra_optuna_sweeper", "hydra_plugins.hydra_ray_launcher")
"""Hydra plugin packages that define only ``Launcher`` and ``Sweeper`` plugins (and store their
configs under ``hydra/launcher`` and ``hydra/sweeper``): the packaged extras' (pyproject.toml).
A run on the basic launcher and sweeper reads nothing of them (a test checks the premise)."""


def basic_launcher_only(argv: list[str]) -> bool:
    """Whether ``argv`` can only run on Hydra's basic launcher and sweeper.

    ``mode_unset`` (only ``key=value`` overrides and ``-m``, none selecting a ``hydra/`` group or
    naming a custom primary config, and the packaged config selects neither) and no override of
    a ``hydra.launcher`` or ``hydra.sweeper`` key.
    """
    keys = (arg.split("=", 1)[0].lstrip("+~") for arg in argv if "=" in arg)
    return mode_unset(argv) and not any(
        key.startswith(("hydra.launcher", "hydra.sweeper")) for key in keys)


def _outside(packages: Sequence[str], walk: Callable[..., Iterator[Any]]) -> Callable[..., Any]:
    """``walk`` (``pkgutil.walk_packages``) without the modules of ``packages``."""

    def walk_packages(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for info in walk(*args, **kwargs):
            if not any(info.name == p or info.name.startswith(p + ".") for p in packages):
                yield info

    return walk_packages


@contextlib.contextmanager
def _basic_launcher_scan(argv: list[str]) -> Iterator[None]:
    """Hydra's plugin scan without ``LAUNCHER_PLUGINS`` when ``argv`` cannot use them.

    Only while no scan has been made in this process (a finished one is kept by Hydra and costs
    nothing more). The narrowed scan is dropped afterwards, so the next command that needs
    every plugin (``hydra/launcher=joblib``) has Hydra scan them all.
    """
    from hydra.core import plugins
    from hydra.core.singleton import Singleton

    if not basic_launcher_only(argv) or plugins.Plugins in Singleton._instances:
        yield
        return
    scanner = plugins.pkgutil
    plugins.pkgutil = types.SimpleNamespace(  # type: ignore[assignment]
        walk_packages=_outside(LAUNCHER_PLUGINS, pkgutil.walk_packages))
    try:
        yield
    finally:
        plugins.pkgutil = scanner
        Singleton._instances.pop(plugins.Plugins, None)


@contextlib.contextmanager
def _mode_unset(argv: list[str]) -> Iterator[None]:
    """Answer Hydra's ``get_mode`` with "not set" instead of composing for it (``mode_unset``)."""
    from hydra._internal.hydra import Hydra

    if not mode_unset(argv):
        yield
        return
    original = Hydra.get_mode

    def unset(self: Hydra, config_name: str | None, overrides: list[str]) -> Any:
        return None

    Hydra.get_mode = unset  # type: ignore[method-assign]
    try:
        yield
    finally:
        Hydra.get_mode = original  # type: ignore[method-assign]


class _CheckedJobs:
    """The job compositions a sweeper's check made, kept for the launcher (see the module)."""

    def __init__(self, compose: Callable[..., DictConfig], validate: Callable[..., None]):
        self.compose, self.validate = compose, validate
        self.checking = False
        self.kept: dict[tuple[int, tuple[str, ...], str], list[DictConfig]] = {}

    @staticmethod
    def key(master: DictConfig, overrides: Sequence[str]) -> tuple[int, tuple[str, ...], str]:
        """A job: the sweep's config, the job's overrides, the working directory."""
        return id(master), tuple(overrides), os.getcwd()

    def check(self, sweeper: Any, batch: Sequence[Sequence[str]]) -> None:
        """Hydra's check of a batch (each job composed, the first failure raised), keeping each
        job's composition."""
        self.checking = True
        try:
            self.validate(sweeper, batch)
        finally:
            self.checking = False

    def load_sweep_config(self, loader: Any, master_config: DictConfig,
                          sweep_overrides: list[str]) -> DictConfig:
        """A kept composition of the job with the sweep's resolved values copied in now, else
        Hydra's own composition (kept while checking, up to ``KEPT_COMPOSITIONS``)."""
        from omegaconf import OmegaConf

        key = self.key(master_config, sweep_overrides)
        if not self.checking and self.kept.get(key):
            config = self.kept[key].pop(0)
            OmegaConf.copy_cache(from_config=master_config, to_config=config)
            return config
        config = self.compose(loader, master_config, sweep_overrides)
        if self.checking and sum(map(len, self.kept.values())) < KEPT_COMPOSITIONS:
            self.kept.setdefault(key, []).append(config)
        return config


@contextlib.contextmanager
def _compose_each_job_once() -> Iterator[None]:
    """While Hydra runs: a sweeper's checked compositions go to its launcher (``_CheckedJobs``)."""
    from hydra._internal.config_loader_impl import ConfigLoaderImpl
    from hydra.plugins.sweeper import Sweeper

    compose, validate = ConfigLoaderImpl.load_sweep_config, Sweeper.validate_batch_is_legal
    jobs = _CheckedJobs(compose, validate)

    def load_sweep_config(self: Any, master_config: DictConfig,
                          sweep_overrides: list[str]) -> DictConfig:
        return jobs.load_sweep_config(self, master_config, sweep_overrides)

    def validate_batch_is_legal(self: Any, batch: Sequence[Sequence[str]]) -> None:
        jobs.check(self, batch)

    ConfigLoaderImpl.load_sweep_config = load_sweep_config  # type: ignore[method-assign]
    Sweeper.validate_batch_is_legal = validate_batch_is_legal  # type: ignore[method-assign]
    try:
        yield
    finally:
        ConfigLoaderImpl.load_sweep_config = compose  # type: ignore[method-assign]
        Sweeper.validate_batch_is_legal = validate  # type: ignore[method-assign]


def launch(task: Callable[[DictConfig], int | float], argv: list[str]) -> int:
    # a task returns its exit code, or a sweep objective (a float) under an optimizing sweeper
    """Run ``task`` under Hydra with command-line ``argv``; return the exit code."""
    import hydra

    GlobalHydra.instance().clear()
    OUTCOME.codes.clear()
    OUTCOME.sweep_code = None
    entry = hydra.main(
        config_path=f"pkg://{CONFIG_MODULE}", config_name=CONFIG_NAME, version_base="1.3"
    )(task)
    with (_argv("acmesim replay", argv), _restored_logging(), _mode_unset(argv),
          _basic_launcher_scan(argv), _compose_each_job_once()):
        try:
            entry()
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else 1
        finally:
            GlobalHydra.instance().clear()
    if OUTCOME.sweep_code is not None:
        return OUTCOME.sweep_code
    return max(OUTCOME.codes, default=0)
