"""Checking command-line overrides against the registries before Hydra composes anything.

A wrong group option, option key, setting or value fails here with one line that lists the
valid choices (the registries' own errors), instead of a Hydra composition error. Values are
checked as the run would check them: each selected plug-in is built from the overrides of its
group (every combination a sweep names), and each setting through ``ReplayConfig``, so a value
such as ``seed=-1``, ``trace.days=0`` or ``cluster.nodes=0`` stops the command before Hydra
creates a run directory.
"""

from __future__ import annotations

import dataclasses
import itertools
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import OverrideParseException

from acmesim.cli.hydra.groups import (
    APP_SETTING_TYPES,
    APP_SETTINGS,
    MISSING_VALUE,
    default_of,
    replay_settings,
)
from acmesim.cli.objective import OBJECTIVE_SETTINGS, check_objective_setting
from acmesim.core.config import ReplayConfig
from acmesim.core.errors import AcmesimError, ConfigError, UnknownOptionError
from acmesim.core.registry import Registry

MAX_COMBINATIONS = 256
"""Combinations of one group's option values built before a sweep (more: the run checks)."""


def _values(override: Any) -> list[Any]:
    """Every value an override sets (each element of a sweep)."""
    if override.is_sweep_override():
        if override.is_interval_sweep():
            return []
        return list(override.sweep_iterator())
    return [override.value()]


def override_arguments(argv: list[str]) -> list[str]:
    """The ``key=value`` arguments of a command line, as Hydra's own parser splits it."""
    from hydra._internal.utils import get_args_parser

    try:
        args, rest = get_args_parser().parse_known_args(argv)
    except SystemExit:  # a malformed flag: Hydra reports it with its usage
        return []
    stray = [arg for arg in rest if "=" in arg and not arg.startswith("-")]
    if stray:  # Hydra's parser reads the overrides before the first flag only
        given = {*args.overrides, *stray}
        flags = [arg for arg in argv if arg not in given]
        in_order = " ".join([*flags, *args.overrides, *stray])
        raise ConfigError(
            f"overrides after a flag are not read: {' '.join(stray)}; give -m/--multirun and "
            f"every other flag before the key=value overrides (acmesim replay {in_order})")
    return list(args.overrides)


def parse_overrides(argv: list[str]) -> list[Any]:
    """Hydra's parse of the ``key=value`` arguments; syntax errors become ``ConfigError``."""
    try:
        return OverridesParser.create().parse_overrides(argv)
    except OverrideParseException as exc:
        raise ConfigError(str(exc).strip().splitlines()[0]) from None


def selected_options(
    overrides: list[Any], registries: Mapping[str, Registry], defaults: Mapping[str, str | None]
) -> dict[str, list[str]]:
    """Each group's option names the overrides select, else its default (None: unknown)."""
    chosen: dict[str, list[str]] = {
        group: [name] if (name := defaults.get(group)) else [] for group in registries}
    for override in overrides:
        group = override.key_or_group
        if group in registries and not override.is_delete():
            names = [str(value) for value in _values(override)]
            for name in names:
                registries[group].canonical(name)
            chosen[group] = names
    return chosen


