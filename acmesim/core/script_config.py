"""YAML configuration for the experiment scripts: a config file plus ``key=value`` overrides."""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from acmesim.core.errors import ConfigError


def load_script_config(argv: list[str], default: Path) -> DictConfig:
    """The first ``*.yaml`` argument (else ``default``) merged with the ``key=value`` ones."""
    files = [a for a in argv if a.endswith((".yaml", ".yml")) and "=" not in a]
    overrides = [a for a in argv if a not in files]
    path = files[0] if files else default
    merged = OmegaConf.merge(OmegaConf.load(path), OmegaConf.from_dotlist(overrides))
    if not isinstance(merged, DictConfig):
        raise ConfigError(f"{path}: expected a mapping of settings, got a list")
    return merged
