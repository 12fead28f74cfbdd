"""The replay's config groups (one per plug-in registry) and its top-level settings."""

from __future__ import annotations

import dataclasses
import importlib
import typing
from collections.abc import Mapping
from typing import Any

from acmesim.cli.objective import OBJECTIVE_SETTINGS
from acmesim.core.config import Choice, ReplayConfig
from acmesim.core.field_docs import field_docs
from acmesim.core.registry import Registry

GROUPS: dict[str, str] = {
    "trace": "acmesim.sources:TRACES",
    "cluster": "acmesim.cluster:CLUSTERS",
    "scheduler": "acmesim.evaluation.scheduling:SCHEDULERS",  # with the deprecated eval_*
    "placement": "acmesim.policies.placement:PLACEMENTS",
    "failure": "acmesim.policies.failure:FAILURES",
    "checkpoint": "acmesim.policies.checkpoint:CHECKPOINTS",
    "recovery": "acmesim.policies.recovery:RECOVERIES",
    "eval": "acmesim.evaluation.modes:EVALS",
    "power": "acmesim.policies.power:POWERS",
}
"""Config group -> ``module:REGISTRY`` holding its plug-ins, in the order help lists them."""

APP_SETTINGS: dict[str, str] = {
    "force": "rerun even if the run directory holds a complete run of this config",
    **OBJECTIVE_SETTINGS,
}
"""Top-level keys of the command itself (not part of ``ReplayConfig``)."""

APP_DEFAULTS: dict[str, Any] = {
    "force": False, "objective": None, "objective_direction": None,
    "objective_constraint": None, "objective_constraint_max": None, "objective_penalty": 1.0,
}
"""The defaults of ``APP_SETTINGS`` (as in ``acmesim/conf/config.yaml``)."""

APP_SETTING_TYPES: dict[str, type] = {"force": bool}
"""The type each of ``APP_SETTINGS`` must have (``force=maybe`` is rejected, not taken as true)."""

SETTING_HELP: dict[str, str] = {**field_docs(ReplayConfig), **APP_SETTINGS}
"""One line per top-level setting, shown by ``acmesim replay --help``: the attribute docstring
of each ``ReplayConfig`` field, then the command's own settings."""


def load_registries(spec: Mapping[str, str] | None = None) -> dict[str, Registry]:
    """Import each group's registry (``module:ATTR``) and return them by group name."""
    found: dict[str, Registry] = {}
    for group, target in (spec or GROUPS).items():
        module, _, attr = target.partition(":")
        found[group] = getattr(importlib.import_module(module), attr)
    return found


def replay_settings() -> dict[str, Any]:
    """The non-plug-in fields of ``ReplayConfig`` a user may set, with their declared types."""
    hints = typing.get_type_hints(ReplayConfig)
    return {
        f.name: hints[f.name]
        for f in dataclasses.fields(ReplayConfig)
        if hints[f.name] is not Choice and f.name != "run_id"
    }


MISSING_VALUE = "???"
"""OmegaConf's mark of a mandatory value (a plug-in option without a default)."""


def default_of(field: dataclasses.Field) -> Any:
    """The default a dataclass field declares, or ``MISSING_VALUE`` when it has none."""
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return MISSING_VALUE if field.default is dataclasses.MISSING else field.default
