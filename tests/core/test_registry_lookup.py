"""A registry imports the plug-ins a lookup needs (acmesim.core.registry).

Looking one name up imports the package's module of that name alone when it registers the
name, and every module otherwise; listing names imports every module. Checked on a package
written here: which modules a fresh interpreter has loaded (deterministic). The default replay's
plug-in imports: tests/cli/test_import_budget.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = """
from {package} import REGISTRY

@REGISTRY.register({names})
class Plugin:
    def __init__(self, config):
        self.config = config
"""


def _write_package(root: Path) -> None:
    """``plugs``: ``alpha`` in alpha.py, ``beta`` (alias ``b``) in impl.py, a helper module."""
    package = root / "plugs"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from acmesim.core.registry import Registry\n\nREGISTRY = Registry('plug', __name__)\n")
    (package / "alpha.py").write_text(PLUGIN.format(package="plugs", names='"alpha"'))
    (package / "impl.py").write_text(PLUGIN.format(package="plugs", names='"beta", "b"'))
    (package / "helper.py").write_text("HELPED = True\n")


PROBE = """
import json, sys
from plugs import REGISTRY
answers = []
for call in sys.argv[1:]:
    verb, _, name = call.partition(":")
    try:
        answers.append(repr(getattr(REGISTRY, verb)(*([] if verb == "names" else [name]))))
    except Exception as exc:
        answers.append(type(exc).__name__ + ": " + str(exc))
print(json.dumps({"answers": answers,
                  "loaded": sorted(m for m in sys.modules if m.startswith("plugs."))}))
"""


def lookups(root: Path, *calls: str) -> dict:
    """The answers of ``REGISTRY.VERB(NAME)`` for each ``VERB:NAME`` in a fresh interpreter,
    and the modules of ``plugs`` it then has loaded."""
    done = subprocess.run([sys.executable, "-c", PROBE, *calls], cwd=root, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


@pytest.fixture
def plugs(tmp_path: Path) -> Path:
    _write_package(tmp_path)
    return tmp_path


def test_a_name_in_a_module_of_its_own_imports_that_module_alone(plugs):
    probe = lookups(plugs, "canonical:alpha", "knows:alpha")
    assert probe["answers"] == ["'alpha'", "True"]
    assert probe["loaded"] == ["plugs.alpha"]


def test_a_name_elsewhere_imports_every_module(plugs):
    probe = lookups(plugs, "canonical:b", "canonical:beta")
    assert probe["answers"] == ["'beta'", "'beta'"]
    assert probe["loaded"] == ["plugs.alpha", "plugs.helper", "plugs.impl"]


def test_an_unknown_name_lists_every_valid_name(plugs):
    probe = lookups(plugs, "knows:gamma", "canonical:gamma", "knows:helper", "knows:")
    assert probe["answers"][0] == "False"
    assert probe["answers"][1] == "UnknownNameError: unknown plug 'gamma'; valid plug names: " \
                                  "alpha, beta"
    assert probe["answers"][2:] == ["False", "False"]  # a module that registers nothing


def test_names_and_aliases_import_every_module(plugs):
    probe = lookups(plugs, "names:")
    assert probe["answers"] == ["['alpha', 'beta']"]
    assert probe["loaded"] == ["plugs.alpha", "plugs.helper", "plugs.impl"]
