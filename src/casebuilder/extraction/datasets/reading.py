"""Reading a dataset file's bytes into rows whose every cell knows where it lies in the file.

A CSV file is read by :func:`read_csv`, a JSON file by :func:`read_json_records`. Each row
(:class:`SourceRow`) carries its place among the data rows, its first and last line, the byte
span of the whole record in the file and, for every column, a :class:`Cell` with the cell's
text (unquoted, decoded) and the byte span of its content in the file (inside the quotes for a
quoted CSV cell, inside the quotes for a JSON string). Offsets are always **bytes of the stored
original**, never characters of a decoded text: slicing the original at a cell's span gives
the cell's bytes (a quoted CSV cell's doubled quotes still doubled).

Nothing here raises for bad rows: a row with broken quoting, bytes that are not UTF-8, a wrong
number of cells or an oversized cell comes back with ``problem`` set, and reading goes on at the
next line. Only a file whose header cannot be read at all is an error
(:class:`~casebuilder.errors.DatasetError`).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from casebuilder.errors import DatasetError

#: A cell longer than this is not read (the row is rejected and says so).
MAX_CELL_BYTES = 256 * 1024

_QUOTED = re.compile(rb'"((?:[^"]|"")*)"')
_PLAIN = re.compile(rb'[^,"\r\n]*')


@dataclass(frozen=True)
class Cell:
    column: str
    text: str  # as the file gives it, unquoted and decoded; JSON: the string, or the JSON text
    #            of any other value as the file writes it
    start: int  # byte offsets of the cell's content in the original
    end: int
    value: Any = None  # JSON only: the parsed value (a number, a list ...)


@dataclass
class SourceRow:
    number: int  # 1 for the first data row (or JSON element)
    line: int
    line_end: int
    start: int  # byte span of the whole record, without its line ending
    end: int
    cells: dict[str, Cell] = field(default_factory=dict)
    problem: str | None = None

    def text(self, column: str) -> str:
        cell = self.cells.get(column)
        return cell.text.strip() if cell is not None else ""

    def spans(self) -> dict[str, list[int]]:
        return {c.column: [c.start, c.end] for c in self.cells.values()}


@dataclass
class CsvFile:
    header: list[str]  # column names as given (stripped)
    rows: list[SourceRow]
    empty_lines: int


@dataclass
class _Record:
    line: int
    line_end: int
    start: int
    end: int
    cells: list[tuple[int, int, bool]]
    problem: str | None


def _records(data: bytes, pos: int) -> Iterator[_Record | int]:
    """The records of CSV bytes from ``pos``; an int for each empty line (its number)."""
    line, n = 1, len(data)
    while pos < n:
        first = data[pos]
        if first in (0x0A, 0x0D):
            pos += 2 if data[pos:pos + 2] == b"\r\n" else 1
            yield line
            line += 1
            continue
        start, start_line = pos, line
        cells: list[tuple[int, int, bool]] = []
        problem: str | None = None
        while True:
            if data[pos:pos + 1] == b'"':
                m = _QUOTED.match(data, pos)
                if m is None:
                    problem = f"a quoted cell opens on line {line} and is never closed"
                    break
                cells.append((m.start(1), m.end(1), True))
                line += m.group(1).count(b"\n")
                pos = m.end()
                following = data[pos:pos + 1]
                if following not in (b",", b"\r", b"\n", b""):
                    problem = f"text after the closing quote of cell {len(cells)}"
                    break
            else:
                m = _PLAIN.match(data, pos)
                assert m is not None  # the pattern matches the empty string
                cells.append((m.start(), m.end(), False))
                pos = m.end()
                if data[pos:pos + 1] == b'"':
                    problem = f"a quote inside unquoted cell {len(cells)}"
                    break
            if data[pos:pos + 1] == b",":
                pos += 1
                continue
            end = pos
            pos += 2 if data[pos:pos + 2] == b"\r\n" else (1 if pos < n else 0)
            yield _Record(start_line, line, start, end, cells, None)
            line += 1
            break
        if problem is not None:
            # go on at the next line: what follows a broken cell cannot be read as cells. A
            # quote that opened a cell across lines and then broke was most likely never
            # meant to be closed there: the record is its first line, and reading goes on
            # at the line after it
            if line > start_line:
                problem = (f"a quoted cell opens on line {start_line} and does not close "
                           f"properly ({problem})")
                pos, line = start, start_line
            newline = data.find(b"\n", pos)
            end = n if newline < 0 else newline
            stop = end - 1 if end > start and data[end - 1:end] == b"\r" else end
            yield _Record(start_line, line, start, max(stop, start), cells, problem)
            pos = n if newline < 0 else newline + 1
            line += 1


def _cell_text(data: bytes, start: int, end: int, quoted: bool) -> str:
    raw = data[start:end]
    if quoted:
        raw = raw.replace(b'""', b'"')
    return raw.decode("utf-8")


def read_csv(data: bytes, name: str = "the file") -> CsvFile:
    """Every record of CSV bytes (UTF-8, optional byte-order mark, LF or CRLF line ends)."""
    pos = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    header: list[str] | None = None
    rows: list[SourceRow] = []
    empty = 0
    for record in _records(data, pos):
        if isinstance(record, int):
            empty += 1
            continue
        if header is None:
            if record.problem is not None:
                raise DatasetError(f"{name}: its header (line {record.line}) cannot be read: "
                                   f"{record.problem}")
            try:
                header = [_cell_text(data, s, e, q).strip() for s, e, q in record.cells]
            except UnicodeDecodeError as exc:
                raise DatasetError(f"{name}: its header is not UTF-8 ({exc.reason})") from exc
            continue
        rows.append(_row(data, header, record, len(rows) + 1))
    if header is None:
        raise DatasetError(f"{name}: the file is empty (no header line)")
    return CsvFile(header, rows, empty)


def _row(data: bytes, header: list[str], record: _Record, number: int) -> SourceRow:
    row = SourceRow(number, record.line, record.line_end, record.start, record.end,
                    problem=record.problem)
    if row.problem is not None:
        return row
    cells = record.cells
    if len(cells) > len(header) and all(s == e for s, e, _ in cells[len(header):]):
        cells = cells[:len(header)]  # empty cells after the last column: a trailing comma
    if len(cells) != len(header):
        row.problem = f"{len(cells)} cells where the header has {len(header)} columns"
        return row
    for column, (s, e, quoted) in zip(header, cells, strict=True):
        if e - s > MAX_CELL_BYTES:
            row.problem = (f"cell {column!r} is {e - s} bytes long, more than the "
                           f"{MAX_CELL_BYTES} read")
            return row
        try:
            text = _cell_text(data, s, e, quoted)
        except UnicodeDecodeError as exc:
            row.problem = (f"cell {column!r} has bytes that are not UTF-8 (at byte "
                           f"{s + exc.start} of the file)")
            return row
        if column not in row.cells:
            row.cells[column] = Cell(column, text, s, e)
    return row


# -- JSON ------------------------------------------------------------------------------------


class _ByteOffsets:
    """Byte offsets of character positions in a decoded UTF-8 text."""

    def __init__(self, text: str, data: bytes, base: int) -> None:
        self.base = base
        self.ascii = len(text) == len(data) - base
        self.table: list[int] = []
        if not self.ascii:
            total, table = base, [base]
            for ch in text:
                total += len(ch.encode("utf-8", "surrogatepass"))
                table.append(total)
            self.table = table

    def __call__(self, index: int) -> int:
        return self.base + index if self.ascii else self.table[index]


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass
class JsonNode:
    value: Any
    start: int  # character span in the text (a string: inside its quotes)
    end: int
    children: dict[str, JsonNode] | list[JsonNode] | None = None


def _skip(text: str, pos: int) -> int:
    m = _WS.match(text, pos)
    return m.end() if m else pos


def _node(text: str, pos: int, depth: int) -> tuple[JsonNode, int]:
    """The JSON value at ``pos`` with the spans of its parts down to ``depth`` levels."""
    pos = _skip(text, pos)
    first = text[pos:pos + 1]
    if depth > 0 and first == "{":
        children: dict[str, JsonNode] = {}
        start, pos = pos, _skip(text, pos + 1)
        if text[pos:pos + 1] == "}":
            return JsonNode({}, start, pos + 1, children), pos + 1
        while True:
            key, pos = _DECODER.raw_decode(text, _skip(text, pos))
            pos = _skip(text, pos)
            if text[pos:pos + 1] != ":" or not isinstance(key, str):
                raise ValueError(f"expected ':' at character {pos}")
            child, pos = _node(text, pos + 1, depth - 1)
            children.setdefault(key, child)
            pos = _skip(text, pos)
            if text[pos:pos + 1] == ",":
                pos += 1
                continue
            if text[pos:pos + 1] != "}":
                raise ValueError(f"expected ',' or '}}' at character {pos}")
            return JsonNode({k: v.value for k, v in children.items()}, start, pos + 1,
                            children), pos + 1
    if depth > 0 and first == "[":
        items: list[JsonNode] = []
        start, pos = pos, _skip(text, pos + 1)
        if text[pos:pos + 1] == "]":
            return JsonNode([], start, pos + 1, items), pos + 1
        while True:
            child, pos = _node(text, pos, depth - 1)
            items.append(child)
            pos = _skip(text, pos)
            if text[pos:pos + 1] == ",":
                pos += 1
                continue
            if text[pos:pos + 1] != "]":
                raise ValueError(f"expected ',' or ']' at character {pos}")
            return JsonNode([c.value for c in items], start, pos + 1, items), pos + 1
    value, end = _DECODER.raw_decode(text, pos)
    if isinstance(value, str):
        return JsonNode(value, pos + 1, end - 1), end
    return JsonNode(value, pos, end), end


@dataclass
class JsonFile:
    root: JsonNode
    offsets: _ByteOffsets
    text: str

    def line_of(self, index: int) -> int:
        return self.text.count("\n", 0, index) + 1

    def cell(self, column: str, node: JsonNode) -> Cell:
        value = node.value
        # a string as decoded; any other value as its JSON text in the file (null: empty)
        shown = value if isinstance(value, str) else "" if value is None else \
            self.text[node.start:node.end]
        return Cell(column, shown, self.offsets(node.start), self.offsets(node.end), value)


def read_json(data: bytes, name: str, depth: int) -> JsonFile:
    """The JSON document of ``data`` with spans of its parts down to ``depth`` levels."""
    base = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[base:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{name}: not UTF-8 (at byte {base + exc.start})") from exc
    try:
        root, end = _node(text, 0, depth)
        if _skip(text, end) != len(text):
            raise ValueError(f"text after the JSON document at character {end}")
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"{name}: not a JSON document: {exc}") from exc
    return JsonFile(root, _ByteOffsets(text, data, base), text)


def json_row(file: JsonFile, node: JsonNode, number: int) -> SourceRow:
    """A row for one JSON object: a cell per key (nested objects as their JSON text)."""
    row = SourceRow(number, file.line_of(node.start), file.line_of(node.end),
                    file.offsets(node.start), file.offsets(node.end))
    if not isinstance(node.children, dict):
        row.problem = f"element {number} is not an object"
        return row
    for key, child in node.children.items():
        row.cells[key] = file.cell(key, child)
    return row
