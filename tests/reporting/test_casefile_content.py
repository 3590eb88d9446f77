"""What the incident report and the case file say: every footnote resolves to the words it
cites, contested values keep every version, every incident is scheduled, and the same case
state gives the same document."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from casebuilder.analysis.patterns.records import Selection
from casebuilder.preservation.case import open_case
from casebuilder.reporting.casefile import making
from casebuilder.reporting.casefile.document import (
    BulletList,
    Cite,
    Document,
    Heading,
    Paragraph,
    Table,
    numbered_spans,
    plain,
)
from casebuilder.reporting.casefile.figures import Count, Dated, FigurePoint, MapPoint
from casebuilder.resolution.incidents import build_incidents
from casebuilder.resolution.summary import best_place
from casebuilder.store.schema import Item

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'


class PlainMaps:
    def __init__(self) -> None:
        self.close_ups: list[tuple[MapPoint, tuple[MapPoint, ...]]] = []

    def locator(self, point: MapPoint) -> str:
        return SVG

    def close_up(self, point: MapPoint, neighbours: Sequence[MapPoint] = (),
                 radius_km: float = 30.0) -> str:
        self.close_ups.append((point, tuple(neighbours)))
        return SVG

    def series(self, points: Sequence[MapPoint], title: str = "") -> str:
        return SVG


class PlainCharts:
    def __init__(self) -> None:
        self.figures: list[FigurePoint] = []

    def figures_over_time(self, points: Sequence[FigurePoint]) -> str:
        self.figures += points
        return SVG

    def bars(self, counts: Sequence[Count], title: str = "", unit: str = "incidents") -> str:
        return SVG

    def timeline(self, events: Sequence[Dated], title: str = "") -> str:
        return SVG


def drawers() -> making.Drawers:
    return making.Drawers(PlainMaps(), PlainCharts())


def words(document: Document) -> str:
    out = []
    for block in document.blocks:
        if isinstance(block, Heading):
            out.append(block.text)
        elif isinstance(block, Paragraph):
            out.append(plain(block.parts))
        elif isinstance(block, BulletList):
            out += [plain(item) for item in block.items]
        elif isinstance(block, Table):
            out += [plain(cell) for row in block.rows for cell in row]
    return "\n".join(out)


def text_of(case, item_id: int) -> str:
    with case.session() as session:
        item = session.get(Item, item_id)
        assert item is not None
        text_item = session.get(Item, item.text_item_id) if item.text_item_id else item
    with case.objects.open(text_item.sha256) as fh:
        return fh.read().decode("utf-8")


def kramatorsk(case):
    for incident in build_incidents(case):
        name, place = best_place(incident)
        if "kramatorsk" in f"{name} {(place or {}).get('name')}".lower() and len(
                {m.document.item_id for m in incident.mentions}) >= 3:
            return incident
    raise AssertionError("the dev case has no Kramatorsk incident of three reports")


@pytest.fixture(scope="module")
def incident_document(dev_case_home: Path):
    case = open_case(dev_case_home, create=False)
    try:
        incident = kramatorsk(case)
        document, _ = making.assemble(case, making.ReportRequest("incident", "pdf", incident.id),
                                      drawers())
        yield case, incident, document
    finally:
        case.close()


def test_every_footnote_is_the_cited_text_at_its_span(incident_document):
    case, _, document = incident_document
    spans = numbered_spans(document)
    assert len(spans) >= 20
    for span in spans:
        assert span.row is None  # the dev case holds reports only
        assert text_of(case, span.item_id)[span.start:span.end] == span.quote


def test_the_incident_report_keeps_every_version_and_says_who_claims_it(incident_document):
    _, _, document = incident_document
    text = words(document)
    # both weapons the sources name, the denial and the counter-accusation are kept
    assert "Tochka" in text and "Iskander" in text
    assert "denies" in text.lower() or "Denies" in text
    assert "counter-accusation" in text or "Counter-accuses" in text
    # every casualty figure given is listed, and the headline says whose it is
    assert "according to" in text
    heads = [b.text for b in document.blocks if isinstance(b, Heading)]
    for section in ("What the reports say", "Casualty figures over time", "Sources",
                    "Contradictions, denials and claimed military objectives",
                    "Legal elements", "Analysts' decisions", "Limitations", "Exhibits"):
        assert section in heads, section


def test_exhibits_carry_digest_custody_entry_and_a_proof_that_verifies(incident_document):
    from casebuilder.preservation.merkle import leaf_hash, verify_inclusion

    case, incident, document = incident_document
    exhibits = making.gather_exhibits(case, [m.document.item_id for m in incident.mentions])
    lines = case.paths.log.read_bytes().split(b"\n")
    for exhibit in exhibits.values():
        assert exhibit.sha256 in words(document)
        assert exhibit.checkpoint_size is not None and exhibit.checkpoint_root
        assert verify_inclusion(leaf_hash(lines[exhibit.entry_index]), exhibit.entry_index,
                                exhibit.checkpoint_size,
                                [bytes.fromhex(p) for p in exhibit.proof],
                                bytes.fromhex(exhibit.checkpoint_root))


def test_the_same_state_gives_the_same_document_and_reading_does_not_change_it(
        dev_case_copy: Path):
    case = open_case(dev_case_copy, create=False)
    try:
        incident = kramatorsk(case)
        request = making.ReportRequest("incident", "pdf", incident.id)
        first, _ = making.assemble(case, request, drawers())
        with case.transaction() as tx:  # a read of the case is logged: not new evidence
            tx.record("view", [], {"what": "incident list"})
        case.checkpoint()
        second, _ = making.assemble(case, request, drawers())
    finally:
        case.close()
    assert first == second


def test_the_case_file_schedules_every_incident_with_numbered_cited_facts(dev_case_home):
    case = open_case(dev_case_home, create=False)
    try:
        every = build_incidents(case)
        document, chosen = making.assemble(case, making.ReportRequest("case", "pdf"),
                                           drawers())
    finally:
        case.close()
    assert {i.id for i in chosen} == {i.id for i in every}
    schedule = [b for b in document.blocks if isinstance(b, Paragraph) and b.number]
    numbers = [int(b.number.rstrip(".")) for b in schedule if b.number]
    assert numbers == list(range(1, len(numbers) + 1))
    text = words(document)
    for incident in every:
        assert f"Incident {incident.id}." in text  # its first fact
    # a fact other than the evidence line cites the words it rests on
    facts = [b for b in schedule if b.style != "small"]
    assert all(any(isinstance(p, Cite) for p in b.parts) for b in facts[1:] if
               "According to" in plain(b.parts))
    assert "Schedule of incidents" in text and "Exhibits" in text


def test_a_selection_that_admits_nothing_is_an_error(dev_case_home):
    from casebuilder.errors import NotFound

    case = open_case(dev_case_home, create=False)
    try:
        with pytest.raises(NotFound):
            making.assemble(case, making.ReportRequest(
                "case", "pdf", selection=Selection(region="Nowhere-at-all")), drawers())
    finally:
        case.close()


def test_unknown_kinds_and_formats_are_refused():
    with pytest.raises(making.ReportError, match="kind"):
        making.ReportRequest("memo", "pdf").check()
    with pytest.raises(making.ReportError, match="format"):
        making.ReportRequest("case", "docx").check()
    with pytest.raises(making.ReportError, match="incident"):
        making.ReportRequest("incident", "pdf").check()


def test_a_dataset_rows_claims_cite_its_line_and_bytes_and_get_the_short_form(case):
    """A claim read from a dataset row is footnoted to its cell: characters of the stored
    file's text, and its line and bytes; an incident known only from rows gets no drawings."""
    from casebuilder.extraction.datasets.importing import import_dataset
    from casebuilder.reporting.casefile.document import Figure

    hostile = Path(__file__).resolve().parent.parent / "data" / "datasets" / \
        "cir-monitor-hostile.csv"
    report = import_dataset(case, "cir-monitor", hostile)
    document, chosen = making.assemble(case, making.ReportRequest("case", "pdf"), drawers())
    stored = hostile.read_bytes()
    spans = numbered_spans(document)
    assert chosen and spans
    for span in spans:
        assert span.item_id == report.item_id
        assert span.row is not None and span.row >= 2  # line 1 is the header
        assert span.bytes is not None
        assert stored[span.bytes[0]:span.bytes[1]].decode("utf-8") == span.quote
        assert stored.decode("utf-8", errors="replace")[span.start:span.end] == span.quote
    # the sample holds Cyrillic: characters and bytes part ways after it
    assert any(span.bytes != (span.start, span.end) for span in spans)
    maps = [b for b in document.blocks if isinstance(b, Figure) and b.caption.startswith(
        ("Where incident", "Surroundings"))]
    assert maps == []
    # a register of sections in one part, not a part (a new page) each
    headings = [b for b in document.blocks if isinstance(b, Heading)]
    part = next(n for n, h in enumerate(headings) if h.text ==
                "Incidents recorded only in datasets")
    sections = [h for h in headings[part:] if h.anchor and h.anchor.startswith("incident-")]
    assert len(sections) == len(chosen) and all(h.level == 2 for h in sections)
    assert all(h.level > 1 for h in headings[part + 1:] if h.text != "Exhibits")
