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
    not in ``module_of`` raises ``AttributeError`` as a missing attribute does. Importing a
    submodule binds its name in the package (``launch`` for ``.launch``): when the package
    exports a name of that module's own, the export is bound over it at once, whichever of the
    module's names was read first.
    """

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(module, package)
        own = loaded.__name__.rpartition(".")[2]
        if module_of.get(own) == module:
            namespace[own] = getattr(loaded, own)
        value = getattr(loaded, name)
        namespace[name] = value
        return value

    return __getattr__
