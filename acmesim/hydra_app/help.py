"""The text of ``acmesim replay --help``: every group with its options, read from the registries."""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Mapping
from typing import Any

from acmesim.config import ReplayConfig
from acmesim.core.registry import Registry
from acmesim.hydra_app.groups import (
    APP_DEFAULTS,
    APP_SETTINGS,
    MISSING_VALUE,
    SETTING_HELP,
    default_of,
    replay_settings,
)

HELP_WIDTH = 96

EXAMPLES = """\
examples:
  acmesim replay                                   # bundled sample trace, default policies
  acmesim replay scheduler=easy_backfill mode=scheduled trace.path=trace_seren.csv
  acmesim replay trace=synthetic trace.profile=kalos trace.days=30 trace.seed=1
  acmesim replay failure=<name> checkpoint=<name> seed=3 hydra.run.dir=results/one
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
    if isinstance(value, str) and not value:
        return "''"
    return str(value)


def describe_option(registry: Registry, name: str) -> str:
    """Help lines of one option: its name (and aliases), then ``key=default`` wrapped."""
    options = [
        f"{field.name}={_describe_value(default_of(field))}"
        for field in dataclasses.fields(registry.config_class(name))
    ]
    aliases = sorted(a for a, target in registry.aliases().items() if target == name and a != name)
    label = f"    {name}" + (f" (alias {', '.join(aliases)})" if aliases else "")
    if not options:
        return label
    body = textwrap.fill(" ".join(options), width=HELP_WIDTH, initial_indent=" " * 8,
                         subsequent_indent=" " * 8, break_on_hyphens=False)
    return f"{label}\n{body}"


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
        value = str(defaults[key]).lower() if isinstance(defaults[key], bool) else defaults[key]
        lines.append(f"  {f'{key}={value}':<28} {SETTING_HELP.get(key, '')}")
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
