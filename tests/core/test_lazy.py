"""Lazy package exports (acmesim.core.lazy): imported on first use, kept, unknown names refused."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGES_WITH_LAZY_EXPORTS = ["acmesim", "acmesim.sim", "acmesim.synth", "acmesim.cli.hydra"]


def _write_package(root: Path) -> None:
    package = root / "lazypkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        textwrap.dedent(
            """
            from acmesim.core.lazy import lazy_exports

            __getattr__ = lazy_exports(__name__, {"VALUE": ".heavy", "dumps": "json"}, globals())
            """
        )
    )
    (package / "heavy.py").write_text("VALUE = 42\n")


def test_a_name_is_imported_on_first_use_and_kept(tmp_path: Path) -> None:
    """The defining module loads only when its name is first read; the value is then a global."""
    _write_package(tmp_path)
    script = textwrap.dedent(
        """
        import sys
        import lazypkg
        assert "lazypkg.heavy" not in sys.modules
        assert lazypkg.VALUE == 42
        assert "lazypkg.heavy" in sys.modules
        assert vars(lazypkg)["VALUE"] == 42
        import json
        assert lazypkg.dumps is json.dumps
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_an_unknown_name_raises_attribute_error() -> None:
    """``hasattr`` and ``getattr(..., default)`` work as on any module."""
    synth = importlib.import_module("acmesim.synth")
    with pytest.raises(AttributeError, match="acmesim.synth' has no attribute 'nope'"):
        synth.nope  # noqa: B018 - the attribute access is the test
    assert getattr(synth, "nope", None) is None


@pytest.mark.parametrize("package_name", PACKAGES_WITH_LAZY_EXPORTS)
def test_every_public_name_resolves(package_name: str) -> None:
    """Each name in a package's ``__all__`` is importable through its lazy map."""
    package = importlib.import_module(package_name)
    for name in package.__all__:
        assert getattr(package, name) is not None, f"{package_name}.{name}"


def test_a_name_its_module_shares_is_the_export_whichever_name_is_read_first(tmp_path: Path):
    """A module's import binds its name in the package: ``launch`` (the function of
    ``.launch``) stays the function when another name of that module is read first, as Hydra
    reads ``OutcomeCallback`` before the replay calls ``launch``."""
    package = tmp_path / "samename"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(
        """
        from acmesim.core.lazy import lazy_exports

        __getattr__ = lazy_exports(__name__, {"launch": ".launch", "OTHER": ".launch"},
                                   globals())
        """))
    (package / "launch.py").write_text("OTHER = 1\n\ndef launch():\n    return 2\n")
    script = "import samename\nassert samename.OTHER == 1\nassert samename.launch() == 2\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
