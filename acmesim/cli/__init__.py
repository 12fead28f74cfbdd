"""The command line: entry point, subcommands, the Hydra layer, terminal report, objectives.

``acmesim.cli:main`` is the ``acmesim`` console script (``acmesim/cli/main.py``); each
subcommand is one module of ``acmesim/cli/commands/``; ``acmesim/cli/hydra/`` turns overrides
into a ``ReplayConfig``. Nothing below this package imports it.
"""

from acmesim.cli.main import main

__all__ = ["main"]
