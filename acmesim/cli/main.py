"""The single ``acmesim`` entry point: dispatches to one module per subcommand.

Each subcommand lives in ``acmesim/cli/commands/<name>.py`` and exposes ``main(argv) -> int``; this
module only routes, so ``replay`` can hand its arguments to Hydra untouched. Ctrl-C (SIGINT) and
SIGTERM stop a command with one line on stderr and exit code 130 or 143 (``128 + signal``); a
replay they stop records the interruption in its summary and is not marked complete.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys

from acmesim import __version__
from acmesim.core.config import Choice, ReplayConfig
from acmesim.core.errors import AcmesimError
from acmesim.core.interrupts import describe, exit_code, signals_as_interrupts

COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("acmesim.cli.commands.replay",
               "replay a trace on a modeled cluster (Hydra overrides)"),
    "synth": ("acmesim.cli.commands.synth",
              "generate a calibrated synthetic trace (Seren, Kalos, task-DL, mixes)"),
    "characterize": ("acmesim.cli.commands.characterize",
                     "print a trace's statistics vs the paper"),
    "validate": ("acmesim.cli.commands.validate",
                 "replay a trace's arrivals, compare simulated with recorded queueing"),
    "collect": ("acmesim.cli.commands.collect", "merge the summaries of a sweep into one CSV"),
    "plot": ("acmesim.cli.commands.plot", "draw PNG figures of a run or a sweep"),
}

USAGE = """usage: acmesim <command> [arguments]

Trace-driven simulator of an LLM-development GPU datacenter (the Acme trace, NSDI '24).

commands:
{commands}

examples:
  acmesim replay                                  # bundled Seren-like sample, FIFO, consolidate
  acmesim replay scheduler=easy_backfill mode=scheduled trace.path=trace_seren.csv
  acmesim replay -m scheduler=fifo,easy_backfill,qssf seed=1,2,3
  acmesim synth --profile seren --days 30 --seed 1 --out seren30.csv
  acmesim characterize seren30.csv --profile seren

replay config groups: {groups}
  pick one option per group (group=option) and set its options (group.key=value);
  'acmesim replay --help' lists every option of every group, read from the plug-in registries.

Run 'acmesim <command> --help' for a command's own options.
"""


def usage() -> str:
    """The top-level help text listing every subcommand."""
    width = max(len(name) for name in COMMANDS)
    lines = [f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items()]
    return USAGE.format(commands="\n".join(lines), groups=", ".join(replay_groups()))


def replay_groups() -> list[str]:
    """The replay's config groups: the plug-in fields of ``ReplayConfig``, in order.

    The same names as ``acmesim.cli.hydra.GROUPS``, read without importing Hydra.
    """
    return [f.name for f in dataclasses.fields(ReplayConfig) if f.type in ("Choice", Choice)]


def main(argv: list[str] | None = None) -> int:
    """Run ``acmesim`` with ``argv`` (default: the process arguments); return the exit code."""
    try:
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:  # e.g. `acmesim replay --help | head`: the reader left, not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _dispatch(args: list[str]) -> int:
    """Route ``args`` to the subcommand they name."""
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    if args[0] in ("-V", "--version"):
        print(f"acmesim {__version__}")
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"acmesim: unknown command {name!r}; valid commands: {', '.join(COMMANDS)}",
              file=sys.stderr)
        return 2
    try:
        with signals_as_interrupts():
            module = importlib.import_module(COMMANDS[name][0])
            return int(module.main(rest) or 0)
    except AcmesimError as exc:
        print(f"acmesim {name}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        print(f"acmesim {name}: {describe(exc)}; stopped (an unfinished run is never taken as "
              f"complete: run the same command again to redo it)", file=sys.stderr)
        return exit_code(exc)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
