"""Making a report from the case: choosing the incidents, gathering exhibits and proofs,
assembling the Document, rendering it, and storing the result as a derived item.

Part of reporting/casefile, the one module that reads the case (through resolution, analysis
and preservation) for a report. Reproducibility comes from what the report is dated and named
by: ``as_of`` is the newest time among the evidence it shows (its items' custody entries and
the analysts' decisions), and ``state_digest`` is the digest of that evidence, the rules and the
tool's version; neither changes when the case is only read, so the same state gives the same
bytes. The report is then stored as a derived item of the items it relies on and its making
logged (a ``report`` entry naming every item read), so it can go into a court bundle.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select

from casebuilder import TOOL_NAME, installed_version, tool_id
from casebuilder.analysis.elements.catalogue import Catalogue, load_catalogue
from casebuilder.analysis.elements.matrix import crimes_in_reach, element_matrix
from casebuilder.analysis.elements.pattern_evidence import pattern_evidence
from casebuilder.analysis.patterns.records import Selection, from_incident
from casebuilder.analysis.patterns.run import PatternReport, analyse
from casebuilder.errors import CasebuilderError, NotFound
from casebuilder.extraction.datasets.rows import DATASET_KIND
from casebuilder.gazetteer.geo import distance_km
from casebuilder.preservation.case import Case
from casebuilder.preservation.checkpoint import SignedCheckpoint, read_checkpoint_lines
from casebuilder.preservation.items import record_report
from casebuilder.preservation.merkle import MerkleTree, leaf_hash
from casebuilder.reporting.casefile.case_report import case_blocks
from casebuilder.reporting.casefile.document import (
    Block,
    Document,
    Heading,
    Paragraph,
    Span,
    Text,
    cited_spans,
    with_spans,
)
from casebuilder.reporting.casefile.figures import ChartDrawer, MapDrawer, MapPoint
from casebuilder.reporting.casefile.incident_report import (
    Exhibit,
    exhibit_list,
    incident_blocks,
    short_incident_blocks,
    title_of,
)
from casebuilder.resolution import summary
from casebuilder.resolution.incidents import build_incidents, find_incident
from casebuilder.resolution.profiles import SourceProfiles, load_profiles
from casebuilder.resolution.summary import Incident
from casebuilder.store.schema import CustodyEvent, Item

KINDS = ("incident", "pattern", "case")
FORMATS = {"pdf": "application/pdf", "html": "text/html"}
NEIGHBOUR_KM = 30.0


class ReportError(CasebuilderError):
    """A report that cannot be made as asked (unknown kind or format, nothing selected)."""


@dataclass(frozen=True)
class ReportRequest:
    kind: str
    format: str
    incident_id: str | None = None
    selection: Selection = field(default_factory=Selection)

    def check(self) -> None:
        if self.kind not in KINDS:
            raise ReportError(f"unknown report kind {self.kind!r}; one of {', '.join(KINDS)}")
        if self.format not in FORMATS:
            raise ReportError(f"unknown format {self.format!r}; one of pdf, html")
        if self.kind == "incident" and not self.incident_id:
            raise ReportError("an incident report needs the incident's id")


@dataclass(frozen=True)
class Drawers:
    maps: MapDrawer
    charts: ChartDrawer


@dataclass(frozen=True)
class MadeReport:
    document: Document
    data: bytes
    media_type: str
    item_ids: tuple[int, ...]  # the items it relies on
    incidents: tuple[str, ...]
    details: dict[str, Any]


def text_based(incident: Incident) -> bool:
    return any(c.source_kind != DATASET_KIND for c in incident.claims)


def gather_exhibits(case: Case, item_ids: Sequence[int]) -> dict[int, Exhibit]:
    """Each item with its first custody entry and that entry's inclusion proof against the
    first signed checkpoint that covers it."""
    lines = case.paths.log.read_bytes().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    checkpoints = [SignedCheckpoint.from_line(line)
                   for line in read_checkpoint_lines(case.paths.checkpoints)]
    tree = MerkleTree([leaf_hash(line) for line in lines])
    out: dict[int, Exhibit] = {}
    with case.session() as session:
        items = {i.id: i for i in session.execute(
            select(Item).where(Item.id.in_(list(item_ids)))).scalars()}
        times = {e.seq: e.time for e in session.execute(select(CustodyEvent).where(
            CustodyEvent.seq.in_([i.entry_seq for i in items.values()]))).scalars()}
        names = {i.id: sorted(o.name for o in i.origins) for i in items.values()}
    for number, item_id in enumerate(sorted(items), 1):
        item = items[item_id]
        covering = next((c for c in checkpoints if c.tree_size > item.entry_seq), None)
        proof: tuple[str, ...] = ()
        if covering is not None and covering.tree_size <= tree.size:
            proof = tuple(p.hex() for p in tree.inclusion_proof(item.entry_seq,
                                                                covering.tree_size))
        named = names.get(item_id) or [f"item-{item_id}"]
        out[item_id] = Exhibit(
            number=number, item_id=item_id, name=named[0],
            sha256=item.sha256, size=item.size, kind=item.kind, entry_index=item.entry_seq,
            entry_time=times.get(item.entry_seq, ""),
            checkpoint_size=covering.tree_size if covering else None,
            checkpoint_root=covering.root if covering else None, proof=proof)
    return out


def rows_in_characters(case: Case, blocks: tuple[Block, ...]) -> tuple[Block, ...]:
    """``blocks`` with each dataset cell's span (bytes of the stored file) given in characters
    as well, so that every footnote names characters of its item's text, as a report's do.
    Each stored file is read once, start to end."""
    wanted: dict[int, set[int]] = {}
    digests: dict[int, str] = {}
    for span in cited_spans(blocks):
        if span.bytes is not None:
            wanted.setdefault(span.item_id, set()).update(span.bytes)
            digests[span.item_id] = span.sha256
    if not wanted:  # no dataset cell cited: nothing to rewrite
        return blocks
    characters: dict[int, dict[int, int]] = {}
    stored: dict[int, bytes] = {}
    for item_id, offsets in wanted.items():
        with case.storage.open(digests[item_id]) as fh:
            stored[item_id] = data = fh.read()
        at, counted, found = 0, 0, {}
        for offset in sorted(offsets):
            # a cell's bounds fall between characters, so each piece decodes whole
            counted += len(data[at:offset].decode("utf-8", errors="replace"))
            at = offset
            found[offset] = counted
        characters[item_id] = found

    def in_characters(span: Span) -> Span:
        if span.bytes is None:
            return span
        found = characters[span.item_id]
        # the words quoted are the file's own at the span (a CSV cell's quotes doubled, as
        # stored), so that the footnote and the file read alike
        raw = stored[span.item_id][span.bytes[0]:span.bytes[1]]
        return replace(span, start=found[span.bytes[0]], end=found[span.bytes[1]],
                       quote=raw.decode("utf-8", errors="replace"))

    return with_spans(blocks, in_characters)


def state_of(incidents: Sequence[Incident], exhibits: dict[int, Exhibit], catalogue: Catalogue,
             pattern: PatternReport | None, request: ReportRequest) -> tuple[str, str]:
    """(as_of, state_digest) of the evidence a report shows: see the module's note."""
    times = [e.entry_time for e in exhibits.values() if e.entry_time]
    times += [str(d.get("time") or d.get("at") or "") for i in incidents for d in i.decisions]
    as_of = max((t for t in times if t), default="1970-01-01T00:00:00Z")
    evidence = {
        "items": sorted((e.item_id, e.sha256) for e in exhibits.values()),
        "claims": sorted(c.id for i in incidents for c in i.claims),
        "incidents": sorted((i.id, sorted(m.key for m in i.mentions)) for i in incidents),
        "decisions": sorted(str(d.get("id")) for i in incidents for d in i.decisions),
        "catalogue": catalogue.digest,
        "patterns": pattern.findings_digest() if pattern is not None else None,
        "request": [request.kind, request.incident_id, request.selection.as_json()],
        "tool": tool_id(),
    }
    digest = hashlib.sha256(json.dumps(evidence, sort_keys=True).encode()).hexdigest()
    return as_of, digest


