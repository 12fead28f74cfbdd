"""One-line meanings of a plug-in's options, read from its ``Config`` dataclass source.

An option is documented by a string literal right below its field (an attribute docstring, as
Sphinx reads them)::

    @dataclasses.dataclass(frozen=True)
    class Config:
        interval_min: float = 60.0
        \"\"\"Minutes between checkpoints.\"\"\"

Fields inherited from a base options class take that class's docstrings. ``acmesim replay
--help`` prints the first line of each next to the option.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import re
import textwrap
from pathlib import Path


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """``field name -> first line of its attribute docstring`` for a dataclass and its bases."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if dataclasses.is_dataclass(klass):
            docs.update(_own_docs(klass))
    return docs


def _own_docs(klass: type) -> dict[str, str]:
    """The attribute docstrings written in ``klass``'s own body."""
    body = _class_node(klass)
    if body is None:
        return {}
    found: dict[str, str] = {}
    for node, after in zip(body.body, body.body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            found[node.target.id] = " ".join(after.value.value.strip().split("\n")[0].split())
    return found


def _class_node(klass: type) -> ast.ClassDef | None:
    """The syntax tree of ``klass``'s definition, or None when it has no source.

    Only the lines of the class are parsed, found by its qualified name in its module's text
    (``acmesim replay --help`` reads dozens of ``Config`` classes; parsing each whole module took
    most of the help's time, and ``inspect.getsource`` tokenizes the module again for each). A
    class whose lines cannot be cut out that way is found in its module's whole tree, else read
    with ``inspect.getsource`` (a class defined inside a function, say).
    """
    try:
        path = inspect.getsourcefile(klass)
    except (OSError, TypeError):  # a built-in class, or one defined where no file is (``-c``)
        return None
    lines = _module_lines(path) if path else None
    if path is None or lines is None:
        return None
    node = _parsed_class(_class_lines(lines, klass.__qualname__), klass.__name__)
    return node or _class_in_tree(path, klass) or _class_from_getsource(klass)


def _class_lines(lines: tuple[str, ...], qualname: str) -> list[str]:
    """The source lines of class ``qualname`` (``Outer.Inner``), cut out by indentation; empty
    when a name is not found as a ``class`` statement."""
    start, end, indent = 0, len(lines), -1
    for name in qualname.split("."):
        statement = re.compile(rf"^(\s*)class {re.escape(name)}\b")
        found = next(((i, m) for i in range(start, end)
                      if (m := statement.match(lines[i])) and _nested(len(m.group(1)), indent)),
                     None)
        if found is None:
            return []
        start, match = found
        indent = len(match.group(1))
        end = next((i for i in range(start + 1, end) if _ends_block(lines[i], indent)), end)
    return list(lines[start:end])


def _nested(column: int, parent: int) -> bool:
    """Whether a statement at ``column`` is in the body of a class at ``parent`` (-1: the
    module, whose own classes start at column 0)."""
    return column == 0 if parent < 0 else column > parent


def _ends_block(line: str, indent: int) -> bool:
    """Whether ``line`` is code at ``indent`` or less (blank and comment lines never are)."""
    stripped = line.lstrip()
    return bool(stripped) and not stripped.startswith("#") and len(line) - len(stripped) <= indent


def _parsed_class(lines: list[str], name: str) -> ast.ClassDef | None:
    """``lines`` parsed as the definition of class ``name`` (None when they are not one)."""
    if not lines:
        return None
    indented = lines[0][:1].isspace()  # parsed under ``if 1:``: strings keep every character
    try:
        tree = ast.parse(("if 1:\n" if indented else "") + "".join(lines))
        block = tree.body[0]
        first = block.body[0] if isinstance(block, ast.If) else block
    except (SyntaxError, IndexError):
        return None
    return first if isinstance(first, ast.ClassDef) and first.name == name else None


def _class_in_tree(path: str, klass: type) -> ast.ClassDef | None:
    """``klass`` found by its qualified name in its module's whole syntax tree."""
    node: ast.AST | None = _module_tree(path)
    for name in klass.__qualname__.split("."):
        body = getattr(node, "body", [])
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == name), None)
    return node if isinstance(node, ast.ClassDef) else None


def _class_from_getsource(klass: type) -> ast.ClassDef | None:
    """``klass`` read with ``inspect.getsource`` (None when it has no source file)."""
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):  # built on the fly, no source file
        return None
    first = ast.parse(source).body[0]
    return first if isinstance(first, ast.ClassDef) else None


@functools.cache
def _module_lines(path: str) -> tuple[str, ...] | None:
    """The lines of source file ``path``, with their ends (None when it cannot be read)."""
    try:
        return tuple(Path(path).read_text(encoding="utf-8").splitlines(keepends=True))
    except OSError:
        return None


@functools.cache
def _module_tree(path: str) -> ast.Module | None:
    """The parsed source file ``path`` (None when it cannot be read)."""
    lines = _module_lines(path)
    return None if lines is None else ast.parse("".join(lines), filename=path)
