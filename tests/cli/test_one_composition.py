"""A plain run is composed once, with only the selected plug-in schemas stored, and writes
exactly what ``hydra.main``'s own path (two compositions, every schema stored) writes.

``hydra.main`` composes a run twice, the first time only to read ``hydra.mode``; acmesim skips
that first composition on a plain run (``launch.plain_run``) because its packaged config leaves
``hydra.mode`` unset, and stores only the options the command line selects
(``overrides.stored_options``). Both are checked against the path they shorten.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_module
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


@pytest.mark.parametrize(("argv", "plain"), [
    (["seed=1", "hydra.run.dir=x"], True),
    ([], True),
    (["-m", "seed=1,2"], False),
    (["--cfg", "job"], False),
    (["hydra.mode=MULTIRUN", "seed=1,2"], False),
    (["hydra/launcher=basic"], False),
    (["-cn", "other"], False),
])
def test_plain_run_is_only_key_value_overrides_that_cannot_set_the_mode(argv, plain):
    assert launch.plain_run(argv) is plain


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
    """Make the replay take hydra.main's own path: compose for the mode, store every schema."""
    monkeypatch.setattr(launch, "plain_run", lambda argv: False)
    monkeypatch.setattr(overrides, "stored_options", lambda argv, chosen: None)
    monkeypatch.setattr(hydra_app, "stored_options", overrides.stored_options, raising=False)


def test_one_composition_writes_what_two_compositions_write(trace, monkeypatch):
    args = ("replay", f"trace.path={trace.name}", *ARGS, "hydra.run.dir=run")
    assert main(list(args)) == 0
    shutil.move("run", "short")
    with monkeypatch.context() as patch:
        _full_path(patch)
        assert main(list(args)) == 0
    for name in RESULT_FILES:
        assert Path("short", name).read_bytes() == Path("run", name).read_bytes(), name
