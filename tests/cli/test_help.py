"""``acmesim replay --help``: one line of meaning per option, read from the plug-ins' Config."""

from __future__ import annotations

import dataclasses
import sys
import types

import pytest

from acmesim.cli.hydra import APP_SETTINGS, SETTING_HELP, help_text, load_registries
from acmesim.cli.hydra.help import OPTION_COLUMN, option_line
from acmesim.core.field_docs import field_docs


def every_option():
    for group, registry in load_registries().items():
        for name in registry.names():
            for field in dataclasses.fields(registry.config_class(name)):
                yield group, name, registry.config_class(name), field.name


@pytest.mark.parametrize(("group", "name", "schema", "key"), list(every_option()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_every_registered_option_documents_its_meaning(group, name, schema, key):
    doc = field_docs(schema).get(key, "")
    assert len(doc.split()) >= 3, f"{group}={name}: option {key!r} has no attribute docstring"


def test_every_setting_has_a_meaning():
    from acmesim.cli.hydra import replay_settings

    for key in [*replay_settings(), *APP_SETTINGS]:
        assert SETTING_HELP.get(key), key


def test_help_prints_each_option_with_its_meaning_on_its_line():
    text = help_text(load_registries())
    lines = text.splitlines()
    quota = next(i for i, line in enumerate(lines) if "quotas={Pretrain:0.8}" in line)
    assert "share of the nodes reserved" in lines[quota]
    assert any(line.strip().startswith("interval_min=30.0") and "between checkpoints" in line
               for line in lines)
    assert any(line.startswith("  objective=null") and "sweeper" in line for line in lines)


def test_an_inherited_option_takes_the_base_classes_docstring():
    from acmesim.cluster.presets.acme import Seren

    assert field_docs(Seren.Config)["nodes"] == "GPU nodes in the cluster."


def test_a_long_key_puts_its_meaning_on_the_next_line_at_the_column():
    short = option_line("seed=0", "the seed")
    assert short == " " * 8 + "seed=0" + " " * (OPTION_COLUMN - 14) + "the seed"
    long = option_line("a_very_long_option_name=1234567", "what it does")
    assert long.splitlines() == [" " * 8 + "a_very_long_option_name=1234567",
                                 " " * OPTION_COLUMN + "what it does"]


def test_every_replay_config_field_documents_its_meaning():
    from acmesim.core.config import ReplayConfig

    docs = field_docs(ReplayConfig)
    for field in dataclasses.fields(ReplayConfig):
        assert len(docs.get(field.name, "").split()) >= 3, f"ReplayConfig.{field.name}"
    text = help_text(load_registries())
    assert any(line.startswith("  mode=scheduled") and "recorded (start jobs" in line
               for line in text.splitlines())


def test_a_config_class_without_a_source_file_has_no_documented_options(monkeypatch):
    # as a plug-in defined in ``python -c`` code: its module has no file to read
    module = types.ModuleType("__main__")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec("import dataclasses\n@dataclasses.dataclass\nclass Config:\n    x: int = 1\n",
         module.__dict__)
    assert field_docs(module.Config) == {}


def test_cut_out_class_lines_read_what_the_whole_module_tree_reads():
    """The fast path (parse only the class's lines) finds the same class as the module's tree,
    for every registered option class and each of its dataclass bases."""
    import ast

    from acmesim.core import field_docs as module

    checked = 0
    for _group, _name, schema, _key in every_option():
        for klass in schema.__mro__:
            if not dataclasses.is_dataclass(klass):
                continue
            path = module.inspect.getsourcefile(klass)
            fast = module._parsed_class(
                module._class_lines(module._module_lines(path), klass.__qualname__),
                klass.__name__)
            assert fast is not None, klass.__qualname__
            whole = module._class_in_tree(path, klass)
            assert [ast.dump(n) for n in fast.body] == [ast.dump(n) for n in whole.body]
            checked += 1
    assert checked >= 40


CLASS_SOURCE = '''
import dataclasses


class Outer:
    """Docs."""

    @dataclasses.dataclass
    class Config:
        x: int = 1
        """Option x, documented.
Its second line starts at column 0."""
        # a comment at any column
# a comment at column 0
        y: str = "class Config"
        """Option y."""

    z = 2


@dataclasses.dataclass
class Config:
    w: int = 3
    """Top-level w."""
'''


def test_options_are_read_past_column_zero_strings_and_comments(tmp_path, monkeypatch):
    """A nested class's options are all read although a docstring line and a comment inside it
    start at column 0 (the cut-out lines end early there, the module's tree is read instead),
    and the same class name at top level is another class."""
    import importlib

    from acmesim.core import field_docs as module

    (tmp_path / "options_probe.py").write_text(CLASS_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    probe = importlib.import_module("options_probe")
    assert field_docs(probe.Outer.Config) == {"x": "Option x, documented.", "y": "Option y."}
    assert field_docs(probe.Config) == {"w": "Top-level w."}
    lines = tuple(CLASS_SOURCE.splitlines(keepends=True))
    assert module._parsed_class(module._class_lines(lines, "Config"), "Config") is not None
    assert module._class_lines(lines, "Missing") == []
