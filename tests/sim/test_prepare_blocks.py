"""The engine's job table built without full-length temporaries equals the direct formulas:
gang shapes worked out a block of rows at a time, text columns coded from the whole column."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.cluster.gang import gang_nodes_array
from acmesim.cluster.spec import ClusterSpec
from acmesim.sim import trace_input
from acmesim.sim.texts import CodedText

SPEC = ClusterSpec(name="t", nodes=5, gpus_per_node=8, cpu_nodes=2, cpus_per_cpu_node=64)


def _direct(gpu, nodes, cpus, keep, spec):
    """The shapes as one formula on whole columns (the definition)."""
    is_cpu = gpu == 0
    needed = gang_nodes_array(gpu, nodes, spec.gpus_per_node)
    per_node = np.where(needed == 1, gpu, spec.gpus_per_node)
    cpu_nodes = np.maximum(nodes, 1)
    cpu_threads = np.maximum(-(-cpus // cpu_nodes), 1)
    too_big = keep & np.where(
        is_cpu, (cpu_nodes > spec.cpu_nodes) | (cpu_threads > spec.cpus_per_cpu_node),
        needed > spec.nodes)
    return (np.where(is_cpu, cpu_nodes, needed), np.where(is_cpu, cpu_threads, per_node),
            too_big)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 70), st.integers(0, 9), st.integers(0, 300),
                               st.booleans()), min_size=1, max_size=40),
       block=st.integers(1, 7))
def test_gang_shapes_by_blocks_equal_the_formula_on_whole_columns(rows, block):
    gpu, nodes, cpus, keep = (np.array(c) for c in zip(*rows, strict=True))
    keep = keep.astype(bool)
    old, trace_input.SHAPE_BLOCK = trace_input.SHAPE_BLOCK, block
    try:
        got = trace_input._gang_shapes(gpu, nodes, cpus, gpu == 0, keep, SPEC)
    finally:
        trace_input.SHAPE_BLOCK = old
    for have, want in zip(got, _direct(gpu, nodes, cpus, keep, SPEC), strict=True):
        assert have.tolist() == want.tolist()


@settings(max_examples=80, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.sampled_from(["u1", "u2", "x", ""])),
                       min_size=1, max_size=30),
       data=st.data(), dtype=st.sampled_from(["str", object]))
def test_coding_the_whole_column_equals_coding_the_taken_rows(values, data, dtype):
    column = pd.Series(values, dtype=dtype)
    rows = np.array(data.draw(st.permutations(range(len(values)))), dtype=np.int64)
    rows = rows[:data.draw(st.integers(0, len(values)))]
    want, got = CodedText.of(column.iloc[rows]), CodedText.of_rows(column, rows)
    assert list(got.codes) == list(want.codes) and got.values == want.values
