"""The help texts stay cheap: they import none of the heavy libraries a replay needs.

Checked on the modules a fresh interpreter has loaded after printing the help (deterministic,
unlike a timing): ``acmesim --help`` loads no third-party library at all, ``acmesim replay
--help`` neither pandas nor Hydra nor the event loop's SimPy, nor numpy (the plug-ins that
declare the options import it only where they draw or compute); ``acmesim collect --help`` and
``acmesim plot --help`` none of them either (their commands import pandas, YAML and matplotlib
where they read runs or draw), nor ``acmesim synth --help``, ``acmesim characterize --help`` and
``acmesim validate --help``, whose option lists (profile names, start models) come from light
catalogues, not from the generator or the analysis. A replay imports the plug-ins it selects,
not every plug-in installed (``acmesim.core.registry``: one name looked up imports its module).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

HEAVY = ("numpy", "pandas", "pyarrow", "hydra", "omegaconf", "yaml", "simpy", "networkx",
         "scipy", "matplotlib")
"""Libraries a help text must not import (only a run or a plot needs them)."""

PROBE = """
import contextlib, io, json, sys
from acmesim.cli.main import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:  # a subcommand's argparse exits after printing its help
        code = exc.code
loaded = sorted({name.split(".")[0] for name in sys.modules})
print(json.dumps({"code": code, "chars": len(out.getvalue()), "loaded": loaded}))
"""


def loaded_after(*argv: str) -> dict:
    """Exit code, help length and top-level modules loaded by ``acmesim ARGV`` in a fresh
    interpreter."""
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("argv", [("--help",), ("replay", "--help"), ("replay", "-h"),
                                  ("collect", "--help"), ("plot", "--help"),
                                  ("synth", "--help"), ("characterize", "--help"),
                                  ("validate", "--help")])
def test_help_imports_no_heavy_library(argv):
    probe = loaded_after(*argv)
    assert probe["code"] == 0 and probe["chars"] > 200  # the help itself was printed
    assert sorted(set(HEAVY) & set(probe["loaded"])) == []


def test_top_level_help_imports_not_even_numpy():
    assert "numpy" not in loaded_after("--help")["loaded"]


REPLAY = textwrap.dedent("""
    import contextlib, io, json, sys
    from acmesim.cli.main import main
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["replay", *sys.argv[1:]])
    print(json.dumps({"code": code, "loaded": sorted(sys.modules)}))
""")

UNUSED = ("acmesim.policies.scheduling.sjf", "acmesim.policies.scheduling.easy_backfill",
          "acmesim.policies.scheduling.acme_reservation", "acmesim.policies.placement.spread",
          "acmesim.policies.placement.lucid", "acmesim.policies.failure.weibull",
          "acmesim.policies.checkpoint.daly", "acmesim.policies.recovery.hot_spare",
          "acmesim.policies.power.acme", "acmesim.sources.synthetic")
"""Plug-in modules of options the default replay does not select."""


def test_the_default_replay_imports_the_plugins_it_uses_and_no_other(tmp_path):
    done = subprocess.run([sys.executable, "-c", REPLAY, "progress=false", "hydra.run.dir=run"],
                          cwd=tmp_path, capture_output=True, text=True, check=True)
    probe = json.loads(done.stdout.splitlines()[-1])
    assert probe["code"] == 0
    used = ("acmesim.policies.scheduling.fifo", "acmesim.policies.placement.consolidate",
            "acmesim.policies.failure.none", "acmesim.policies.recovery.automatic",
            "acmesim.sources.sample")
    assert set(used) <= set(probe["loaded"])
    assert sorted(set(UNUSED) & set(probe["loaded"])) == []
