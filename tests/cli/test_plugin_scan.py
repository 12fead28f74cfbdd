"""A replay on Hydra's basic launcher and sweeper skips the launcher and sweeper plugin packages
in Hydra's plugin scan, and writes what the full scan writes.

Hydra imports every module of every installed plugin package to find its plugins; the packaged
extras' launchers and sweepers (``launch.LAUNCHER_PLUGINS``) hold nothing else, so a command
line that can only use the basic ones (``launch.basic_launcher_only``) is run without them
(``launch._basic_launcher_scan``). Checked: the premise (those packages define only launchers
and sweepers), the modules a fresh process loads, that the next command scans every plugin
again, and that the files written are byte for byte those of the full scan.
"""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hydra.core.plugins import Plugins
from hydra.core.singleton import Singleton
from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper

from acmesim.cli import hydra as hydra_app
from acmesim.cli import main

assert callable(hydra_app.launch)  # binds the package's name `launch` to the function
launch = sys.modules["acmesim.cli.hydra.launch"]

INSTALLED = [p for p in launch.LAUNCHER_PLUGINS if importlib.util.find_spec(p) is not None]
"""The packages of ``LAUNCHER_PLUGINS`` installed here (joblib and submitit always are)."""

RESULT_FILES = (".hydra/config.yaml", ".hydra/hydra.yaml", ".hydra/overrides.yaml",
                "config.yaml", "jobs.csv", "utilization.csv", "summary.csv")

PROBE = """
import contextlib, io, json, sys
from acmesim.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["replay", *sys.argv[1:]])
print(json.dumps({"code": code, "loaded": sorted(m for m in sys.modules
                                                 if m.startswith("hydra_plugins."))}))
"""


def plugin_modules_after(folder: Path, *argv: str) -> dict:
    """Exit code and the ``hydra_plugins`` modules loaded by ``acmesim replay ARGV`` in a fresh
    interpreter (run in ``folder``)."""
    done = subprocess.run([sys.executable, "-c", PROBE, *argv, "progress=false"],
                          capture_output=True, text=True, check=True, cwd=folder)
    return json.loads(done.stdout.splitlines()[-1])


def test_the_skipped_packages_define_only_launchers_and_sweepers():
    # the premise: a run on the basic launcher and sweeper needs nothing of them
    assert "hydra_plugins.hydra_joblib_launcher" in INSTALLED
    found = [c for c in Plugins.instance().discover()
             if c.__module__.startswith(tuple(p + "." for p in INSTALLED))]
    assert {c.__module__.split(".")[1] for c in found} == {p.split(".")[1] for p in INSTALLED}
    assert all(issubclass(c, Launcher | Sweeper) for c in found), found


@pytest.mark.parametrize(("argv", "basic"), [
    ([], True),
    (["seed=1", "hydra.run.dir=x"], True),
    (["-m", "seed=1,2", "hydra.sweep.dir=s"], True),
    (["-m", "hydra/launcher=joblib", "seed=1,2"], False),
    (["hydra/sweeper=optuna"], False),
    (["hydra.launcher.n_jobs=2"], False),
    (["+hydra.sweeper.params.seed=1,2"], False),
    (["--info", "plugins"], False),
    (["--cfg", "hydra"], False),
    (["-cn", "other"], False),
])
def test_only_a_command_line_that_cannot_choose_a_launcher_skips_them(argv, basic):
    assert launch.basic_launcher_only(argv) is basic


@pytest.mark.parametrize("argv", [["hydra.run.dir=run"],
                                  ["-m", "seed=1,2", "hydra.sweep.dir=sweep"]])
def test_a_basic_run_or_sweep_imports_no_launcher_plugin_module(trace, argv):
    probe = plugin_modules_after(trace.parent, *argv, f"trace.path={trace.name}", "cluster=tiny")
    assert probe["code"] == 0
    # the packages themselves are imported to walk them (a version string each), no module
    assert probe["loaded"] == sorted(INSTALLED)


def test_a_joblib_sweep_still_finds_its_launcher(trace):
    probe = plugin_modules_after(trace.parent, "-m", f"trace.path={trace.name}",
                                 "cluster=tiny", "seed=1,2", "hydra/launcher=joblib",
                                 "hydra.launcher.n_jobs=1", "hydra.sweep.dir=sweep")
    assert probe["code"] == 0
    assert "hydra_plugins.hydra_joblib_launcher.joblib_launcher" in probe["loaded"]


@contextlib.contextmanager
def _unscanned():
    """Hydra's plugin scan not yet made in this process (as in a fresh one), restored after."""
    kept = Singleton._instances.pop(Plugins, None)
    try:
        yield
    finally:
        if kept is not None:
            Singleton._instances[Plugins] = kept


def test_the_narrowed_scan_is_dropped_so_the_next_command_scans_every_plugin(trace):
    args = ["replay", f"trace.path={trace.name}", "cluster=tiny", "progress=false",
            "hydra.run.dir=run"]
    with _unscanned():
        assert main(args) == 0
        assert Plugins not in Singleton._instances
        names = {c.__name__ for c in Plugins.instance().discover(Launcher)}
    assert {"BasicLauncher", "JoblibLauncher", "LocalLauncher"} <= names


def test_the_narrowed_scan_writes_what_the_full_scan_writes(trace, monkeypatch):
    args = ["replay", f"trace.path={trace.name}", "cluster=tiny", "scheduler=sjf",
            "progress=false", "hydra.run.dir=run"]
    with _unscanned():
        assert main(args) == 0
    shutil.move("run", "narrowed")
    monkeypatch.setattr(launch, "basic_launcher_only", lambda argv: False)
    with _unscanned():
        assert main(args) == 0
        assert Plugins in Singleton._instances  # the full scan is kept, as Hydra keeps it
    for name in RESULT_FILES:
        narrowed, full = Path("narrowed", name).read_bytes(), Path("run", name).read_bytes()
        if name == "summary.csv":  # its wall-clock columns differ from run to run
            narrowed, full = (_without_wall_clock(text) for text in (narrowed, full))
        assert narrowed == full, name


def _without_wall_clock(summary: bytes) -> list[list[str]]:
    """The cells of a ``summary.csv`` without its wall-clock columns."""
    header, *rows = csv.reader(io.StringIO(summary.decode()))
    kept = [k for k, name in enumerate(header)
            if "wall" not in name and name != "events_per_second"]
    return [[line[k] for k in kept] for line in (header, *rows)]
