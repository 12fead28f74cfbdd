"""Text columns of the job table stored compactly: a few bytes a job instead of a Python string.

A replay of tens of millions of jobs cannot afford a ``str`` object (about 60 bytes) per job and
column. ``CodedText`` keeps a column of few distinct values (user, type, state, pool) as one
``int32`` code a job plus the distinct values; ``PackedText`` keeps a column of mostly distinct
values (the job id) as its UTF-8 bytes plus one ``int64`` offset a job. Both are read-only
sequences of ``str`` (``column[i]`` makes the string), and both turn into the pandas text column
of the result tables without a Python string per row (``to_pandas``). Missing cells read as
``"nan"``, as ``str()`` of a missing value always read here.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, Self, overload

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

MISSING = "nan"
"""What a missing cell reads as (``str(float('nan'))``)."""

TEXT_DTYPE = pd.Series([""]).dtype
"""The dtype pandas gives a column of Python strings (what the result tables always had)."""


def _text_series(values: pd.Series) -> pd.Series:
    """``values`` as a text column (``str()`` of each value when it is not one already; a missing
    value of any kind — ``None``, ``NaN``, ``pd.NA`` — reads as ``MISSING``)."""
    if pd.api.types.is_string_dtype(values.dtype) and values.dtype != object:
        return values
    return pd.Series([MISSING if pd.isna(v) else str(v) for v in values.to_numpy(dtype=object)],
                     dtype=TEXT_DTYPE)


class _TextColumn(Sequence[str]):
    """What both compact text columns share: built from a pandas column (``of``) or from Python
    strings, read row by row (``column[i]``) or by slice."""

    __slots__ = ()

    STRINGS_DTYPE: ClassVar[Any] = object
    """The dtype ``from_strings`` gives its strings before ``of`` stores them."""

    @classmethod
    def of(cls, column: pd.Series) -> Self:
        """The column ``column`` (any dtype) stored compactly."""
        raise NotImplementedError

    @classmethod
    def from_strings(cls, strings: Sequence[str]) -> Self:
        """A column of Python strings stored compactly."""
        return cls.of(pd.Series(list(strings), dtype=cls.STRINGS_DTYPE))

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return self._rows(index)
        return self._row(index)

    def _row(self, index: int) -> str:
        raise NotImplementedError

    def _rows(self, index: slice) -> list[str]:
        raise NotImplementedError


class CodedText(_TextColumn):
    """A text column of few distinct values: ``values[codes[i]]``."""

    __slots__ = ("codes", "values")

    def __init__(self, codes: array, values: list[str]) -> None:
        self.codes = codes
        """The code of each row (``array('i')``)."""
        self.values = values
        """The distinct values, by code."""

    @classmethod
    def of(cls, column: pd.Series) -> Self:
        """The column ``column`` (any dtype) coded."""
        codes, uniques = pd.factorize(column, use_na_sentinel=False)
        values = [MISSING if pd.isna(v) else str(v) for v in uniques]
        return cls(array("i", codes.astype(np.int32).tobytes()), values)

    @classmethod
    def of_rows(cls, column: pd.Series, rows: np.ndarray) -> Self:
        """``of(column.iloc[rows])`` without a copy of those rows' values: the whole column is
        coded, then the codes of ``rows`` are renumbered in the order their values first
        appear there (as ``of`` numbers them)."""
        codes, uniques = pd.factorize(column, use_na_sentinel=False)
        taken = codes[rows]
        present, first = np.unique(taken, return_index=True)
        order = present[np.argsort(first, kind="stable")]
        renumbered = np.zeros(len(uniques), dtype=np.int32)
        renumbered[order] = np.arange(len(order), dtype=np.int32)
        values = [MISSING if pd.isna(v) else str(v) for v in uniques.take(order)]
        return cls(array("i", renumbered[taken].tobytes()), values)

    def __len__(self) -> int:
        return len(self.codes)

    def _row(self, index: int) -> str:
        return self.values[self.codes[index]]

    def _rows(self, index: slice) -> list[str]:
        values = self.values
        return [values[c] for c in self.codes[index]]

    def __iter__(self) -> Iterator[str]:
        values = self.values
        return (values[c] for c in self.codes)

    def __contains__(self, value: object) -> bool:
        if value not in self.values:
            return False
        return bool((self.code_array() == self.values.index(value)).any())

    def element_source(self, name: str, index: str) -> tuple[str, dict[str, Any]]:
        """Source text reading row ``index`` in line, and the names it reads (for generated
        code that makes one job per call: no ``__getitem__`` call)."""
        return (f"{name}_values[{name}_codes[{index}]]",
                {f"{name}_values": self.values, f"{name}_codes": self.codes})

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """The column as a numpy array of ``str`` (``np.asarray(column)``: no Python-level loop;
        the values are shared)."""
        return np.asarray(self.values, dtype=object)[self.code_array()]

    def code_array(self) -> np.ndarray:
        """The codes as a numpy array (a view)."""
        return np.frombuffer(self.codes, dtype=np.int32)

    def to_pandas(self) -> pd.api.extensions.ExtensionArray | np.ndarray:
        """The column as pandas text (``TEXT_DTYPE``), one copy of the values per row."""
        return pd.Series(self.values, dtype=TEXT_DTYPE).array.take(self.code_array())


class PackedText(_TextColumn):
    """A text column of distinct values: row ``i`` is ``data[offsets[i]:offsets[i + 1]]``."""

    __slots__ = ("data", "offsets")

    STRINGS_DTYPE: ClassVar[Any] = TEXT_DTYPE

    def __init__(self, data: bytes, offsets: array) -> None:
        self.data = data
        """Every row's UTF-8 bytes, one after the other."""
        self.offsets = offsets
        """Where each row starts in ``data``, plus the end (``array('q')``, one more than rows)."""

    @classmethod
    def of(cls, column: pd.Series) -> Self:
        """The column ``column`` (any dtype) packed."""
        strings = pc.fill_null(pa.array(_text_series(column), type=pa.large_string()), MISSING)
        if isinstance(strings, pa.ChunkedArray):
            strings = strings.combine_chunks()
        _, offsets, data = strings.buffers()
        first = strings.offset
        bounds = np.frombuffer(offsets, dtype=np.int64)[first:first + len(strings) + 1]
        raw = (b"" if data is None  # the used bytes alone, copied once
               else data.slice(int(bounds[0]), int(bounds[-1] - bounds[0])).to_pybytes())
        return cls(raw, array("q", (bounds - bounds[0]).tobytes()))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def _rows(self, index: slice) -> list[str]:
        return [self._row(i) for i in range(*index.indices(len(self)))]

    def _row(self, index: int) -> str:
        if index < 0:
            index += len(self)
        offsets = self.offsets
        return self.data[offsets[index]:offsets[index + 1]].decode()

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """The column as a numpy array of ``str`` (decoded by arrow, no Python-level loop)."""
        return np.asarray(self.to_pandas(), dtype=object)

    def element_source(self, name: str, index: str) -> tuple[str, dict[str, Any]]:
        """Source text reading row ``index`` in line, and the names it reads (see
        ``CodedText.element_source``)."""
        offsets = f"{name}_offsets"
        return (f"{name}_data[{offsets}[{index}]:{offsets}[{index} + 1]].decode()",
                {f"{name}_data": self.data, offsets: self.offsets})

    def to_pandas(self) -> pd.api.extensions.ExtensionArray | np.ndarray:
        """The column as pandas text (``TEXT_DTYPE``), from the bytes without Python strings."""
        strings = pa.LargeStringArray.from_buffers(len(self), pa.py_buffer(self.offsets),
                                                   pa.py_buffer(self.data))
        return pd.array(strings, dtype=TEXT_DTYPE)


Text = CodedText | PackedText
"""A compact text column."""
