"""The Hydra application behind ``acmesim replay``: config groups generated from the registries.

At startup every registered plug-in becomes a Hydra config-group option: its typed ``Config``
dataclass plus a ``name`` field is stored in Hydra's ``ConfigStore`` under its group (``trace``,
``cluster``, ``scheduler``, ``placement``, ``failure``, ``checkpoint``, ``recovery``), so adding a
plug-in file adds a command-line option. Overrides are checked against the registries before
Hydra composes anything, so a wrong name or key fails with one line listing the valid choices.
The composed ``DictConfig`` becomes the library's typed ``ReplayConfig``; apart from this package
and the command modules, nothing in acmesim imports Hydra.

Each name below is imported from its module on first use, so ``acmesim replay --help`` (which
needs only ``groups`` and ``help``) never imports Hydra or OmegaConf.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acmesim.core.lazy import lazy_exports

if TYPE_CHECKING:
    from acmesim.cli.hydra.convert import to_choice, to_replay_config
    from acmesim.cli.hydra.groups import (
        APP_SETTINGS,
        GROUPS,
        SETTING_HELP,
        load_registries,
        replay_settings,
    )
    from acmesim.cli.hydra.help import help_text
    from acmesim.cli.hydra.launch import OUTCOME, Outcome, OutcomeCallback, launch
    from acmesim.cli.hydra.overrides import (
        check_overrides,
        check_setting,
        parse_overrides,
        stored_options,
    )
    from acmesim.cli.hydra.schemas import option_schema, register_configs, storable_type

_MODULE_OF: dict[str, str] = {
    "to_choice": ".convert", "to_replay_config": ".convert",
    "APP_SETTINGS": ".groups", "GROUPS": ".groups", "SETTING_HELP": ".groups",
    "load_registries": ".groups", "replay_settings": ".groups",
    "help_text": ".help",
    "OUTCOME": ".launch", "Outcome": ".launch", "OutcomeCallback": ".launch", "launch": ".launch",
    "check_overrides": ".overrides", "check_setting": ".overrides", "parse_overrides": ".overrides",
    "stored_options": ".overrides",
    "option_schema": ".schemas", "register_configs": ".schemas", "storable_type": ".schemas",
}
"""Each public name of the package -> the module (of this package) that defines it."""


__getattr__ = lazy_exports(__name__, _MODULE_OF, globals())


__all__ = [
    "APP_SETTINGS",
    "GROUPS",
    "OUTCOME",
    "SETTING_HELP",
    "Outcome",
    "OutcomeCallback",
    "check_overrides",
    "check_setting",
    "help_text",
    "launch",
    "load_registries",
    "option_schema",
    "parse_overrides",
    "register_configs",
    "replay_settings",
    "storable_type",
    "stored_options",
    "to_choice",
    "to_replay_config",
]
