"""Running the replay task under ``hydra.main`` in-process, and collecting exit codes.

``hydra.main`` composes the whole configuration twice for one run: once only to read
``hydra.mode`` from it (``Hydra.get_mode``), then again to run. On a plain single run (only
``key=value`` overrides, none of them about ``hydra.mode`` or a Hydra config group) that first
composition can only answer "not set" — ``acmesim/conf/config.yaml`` leaves ``hydra.mode``
unset, which a test checks — so it is skipped (``_mode_unset``): Hydra then takes the same path
it takes when the answer is "not set" (the run mode, with ``hydra.mode=RUN`` recorded among the
overrides), and the run directory, ``.hydra/*.yaml`` and every result file are the same. Any
other command line (``-m``, ``--cfg``, ``--info``, ``-cn``, ...) goes through ``hydra.main``
untouched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import sys
from collections.abc import Callable, Iterator
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


def plain_run(argv: list[str]) -> bool:
    """Whether ``argv`` is a single run whose ``hydra.mode`` no config or override can set.

    Only ``key=value`` overrides (no flag such as ``-m``, ``--cfg`` or ``-cn``), none of them on
    ``hydra.mode`` or selecting a Hydra config group (``hydra/...=``).
    """
    for arg in argv:
        if arg.startswith("-") or "=" not in arg:
            return False
        key = arg.split("=", 1)[0].lstrip("+~")
        if key.startswith(("hydra/", "hydra.mode")):
            return False
    return True


@contextlib.contextmanager
def _mode_unset(argv: list[str]) -> Iterator[None]:
    """On a plain run, answer Hydra's ``get_mode`` with "not set" instead of composing for it."""
    from hydra._internal.hydra import Hydra

    if not plain_run(argv):
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
    with _argv("acmesim replay", argv), _restored_logging(), _mode_unset(argv):
        try:
            entry()
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else 1
        finally:
            GlobalHydra.instance().clear()
    if OUTCOME.sweep_code is not None:
        return OUTCOME.sweep_code
    return max(OUTCOME.codes, default=0)
