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


def test_a_run_does_not_build_the_help_text(capsys, tmp_path, monkeypatch):
    """The help template resolves only when Hydra prints it: a replay never makes the text."""
    import acmesim.cli.hydra.help as help_module

    calls: list[int] = []
    real_help_text = help_module.help_text
    monkeypatch.setattr(help_module, "help_text",
                        lambda registries: calls.append(1) or real_help_text(registries))
    monkeypatch.chdir(tmp_path)
    assert main([f"hydra.run.dir={tmp_path / 'run'}", "progress=false"]) == 0
    assert calls == [] and (tmp_path / "run" / "complete.json").exists()
    assert main(["--help", "seed=0"]) == 0
    assert calls == [1] and "config groups" in capsys.readouterr().out
