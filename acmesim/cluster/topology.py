"""The network tree (networkx): core -> spine switches -> leaf switches -> nodes.

Placement reasons about locality through ``leaf_of``/``spine_of_leaf``; failure injection can take
a switch down with everything under it through ``nodes_under``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from acmesim.cluster.spec import ClusterSpec

if TYPE_CHECKING:
    import networkx as nx

CORE = "core"
"""Name of the root of the tree."""


def node_name(index: int) -> str:
    """The name of GPU node ``index`` (``n0000``, ``n0001``, ...)."""
    return f"n{index:04d}"


def leaf_name(index: int) -> str:
    """The name of leaf switch ``index``."""
    return f"leaf{index:02d}"


def spine_name(index: int) -> str:
    """The name of spine switch ``index``."""
    return f"spine{index:02d}"


class Topology:
    """The cluster's network tree: index tables for fast locality queries and, on demand, the
    frozen networkx graph."""

    def __init__(self, spec: ClusterSpec) -> None:
        self.node_names: tuple[str, ...] = tuple(node_name(i) for i in range(spec.nodes))
        self.leaf_of: tuple[int, ...] = tuple(i // spec.nodes_per_leaf for i in range(spec.nodes))
        self.spine_of_leaf: tuple[int, ...] = tuple(
            leaf // spec.leaves_per_spine for leaf in range(spec.leaves)
        )
        self.leaves_per_spine: int = spec.leaves_per_spine
        self.leaves_of_spine: tuple[range, ...] = tuple(
            range(spine * spec.leaves_per_spine,
                  min(spec.leaves, (spine + 1) * spec.leaves_per_spine))
            for spine in range(spec.spines)
        )
        self.nodes_of_leaf: tuple[tuple[int, ...], ...] = tuple(
            tuple(range(leaf * spec.nodes_per_leaf,
                        min(spec.nodes, (leaf + 1) * spec.nodes_per_leaf)))
            for leaf in range(spec.leaves)
        )
        self._spec = spec
        self._index = {name: i for i, name in enumerate(self.node_names)}

    @functools.cached_property
    def graph(self) -> nx.DiGraph:
        """The tree as a frozen networkx graph, built when first asked for (placement reads only
        the index tables, so a replay without switch failures never imports networkx)."""
        import networkx as nx

        return nx.freeze(self._build(self._spec))

    def _build(self, spec: ClusterSpec) -> nx.DiGraph:
        """The tree with a ``kind`` attribute (core, spine, leaf, node) on every vertex."""
        import networkx as nx

        graph: nx.DiGraph = nx.DiGraph()
        graph.add_node(CORE, kind="core")
        for spine in range(spec.spines):
            graph.add_node(spine_name(spine), kind="spine")
            graph.add_edge(CORE, spine_name(spine))
        for leaf, spine in enumerate(self.spine_of_leaf):
            graph.add_node(leaf_name(leaf), kind="leaf")
            graph.add_edge(spine_name(spine), leaf_name(leaf))
        for index, name in enumerate(self.node_names):
            graph.add_node(name, kind="node", index=index)
            graph.add_edge(leaf_name(self.leaf_of[index]), name)
        return graph

    @property
    def num_leaves(self) -> int:
        """Number of leaf switches."""
        return len(self.spine_of_leaf)

    def node_index(self, name: str) -> int:
        """The index of the node called ``name``."""
        return self._index[name]

    def nodes_under(self, vertex: str) -> list[int]:
        """Indices of every node in the subtree of ``vertex`` (a switch, the core or a node)."""
        if vertex not in self.graph:
            raise KeyError(f"no switch or node named {vertex!r} in the topology")
        if self.graph.nodes[vertex]["kind"] == "node":
            return [self._index[vertex]]
        import networkx as nx

        below = nx.descendants(self.graph, vertex)
        return sorted(self._index[v] for v in below if self.graph.nodes[v]["kind"] == "node")

    def switches(self, kind: str) -> list[str]:
        """Names of every vertex of ``kind`` ("spine" or "leaf"), in index order."""
        return [v for v, k in self.graph.nodes(data="kind") if k == kind]
