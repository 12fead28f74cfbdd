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
- **the default replay's start-up**: ``acmesim replay`` on the bundled sample, the whole
  process's CPU (interpreter start to the command's return), and of that the part that is not
  the run's work: the whole process less the CPU of the same run's work done again, warm, in
  the same process (``run_replay`` on the same configuration into another directory: reading
  the trace, simulating, building and writing the tables). What is left is everything a run
  pays before and around its work, wherever it is paid: the interpreter, every import (also one
  made inside the reader), Hydra's plugin scan and composition, the run directory and
  ``.hydra`` files, the typed configuration, the skip check, the printed report, and the first
  use of anything that a second run no longer pays for;
- ``import pandas, numpy, pyarrow``: the libraries the trace reader and the result tables need
  in any case (the run lifecycle imports them before the reader; deferring them would move
  their CPU into the reader, not remove it);
- every third-party library the default replay imports (numpy, pandas, pyarrow, SimPy, PyYAML,
  OmegaConf, Hydra's composition and override parser): the floor of its imports;
- a Hydra application with one integer setting and no work (``hydra.main``, the same Hydra
  and plugins as acmesim's): the floor of any start-up that composes its configuration with
  Hydra here;
- **what a sweep pays per run**: ``acmesim replay -m seed=0,...,N-1`` on the bundled sample
  with Hydra's basic launcher (every run in the one process) against the same sweep of one
  seed. The child adds up the CPU spent inside the run lifecycle (``run_replay``: reading the
  trace, simulating, building and writing the tables); the sweep's **start-up per extra run**
  is ``(CPU(N) - CPU(1) - (lifecycle(N) - lifecycle(1))) / (N - 1)``: Hydra's composition of
  the run, its run directory and ``.hydra`` files, the typed configuration, the skip check.

The children run with compiled bytecode, as an installed package does: ``PYTHONDONTWRITEBYTECODE``
is removed and ``PYTHONPYCACHEPREFIX`` points at a temporary folder, which a first, unmeasured
round of every command fills.

    python benchmarks/bench_startup.py [--rounds 7] [--sweep-runs 8]
    python benchmarks/bench_startup.py --against DIR [--rounds 15]

``--against DIR`` compares this code with the ``acmesim`` package of another source tree
(``DIR/acmesim``, e.g. ``git archive REV acmesim | tar -x -C DIR``): the ``acmesim`` commands
and the default replay, each run on both in every round (which one first alternates), then the
two medians side by side.
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

DEFAULT_REPLAY = r"""
import resource, sys
import acmesim.run.lifecycle as lifecycle
import acmesim.run.replay as run_module

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

calls, inside = [], [0.0]
replay = lifecycle.run_replay

def recorded(config, run_dir, **kwargs):
    calls.append((config, kwargs))
    began = cpu()
    try:
        return replay(config, run_dir, **kwargs)
    finally:
        inside[0] += cpu() - began

lifecycle.run_replay = run_module.run_replay = recorded
from acmesim.cli.main import main
code = main(["replay", *sys.argv[3:]])
whole = cpu()
(config, kwargs), = calls
began = cpu()
assert replay(config, sys.argv[2], **kwargs).error is None
warm = cpu() - began
open(sys.argv[1], "w").write(f"{whole!r} {inside[0]!r} {warm!r}\n")
sys.exit(code)
"""
"""A child that runs ``acmesim replay ARGS[2:]``, then the same run's work (``run_replay``)
again into the directory ARGS[1], and writes to ARGS[0] its CPU when the command returned, the
CPU inside the command's ``run_replay`` and that of the warm repeat (``acmesim.cli.commands.
replay`` imports ``run_replay`` when a run starts, so the recorded function is the one it
calls)."""

LIBRARIES = ("import numpy, pandas, pyarrow, simpy, yaml, omegaconf, hydra, "
             "hydra.core.override_parser.overrides_parser; "
             "from hydra._internal import hydra as h, config_loader_impl")
"""The third-party libraries ``acmesim replay`` imports (every one it loads in the default
replay), and the Hydra modules it runs: the floor of its imports, whatever acmesim defers."""

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

SWEEP = r"""
import atexit, sys, time
import acmesim.run.lifecycle as lifecycle
import acmesim.run.replay as run_module

inside = [0.0]
replay = lifecycle.run_replay

def timed(*args, **kwargs):
    began = time.process_time()
    try:
        return replay(*args, **kwargs)
    finally:
        inside[0] += time.process_time() - began

lifecycle.run_replay = run_module.run_replay = timed
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(f"{inside[0]!r}\n"))
from acmesim.cli.main import main
sys.exit(main(["replay", *sys.argv[2:]]))
"""
"""A child that runs ``acmesim replay ARGS[1:]`` and writes to ARGS[0] the CPU spent inside
the run lifecycle (``acmesim.cli.commands.replay`` imports ``run_replay`` from it when a run
starts, so the timed function is the one every run calls)."""

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
    table["import pandas, numpy, pyarrow (the reader needs them)"] = [
        python, "-c", "import pandas, numpy, pyarrow"]
    table["import every library a replay imports (floor of imports)"] = [
        python, "-c", LIBRARIES]
    table["hydra app, one setting (floor of a Hydra start-up)"] = [
        python, "-c", HYDRA_APP, f"hydra.run.dir={run_dir / 'hydra'}"]
    return table


def default_replay(folder: Path, env: dict[str, str], rounds: int) -> dict[str, list[float]]:
    """Per round (fresh processes): the default replay's whole CPU, the CPU inside its run's
    work (``run_replay``), that work done again warm, and the start-up (whole less warm)."""
    costs: dict[str, list[float]] = {"whole": [], "inside": [], "warm": [], "start-up": []}
    for k in range(-1, rounds):  # round -1 compiles the run's modules, unmeasured
        out = folder / f"default-{k}.txt"
        child_cpu([sys.executable, "-c", DEFAULT_REPLAY, str(out), str(folder / f"warm-{k}"),
                   f"hydra.run.dir={folder / f'default-{k}'}", "progress=false",
                   "force=true"], env, folder)
        whole, inside, warm = map(float, out.read_text().split())
        if k >= 0:
            for name, value in zip(costs, (whole, inside, warm, whole - warm), strict=True):
                costs[name].append(value)
    return costs


def child_cpu(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """User + system CPU seconds of one child running ``argv`` (it must exit with 0)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed:\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def sweep_command(folder: Path, runs: int, k: int) -> tuple[list[str], Path]:
    """The argv of a basic-launcher sweep of ``runs`` seeds on the sample (round ``k``) and the
    file its child writes the lifecycle's CPU to."""
    seeds = ",".join(str(seed) for seed in range(runs))
    out = folder / f"inside-{runs}-{k}.txt"
    return [sys.executable, "-c", SWEEP, str(out), "-m", f"seed={seeds}", "progress=false",
            f"hydra.sweep.dir={folder / f'sweep-{runs}-{k}'}"], out


def sweep_costs(folder: Path, env: dict[str, str], runs: int, rounds: int
                ) -> dict[str, list[float]]:
    """Per round: CPU of the ``runs``-seed sweep and of the one-seed sweep, the lifecycle's
    share of each, and the start-up per extra run (module docstring)."""
    costs: dict[str, list[float]] = {"total": [], "one": [], "lifecycle": [], "per_run": []}
    child_cpu(sweep_command(folder, 1, -1)[0], env, folder)  # compiles the run's modules
    for k in range(rounds):
        measured = {}
        for n in ((runs, 1) if k % 2 == 0 else (1, runs)):
            command, out = sweep_command(folder, n, k)
            measured[n] = (child_cpu(command, env, folder), float(out.read_text()))
        (total, inside), (one, inside_one) = measured[runs], measured[1]
        costs["total"].append(total)
        costs["one"].append(one)
        costs["lifecycle"].append((inside - inside_one) / (runs - 1))
        costs["per_run"].append((total - one - (inside - inside_one)) / (runs - 1))
    return costs


def _line(name: str, values: list[float], width: int) -> str:
    """``name``, the median and the range of ``values``."""
    return (f"  {name:<{width}}  {statistics.median(values):.3f} "
            f"({min(values):.3f}-{max(values):.3f})")


def compare(against: Path, rounds: int) -> None:
    """Print each ``acmesim`` command's and the default replay's CPU median on this code and on
    the tree ``against``, interleaved round by round (module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        here = Path(__file__).resolve().parent.parent
        trees = {"this code": here, str(against): against.resolve()}
        envs = {}
        for k, (name, tree) in enumerate(trees.items()):
            env = {v: w for v, w in os.environ.items() if v != "PYTHONDONTWRITEBYTECODE"}
            env.update(PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=str(folder / f"pycache-{k}"))
            envs[name] = env
        table = {name: c for name, c in commands(folder).items() if name.startswith("acmesim")}
        rows = [*table, "default replay: whole process", "default replay: start-up"]
        cpu: dict[tuple[str, str], list[float]] = {(t, r): [] for t in trees for r in rows}
        for env in envs.values():  # compiles every module the commands import
            for command in table.values():
                child_cpu(command, env, folder)
            default_replay(folder, env, 0)
        for k in range(rounds):
            order = list(trees) if k % 2 == 0 else list(trees)[::-1]
            for name, command in table.items():
                for tree in order:
                    cpu[(tree, name)].append(child_cpu(command, envs[tree], folder))
            for tree in order:
                replayed = default_replay(folder, envs[tree], 1)
                cpu[(tree, rows[-2])] += replayed["whole"]
                cpu[(tree, rows[-1])] += replayed["start-up"]
    print(f"CPU seconds (user + sys) of a fresh process, {rounds} rounds interleaved: median")
    width = max(map(len, rows))
    print(f"  {'':<{width}}  " + "  ".join(f"{t:>12}" for t in trees))
    for row in rows:
        print(f"  {row:<{width}}  "
              + "  ".join(f"{statistics.median(cpu[(t, row)]):>12.3f}" for t in trees))


def _table(title: str, rows: dict[str, list[float]]) -> None:
    """Print ``title`` and one aligned median (min-max) line per row."""
    print(title)
    width = max(map(len, rows))
    for name, values in rows.items():
        print(_line(name, values, width))


def main(argv: list[str] | None = None) -> int:
    """Print the median and range of each command's CPU over ``--rounds`` fresh processes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sweep-runs", type=int, default=8,
                        help="seeds of the measured sweep (0 skips the sweep)")
    parser.add_argument("--against", type=Path, default=None,
                        help="a source tree to compare with (its acmesim/ package)")
    args = parser.parse_args(argv)
    if args.against is not None:
        compare(args.against, args.rounds)
        return 0
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
        replayed = default_replay(folder, env, args.rounds)
        sweep = (sweep_costs(folder, env, args.sweep_runs, args.rounds)
                 if args.sweep_runs > 1 else None)
    _table(f"CPU seconds (user + sys) of a fresh process, {args.rounds} rounds: "
           "median (min-max)", cpu)
    _table(f"the default replay (acmesim replay: the bundled sample, FIFO, consolidate), "
           f"{args.rounds} rounds: median (min-max)",
           {"whole process": replayed["whole"],
            "inside the run's work (run_replay)": replayed["inside"],
            "the same work again, warm": replayed["warm"],
            "start-up: whole process less the warm work": replayed["start-up"]})
    if sweep is not None:
        n = args.sweep_runs
        _table(f"a sweep of {n} seeds on the sample (acmesim replay -m seed=0,...,{n - 1}, basic "
               f"launcher), {args.rounds} rounds: median (min-max)",
               {f"sweep of {n} runs, whole process": sweep["total"],
                "sweep of 1 run, whole process": sweep["one"],
                "per extra run: inside the run lifecycle": sweep["lifecycle"],
                "per extra run: start-up (the rest)": sweep["per_run"]})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