def check_overrides(
    argv: list[str], registries: Mapping[str, Registry], defaults: Mapping[str, str | None]
) -> dict[str, list[str]]:
    """Reject unknown groups, options, option keys, settings and bad setting values early.

    The options given for one plug-in are validated together (a rule tying two options, such
    as a quota type that may not also borrow, sees both), once per combination of swept values.
    Returns each group's selected option names (``selected_options``; empty: not known).
    """
    overrides = parse_overrides(override_arguments(argv))
    chosen = selected_options(overrides, registries, defaults)
    settings = replay_settings()
    options: dict[str, dict[str, list[Any]]] = {}
    for override in overrides:
        key = override.key_or_group
        head, _, rest = key.partition(".")
        if override.is_hydra_override():
            _check_output_dir(key, _values(override))
            continue
        if override.is_delete():
            continue
        if head in registries and rest:
            if "." in rest and not (override.is_add() or override.is_force_add()):
                _check_dict_key(head, registries[head], chosen[head], rest)
            options.setdefault(head, {})[rest] = _values(override)
        elif key in settings:
            for value in _values(override):
                ReplayConfig(**{key: check_setting(key, value, settings[key])})
        elif key in OBJECTIVE_SETTINGS:
            for value in _values(override):
                check_objective_setting(key, _plain(value))
        elif key in APP_SETTING_TYPES:
            for value in _values(override):
                check_setting(key, value, APP_SETTING_TYPES[key])
        elif key not in registries and key not in APP_SETTINGS:
            raise ConfigError(
                f"unknown key {key!r}; valid groups: {', '.join(registries)}; "
                f"valid settings: {', '.join(sorted([*settings, *APP_SETTINGS]))}"
            )
    for group, given in options.items():
        _check_plugin_options(registries[group], chosen[group], given)
    if all(defaults.get(group) for group in registries):  # else a custom config adds options
        for group, registry in registries.items():
            _build_selected(registry, chosen[group], _group_options(overrides, group))
    return chosen


NARROW_HYDRA_KEYS = ("hydra.run.", "hydra.sweep.dir", "hydra.sweep.subdir", "hydra.job.",
                     "hydra/launcher", "hydra.launcher.")
"""Hydra overrides that cannot make a composition read another option of an acmesim group
(where the runs go, the job's name, which launcher starts them)."""


def stored_options(argv: list[str], chosen: Mapping[str, list[str]] | None
                   ) -> dict[str, list[str]] | None:
    """The options of each group Hydra can need for ``argv``: ``chosen``, or None for all.

    Hydra composes a run from the selected option of each group, and a sweep from each value
    of its group overrides (``scheduler=fifo,sjf``); storing only those spares it the schemas
    of the other plug-ins, which it would deep-copy at every composition. Every option is stored
    when anything else could read the store: a flag other than ``-m`` (``--cfg``, ``--info``,
    ``--help``, ``-cn``, ...), a Hydra override outside ``NARROW_HYDRA_KEYS`` (an optimizing
    sweeper's ``hydra.sweeper.params``), or a group whose selection is not known.
    """
    if chosen is None:
        return None
    for arg in argv:
        if arg in ("-m", "--multirun"):
            continue
        key = arg.split("=", 1)[0].lstrip("+~")
        if arg.startswith("-") or "=" not in arg or (
                key.startswith("hydra") and not key.startswith(NARROW_HYDRA_KEYS)):
            return None
    if not all(chosen.values()):
        return None
    return {group: list(names) for group, names in chosen.items()}


def _group_options(overrides: list[Any], group: str) -> dict[str, list[Any]] | None:
    """``group.key`` overrides as key -> every value given (None: nested or deleted keys)."""
    options: dict[str, list[Any]] = {}
    for override in overrides:
        head, _, rest = override.key_or_group.partition(".")
        if head != group or not rest or override.is_hydra_override():
            continue
        if "." in rest or override.is_delete() or not _values(override):
            return None
        options[rest] = [_plain(value) for value in _values(override)]
    return options


def _build_selected(registry: Registry, names: list[str], options: dict[str, list[Any]] | None,
                    ) -> None:
    """Build each selected plug-in with each combination of its group's option values.

    A plug-in's own validation (its ``Config`` and ``__init__``) then rejects a bad value now;
    plug-ins with a required option not given are left to the run, which names the option.
    """
    if options is None:
        return
    combinations = list(itertools.islice(itertools.product(*options.values()),
                                         MAX_COMBINATIONS))
    for name in names:
        fields = dataclasses.fields(registry.config_class(name))
        if any(default_of(f) == MISSING_VALUE and f.name not in options for f in fields):
            continue
        for combination in combinations:
            try:
                registry.create(name, dict(zip(options, combination, strict=True)))
            except AcmesimError as exc:
                if str(exc).startswith(f"{registry.kind} "):
                    raise
                raise ConfigError(f"{registry.kind} {name!r}: {exc}") from None
            except Exception:  # noqa: BLE001 - not a value error: the run reports it in full
                continue


