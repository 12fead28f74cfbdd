"""Trace sources for a replay: one module per source, each registered with ``TRACES``.

A source is a plug-in like any policy: a class with a typed ``Config`` and a ``load()`` method
returning the normalized job table (``acmesim.trace.schema``). ``sample`` replays the bundled
sample trace, ``file`` reads any published trace file, ``synthetic`` generates one on the fly.
"""

from acmesim.core.registry import Registry

TRACES: Registry = Registry("trace", package=__name__)
