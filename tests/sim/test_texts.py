"""The compact text columns read back exactly the strings they were built from."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acmesim.sim.texts import MISSING, CodedText, PackedText

CELLS = st.one_of(st.text(max_size=6), st.none(), st.integers(-5, 5))
COLUMNS = st.lists(CELLS, max_size=30)
KINDS = [CodedText, PackedText]


def _expected(cells: list[object]) -> list[str]:
    """What each cell reads as: ``str()`` of it, missing cells as ``"nan"``."""
    return [MISSING if cell is None else str(cell) for cell in cells]


@pytest.mark.parametrize("kind", KINDS)
@given(cells=COLUMNS, start=st.integers(-35, 35), stop=st.integers(-35, 35),
       step=st.sampled_from([1, 2, -1, 3]))
def test_rows_slices_and_iteration_read_the_cells(kind: type, cells: list[object], start: int,
                                                 stop: int, step: int) -> None:
    """Row by row, by any slice, iterated and as numpy/pandas: the cells' strings."""
    column = kind.of(pd.Series(cells, dtype=object))
    expected = _expected(cells)
    assert len(column) == len(expected)
    assert [column[i] for i in range(len(column))] == expected
    assert [column[-i] for i in range(1, len(column) + 1)] == [expected[-i] for i in
                                                               range(1, len(expected) + 1)]
    assert column[start:stop:step] == expected[start:stop:step]
    assert list(column) == expected
    assert list(np.asarray(column)) == expected
    assert list(column.to_pandas()) == expected


@pytest.mark.parametrize("kind", KINDS)
@given(strings=st.lists(st.text(max_size=5), max_size=20))
def test_from_strings_round_trips(kind: type, strings: list[str]) -> None:
    """A column of Python strings reads back as those strings."""
    assert list(kind.from_strings(strings)) == strings


@given(strings=st.lists(st.sampled_from(["a", "b", "c"]), max_size=10),
       probe=st.sampled_from(["a", "b", "c", "d"]))
def test_coded_membership(strings: list[str], probe: str) -> None:
    """``in`` answers whether some row holds the value."""
    assert (probe in CodedText.from_strings(strings)) == (probe in strings)


@pytest.mark.parametrize("kind", KINDS)
def test_element_source_reads_the_row_in_line(kind: type) -> None:
    """The generated source text reads the same row as ``column[i]``."""
    column = kind.from_strings(["x", "yy", "x", "zzz"])
    source, names = column.element_source("job_id", "row")
    assert [eval(source, dict(names), {"row": i}) for i in range(4)] == ["x", "yy", "x", "zzz"]