OUTPUT_DIRS = ("hydra.run.dir", "hydra.sweep.dir")
"""Hydra's run and sweep directories, which Hydra creates before the run starts."""


def _check_output_dir(key: str, values: list[Any]) -> None:
    """``hydra.run.dir=X`` / ``hydra.sweep.dir=X``: X and its nearest existing ancestor must be
    directories (Hydra would fail with a traceback creating one over a file)."""
    if key not in OUTPUT_DIRS:
        return
    for value in values:
        text = str(value)
        if "${" in text:  # interpolated (e.g. the date): resolved by Hydra
            continue
        for path in (Path(text), *Path(text).parents):
            if path.exists():
                if not path.is_dir():
                    raise ConfigError(f"{key}={text}: {path} is a file, not a directory; "
                                      f"choose another directory")
                break


def _check_plugin_options(registry: Registry, names: list[str],
                          given: dict[str, list[Any]]) -> None:
    """``group.key=value`` options: each key must exist for every selected plug-in, and the
    options must be valid together (every combination of swept values)."""
    for name in names:
        schema = registry.config_class(name)
        fields = {field.name: field for field in dataclasses.fields(schema)}
        for key in given:
            option = key.split(".")[0]
            if option not in fields:
                raise UnknownOptionError(registry.kind, registry.canonical(name), option, fields)
            if "." in key:
                _check_nested_key(registry, name, fields[option], key)
        if any("." in key for key in given) or any(
                default_of(f) == MISSING_VALUE for f in fields.values()):
            continue  # nested or partial: OmegaConf checks it while composing
        keys = [key for key in given if given[key]]  # interval sweeps have no listed values
        for combination in itertools.product(*(given[key] for key in keys)):
            registry.make_config(name, {k: _plain(v) for k, v in zip(keys, combination,
                                                                       strict=True)})


def _check_dict_key(group: str, registry: Registry, names: list[str], key: str) -> None:
    """``group.option.key=value`` on a dict option: say how to write it (Hydra would refuse).

    A dict option starts empty on the command line (a dict given there replaces the default),
    so one key is added with ``+``; the dict then holds only the keys given.
    """
    option, sub = key.split(".")[:2]
    for name in names:
        fields = {f.name: f for f in dataclasses.fields(registry.config_class(name))}
        if option in fields and isinstance(default_of(fields[option]), dict):
            raise ConfigError(
                f"{group}.{key}: {option} is a dict option and a dict given on the command line "
                f"replaces its default; write +{group}.{key}=VALUE (the dict then holds only "
                f"the keys given) or {group}.{option}={{{sub}:VALUE,...}}")


def _check_nested_key(registry: Registry, name: str, field: dataclasses.Field,
                      key: str) -> None:
    """``group.option.sub=value`` where the option is a typed dataclass: ``sub`` must exist."""
    default = default_of(field)
    if not dataclasses.is_dataclass(default) or isinstance(default, type):
        return
    option, sub = key.split(".")[:2]
    valid = [f.name for f in dataclasses.fields(default)]
    if sub not in valid:
        raise UnknownOptionError(registry.kind, registry.canonical(name), f"{option}.{sub}",
                                 [f"{option}.{v}" for v in valid])


def _plain(value: Any) -> Any:
    """A parsed override value as plain Python (Hydra's parser may return its own types)."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def check_setting(key: str, value: Any, annotation: Any) -> Any:
    """Validate one top-level setting against its ``ReplayConfig`` type; return it coerced."""
    if typing.get_origin(annotation) is typing.Literal:
        valid = typing.get_args(annotation)
        if value not in valid:
            raise ConfigError(f"{key} must be one of {', '.join(map(str, valid))}; got {value!r}")
        return value
    if annotation is bool and not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    if annotation is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, annotation) and not (annotation is int and isinstance(value, bool)):
        return value
    raise ConfigError(f"{key} must be {annotation.__name__}, got {value!r}")