class Neighbourhood:
    """Incidents by cells of half a degree, to find those within NEIGHBOUR_KM of one."""

    def __init__(self, incidents: Sequence[Incident]) -> None:
        self.grid: dict[tuple[int, int], list[MapPoint]] = {}
        self.points: dict[str, MapPoint] = {}
        for i in incidents:
            _, place = summary.best_place(i)
            if place is not None:
                point = MapPoint(float(place["lat"]), float(place["lon"]), i.id, i.id,
                                 place.get("uncertainty_km"))
                self.points[i.id] = point
                self.grid.setdefault(self._cell(point), []).append(point)

    @staticmethod
    def _cell(p: MapPoint) -> tuple[int, int]:
        return (math.floor(p.lat * 2), math.floor(p.lon * 2))

    def near(self, incident_id: str, limit: int = 40) -> list[MapPoint]:
        p = self.points.get(incident_id)
        if p is None:
            return []
        row, column = self._cell(p)
        found: dict[tuple[float, float], MapPoint] = {}  # one mark a spot: ids in the label
        for q in sorted((q for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                         for q in self.grid.get((row + dx, column + dy), [])),
                        key=lambda q: q.incident_id):
            if q.incident_id == incident_id or (q.lat, q.lon) in found:
                continue
            if distance_km((p.lat, p.lon), (q.lat, q.lon)) <= NEIGHBOUR_KM:
                found[(q.lat, q.lon)] = q
            if len(found) >= limit:
                break
        return list(found.values())


def _selection_words(selection: Selection) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(selection.as_json().items()) if v)


