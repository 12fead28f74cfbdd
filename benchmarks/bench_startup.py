"""CPU of the command line before it does any work: the help texts and the command start-up.

Each figure is the user + system CPU time of a fresh child process
(``resource.getrusage(RUSAGE_CHILDREN)`` before and after it), the median and range of
``--rounds`` children, the commands interleaved round by round. Measured:

- ``python -c pass``: the interpreter alone, the floor of every command;
- ``acmesim --help``, ``acmesim replay --help`` and each other subcommand's ``--help``;
- **the command start-up of ``acmesim replay``**: CPU from process start until the replay
  enters the trace reader (``acmesim.run.lifecycle._load_trace``: configuration composed and
  checked, plug-ins and extensions built, nothing of the trace read yet). The child replaces
  that function by one that exits the process at once, so the figure is that CPU exactly;
- a Hydra application with one integer setting and no work (``hydra.main``, the same Hydra
  and plugins as acmesim's): the floor of any start-up that composes its configuration with
  Hydra here.

The children run with compiled bytecode, as an installed package does: ``PYTHONDONTWRITEBYTECODE``
is removed and ``PYTHONPYCACHEPREFIX`` points at a temporary folder, which a first, unmeasured
round of every command fills.

    python benchmarks/bench_startup.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

UNTIL_READER = r"""
import os, sys
import acmesim.run.lifecycle as lifecycle

def _stop(config):
    sys.stdout.flush()
    os._exit(0)

lifecycle._load_trace = _stop
from acmesim.cli.main import main
sys.exit(main(["replay", *sys.argv[1:]]))
"""
"""A child that runs ``acmesim replay ARGS`` and exits as the trace reader is entered
(``acmesim.run.lifecycle`` is imported first: the replay imports it before the reader anyway,
so the modules loaded by then, and their CPU, are the same)."""

HYDRA_APP = r"""
import dataclasses, hydra
from hydra.core.config_store import ConfigStore

@dataclasses.dataclass
class Settings:
    x: int = 1

ConfigStore.instance().store(name="config", node=Settings)

@hydra.main(version_base=None, config_name="config")
def task(cfg):
    return 0

task()
"""
"""A Hydra application that composes one setting and does nothing."""

SUBCOMMANDS = ("synth", "characterize", "validate", "collect", "plot")


def commands(run_dir: Path) -> dict[str, list[str]]:
    """Each measured command's argv (the child's interpreter first)."""
    python = sys.executable
    table = {"python -c pass": [python, "-c", "pass"],
             "acmesim --help": [python, "-m", "acmesim.cli", "--help"],
             "acmesim replay --help": [python, "-m", "acmesim.cli", "replay", "--help"]}
    for name in SUBCOMMANDS:
        table[f"acmesim {name} --help"] = [python, "-m", "acmesim.cli", name, "--help"]
    table["acmesim replay: start-up until the trace reader"] = [
        python, "-c", UNTIL_READER, f"hydra.run.dir={run_dir / 'run'}", "progress=false"]
    table["hydra app, one setting (floor of a Hydra start-up)"] = [
        python, "-c", HYDRA_APP, f"hydra.run.dir={run_dir / 'hydra'}"]
    return table


def child_cpu(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """User + system CPU seconds of one child running ``argv`` (it must exit with 0)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed:\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    """Print the median and range of each command's CPU over ``--rounds`` fresh processes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        table = commands(folder)
        for command in table.values():  # compiles every module the commands import
            child_cpu(command, env, folder)
        cpu: dict[str, list[float]] = {name: [] for name in table}
        for k in range(args.rounds):
            names = list(table)
            for name in names[k % len(names):] + names[:k % len(names)]:
                cpu[name].append(child_cpu(table[name], env, folder))
    print(f"CPU seconds (user + sys) of a fresh process, {args.rounds} rounds: "
          "median (min-max)")
    width = max(map(len, cpu))
    for name, values in cpu.items():
        print(f"  {name:<{width}}  {statistics.median(values):.3f} "
              f"({min(values):.3f}-{max(values):.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
