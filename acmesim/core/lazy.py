"""Lazy package exports: a package's public names imported from their modules on first use.

A package whose ``__init__`` would otherwise import heavy modules (SimPy, pandas, Hydra) at
``import`` time maps each public name to the module defining it and installs the module-level
``__getattr__`` this builds, so importing one light module of the package stays light.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, module_of: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: import the module of a public name on first use.

    ``module_of`` maps each public name to the module that defines it, relative to ``package``
    (``".generate"``) or absolute (``"acmesim.run.simulate"``). The imported value is kept in
    ``namespace`` (the package's ``globals()``), so later uses do not come back here. A name
    not in ``module_of`` raises ``AttributeError`` as a missing attribute does.
    """

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    return __getattr__
