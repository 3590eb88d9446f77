"""The contract between intake and the format handlers.

Handlers bid for a file (the way ingest-file's do): each looks at the first bytes and the name
and returns how sure it is that it can read the file. The highest bid parses it. A handler never
touches the stored original except to read it, never writes to the case, and reports a file it
cannot read by raising :class:`casebuilder.errors.UnreadableContent`; intake records that on the
item and carries on with the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

JSONValue = None | bool | int | float | str | list["JSONValue"] | dict[str, "JSONValue"]

#: Bids, so that the scale means the same thing in every handler.
BID_NONE = 0
BID_EXTENSION = 10  # only the name suggests it
BID_WEAK = 40  # a loose content sign (e.g. text that looks like markup)
BID_SIGNATURE = 80  # a magic number or an unambiguous structure
BID_CERTAIN = 100


@dataclass(frozen=True)
class Sniff:
    """What a handler may look at when bidding: never the whole file."""

    name: str  # the file name as received (may contain any character)
    head: bytes  # up to the first 64 KiB
    size: int


@dataclass(frozen=True)
class ParseSource:
    """A stored original opened for parsing. ``path`` is read-only; do not write to it."""

    path: Path
    name: str
    size: int
    depth: int = 0  # how many containers (zip, e-mail) this file sits inside


@dataclass
class Derivative:
    """A file made from the original (extracted text, thumbnail), stored as its own item."""

    kind: str  # "text", "thumbnail", ...
    name: str  # suggested file name, e.g. "report.pdf.txt"
    media_type: str
    data: bytes
    tool: str  # the library that made it, e.g. "pypdf"
    tool_version: str


@dataclass
class Child:
    """A file embedded in the original (archive member, e-mail attachment): a new original."""

    relation: str  # "archive-member" | "attachment"
    name: str  # member path or attachment file name, as given in the container
    size: int | None
    open: Callable[[], BinaryIO]  # a fresh stream of the child's bytes each call


@dataclass
class ParseResult:
    format: str  # handler name, e.g. "pdf"
    media_type: str
    tool: str  # library and version that parsed it, e.g. "pypdf 5.1.0"
    metadata: dict[str, JSONValue] = field(default_factory=dict)
    text: str | None = None  # the readable text, if any (offsets of extracted claims refer to it)
    derivatives: list[Derivative] = field(default_factory=list)
    children: list[Child] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what could not be read: status "partial"
    #: What an investigator must know before opening the file (active content in a PDF), shown
    #: in the ingest summary; unlike a warning it does not mean the file was read only in part.
    alerts: list[str] = field(default_factory=list)


class FormatHandler(Protocol):
    """A format reader. Besides these, a handler may define ``prepare(self) -> None``: the
    parse server (intake/isolation.py) calls it, if present, before it forks the process that
    reads a file, so that heavy libraries the handler imports lazily are imported once per run
    instead of once per file. It should only import; it must not start threads or open files,
    and its failure is ignored (the read itself then reports it)."""

    name: str
    media_type: str

    def bid(self, sniff: Sniff) -> int: ...

    def parse(self, source: ParseSource) -> ParseResult: ...


def active_content_alert(found: list[str]) -> str:
    """How an alert about active content reads, wherever it is shown."""
    return (f"contains active content: {', '.join(found)} (preserved as is, never run; open "
            "it only in a safe viewer)")
