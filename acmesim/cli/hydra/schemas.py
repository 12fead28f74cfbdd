"""Typed Hydra schemas generated from the plug-ins' ``Config`` dataclasses.

Each plug-in's options become a structured config (its fields plus a leading ``name``) stored
in Hydra's ``ConfigStore`` under its group, so OmegaConf type-checks every ``group.key=value``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore

from acmesim.cli.hydra.groups import default_of
from acmesim.cli.hydra.help import help_node
from acmesim.core.registry import Registry

_PLAIN_TYPES = (int, float, bool, str, Path)

QUIET_JOB_LOGGING: dict[str, Any] = {
    "version": 1,
    "formatters": {"plain": {"format": "%(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain",
                             "stream": "ext://sys.stderr"}},
    "root": {"level": "WARNING", "handlers": ["console"]},
    "disable_existing_loggers": False,
}
"""Job logging of a replay (``hydra/job_logging=quiet``): warnings only, on stderr, no file."""


def storable_type(annotation: Any) -> Any:
    """The closest annotation OmegaConf can enforce (Literal -> its base type, rich -> Any)."""
    if annotation in _PLAIN_TYPES:
        return annotation
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal and len({type(a) for a in args}) == 1:
        return type(args[0]) if type(args[0]) in _PLAIN_TYPES else Any
    if origin in (typing.Union, types.UnionType) and type(None) in args and len(args) == 2:
        inner = next(a for a in args if a is not type(None))
        return typing.Optional[inner] if inner in _PLAIN_TYPES else Any  # noqa: UP045
    return Any


def _storable_default(field: dataclasses.Field) -> dataclasses.Field:
    """A dataclass field default OmegaConf accepts (tuples become lists, factories are kept).

    A nested options dataclass (e.g. the file trace's ``columns``) stays a dataclass, so its
    keys are typed and set without ``+`` (``trace.columns.gpu_num=num_gpus``). A dict option is
    stored empty (``None``) and its default filled in after composition
    (``acmesim.cli.hydra.convert``): Hydra *merges* a dict override into the stored value, so a
    stored default could never be replaced (``quotas={}`` would keep it, a new key would be
    refused); merging into nothing makes a dict given on the command line replace the default.
    """
    value = default_of(field)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        nested: Any = value
        return dataclasses.field(default_factory=lambda: dataclasses.replace(nested))
    if isinstance(value, dict):
        return _field(None)
    if isinstance(value, tuple | list):
        plain = list(value) if isinstance(value, tuple) else value
        return dataclasses.field(default_factory=lambda: _copy(plain))
    return dataclasses.field(default=value)


def _field(default: Any) -> dataclasses.Field:
    """A ``Field`` with ``default``, for ``make_dataclass`` (the stubs type ``dataclasses.field``
    as its default, which is what it stands for in a class body, not the ``Field`` it returns)."""
    return typing.cast(dataclasses.Field, dataclasses.field(default=default))


def _copy(value: Any) -> Any:
    """A shallow copy of a list or dict default."""
    return type(value)(value)


def option_schema(registry: Registry, name: str) -> type:
    """A dataclass of plug-in ``name``'s options plus a leading ``name`` field, for Hydra."""
    schema = registry.config_class(name)
    hints = typing.get_type_hints(schema)
    fields: list[tuple[str, Any, dataclasses.Field]] = [
        ("name", str, _field(registry.canonical(name)))
    ]
    for field in dataclasses.fields(schema):
        if field.name != "name":
            fields.append((field.name, storable_type(hints[field.name]), _storable_default(field)))
    return dataclasses.make_dataclass(f"{registry.kind}:{name}", fields)


def register_configs(registries: Mapping[str, Registry], store: ConfigStore | None = None,
                     *, with_help: bool = True,
                     only: Mapping[str, Sequence[str]] | None = None) -> None:
    """Store one config-group option per plug-in name and alias, the help and the logging.

    ``with_help=False`` stores the help option with an empty text: a run that will not print the
    help skips building it (a quarter of a second of parsing the plug-ins' sources). ``only``
    stores just the names it lists for a group (``overrides.stored_options``: those the command
    line selects), every option of a group it does not list.
    """
    store = store or ConfigStore.instance()
    for group, registry in registries.items():
        store.repo.pop(group, None)  # exactly the registry's options, nothing stale
        names = (only or {}).get(group) or registry.aliases()
        for alias in dict.fromkeys(names):
            store.store(group=group, name=alias, node=option_schema(registry, alias))
    help_config = help_node(registries) if with_help else {"app_name": "acmesim replay",
                                                             "template": ""}
    store.store(group="hydra/help", name="acmesim", node=help_config)
    store.store(group="hydra/job_logging", name="quiet", node=QUIET_JOB_LOGGING)
