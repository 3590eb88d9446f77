"""The neutral form of a report: blocks of cited text, tables and figures.

Content modules (what a report says) build a :class:`Document`; renderers (how it looks: HTML,
typst for PDF) write it. Keeping the two apart means one report reads the same in every format
and a renderer never decides what is said. Every statement drawn from the case carries
:class:`Cite` marks naming the item and character span it comes from; a renderer numbers them
as footnotes in order of first appearance, the same span always getting the same number.

Figures are SVG drawn by casebuilder itself (maps, charts): no image is fetched from anywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Span:
    """Where a statement comes from: an item of the case and a character span of its text.
    A dataset row's cell also has its line (``row``) and its span in bytes of the stored file
    (``bytes``), the offsets its claim keeps (decision 0018)."""

    item_id: int
    start: int
    end: int
    quote: str
    document: str  # the item's file name, as ingested
    sha256: str
    row: int | None = None
    bytes: tuple[int, int] | None = None

    @property
    def key(self) -> tuple[int, int, int, int | None]:
        return (self.item_id, self.start, self.end, self.row)


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Strong:
    text: str


@dataclass(frozen=True)
class Emphasis:
    text: str


@dataclass(frozen=True)
class Link:
    """A link inside the report (``#anchor``); reports never link outside themselves."""

    text: str
    anchor: str


@dataclass(frozen=True)
class Cite:
    """A footnote mark: the preceding words come from these spans."""

    spans: tuple[Span, ...]


Inline = Text | Strong | Emphasis | Link | Cite


@dataclass(frozen=True)
class Heading:
    level: int  # 1 = part (a new page in PDF), 2 = section, 3 = subsection
    text: str
    anchor: str | None = None


@dataclass(frozen=True)
class Paragraph:
    parts: tuple[Inline, ...]
    #: "fact" paragraphs of a schedule carry their number ("12."), printed in the margin
    number: str | None = None
    style: str = "body"  # body | note | caution | small
    #: paragraphs that belong together (the facts of one incident): a renderer keeps them
    #: together when it can, and never puts its notes between them
    group: str | None = None


@dataclass(frozen=True)
class BulletList:
    items: tuple[tuple[Inline, ...], ...]


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[tuple[Inline, ...], ...], ...]
    caption: str = ""
    #: relative column widths (same length as columns), None for equal widths
    widths: tuple[float, ...] | None = None


@dataclass(frozen=True)
class Figure:
    """A drawing (SVG text, no external references) with its caption and the incidents it
    shows, listed under it so that a reader can find each one."""

    svg: str
    caption: str
    incidents: tuple[str, ...] = ()
    width_mm: float = 160.0


@dataclass(frozen=True)
class PageBreak:
    pass


Block = Heading | Paragraph | BulletList | Table | Figure | PageBreak


@dataclass(frozen=True)
class Document:
    title: str
    subtitle: str
    case_name: str
    #: the case state the report shows: time of the newest custody entry it reflects (ISO 8601,
    #: UTC). It is the only date written into the file, so the same state gives the same bytes.
    as_of: str
    #: the SHA-256 of the case state (digest of the custody log root the report reflects)
    state_digest: str
    blocks: tuple[Block, ...]
    language: str = "en"
    #: lines for the cover or header: what the report is, who may read it, how it was made
    notices: tuple[str, ...] = field(default_factory=tuple)


def numbered_spans(document: Document) -> list[Span]:
    """Every cited span once, in order of first citation: footnote n is element n-1."""
    return cited_spans(document.blocks)


def cited_spans(blocks: tuple[Block, ...]) -> list[Span]:
    """Every span ``blocks`` cite, once each, in order of first citation."""
    seen: dict[tuple[int, int, int, int | None], Span] = {}
    for block in blocks:
        for parts in _inline_runs(block):
            for part in parts:
                if isinstance(part, Cite):
                    for span in part.spans:
                        seen.setdefault(span.key, span)
    return list(seen.values())


def with_spans(blocks: tuple[Block, ...], change: Callable[[Span], Span]
               ) -> tuple[Block, ...]:
    """``blocks`` with every cited span replaced by ``change(span)``."""
    def run(parts: tuple[Inline, ...]) -> tuple[Inline, ...]:
        return tuple(Cite(tuple(change(s) for s in p.spans)) if isinstance(p, Cite) else p
                     for p in parts)

    changed: list[Block] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            block = replace(block, parts=run(block.parts))
        elif isinstance(block, BulletList):
            block = replace(block, items=tuple(run(item) for item in block.items))
        elif isinstance(block, Table):
            block = replace(block, rows=tuple(tuple(run(cell) for cell in row)
                                              for row in block.rows))
        changed.append(block)
    return tuple(changed)


def _inline_runs(block: Block) -> list[tuple[Inline, ...]]:
    if isinstance(block, Paragraph):
        return [block.parts]
    if isinstance(block, BulletList):
        return list(block.items)
    if isinstance(block, Table):
        return [cell for row in block.rows for cell in row]
    return []


def plain(parts: tuple[Inline, ...]) -> str:
    """The words of a run without its marks (for search, tests and alt text)."""
    return "".join(p.text for p in parts if not isinstance(p, Cite))