def assemble(case: Case, request: ReportRequest, drawers: Drawers,
             profiles: SourceProfiles | None = None) -> tuple[Document, list[Incident]]:
    """The Document a request asks for, and the incidents it shows."""
    request.check()
    profiles = profiles or load_profiles()
    catalogue = load_catalogue()
    every = build_incidents(case)
    records = {i.id: from_incident(i, profiles) for i in every}
    if request.kind == "incident":
        chosen = [find_incident(every, request.incident_id or "")]
    else:
        admitted = {r.id for r in request.selection.choose(records.values())}
        chosen = [i for i in every if i.id in admitted]
        if not chosen:
            raise NotFound("no incident of the case matches the selection")
    # The matrices read their pattern signals from the analysis of the whole case, as
    # ``casebuilder elements`` does; the pattern part shows the analysis of the selection.
    case_wide = analyse(list(records.values()))
    pattern = (case_wide if not any(request.selection.as_json().values())
               else analyse(list(records.values()), selection=request.selection))
    item_ids = sorted({m.document.item_id for i in chosen for m in i.mentions})
    exhibits = gather_exhibits(case, item_ids)
    neighbourhood = Neighbourhood(every)
    reach = {i.id: crimes_in_reach(i, catalogue) for i in chosen}

    def report_of(incident: Incident, number: str | None) -> tuple[Block, ...]:
        matrix = element_matrix(incident, catalogue, reach.get(incident.id)
                                or crimes_in_reach(incident, catalogue),
                                profiles=profiles,
                                evidence=pattern_evidence(case_wide, incident.id))
        if number is not None and not text_based(incident):  # in a case file: short form
            return short_incident_blocks(incident, matrix=matrix, profiles=profiles,
                                         exhibits=exhibits, number=number)
        return incident_blocks(incident, matrix=matrix, profiles=profiles,
                               maps=drawers.maps, charts=drawers.charts, exhibits=exhibits,
                               neighbours=neighbourhood.near(incident.id), number=number)

    as_of, digest = state_of(chosen, exhibits, catalogue,
                             None if request.kind == "incident" else pattern, request)
    name = case.config.name
    notices = (
        "Every statement is a claim of the source named with it, footnoted to the words it "
        "rests on; contested facts are given with every version.",
        f"Made by {tool_id()} from the case state of {as_of} (state digest {digest}).",
        "Each exhibit can be checked with standard tools: its SHA-256, and the inclusion proof "
        "of its custody entry against the signed checkpoint named with it.")
    if request.kind == "incident":
        incident = chosen[0]
        blocks: tuple[Block, ...] = (*report_of(incident, None),
                                     Heading(1, "Exhibits and their inclusion proofs"),
                                     *exhibit_list(list(exhibits.values())))
        title, subtitle = f"Incident report {incident.id}", title_of(incident)
    elif request.kind == "pattern":
        from casebuilder.reporting.casefile.pattern_report import pattern_blocks

        blocks = tuple(pattern_blocks(pattern, charts=drawers.charts, maps=drawers.maps,
                                      incidents_by_id=records))
        title = "Pattern report"
        subtitle = (f"{len(chosen)} incidents; "
                    + (_selection_words(request.selection) or "the whole case"))
    else:
        from casebuilder.reporting.casefile.pattern_report import pattern_blocks

        shown = pattern_blocks(pattern, charts=drawers.charts, maps=drawers.maps,
                               incidents_by_id=records)
        blocks = case_blocks(chosen, reach=reach, catalogue=catalogue, exhibits=exhibits,
                             pattern_blocks=shown, incident_report=report_of,
                             short_form=lambda i: not text_based(i),
                             selection=_selection_words(request.selection))
        title = f"Case file: {name}"
        subtitle = f"{len(chosen)} incidents, {len(exhibits)} exhibits"
    if not blocks:
        blocks = (Paragraph((Text("Nothing to report."),)),)
    blocks = rows_in_characters(case, blocks)
    return Document(title=title, subtitle=subtitle, case_name=name, as_of=as_of,
                    state_digest=digest, blocks=blocks, notices=notices), chosen


def render(document: Document, fmt: str) -> bytes:
    if fmt == "pdf":
        from casebuilder.reporting.casefile.pdf import render_pdf

        return render_pdf(document)
    from casebuilder.reporting.casefile.html import render_html

    return render_html(document).encode("utf-8")


def make_report(case: Case, request: ReportRequest, drawers: Drawers) -> MadeReport:
    document, chosen = assemble(case, request, drawers)
    data = render(document, request.format)
    item_ids = tuple(sorted({m.document.item_id for i in chosen for m in i.mentions}))
    details = {"report": request.kind, "format": request.format,
               "incident": request.incident_id, "selection": request.selection.as_json(),
               "incidents": len(chosen), "as_of": document.as_of,
               "state_digest": document.state_digest}
    return MadeReport(document, data, FORMATS[request.format], item_ids,
                      tuple(i.id for i in chosen), details)


def store_report(case: Case, made: MadeReport, name: str) -> int:
    """Keep the report as a derived item of the items it relies on; log its making."""
    stored = case.storage.store_bytes(made.data, label=name)
    with case.transaction() as tx:
        sources = list(tx.session.execute(
            select(Item).where(Item.id.in_(list(made.item_ids)))).scalars())
        item = record_report(tx, stored, sources, kind=f"report-{made.details['report']}",
                             media_type=made.media_type, tool=TOOL_NAME,
                             tool_version=installed_version(), name=name,
                             details={**made.details, "file": name})
        item_id = item.id
    case.checkpoint()
    return item_id

