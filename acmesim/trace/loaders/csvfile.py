"""Reading a trace CSV safely: bytes, header, rows; every failure becomes a ``TraceError``.

No pandas traceback escapes: missing or unreadable files, bad gzip, bad UTF-8, empty files,
malformed headers and rows with too many fields are reported with the file line (header = 1).
"""

from __future__ import annotations

import codecs
import csv
import dataclasses
import gzip
import io
import os
import re
import zlib
from collections.abc import Collection
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from acmesim.core.errors import TraceError


@dataclasses.dataclass
class RawTrace:
    """A trace file's header and rows, before any interpretation."""

    path: str
    data: bytes
    header: list[str]
    frame: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)

    @property
    def has_nul(self) -> bool:
        """True when the file holds a NUL byte (its rows are then checked field by field)."""
        return b"\x00" in self.data

    def line_of(self, row: int) -> int:
        """The 1-based file line where data row ``row`` (0-based) starts; the header is line 1."""
        if self._one_record_per_line or row >= len(self._record_lines):
            return row + 2
        return self._record_lines[row]

    def line_numbers(self) -> np.ndarray:
        """The start line of every data row, as an int64 array."""
        if self._one_record_per_line:
            return np.arange(2, len(self.frame) + 2, dtype=np.int64)
        return np.asarray(self._record_lines, dtype=np.int64)

    @cached_property
    def _one_record_per_line(self) -> bool:
        """True when no quoted field spans lines, so row ``i`` is simply on line ``i + 2``."""
        physical = self.data.count(b"\n") + (0 if self.data.endswith(b"\n") else 1)
        return physical == len(self.frame) + 1

    @cached_property
    def _record_lines(self) -> list[int]:
        """Start line of every record, found with the csv module (only when needed)."""
        reader = csv.reader(io.StringIO(self.data.decode("utf-8", errors="replace")))
        next(reader, None)
        starts, previous_end = [], reader.line_num
        for _ in reader:
            starts.append(previous_end + 1)
            previous_end = reader.line_num
        return starts


def read_file(path: str | os.PathLike[str]) -> RawTrace:
    """Read ``path`` (optionally ``.gz``) and parse its header line."""
    name = str(path)
    data = _strip(_read_bytes(Path(path), name))
    if not data:
        raise TraceError(name, "the file is empty", expected="a header line naming the columns")
    return RawTrace(name, data, _parse_header(data, name))


def read_rows(raw: RawTrace, numeric: Collection[str]) -> None:
    """Parse the rows of ``raw`` into ``raw.frame``: ``numeric`` columns as numbers, rest text.

    pandas' type inference is by far its fastest path, so the file is parsed once without
    dtypes; text columns that inference turned into numbers (job ids such as ``5778432``,
    ``6.21E+12``) and numeric columns it could not read as numbers are then re-read, verbatim,
    as text, so no published value is altered and validation can quote the bad field.
    """
    frame = _read_csv(raw)
    as_text = [c for c in raw.header if not _kept_as_inferred(frame[c], c in numeric)]
    if as_text:
        text = _read_csv(raw, usecols=as_text, dtype=dict.fromkeys(as_text, object))
        for name in as_text:
            frame[name] = text[name].astype("str")
    for name in numeric:
        if name in frame.columns and frame[name].dtype.kind in "iu":
            frame[name] = frame[name].astype(np.float64)
    raw.frame = frame


def _kept_as_inferred(values: pd.Series, numeric: bool) -> bool:
    """True when inference already gave this column the kind it should have."""
    kind = values.dtype.kind
    if numeric:
        return kind in "iuf"
    return isinstance(values.dtype, pd.StringDtype)


