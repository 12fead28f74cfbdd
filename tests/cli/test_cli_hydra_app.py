"""The Hydra layer's pieces: generated schemas, packaged defaults, argument handling."""

from __future__ import annotations

import dataclasses
import typing
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import pytest
import yaml
from omegaconf import OmegaConf

from acmesim.cli import hydra as hydra_app
from acmesim.cli import main
from acmesim.cli.commands.replay import with_file_source
from acmesim.core.config import ReplayConfig
from acmesim.core.errors import ConfigError
from acmesim.core.registry import Registry


def test_packaged_defaults_mirror_replay_config():
    text = (resources.files("acmesim.conf") / "config.yaml").read_text()
    conf = yaml.safe_load(text)
    chosen = {k: v for item in conf["defaults"] if isinstance(item, dict)
              for k, v in item.items() if not k.startswith("override")}
    defaults = ReplayConfig()
    assert chosen == {g: getattr(defaults, g).name for g in hydra_app.GROUPS}
    for key in hydra_app.replay_settings():
        assert conf[key] == getattr(defaults, key), key
    assert conf["force"] is False


def test_every_group_registry_exists():
    registries = hydra_app.load_registries()
    assert list(registries) == list(hydra_app.GROUPS)
    for group, registry in registries.items():
        assert isinstance(registry, Registry)
        assert getattr(ReplayConfig(), group).name in registry.aliases(), group


@pytest.mark.parametrize(("annotation", "stored"), [
    (int, int), (float, float), (bool, bool), (str, str),
    (Literal["a", "b"], str), (Literal[1, 2], int),
    (float | None, typing.Optional[float]),  # noqa: UP045 - what OmegaConf expects
    (tuple[str, ...], Any), (dict[str, Any], Any), (int | str, Any),
])
def test_option_types_are_mapped_to_what_omegaconf_enforces(annotation, stored):
    assert hydra_app.storable_type(annotation) == stored


def test_option_schema_is_the_plugin_config_plus_its_name():
    @dataclasses.dataclass(frozen=True)
    class Config:
        rate: float = 0.5
        kinds: tuple[str, ...] = ("gpu", "node")
        path: str = dataclasses.field(default="x")
        needed: int = dataclasses.field(default_factory=lambda: 3)

    registry = Registry("demo")
    registry.register("thing", "alias")(type("Thing", (), {"Config": Config}))
    node = OmegaConf.structured(hydra_app.option_schema(registry, "alias"))
    assert OmegaConf.to_container(node) == {
        "name": "thing", "rate": 0.5, "kinds": ["gpu", "node"], "path": "x", "needed": 3}
    with pytest.raises(Exception, match="rate"):
        node.rate = "fast"


def test_settings_are_checked_against_their_types():
    settings = hydra_app.replay_settings()
    assert hydra_app.check_setting("utilization_interval", 60,
                                   settings["utilization_interval"]) == 60.0
    for key, value in (("seed", True), ("seed", 1.5), ("progress", "yes"), ("cpu_jobs", "all")):
        with pytest.raises(ConfigError, match=key):
            hydra_app.check_setting(key, value, settings[key])


def test_trace_path_selects_the_file_source_only_when_no_source_is_chosen():
    assert with_file_source(["-m", "trace.path=x.csv"]) == ["-m", "trace.path=x.csv",
                                                            "trace=file"]
    assert with_file_source(["trace=file", "trace.path=x"]) == ["trace=file", "trace.path=x"]
    assert with_file_source(["seed=1"]) == ["seed=1"]


def test_range_sweeps_are_checked_value_by_value(standins, capsys):
    assert main(["replay", "-m", "seed=range(1,3)", "hydra.sweep.dir=s"]) == 0
    assert sorted(c.seed for c, _ in standins) == [1, 2]
    assert main(["replay", "-m", "cpu_jobs=skip,all", "hydra.sweep.dir=t"]) == 1
    assert "cpu_jobs must be one of skip, replay; got 'all'" in capsys.readouterr().err


def test_an_experiment_config_extends_the_packaged_one(standins, tmp_path):
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "demo.yaml").write_text(
        "# @package _global_\n"
        "defaults:\n  - config\n  - override /cluster: kalos\n  - override /trace: synthetic\n"
        "  - _self_\n"
        "trace:\n  profile: kalos\n  days: 3\nmode: recorded\n"
        "hydra:\n  mode: MULTIRUN\n  sweep:\n    dir: exp_out\n"
        "  sweeper:\n    params:\n      seed: 1,2\n")
    assert main(["replay", "--config-dir", str(exp), "--config-name", "demo",
                 "failure=weibull", "failure.shape=2", "cluster.nodes=3"]) == 0
    configs = sorted((c for c, _ in standins), key=lambda c: c.seed)
    assert [c.seed for c in configs] == [1, 2]
    for config in configs:
        assert config.cluster.name == "kalos" and config.mode == "recorded"
        assert config.cluster.options["nodes"] == 3
        assert config.trace.name == "synthetic"
        assert config.trace.options["profile"] == "kalos" and config.trace.options["days"] == 3
        assert config.failure.options["shape"] == 2.0
    assert Path("exp_out", "0", "summary.csv").is_file()


def test_top_level_help_names_the_replay_groups(capsys):
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "replay config groups: " + ", ".join(hydra_app.GROUPS) in text
    assert "acmesim replay --help" in text


def test_overrides_after_a_flag_are_an_error_that_shows_the_command_in_order():
    from acmesim.cli.hydra.overrides import override_arguments

    assert override_arguments(["-m", "trace.seed=1,2", "seed=3"]) == ["trace.seed=1,2", "seed=3"]
    in_order = r"acmesim replay -m trace=synthetic trace.seed=1,2 seed=3"
    with pytest.raises(ConfigError, match=r"not read: trace.seed=1,2 seed=3.*" + in_order):
        override_arguments(["trace=synthetic", "-m", "trace.seed=1,2", "seed=3"])
    with pytest.raises(ConfigError, match=r"\(acmesim replay --cfg job seed=1 seed=3\)"):
        override_arguments(["seed=1", "--cfg", "job", "seed=3"])


def test_overrides_after_a_flag_stop_the_replay_before_it_runs(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["replay", "trace=synthetic", "-m", "trace.seed=1,2"]) != 0
    assert "overrides after a flag are not read: trace.seed=1,2" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
