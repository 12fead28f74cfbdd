"""A run is composed once and a sweep's job once, with only the selected plug-in schemas
stored, and they write exactly what ``hydra.main``'s own path writes.

``hydra.main`` composes a run twice, the first time only to read ``hydra.mode``, and a sweep
composes each job twice, once to check it; acmesim skips the first composition when the
command line cannot set the mode (``launch.mode_unset``: its packaged config leaves
``hydra.mode`` unset), hands the checked job compositions to the launcher
(``launch._CheckedJobs``), and stores only the options the command line selects
(``overrides.stored_options``). Each is checked against the path it shortens.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_module
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.global_hydra import GlobalHydra

from acmesim.cli import hydra as hydra_app
from acmesim.cli import main

# The modules themselves. The package's name `launch` is the function of the same name, bound
# when first used; importing the module by name before that would shadow it with the module.
assert callable(hydra_app.launch) and callable(hydra_app.stored_options)
launch = sys.modules["acmesim.cli.hydra.launch"]
overrides = sys.modules["acmesim.cli.hydra.overrides"]

ARGS = ("progress=false", "cluster=tiny", "scheduler=sjf", "seed=3")
"""A run on the tiny trace with one group and one setting overridden."""

RESULT_FILES = (".hydra/config.yaml", ".hydra/hydra.yaml", ".hydra/overrides.yaml",
                "config.yaml", "jobs.csv", "utilization.csv")


def test_packaged_config_leaves_the_run_mode_unset():
    # the premise of skipping Hydra's first composition: it could only answer "not set"
    GlobalHydra.instance().clear()
    hydra_app.register_configs(hydra_app.load_registries(), with_help=False)
    try:
        with initialize_config_module(launch.CONFIG_MODULE, version_base="1.3"):
            cfg = compose(launch.CONFIG_NAME, return_hydra_config=True)
    finally:
        GlobalHydra.instance().clear()
    assert cfg.hydra.mode is None


@pytest.mark.parametrize(("argv", "unset"), [
    (["seed=1", "hydra.run.dir=x"], True),
    ([], True),
    (["-m", "seed=1,2"], True),
    (["--multirun", "seed=1,2"], True),
    (["--cfg", "job"], False),
    (["hydra.mode=MULTIRUN", "seed=1,2"], False),
    (["-m", "hydra/launcher=basic"], False),
    (["-cn", "other"], False),
])
def test_the_mode_is_unset_with_only_overrides_and_m_that_cannot_set_it(argv, unset):
    assert launch.mode_unset(argv) is unset


CHOSEN = {"scheduler": ["fifo", "sjf"], "cluster": ["tiny"]}


@pytest.mark.parametrize(("argv", "stored"), [
    (["scheduler=fifo,sjf", "cluster=tiny"], CHOSEN),
    (["-m", "scheduler=fifo,sjf", "cluster=tiny", "hydra.sweep.dir=s"], CHOSEN),
    (["hydra/launcher=joblib", "hydra.run.dir=r", "hydra.job.chdir=false"], CHOSEN),
    (["--cfg", "job"], None),
    (["hydra.sweeper.params.scheduler=choice(fifo,sjf)"], None),
    (["hydra/sweeper=optuna"], None),
])
def test_only_the_selected_schemas_are_stored_when_nothing_else_reads_the_store(argv, stored):
    assert overrides.stored_options(argv, CHOSEN) == stored


def test_a_group_whose_selection_is_unknown_stores_every_schema():
    assert overrides.stored_options(["seed=1"], {"scheduler": [], "cluster": ["tiny"]}) is None
    assert overrides.stored_options(["seed=1"], None) is None


def _full_path(monkeypatch):
    """Make the replay take hydra.main's own path: compose for the mode, compose each job again
    after its check, store every schema."""
    monkeypatch.setattr(launch, "mode_unset", lambda argv: False)
    monkeypatch.setattr(launch, "_compose_each_job_once", contextlib.nullcontext)
    monkeypatch.setattr(overrides, "stored_options", lambda argv, chosen: None)
    monkeypatch.setattr(hydra_app, "stored_options", overrides.stored_options, raising=False)


def _compositions(monkeypatch) -> list[int]:
    """A counter of Hydra's compositions (``load_configuration`` calls) from now on."""
    count = [0]
    compose = ConfigLoaderImpl.load_configuration

    def counted(self, *args, **kwargs):
        count[0] += 1
        return compose(self, *args, **kwargs)

    monkeypatch.setattr(ConfigLoaderImpl, "load_configuration", counted)
    return count


