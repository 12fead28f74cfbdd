"""Plug-in registries: one per policy kind, one file plus one decorator per plug-in.

A plug-in class declares its typed options as a nested dataclass ``Config`` and registers
itself with ``@REGISTRY.register("name", "alias", ...)``. The registry discovers every module of
its package when it must know every name (``names``, ``aliases``, an unknown name), so adding a
policy is one new file; an unknown name fails with the list of valid names and an unknown option
with the list of valid options. Looking one name up (``canonical``, ``get``, ``create``) first
imports only the package's module of that name, the file a plug-in usually lives in
(``fifo`` in ``fifo.py``), and discovers every module only when that one does not register it:
a run imports the plug-ins it uses, not every plug-in installed.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import pkgutil
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from acmesim.core.errors import ConfigError, UnknownNameError, UnknownOptionError

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class NoOptions:
    """The typed configuration of a plug-in that takes no options."""


class Registry(Generic[T]):
    """A name -> plug-in class table for one kind of policy (scheduler, placement, ...)."""

    def __init__(self, kind: str, package: str | None = None) -> None:
        self.kind = kind
        self._package = package
        self._discovered = package is None
        self._classes: dict[str, type[T]] = {}
        self._aliases: dict[str, str] = {}

    def register(self, name: str, *aliases: str) -> Callable[[type[T]], type[T]]:
        """Class decorator registering a plug-in under ``name`` and optional ``aliases``."""

        def decorate(cls: type[T]) -> type[T]:
            for key in (name, *aliases):
                known = self._aliases.get(key)
                if known is not None and self._classes[known] is not cls:
                    raise ValueError(f"{self.kind} name {key!r} is already registered")
                self._aliases[key] = name
            self._classes[name] = cls
            # every plug-in class gets the attribute here, whatever ``T`` declares
            cls.registry_name = name  # type: ignore[attr-defined]
            return cls

        return decorate

    def _discover(self) -> None:
        """Import every module of the registry's package so their decorators run."""
        if self._discovered or self._package is None:
            return
        self._discovered = True
        package = importlib.import_module(self._package)
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                importlib.import_module(f"{self._package}.{info.name}")

    def _find(self, name: str) -> None:
        """Make ``name`` known if any module registers it: the package's module named ``name``
        first (imported alone), every module when that one does not register it."""
        if name in self._aliases or self._discovered or self._package is None:
            return
        if name.isidentifier() and not name.startswith("_"):
            module = f"{self._package}.{name}"
            if module in sys.modules or importlib.util.find_spec(module) is not None:
                importlib.import_module(module)
        if name not in self._aliases:
            self._discover()

    def names(self) -> list[str]:
        """The canonical names of every registered plug-in, sorted."""
        self._discover()
        return sorted(self._classes)

    def aliases(self) -> dict[str, str]:
        """Every accepted spelling mapped to its canonical name."""
        self._discover()
        return dict(self._aliases)

    def knows(self, name: str) -> bool:
        """Whether ``name`` is a registered plug-in name or alias (importing as ``canonical``)."""
        self._find(name)
        return name in self._aliases

    def canonical(self, name: str) -> str:
        """The canonical name for ``name`` or an alias; unknown names list the valid ones."""
        self._find(name)
        try:
            return self._aliases[name]
        except KeyError:
            raise UnknownNameError(self.kind, name, self._classes) from None

    def get(self, name: str) -> type[T]:
        """The plug-in class registered as ``name`` (or an alias of it)."""
        return self._classes[self.canonical(name)]

    def config_class(self, name: str) -> type:
        """The typed option dataclass of plug-in ``name`` (``NoOptions`` when it declares none)."""
        return getattr(self.get(name), "Config", NoOptions)

    def make_config(self, name: str, options: Mapping[str, Any] | None = None) -> Any:
        """Validate ``options`` against plug-in ``name``'s typed schema and build its config."""
        schema = self.config_class(name)
        fields = {f.name: f for f in dataclasses.fields(schema)}
        values: dict[str, Any] = {}
        for key, value in (options or {}).items():
            if key not in fields:
                raise UnknownOptionError(self.kind, self.canonical(name), key, fields)
            values[key] = _coerce(self.kind, name, key, value, _field_type(schema, key))
        try:
            return schema(**values)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{self.kind} {name!r}: {exc}") from None

    def create(self, name: str, options: Mapping[str, Any] | None = None, **context: Any) -> T:
        """Build plug-in ``name`` from validated ``options``; ``context`` goes to ``__init__``."""
        config = self.make_config(name, options)
        # plug-ins are built as cls(config, **context); ``T`` (a Protocol) cannot declare that
        return self.get(name)(config, **context)  # type: ignore[call-arg]


def _field_type(schema: type, key: str) -> Any:
    """The resolved annotation of field ``key`` of dataclass ``schema``."""
    return typing.get_type_hints(schema).get(key, Any)


def _coerce(kind: str, name: str, key: str, value: Any, annotation: Any) -> Any:
    """Check ``value`` against a simple annotation, widening int to float; reject mismatches."""
    allowed = _simple_types(annotation)
    if allowed is None or value is None and type(None) in allowed:
        return value
    if isinstance(value, bool) and bool not in allowed:
        pass
    elif isinstance(value, allowed):
        return value
    elif float in allowed and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    elif tuple in allowed and isinstance(value, list):
        return tuple(value)
    names = " or ".join(sorted(t.__name__ for t in allowed))
    raise ConfigError(f"{kind} {name!r} option {key!r} must be {names}, got {value!r}")


def _simple_types(annotation: Any) -> tuple[type, ...] | None:
    """The runtime types an annotation admits, or None when it is too rich to check here."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        parts = [_simple_types(arg) for arg in typing.get_args(annotation)]
        known = [part for part in parts if part is not None]
        if len(known) < len(parts):
            return None
        return tuple(t for part in known for t in part)
    if origin is typing.Literal:
        return tuple({type(arg) for arg in typing.get_args(annotation)})
    if origin in (tuple, list, dict):
        return (origin,)
    if annotation in (int, float, str, bool, tuple, list, dict, type(None)):
        return (annotation,)
    return None
