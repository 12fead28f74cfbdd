"""``acmesim replay --help`` alone prints the help without Hydra, exactly as Hydra renders it."""

from __future__ import annotations

from cli_standins import _plugin, build_registries

from acmesim.cli.commands.replay import main
from acmesim.core.registry import Registry


def test_plain_help_prints_what_hydra_renders(capsys, tmp_path, monkeypatch):
    registries = build_registries()  # small stand-ins keep Hydra's rendering fast
    registries["trace"] = Registry("trace")
    _plugin(registries["trace"], "sample")
    monkeypatch.setattr("acmesim.cli.hydra.load_registries", lambda spec=None: registries)
    monkeypatch.chdir(tmp_path)
    assert main(["--help"]) == 0
    direct = capsys.readouterr().out
    assert main(["--help", "seed=0"]) == 0  # an override: Hydra composes and renders the help
    assert capsys.readouterr().out == direct
    assert "acmesim replay -m" in direct and "  scheduler:" in direct and "weibull" in direct
