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
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):  # built on the fly, no source file
        return {}
    body = ast.parse(source).body[0]
    if not isinstance(body, ast.ClassDef):
        return {}
    found: dict[str, str] = {}
    for node, after in zip(body.body, body.body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            found[node.target.id] = " ".join(after.value.value.strip().split("\n")[0].split())
    return found
