"""The text of ``acmesim replay --help``: every group with its options, read from the registries."""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Mapping
from typing import Any

from acmesim.cli.hydra.groups import (
    APP_DEFAULTS,
    APP_SETTINGS,
    MISSING_VALUE,
    SETTING_HELP,
    default_of,
    replay_settings,
)
from acmesim.core.config import ReplayConfig
from acmesim.core.field_docs import field_docs
from acmesim.core.registry import Registry

HELP_WIDTH = 96

EXAMPLES = """\
examples:
  acmesim replay                                   # bundled sample trace, default policies
  acmesim replay scheduler=easy_backfill mode=scheduled trace.path=trace_seren.csv
  acmesim replay trace=synthetic trace.profile=kalos trace.days=30 trace.seed=1
  acmesim replay failure=<name> checkpoint=<name> seed=3 hydra.run.dir=results/one
  acmesim replay scheduler=acme_reservation eval=decoupled   # evaluation re-planned into trials
  acmesim replay -m scheduler=fifo,easy_backfill seed=1,2,3       # a sweep, one run per combination
  acmesim replay -m hydra/launcher=joblib scheduler=fifo,easy_backfill   # in parallel
  acmesim collect multirun/<date>                  # merge the sweep's summaries into one CSV
  acmesim plot multirun/<date>                     # figures comparing the runs"""


def _describe_value(value: Any) -> str:
    """An option default written the way an override would spell it."""
    if value == MISSING_VALUE:
        return "(required)"
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "null"
    if isinstance(value, tuple | list):
        return "[" + ",".join(_describe_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{_describe_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str) and not value:
        return "''"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # nested options
        return "{" + ", ".join(f.name for f in dataclasses.fields(value)) + "}"
    return str(value)


def describe_option(registry: Registry, name: str) -> str:
    """Help lines of one option: its name (and aliases), then one line per ``key=default``.

    Each key is followed by its meaning, the first line of the field's attribute docstring in
    the plug-in's ``Config`` (``acmesim.core.field_docs``).
    """
    schema = registry.config_class(name)
    docs = field_docs(schema)
    options = [(f"{field.name}={_describe_value(default_of(field))}",
                as_phrase(docs.get(field.name, ""))) for field in dataclasses.fields(schema)]
    aliases = sorted(a for a, target in registry.aliases().items() if target == name and a != name)
    label = f"    {name}" + (f" (alias {', '.join(aliases)})" if aliases else "")
    return "\n".join([label, *(option_line(key, meaning) for key, meaning in options)])


OPTION_COLUMN = 34
"""Where an option's meaning starts in ``acmesim replay --help``."""


def as_phrase(doc: str) -> str:
    """A docstring line as a help phrase: no final period, lower case unless an acronym."""
    text = doc.strip().removesuffix(".")
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        text = text[0].lower() + text[1:]
    return text


def option_line(key: str, meaning: str, indent: int = 8) -> str:
    """``key=default`` and its meaning, wrapped at ``HELP_WIDTH`` (below a key too long)."""
    lead = " " * indent + key
    if not meaning:
        return lead
    text = textwrap.fill(meaning, width=HELP_WIDTH - OPTION_COLUMN, break_on_hyphens=False)
    body = textwrap.indent(text, " " * OPTION_COLUMN)
    if len(lead) + 2 > OPTION_COLUMN:
        return f"{lead}\n{body}"
    return lead + body[len(lead):]


def help_text(registries: Mapping[str, Registry]) -> str:
    """The body of ``acmesim replay --help``: groups with options, settings, examples."""
    lines = [
        "usage: acmesim replay [-m] [group=option] [group.key=value] [setting=value] [hydra.*]",
        "",
        "Replays a job trace on a modeled GPU cluster and writes jobs.csv, failures.csv,",
        "utilization.csv, summary.csv and config.yaml into the run directory (hydra.run.dir=DIR).",
        "",
        "config groups (group=option, then group.key=value for the option's settings):",
    ]
    for group, registry in registries.items():
        lines.append(f"  {group}:")
        lines.extend(describe_option(registry, name) for name in registry.names())
    lines += ["", "settings:"]
    defaults = {**dataclasses.asdict(ReplayConfig()), **APP_DEFAULTS}
    for key in [*replay_settings(), *APP_SETTINGS]:
        setting = f"{key}={_describe_value(defaults[key])}"
        lines.append(option_line(setting, as_phrase(SETTING_HELP.get(key, "")), indent=2))
    lines += [
        "",
        "trace.path=FILE alone selects trace=file; -m runs every combination of comma lists.",
        "launchers for -m (hydra/launcher=...): basic (one after another), joblib (parallel on",
        "this machine), submitit_local, submitit_slurm (a Slurm cluster); see docs/cli.md.",
        "",
        EXAMPLES,
        "",
        "Hydra's own flags: --cfg job (show the composed config), --hydra-help, --info.",
    ]
    return "\n".join(lines).replace("$", "$$")


def help_node(registries: Mapping[str, Registry]) -> dict[str, Any]:
    """The ``hydra/help`` config node carrying the generated help text."""
    body = help_text(registries)
    return {"app_name": "acmesim replay", "header": "", "footer": "", "template": body}
