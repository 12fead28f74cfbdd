"""``acmesim replay [-m] [overrides]``: replay a trace on a modeled cluster, configured by Hydra.

With no overrides it replays the bundled sample trace with the default policies, prints a short
summary and where the result files went. ``-m`` sweeps every combination of comma-separated
values (``scheduler=fifo,easy_backfill seed=1,2,3``) through Hydra's launchers. A run whose
directory already holds a complete result of the same configuration is skipped unless
``force=true``.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acmesim.cli import hydra as hydra_app
from acmesim.core.config import Choice, ReplayConfig
from acmesim.core.errors import AcmesimError

if TYPE_CHECKING:
    from omegaconf import DictConfig

# The report (pandas), the run lifecycle and Hydra's runtime are imported by the functions
# that run a replay, so that `acmesim replay --help` does not load them.

CUSTOM_CONFIG_FLAGS = ("--config-name", "-cn", "--config-dir", "-cd", "--config-path", "-cp")


def with_file_source(argv: list[str]) -> list[str]:
    """Select ``trace=file`` when ``trace.path=FILE`` is given without a ``trace=`` choice."""
    keys = {arg.split("=", 1)[0].lstrip("+~") for arg in argv if "=" in arg}
    if "trace.path" in keys and "trace" not in keys:
        return [*argv, "trace=file"]
    return argv


def with_eval_group(argv: list[str]) -> list[str]:
    """The old ``scheduler=eval_* scheduler.base=X [scheduler.K=V]`` as ``scheduler=X eval=*
    [eval.K=V]`` (deprecated for one release; the message is printed once).

    Rewritten before Hydra composes anything, so the run's id, ``config.yaml`` and every result
    file equal those of the new spelling. A sweep over several schedulers, or a whole
    ``scheduler.base_options={...}``, is left as is (the run lifecycle converts each run).
    """
    from acmesim.evaluation.scheduling import SCHEDULERS
    from acmesim.evaluation.scheduling.base import is_legacy, warn_legacy

    old = next((arg.split("=", 1)[1] for arg in argv if arg.startswith("scheduler=")), "")
    if not old or "," in old or not is_legacy(old):
        return argv
    mode = SCHEDULERS.get(old).EVAL_MODE
    base, rest = "fifo", []
    for arg in argv:
        key, _, value = arg.partition("=")
        bare = key.lstrip("+~")
        if bare == "scheduler":
            continue
        if bare == "scheduler.base":
            base = value
        elif bare == "scheduler.base_options":
            return argv
        elif bare.startswith("scheduler.base_options."):
            rest.append(f"scheduler.{bare.removeprefix('scheduler.base_options.')}={value}")
        elif bare.startswith("scheduler."):
            rest.append(f"eval.{bare.removeprefix('scheduler.')}={value}")
        else:
            rest.append(arg)
    warn_legacy(SCHEDULERS.canonical(old), base, mode)
    return [*rest, f"scheduler={base}", f"eval={mode}"]


def default_choices(argv: list[str]) -> dict[str, str | None]:
    """Each group's default option (None when a custom primary config may change it)."""
    custom = any(arg.split("=", 1)[0] in CUSTOM_CONFIG_FLAGS for arg in argv)
    custom = custom or any(arg.startswith(("-cn", "-cd", "-cp")) for arg in argv)
    defaults = ReplayConfig()
    return {
        group: None if custom else getattr(defaults, group).name for group in hydra_app.GROUPS
    }


def main(argv: list[str]) -> int:
    """Run ``acmesim replay`` with Hydra ``argv``; return the exit code."""
    argv = with_file_source(list(argv))
    registries = hydra_app.load_registries()
    if argv in (["--help"], ["-h"]):
        # Hydra would compose the default config and print this same text (the hydra/help
        # template, acmesim.cli.hydra.help), after deep-copying its config repository once per
        # group; with no other argument the text is known without it.
        print(hydra_app.help_text(registries))
        return 0
    argv = with_eval_group(argv)
    prints_help = any(arg in ("-h", "--help") for arg in argv)
    chosen = None
    if not prints_help and "--hydra-help" not in argv:
        chosen = hydra_app.check_overrides(argv, registries, default_choices(argv))
    hydra_app.register_configs(registries, with_help=prints_help,
                               only=hydra_app.stored_options(argv, chosen))
    return hydra_app.launch(tuned_replay_task, argv)


def run_id_of(hydra_cfg: Any) -> str:
    """A run id naming the run by its overrides (never by the clock); empty: the engine's."""
    return str(hydra_cfg.job.override_dirname)


FILE_OPTION = "path"
"""The plug-in option that names an input file (``trace.path``, ``failure.path``)."""


def with_absolute_paths(config: ReplayConfig, base: Path) -> ReplayConfig:
    """Resolve every relative ``path`` option (``trace.path``, ``failure.path``) against ``base``.

    ``base`` is the directory the command was started in, so a run records (and its skip check
    compares) the same absolute file wherever Hydra puts the run directory.
    """
    changes: dict[str, Any] = {group: _absolute_path(getattr(config, group), base)
                               for group in hydra_app.GROUPS}
    return dataclasses.replace(config, **changes)


def _absolute_path(choice: Choice, base: Path) -> Choice:
    """``choice`` with its relative ``path`` option made absolute under ``base`` (else as is)."""
    path = choice.options.get(FILE_OPTION)
    if not path or Path(path).is_absolute():
        return choice
    return Choice(choice.name, {**choice.options, FILE_OPTION: str((base / path).resolve())})


def replay_task(cfg: DictConfig) -> int:
    """One Hydra job: build the typed config, run the replay (or skip it), print the outcome."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from acmesim.cli.report import is_complete, write_failure_summary

    hydra_cfg = HydraConfig.get()
    run_dir = Path(hydra_cfg.runtime.output_dir)
    sweeping = hydra_cfg.mode == RunMode.MULTIRUN
    try:
        config = hydra_app.to_replay_config(
            cfg, hydra_app.load_registries(), run_id=run_id_of(hydra_cfg)
        )
        config = with_absolute_paths(config, Path(hydra_cfg.runtime.cwd))
        force = hydra_app.check_setting("force", cfg.get("force", False), bool)
        if not force and is_complete(run_dir, config):
            print(f"{run_dir}: already complete for this config, skipped (force=true reruns)")
            return 0
        return _run(config, run_dir, sweeping)
    except AcmesimError as exc:
        print(f"acmesim replay: error: {exc}", file=sys.stderr)
        write_failure_summary(run_dir, str(exc))
        return 1


def tuned_replay_task(cfg: DictConfig) -> int | float:
    """``replay_task``, returning the run's objective (``objective=...``) when one is set.

    Also prints a one-line note for each given setting that cannot change the run
    (``acmesim.cli.commands.replay_objective``).
    """
    from acmesim.cli.commands.replay_objective import run_with_objective

    return run_with_objective(cfg, replay_task)


def _run(config: ReplayConfig, run_dir: Path, sweeping: bool) -> int:
    """Run the engine on ``config`` into ``run_dir`` and print its report."""
    from acmesim.cli.report import format_report
    from acmesim.run.progress import ReplayProgress
    from acmesim.run.replay import run_replay

    progress = ReplayProgress(enabled=config.progress and not sweeping)
    with progress:
        result = run_replay(config, run_dir, progress=progress)
    print(format_report(result, config, run_dir, brief=sweeping))
    if result.error:
        print(f"acmesim replay: error: {result.error}", file=sys.stderr)
        return 1
    return 0
