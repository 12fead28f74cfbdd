"""The Hydra application behind ``acmesim replay``: config groups generated from the registries.

At startup every registered plug-in becomes a Hydra config-group option: its typed ``Config``
dataclass plus a ``name`` field is stored in Hydra's ``ConfigStore`` under its group (``trace``,
``cluster``, ``scheduler``, ``placement``, ``failure``, ``checkpoint``, ``recovery``), so adding a
plug-in file adds a command-line option. Overrides are checked against the registries before
Hydra composes anything, so a wrong name or key fails with one line listing the valid choices.
The composed ``DictConfig`` becomes the library's typed ``ReplayConfig``; apart from this package
and the command modules, nothing in acmesim imports Hydra.
"""

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
from acmesim.cli.hydra.overrides import check_overrides, check_setting, parse_overrides
from acmesim.cli.hydra.schemas import option_schema, register_configs, storable_type

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
    "to_choice",
    "to_replay_config",
]
