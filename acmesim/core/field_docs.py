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

    Found by its qualified name in its module's tree, parsed once per module (``acmesim
    replay --help`` reads dozens of ``Config`` classes; ``inspect.getsource`` would parse and
    tokenize the module again for each); a class the name does not lead to (defined inside a
    function, say) is read with ``inspect.getsource``.
    """
    try:
        path = inspect.getsourcefile(klass)
    except (OSError, TypeError):  # a built-in class, or one defined where no file is (``-c``)
        return None
    tree = _module_tree(path) if path else None
    node: ast.AST | None = tree
    for name in klass.__qualname__.split("."):
        body = getattr(node, "body", [])
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == name), None)
        if node is None:
            break
    if isinstance(node, ast.ClassDef):
        return node
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):  # built on the fly, no source file
        return None
    first = ast.parse(source).body[0]
    return first if isinstance(first, ast.ClassDef) else None


@functools.cache
def _module_tree(path: str) -> ast.Module | None:
    """The parsed source file ``path`` (None when it cannot be read)."""
    try:
        source = Path(path).read_text(encoding="utf-8")
    except OSError:
        return None
    return ast.parse(source, filename=path)