def _read_bytes(path: Path, name: str) -> bytes:
    """The file's bytes, decompressed when it ends in ``.gz``."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TraceError(name, "no such file", expected="an existing trace CSV") from None
    except IsADirectoryError:
        raise TraceError(name, "is a directory", expected="a trace CSV file") from None
    except OSError as exc:
        raise TraceError(name, f"cannot read the file: {exc.strerror or exc}") from None
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TraceError(name, f"not a readable gzip file: {exc}") from None
    return data


def _strip(data: bytes) -> bytes:
    """Drop a UTF-8 byte-order mark and trailing blank lines (they hold no rows).

    The bytes are only copied when there is something to drop, which is rare.
    """
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    end = len(data)
    while end and data[end - 1] in b"\r\n \t":
        end -= 1
    if end == 0:
        return b""
    tail = data[end:]
    if tail in (b"", b"\n", b"\r\n"):
        return data
    return data[:end] + b"\n"


def _parse_header(data: bytes, name: str) -> list[str]:
    """The column names on line 1; duplicates and empty names are errors."""
    first = data[: data.find(b"\n")]
    try:
        text = first.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceError(name, "the header is not valid UTF-8", line=1,
                         value=first[exc.start: exc.start + 4], expected="UTF-8 text") from None
    if "\x00" in text:
        raise TraceError(name, "NUL byte in the header", line=1,
                         value=text[max(0, text.index("\x00") - 8): text.index("\x00") + 8],
                         expected="column names without NUL (\\x00) bytes")
    header = [column.strip() for column in next(csv.reader([text.rstrip("\r")]))]
    for position, column in enumerate(header):
        if not column:
            raise TraceError(name, f"header field {position + 1} is empty", line=1,
                             expected="a column name")
        if header.index(column) != position:
            raise TraceError(name, "duplicate column name in the header", line=1,
                             column=column, expected="each column named once")
    return header


_FIELDS_ERROR = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_QUOTE_ERROR = re.compile(r"EOF inside string starting at row (\d+)")


def _read_csv(raw: RawTrace, **options) -> pd.DataFrame:
    """``pandas.read_csv`` over the bytes, with its exceptions turned into ``TraceError``."""
    try:
        return pd.read_csv(
            io.BytesIO(raw.data), keep_default_na=False, na_values=[""], skip_blank_lines=False,
            encoding="utf-8", engine="c", header=0, names=raw.header, **options,
        )
    except UnicodeDecodeError:
        _raise_encoding_error(raw)
    except pd.errors.ParserError as exc:
        _raise_parser_error(raw.path, str(exc))
    except (ValueError, OverflowError) as exc:
        _raise_long_record(raw)
        raise TraceError(raw.path, f"cannot parse the rows: {exc}") from None
    raise AssertionError("unreachable")  # pragma: no cover


def _raise_encoding_error(raw: RawTrace) -> None:
    """Locate the first byte that is not UTF-8 and report its line and column."""
    try:
        raw.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = raw.data.rfind(b"\n", 0, exc.start) + 1
        line = raw.data.count(b"\n", 0, exc.start) + 1
        field = raw.data.count(b",", line_start, exc.start)
        column = raw.header[field] if field < len(raw.header) else None
        raise TraceError(raw.path, "the file is not valid UTF-8", line=line, column=column,
                         value=raw.data[exc.start: exc.start + 4],
                         expected="UTF-8 text") from None
    raise TraceError(raw.path, "the file is not valid UTF-8", expected="UTF-8 text")


def _raise_long_record(raw: RawTrace) -> None:
    """Report the first record with more fields than the header, if there is one.

    pandas names no line when the first data row is the long one (it then takes the row for
    the header and complains about the names), so the records are counted here instead.
    """
    reader = csv.reader(io.StringIO(raw.data.decode("utf-8", errors="replace")))
    next(reader, None)
    start = reader.line_num + 1
    for record in reader:
        if len(record) > len(raw.header):
            raise TraceError(raw.path, f"row has {len(record)} fields", line=start,
                             expected=f"{len(raw.header)} fields like the header")
        start = reader.line_num + 1


def _raise_parser_error(path: str, message: str) -> None:
    """Turn a pandas tokenizer message into a ``TraceError`` naming the line."""
    fields = _FIELDS_ERROR.search(message)
    if fields:
        expected, line, seen = (int(g) for g in fields.groups())
        raise TraceError(path, f"row has {seen} fields", line=line,
                         expected=f"{expected} fields like the header") from None
    quote = _QUOTE_ERROR.search(message)
    if quote:
        raise TraceError(path, "a quoted field is never closed", line=int(quote.group(1)) + 1,
                         expected="a closing double quote") from None
    raise TraceError(path, f"cannot parse the CSV: {message.strip()}") from None
