"""The light catalogues the help texts read agree with the registries they stand in for.

``acmesim synth --help`` lists ``acmesim.synth.catalog`` (no numpy); the profiles register
themselves when their modules are imported. The two must name the same profiles, each in the
module the catalogue says.
"""

from __future__ import annotations

import importlib

from acmesim.cli.commands import synth as synth_command
from acmesim.synth import catalog, profiles


def test_catalog_names_every_registered_profile():
    assert catalog.profile_names() == profiles.profile_names()


def test_each_profile_is_registered_by_the_module_the_catalog_names():
    # the module holds the registered profile object itself (e.g. TASKDL = register_profile(...))
    for name, module in catalog.PROFILE_MODULES.items():
        registered = importlib.import_module(f"acmesim.synth.{module}")
        assert any(value is profiles.PROFILES[name] for value in vars(registered).values())


def test_synth_help_lists_every_profile_and_start_model():
    text = synth_command.parser().format_help()
    for name in [*profiles.profile_names(), *catalog.STARTS]:
        assert name in text