def test_one_composition_writes_what_two_compositions_write(trace, monkeypatch):
    args = ("replay", f"trace.path={trace.name}", *ARGS, "hydra.run.dir=run")
    count = _compositions(monkeypatch)
    assert main(list(args)) == 0
    assert count == [1]
    shutil.move("run", "short")
    with monkeypatch.context() as patch:
        _full_path(patch)
        assert main(list(args)) == 0
    assert count == [3]  # hydra.main's own path: two more
    for name in RESULT_FILES:
        assert Path("short", name).read_bytes() == Path("run", name).read_bytes(), name


def test_a_sweep_composed_once_per_job_writes_what_hydra_alone_writes(trace, monkeypatch):
    args = ("replay", "-m", f"trace.path={trace.name}", *ARGS[:-1], "seed=1,2,1",
            "hydra.sweep.dir=sweep")
    count = _compositions(monkeypatch)
    assert main(list(args)) == 0
    assert count == [4]  # the sweep, then each of its 3 jobs once
    shutil.move("sweep", "short")
    with monkeypatch.context() as patch:
        _full_path(patch)
        assert main(list(args)) == 0
    assert count == [4 + 8]  # Hydra alone: the mode, the sweep, each job checked and run
    multirun = "multirun.yaml"
    assert Path("short", multirun).read_bytes() == Path("sweep", multirun).read_bytes()
    for job in ("0", "1", "2"):
        for name in RESULT_FILES:
            short, full = Path("short", job, name), Path("sweep", job, name)
            assert short.read_bytes() == full.read_bytes(), (job, name)


class _Loader:
    """A stand-in config loader whose every composition is a new numbered object."""

    def __init__(self):
        self.made: list[tuple[str, ...]] = []

    def compose(self, loader, master, overrides):
        self.made.append(tuple(overrides))
        return {"job": tuple(overrides), "n": len(self.made)}


def _checked(loader: _Loader) -> launch._CheckedJobs:
    def validate(sweeper, batch):
        for overrides in batch:
            jobs.load_sweep_config(loader, "master", list(overrides))

    jobs = launch._CheckedJobs(loader.compose, validate)
    return jobs


def test_checked_jobs_go_to_the_launcher_once_each(monkeypatch):
    copied = []
    monkeypatch.setattr("omegaconf.OmegaConf.copy_cache",
                        lambda from_config, to_config: copied.append(to_config["n"]))
    loader = _Loader()
    jobs = _checked(loader)
    batch = [["seed=1"], ["seed=2"], ["seed=1"]]
    jobs.check(None, batch)
    assert loader.made == [("seed=1",), ("seed=2",), ("seed=1",)]
    got = [jobs.load_sweep_config(loader, "master", job) for job in batch]
    assert [g["n"] for g in got] == [1, 2, 3]  # the checked objects, a duplicate its own
    assert copied == [1, 2, 3]  # the sweep's resolved values copied as each is handed out
    fresh = jobs.load_sweep_config(loader, "master", ["seed=1"])
    assert fresh["n"] == 4 and len(loader.made) == 4  # nothing kept left: composed anew


def test_at_most_the_kept_number_of_checked_jobs_is_kept(monkeypatch):
    monkeypatch.setattr("omegaconf.OmegaConf.copy_cache", lambda from_config, to_config: None)
    monkeypatch.setattr(launch, "KEPT_COMPOSITIONS", 2)
    loader = _Loader()
    jobs = _checked(loader)
    batch = [[f"seed={k}"] for k in range(3)]
    jobs.check(None, batch)
    got = [jobs.load_sweep_config(loader, "master", job)["n"] for job in batch]
    assert got == [1, 2, 4]  # the third was not kept: composed again
