"""Converting the composed Hydra config into the library's typed ``ReplayConfig``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from omegaconf import DictConfig, OmegaConf

from acmesim.cli.hydra.groups import default_of, replay_settings
from acmesim.cli.hydra.overrides import check_setting
from acmesim.core.config import Choice, ReplayConfig
from acmesim.core.errors import ConfigError
from acmesim.core.registry import Registry


def to_choice(registry: Registry, node: DictConfig) -> Choice:
    """One composed group node as a validated ``Choice`` (name + options)."""
    for key in map(str, node):
        if OmegaConf.is_missing(node, key):
            raise ConfigError(
                f"{registry.kind} {node.name!r} needs option {key!r} ({registry.kind}.{key}=...)"
            )
    try:
        container = OmegaConf.to_container(node, resolve=True, throw_on_missing=True)
    except Exception as exc:  # omegaconf raises MissingMandatoryValue and friends
        raise ConfigError(f"{registry.kind}: {exc}".splitlines()[0]) from None
    assert isinstance(container, dict)
    options = {str(key): value for key, value in container.items()}
    name = registry.canonical(str(options.pop("name")))
    options.update(_dict_defaults(registry, name, options))
    registry.make_config(name, options)
    return Choice(name, options)


def _dict_defaults(registry: Registry, name: str, options: dict) -> dict:
    """The declared defaults of dict options left unset (the Hydra schema stores them empty,
    see ``acmesim.cli.hydra.schemas``, so that a dict given on the command line replaces them)."""
    found = {}
    for field in dataclasses.fields(registry.config_class(name)):
        default = default_of(field)
        if isinstance(default, dict) and options.get(field.name) is None:
            found[field.name] = default
    return found


def to_replay_config(
    cfg: DictConfig, registries: Mapping[str, Registry], run_id: str = ""
) -> ReplayConfig:
    """Convert a composed Hydra config into the library's typed ``ReplayConfig``."""
    # keyword arguments of ReplayConfig, by name: a Choice per group, then the plain settings
    choices: dict[str, Any] = {
        group: to_choice(registry, cfg[group]) for group, registry in registries.items()}
    settings: dict[str, Any] = {
        key: check_setting(key, cfg[key], annotation)
        for key, annotation in replay_settings().items()
        if key in cfg
    }
    return ReplayConfig(**choices, **settings, run_id=run_id)
