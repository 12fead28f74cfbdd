"""Options of one plug-in given on the command line: validated together, dicts replace defaults."""

from __future__ import annotations

import cli_standins
import pytest

from acmesim.cli import hydra as hydra_app
from acmesim.cli import main
from acmesim.policies.scheduling import SCHEDULERS


@pytest.fixture
def runs(monkeypatch, tmp_path):
    """Stand-in engine and registries, except the real scheduler registry."""
    SCHEDULERS.names()  # import every scheduler before the engine is stood in
    calls = cli_standins.install(monkeypatch, tmp_path)

    def registries(spec=None):
        return {**cli_standins.build_registries(), "scheduler": SCHEDULERS}

    monkeypatch.setattr(hydra_app, "load_registries", registries)
    return calls


def test_options_of_one_plugin_are_validated_together(runs, capsys):
    # Alone, quotas={Pretrain:0.6,SFT:0.1} clashes with the default borrowers (SFT borrows);
    # together with borrowers=[MLLM,Debug,Other] it is valid.
    code = main(["replay", "scheduler=acme_reservation", "scheduler.quotas={Pretrain:0.6,SFT:0.1}",
                 "scheduler.borrowers=[MLLM,Debug,Other]", "hydra.run.dir=out"])
    assert code == 0, capsys.readouterr().err
    options = runs[0][0].scheduler.options
    assert options["quotas"] == {"Pretrain": 0.6, "SFT": 0.1}
    assert options["borrowers"] == ["MLLM", "Debug", "Other"]


def test_options_that_clash_together_are_still_rejected(runs, capsys):
    code = main(["replay", "scheduler=acme_reservation", "scheduler.quotas={Pretrain:0.6,SFT:0.1}",
                 "hydra.run.dir=out"])
    assert code != 0
    assert "cannot both have a quota and borrow" in capsys.readouterr().err
    assert runs == []


def test_a_dict_on_the_command_line_replaces_the_default(runs, capsys):
    assert main(["replay", "scheduler=acme_reservation", "scheduler.quotas={}",
                 "hydra.run.dir=out"]) == 0, capsys.readouterr().err
    assert runs[0][0].scheduler.options["quotas"] == {}
    assert main(["replay", "scheduler=acme_reservation", "scheduler.quotas={SFT:0.2}",
                 "scheduler.borrowers=[Debug]", "hydra.run.dir=out2"]) == 0
    assert runs[1][0].scheduler.options["quotas"] == {"SFT": 0.2}


def test_a_dict_sweep_replaces_the_default_in_every_run(runs):
    assert main(["replay", "-m", "scheduler=acme_reservation",
                 "scheduler.quotas={},{Pretrain:0.5}", "hydra.sweep.dir=s"]) == 0
    quotas = sorted((c.scheduler.options["quotas"] for c, _ in runs), key=len)
    assert quotas == [{}, {"Pretrain": 0.5}]


def test_one_key_of_a_dict_option_is_added_with_plus(runs, capsys, tmp_path):
    assert main(["replay", "scheduler=acme_reservation", "scheduler.quotas.Pretrain=0.6",
                 "hydra.run.dir=out"]) == 1
    err = capsys.readouterr().err
    assert "+scheduler.quotas.Pretrain=VALUE" in err and "Traceback" not in err
    assert not runs and not (tmp_path / "out").exists()
    assert main(["replay", "scheduler=acme_reservation", "+scheduler.quotas.Pretrain=0.6",
                 "hydra.run.dir=out"]) == 0, capsys.readouterr().err
    assert runs[0][0].scheduler.options["quotas"] == {"Pretrain": 0.6}


def test_reservation_docstring_states_the_default_quota():
    import re

    from acmesim.policies.scheduling import acme_reservation

    stated = re.search(r"Default quota: pretraining reserves (\d+)% of the nodes",
                       acme_reservation.__doc__)
    default = SCHEDULERS.make_config("acme_reservation").quotas["Pretrain"]
    assert stated is not None and int(stated.group(1)) / 100 == default
