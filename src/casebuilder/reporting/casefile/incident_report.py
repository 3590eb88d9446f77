"""The incident report: what the sources say happened, with every statement cited to its words.

Part of reporting/casefile. Built from one merged incident (resolution), its element matrix
(analysis/elements) and the case's exhibits (preservation); written as a neutral Document that
the renderers lay out. The wording follows one rule: the report says who claims what. A value is
"reported", "given by", "according to"; where sources differ every version is listed, denials
and claimed military objectives included, and the report itself never settles a contested
fact. What the sources do not say is listed under Limitations, so that a gap is seen as a gap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from casebuilder.analysis.elements.matrix import Entry, IncidentMatrix
from casebuilder.extraction.datasets.rows import DATASET_KIND
from casebuilder.reporting.casefile.document import (
    Block,
    BulletList,
    Cite,
    Emphasis,
    Figure,
    Heading,
    Inline,
    Link,
    Paragraph,
    Span,
    Strong,
    Table,
    Text,
    plain,
)
from casebuilder.reporting.casefile.figures import ChartDrawer, FigurePoint, MapDrawer, MapPoint
from casebuilder.resolution import assessment, summary
from casebuilder.resolution.profiles import SourceProfiles
from casebuilder.resolution.records import ClaimRecord
from casebuilder.resolution.summary import Incident

_ROW_NAME = re.compile(r" line (\d+)$")
TEXT_QUOTE_LIMIT = 400  # characters of a quoted sentence shown in the text; the footnote has it all


@dataclass(frozen=True)
class Exhibit:
    """A stored file the report relies on, with what lets anyone check it: its digest, the
    custody entry that first recorded it and that entry's inclusion proof against the first
    signed checkpoint covering it (fixed once made, so the report stays reproducible)."""

    number: int
    item_id: int
    name: str
    sha256: str
    size: int
    kind: str  # original | derived
    entry_index: int
    entry_time: str
    checkpoint_size: int | None
    checkpoint_root: str | None
    proof: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"Exhibit {self.number}"


def incident_anchor(incident_id: str) -> str:
    return f"incident-{incident_id}"


def exhibit_anchor(number: int) -> str:
    return f"exhibit-{number}"


def span_of(claim: ClaimRecord | Entry) -> Span:
    """The span a claim (or a matrix entry, which is one) is cited by: its sentence, what a
    reader checks it against. A dataset row's claim cites its cell; its line and bytes are
    kept beside the characters, which are found when the report is assembled (making.py)."""
    if isinstance(claim, Entry):
        item_id, name, sha256 = claim.item_id, claim.document, ""
        sentence = (claim.quote_start, claim.quote_end)
    else:
        item_id, name, sha256 = (claim.document.item_id, claim.document.name,
                                 claim.document.sha256)
        sentence = (claim.sentence_start, claim.sentence_end)
    if claim.source_kind == DATASET_KIND:
        found = _ROW_NAME.search(name)
        return Span(item_id, claim.char_start, claim.char_end, claim.quote, name, sha256,
                    int(found.group(1)) if found else None, (claim.char_start, claim.char_end))
    return Span(item_id, *sentence, claim.quote, name, sha256)


def cite(*claims: ClaimRecord) -> Cite:
    seen: dict[tuple[int, int, int, int | None], Span] = {}
    for c in claims:
        span = span_of(c)
        seen.setdefault(span.key, span)
    return Cite(tuple(seen.values()))


def _words(text: str) -> str:
    return " ".join(text.split())


def _shorten(text: str, limit: int = TEXT_QUOTE_LIMIT) -> str:
    text = _words(text)
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _source_phrase(c: ClaimRecord) -> str:
    """"the regional governor, as reported by Outlet (2022-04-08)"."""
    who = c.attributed_to or "an unnamed source"
    outlet = c.document.outlet
    published = c.document.published_raw or (c.document.published.isoformat()
                                             if c.document.published else "")
    carrier = ", ".join(x for x in (outlet, published) if x)
    if outlet and outlet.lower() == who.lower():
        return f"{who} ({published})" if published else who
    return f"{who}, as reported by {carrier}" if carrier else who


def title_of(incident: Incident) -> str:
    """"Reported attack with explosive weapons in Kramatorsk, Donetsk, 2022-04-08"."""
    categories = [c.replace("_", " ") for c in summary.categories(incident)]
    what = categories[0] if categories else "incident"
    place_name, place = summary.best_place(incident)
    where = ", ".join(x for x in ((place or {}).get("name") or place_name,
                                  (place or {}).get("admin1")) if x)
    when, _ = summary.dates(incident)
    day = _date_words(when)
    return f"Reported {what} in {where or 'an unplaced location'}, {day}"


def _date_words(when: Any) -> str:
    if when is None:
        return "date unknown"
    start, end = when.start.isoformat(), when.end.isoformat()
    return start if start == end else f"between {start} and {end}"


def _claims_of_kind(incident: Incident, *kinds: str) -> list[ClaimRecord]:
    return [c for c in incident.claims if c.kind in kinds]


def _figure_cell(incident: Incident, measure: str) -> tuple[Inline, ...]:
    best = summary.best_figure(incident, measure)
    if best is None or best.low is None:
        return (Text("no figure reported"),)
    stated = str(best.low) if best.high in (None, best.low) else f"{best.low}–{best.high}"
    words = stated if best.qualifier in ("exact", "none", "") else f"{best.qualifier} {stated}"
    claim = next((c for c in incident.claims if c.id == best.claim_id), None)
    parts: list[Inline] = [Strong(words), Text(f" according to {best.source or 'a source'}")]
    if claim is not None:
        parts.append(cite(claim))
    low, high = summary.figure_range(incident, measure)
    if low is not None and high is not None and low != high:
        parts.append(Text(f"; figures given range from {low} to {high}"))
    return tuple(parts)


def _claimed_list(incident: Incident, kind: str, value_of: Any) -> tuple[Inline, ...]:
    claims = _claims_of_kind(incident, kind)
    if not claims:
        return (Text("not stated by any source"),)
    grouped: dict[str, list[ClaimRecord]] = {}
    for c in claims:
        grouped.setdefault(value_of(c), []).append(c)
    parts: list[Inline] = []
    for value, group in sorted(grouped.items()):
        if parts:
            parts.append(Text("; "))
        whom = sorted({c.attributed_to or "an unnamed source" for c in group})
        parts += [Text(f"{value} (according to {', '.join(whom)})"), cite(*group)]
    return tuple(parts)


def key_facts(incident: Incident, profiles: SourceProfiles) -> Table:
    place_name, place = summary.best_place(incident)
    when, basis = summary.dates(incident)
    at, zone = summary.time_of_day(incident, when, basis)
    grade, reasons, independent = assessment.incident_grade(incident, profiles)
    place_claims = _claims_of_kind(incident, "place")
    date_claims = _claims_of_kind(incident, "date")
    written = sorted({m.place_name for m in incident.mentions if m.place_name})
    place_words: list[Inline] = [Text((place or {}).get("name") or place_name or "not placed")]
    if place:
        place_words.append(Text(
            f" ({place.get('admin1') or ''}{', ' if place.get('admin1') else ''}"
            f"{place.get('country') or ''}; {float(place['lat']):.4f}, {float(place['lon']):.4f};"
            f" precision: {place.get('precision')}"
            + (f", within about {place['uncertainty_km']} km" if place.get('uncertainty_km')
               else "") + ")"))
    if written:
        place_words.append(Text(f"; as written: {', '.join(written)}"))
    if place_claims:
        place_words.append(cite(*place_claims[:3]))
    date_words: list[Inline] = [Text(_date_words(when)), Text(f" (dated by: {basis or 'unknown'})")]
    if date_claims:
        date_words.append(cite(*date_claims[:3]))
    perpetrators = summary.perpetrators(incident)
    perp: list[Inline] = []
    for p in perpetrators:
        if perp:
            perp.append(Text("; "))
        label = f"{p['label']} (counter-accusation)" if p["competing"] else p["label"]
        perp.append(Text(f"{label}, according to {', '.join(p['claimed_by'])}"))
        claims = [c for c in _claims_of_kind(incident, "perpetrator")
                  if getattr(c.value, "party", None) == p["party"]
                  and getattr(c.value, "competing", None) == p["competing"]]
        if claims:
            perp.append(cite(*claims[:3]))
    rows: list[tuple[tuple[Inline, ...], ...]] = [
        ((Text("What"),), (Text(", ".join(c.replace("_", " ")
                                           for c in summary.categories(incident))
                                 or "not classified"),)),
        ((Text("Where"),), tuple(place_words)),
        ((Text("When"),), tuple(date_words)),
        ((Text("Time of day"),), (Text(f"{at} {zone}".strip() if at else "not stated"),)),
        ((Text("Killed"),), _figure_cell(incident, "killed")),
        ((Text("Injured"),), _figure_cell(incident, "injured")),
        ((Text("Weapon"),), _claimed_list(incident, "weapon",
                                          lambda c: c.value.weapon.replace("_", " "))),
        ((Text("Target"),), _claimed_list(incident, "target",
                                          lambda c: c.value.target_type.replace("_", " "))),
        ((Text("Who acted, as claimed"),),
         tuple(perp) if perp else (Text("no source names a party"),)),
        ((Text("Grade"),), (Text(f"{grade}: {'; '.join(reasons)}"),)),
        ((Text("Independent origins"),), (Text(str(independent)),)),
        ((Text("Reports"),), (Text(str(len({m.document.item_id for m in incident.mentions}))),)),
    ]
    return Table(("Aspect", "What the sources say"), tuple(rows),
                 caption="Headline values, each chosen by a stated rule; every version is "
                         "listed under Sources and Contradictions.", widths=(1.0, 3.6))


@dataclass(frozen=True)
class Said:
    """One sentence of a report as the narrative tells it: who, as what kind of source, how
    sure, with which verb, in which words, cited by which span."""

    who: str
    source_kind: str
    evidentiality: str
    verb: str
    quote: str
    span: Span


@dataclass(frozen=True)
class Account:
    """One report's part of the narrative: its title, where and when it appeared, what it
    says sentence by sentence."""

    title: str
    carrier: str
    said: tuple[Said, ...]


def accounts_of(incident: Incident) -> list[Account]:
    """One account per report, in order of publication: who says what, in the report's own
    words, each sentence cited. The case file and the web interface tell it the same way."""
    out: list[Account] = []
    by_document: dict[int, list[ClaimRecord]] = {}
    for c in incident.claims:
        by_document.setdefault(c.document.item_id, []).append(c)
    for item_id in sorted(by_document, key=lambda i: (
            by_document[i][0].document.published_raw or "", i)):
        claims = by_document[item_id]
        sentences: dict[int, list[ClaimRecord]] = {}
        for c in claims:
            sentences.setdefault(c.sentence_start, []).append(c)
        first = claims[0]
        carrier = ", ".join(x for x in (first.document.outlet, first.document.published_raw)
                            if x) or "undated"
        said = []
        for start in sorted(sentences):
            c = sentences[start][0]
            who = c.attributed_to or "the report"
            said.append(Said(f"{who[:1].upper()}{who[1:]}", c.source_kind, c.evidentiality,
                             c.verb or "says", _shorten(c.quote), span_of(c)))
        out.append(Account(first.document.title or first.document.name, carrier,
                           tuple(said)))
    return out


def narrative(incident: Incident) -> list[Block]:
    """One paragraph per report: who says what, in the report's own words, each cited."""
    blocks: list[Block] = []
    for account in accounts_of(incident):
        parts: list[Inline] = [Strong(account.title), Text(f" ({account.carrier}). ")]
        for s in account.said:
            parts += [Text(f"{s.who} ({s.source_kind}, {s.evidentiality}) {s.verb}: "
                           f"“{s.quote}”"), Cite((s.span,)), Text(" ")]
        blocks.append(Paragraph(tuple(parts)))
    return blocks


def figure_points(incident: Incident) -> list[FigurePoint]:
    points = []
    for measure in ("killed", "injured"):
        for f in summary.figures(incident, measure):
            if f.low is None or f.earlier_report:
                continue
            points.append(FigurePoint(moment=f.order[0] or f.reported_at, low=f.low,
                                      high=f.high, measure=measure, source=f.source))
    return points


def figures_table(incident: Incident) -> Table | None:
    rows = []
    claims = {c.id: c for c in incident.claims}
    for measure in ("killed", "injured"):
        for f in summary.figures(incident, measure):
            stated = "" if f.low is None else (
                str(f.low) if f.high in (None, f.low) else f"{f.low}–{f.high}")
            claim = claims.get(f.claim_id)
            notes = ", ".join(x for x in (
                f.population or "", "earlier report" if f.earlier_report else "",
                "regional or national total" if f.coarse else "",
                f"jointly for {', '.join(f.shared_by)}" if f.shared_by else "") if x)
            rows.append((
                (Text(measure),), (Text(f"{f.qualifier} {stated}".strip()),),
                (Text(f.source or "unnamed"), *((cite(claim),) if claim else ())),
                (Text(f.stated_at or f.reported_at or "undated"),), (Text(notes),)))
    if not rows:
        return None
    return Table(("Measure", "Figure", "Given by", "As of", "Notes"), tuple(rows),
                 caption="Every casualty figure a source gives, in report order.",
                 widths=(0.8, 1.0, 1.8, 1.2, 1.4))


def contradictions_blocks(incident: Incident) -> list[Block]:
    found = assessment.contradictions(incident)
    claims: dict[tuple[Any, Any, Any], ClaimRecord] = {
        (c.document.name, c.char_start, c.char_end): c for c in incident.claims}

    def cited(version: Mapping[str, Any]) -> tuple[Inline, ...]:
        c = claims.get((version.get("document"), version.get("char_start"),
                        version.get("char_end")))
        who = version.get("source") or "an unnamed source"
        words = f"{who}: “{_shorten(str(version.get('quote') or version.get('text') or ''), 200)}”"
        return (Text(words), cite(c)) if c is not None else (Text(words),)

    items: list[tuple[Inline, ...]] = []
    for entry in found:
        head: list[Inline] = [Strong(entry["aspect"].capitalize()), Text(f": {entry['summary']}. ")]
        if entry["aspect"] == "responsibility":
            for label, key in (("accuses", "accused"), ("denies", "denied_by"),
                               ("counter-accuses", "counter_accusations")):
                for v in entry.get(key, []):
                    accused = f" {v['accused']}" if v.get("accused") else ""
                    head += [Text(f"{label.capitalize()}{accused}: "), *cited(v), Text(" ")]
        elif entry["aspect"] == "military objective":
            for label, key in (("Claimed", "claimed"), ("Disputed", "disputed")):
                for v in entry.get(key, []):
                    head += [Text(f"{label}: "), *cited(v), Text(" ")]
        else:
            for version in entry.get("versions", []):
                head.append(Text(f"Version “{version['value']}”: "))
                for source in version.get("sources", []):
                    head += [*cited(source), Text(" ")]
        items.append(tuple(head))
    if not items:
        return [Paragraph((Text("No source contradicts another on the cause, the weapon, "
                                "responsibility, a military objective or the toll, and no "
                                "denial was found in the reports held."),), style="note")]
    return [BulletList(tuple(items))]


def matrix_summary(matrix: IncidentMatrix) -> BulletList:
    """Each crime's elements counted by status (the full matrix: ``casebuilder elements``)."""
    lines: list[tuple[Inline, ...]] = []
    for crime_matrix in matrix.crimes:
        counts: dict[str, int] = {}
        for row in crime_matrix.rows:
            counts[row.status] = counts.get(row.status, 0) + 1
        shown = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in sorted(
            counts.items()))
        lines.append((Text(f"Article {crime_matrix.crime.id} ({crime_matrix.crime.title}): "
                           f"{shown}."),))
    if not lines:
        lines.append((Text("No crime of the catalogue is reached by these claims."),))
    return BulletList(tuple(lines))


def matrix_blocks(matrix: IncidentMatrix, digests: Mapping[int, str]) -> list[Block]:
    blocks: list[Block] = []
    if not matrix.crimes:
        return [Paragraph((Text("No crime of the catalogue is reached by the claims of this "
                                "incident."),), style="note")]
    for crime_matrix in matrix.crimes:
        crime = crime_matrix.crime
        rows = []
        gaps = []
        for row in crime_matrix.rows:
            support: list[Inline] = [
                Text(f"{len(row.supporting)} for, {len(row.contrary)} against")]
            entries = [*row.supporting[:2], *row.contrary[:1]]
            if entries:
                support.append(Cite(tuple(replace(span_of(e), sha256=digests.get(
                    e.item_id, "")) for e in entries)))
            rows.append(((Text(f"{row.element.number}. {row.element.statement}"),),
                         (Strong(row.status.replace("_", " ")),),
                         (Text(row.why),), tuple(support)))
            if row.status in ("gap", "contested", "needs_analyst"):
                gaps.append(row)
        blocks.append(Heading(3, f"Article {crime.id}: {crime.title}"))
        blocks.append(Table(("Element", "Status", "Why", "Evidence"), tuple(rows),
                            widths=(2.2, 0.9, 2.4, 1.1)))
        if gaps:
            statuses = "; ".join(g.status.replace("_", " ") for g in gaps[:6])
            blocks.append(Paragraph((Text(
                f"Gaps: {len(gaps)} of {len(crime_matrix.rows)} elements are not yet "
                f"supported by the claims held (gap, contested, or awaiting an analyst: "
                f"{statuses})."),), style="caution"))
    return blocks


def decisions_blocks(incident: Incident) -> list[Block]:
    if not incident.decisions:
        return [Paragraph((Text("No analyst has decided on this incident: it stands as the "
                                "rules merged and graded it."),), style="note")]
    rows = tuple(((Text(str(d.get("id", ""))),), (Text(str(d.get("action", ""))),),
                  (Text(str(d.get("actor") or d.get("by") or "")),),
                  (Text(str(d.get("time") or d.get("at") or "")),),
                  (Text(str(d.get("reason") or "")),)) for d in incident.decisions)
    return [Table(("Decision", "Action", "By", "When", "Reason"), rows,
                  widths=(0.7, 0.9, 0.9, 1.3, 3.0))]


def limitations(incident: Incident, profiles: SourceProfiles) -> list[tuple[Inline, ...]]:
    out: list[str] = []
    _, place = summary.best_place(incident)
    when, basis = summary.dates(incident)
    if place is None:
        out.append("The place could not be placed on the map from the words of the reports.")
    elif place.get("precision") not in ("exact", "point", "settlement", "district"):
        out.append(f"The place is known only to the {place.get('precision')} level.")
    if when is None:
        out.append("No report gives the date of the events.")
    elif basis and basis not in ("event", "stated"):
        out.append(f"The date comes from the {basis.replace('_', ' ')}, not from words "
                   "dating the events themselves.")
    if summary.best_figure(incident, "killed") is None:
        out.append("No report gives a figure for the killed.")
    if not summary.perpetrators(incident):
        out.append("No report names who carried out the attack.")
    if not _claims_of_kind(incident, "weapon"):
        out.append("No report names the weapon.")
    origins = len(assessment.independent_origins(incident))
    if origins < 2:
        out.append("Only one independent origin reports the incident: nothing here "
                   "corroborates it.")
    if summary.civilian(incident) is None:
        out.append("No report says whether the victims were civilians.")
    set_aside = len(summary.not_taken(incident))
    if set_aside:
        out.append(f"{set_aside} value(s) in these reports were set aside by the rules (kept "
                   "in the case as not taken, never as evidence).")
    out.append("The report shows what the sources held in the case say; it is not a finding "
               "of fact. Nothing was verified on the ground by casebuilder.")
    return [(Text(x),) for x in out]


def exhibits_table(exhibits: Sequence[Exhibit]) -> Table:
    rows = tuple((
        (Link(e.label, exhibit_anchor(e.number)),),
        (Text(f"item {e.item_id}: {e.name} ({e.kind}, {e.size} bytes)"),),
        (Text(e.sha256),),
        (Text(f"entry {e.entry_index}, {e.entry_time}"),)) for e in exhibits)
    return Table(("Exhibit", "File", "SHA-256", "Custody"), rows,
                 widths=(0.8, 2.0, 2.6, 1.2))


def exhibit_list(exhibits: Sequence[Exhibit]) -> list[Block]:
    """Each exhibit with its inclusion proof, as a court expert re-computes it (decision 0002):
    the entry's leaf hash, the audit path, the root of the first checkpoint covering it."""
    blocks: list[Block] = []
    for e in exhibits:
        blocks.append(Heading(3, f"{e.label}: item {e.item_id}, {e.name}",
                              anchor=exhibit_anchor(e.number)))
        lines: list[tuple[Inline, ...]] = [
            (Text(f"SHA-256 {e.sha256}; {e.size} bytes; {e.kind}."),),
            (Text(f"First recorded by custody entry {e.entry_index} at {e.entry_time}."),)]
        if e.checkpoint_size is not None:
            lines.append((Text(f"Inclusion proof against the signed checkpoint of tree size "
                               f"{e.checkpoint_size}, root {e.checkpoint_root}: "
                               f"{len(e.proof)} hashes: " + " ".join(e.proof)),))
        else:
            lines.append((Emphasis("No signed checkpoint covers this entry yet."),))
        blocks.append(BulletList(tuple(lines)))
    return blocks


def incident_blocks(incident: Incident, *, matrix: IncidentMatrix, profiles: SourceProfiles,
                    maps: MapDrawer, charts: ChartDrawer,
                    exhibits: Mapping[int, Exhibit],
                    neighbours: Sequence[MapPoint] = (), number: str | None = None
                    ) -> tuple[Block, ...]:
    """The report's sections for one incident (the case file puts several in one document;
    one known from dataset rows alone gets ``short_incident_blocks`` there instead)."""
    heading = f"{number}. " if number else ""
    blocks: list[Block] = [Heading(1, f"{heading}Incident {incident.id}",
                                   anchor=incident_anchor(incident.id)),
                           Paragraph((Emphasis(title_of(incident)),))]
    blocks.append(key_facts(incident, profiles))
    _, place = summary.best_place(incident)
    if place is not None:
        point = MapPoint(float(place["lat"]), float(place["lon"]),
                         (place.get("name") or "")[:40], incident.id,
                         place.get("uncertainty_km"), emphasis=True)
        blocks.append(Figure(maps.locator(point), f"Where incident {incident.id} is reported.",
                             (incident.id,), width_mm=110))
        blocks.append(Figure(maps.close_up(point, neighbours),
                             "Surroundings: settlements for reference and other incidents of "
                             "the case nearby.", (incident.id, *(n.incident_id
                                                                 for n in neighbours)),
                             width_mm=130))
    blocks += [Heading(2, "What the reports say"), *narrative(incident)]
    points = figure_points(incident)
    table = figures_table(incident)
    if points or table:
        blocks.append(Heading(2, "Casualty figures over time"))
        if points:
            blocks.append(Figure(charts.figures_over_time(points),
                                 "Figures given by each source, by the time they were given.",
                                 (incident.id,)))
        if table is not None:
            blocks.append(table)
    blocks += [Heading(2, "Sources"), sources_table(incident, profiles)]
    blocks += [Heading(2, "Contradictions, denials and claimed military objectives"),
               *contradictions_blocks(incident)]
    blocks += [Heading(2, "Legal elements"), *matrix_blocks(matrix, {
        m.document.item_id: m.document.sha256 for m in incident.mentions})]
    blocks += [Heading(2, "Analysts' decisions"), *decisions_blocks(incident)]
    blocks += [Heading(2, "Limitations"), BulletList(tuple(limitations(incident, profiles)))]
    held = [exhibits[i] for i in sorted({m.document.item_id for m in incident.mentions})
            if i in exhibits]
    if held:
        blocks += [Heading(2, "Exhibits"), exhibits_table(held)]
    return tuple(blocks)


def short_incident_blocks(incident: Incident, *, matrix: IncidentMatrix,
                          profiles: SourceProfiles, exhibits: Mapping[int, Exhibit],
                          number: str) -> tuple[Block, ...]:
    """The short form of an incident known from dataset rows alone, for a case file of
    thousands: the same facts, sources, elements, decisions and limitations as the full
    report, as a section of a part rather than a part of its own, and without drawings (the
    full report stays one ``casebuilder report incident ID`` away)."""
    blocks: list[Block] = [Heading(2, f"{number}. Incident {incident.id}",
                                   anchor=incident_anchor(incident.id)),
                           Paragraph((Emphasis(title_of(incident)),)),
                           key_facts(incident, profiles), *narrative(incident)]
    grades = {g.claim_id: g for g in assessment.claim_grades(incident, profiles)}
    by_source: dict[str, list[ClaimRecord]] = {}
    for c in incident.claims:
        by_source.setdefault(c.attributed_to or "an unnamed source", []).append(c)
    parts: list[Inline] = [Strong("Sources: ")]
    for n, (who, claims) in enumerate(sorted(by_source.items())):
        codes = ", ".join(sorted({grades[c.id].code for c in claims if c.id in grades}))
        parts += [Text(("; " if n else "") + f"{who} ({claims[0].source_kind.replace('_', ' ')}"
                       + (f", graded {codes}" if codes else "") + ")")]
    parts.append(Text(". "))
    contradictions = contradictions_blocks(incident)
    contested = any(isinstance(b, BulletList) for b in contradictions)
    if not contested:
        parts.append(Text("No source contradicts another and no denial was found. "))
    if incident.decisions:
        parts.append(Text(f"{len(incident.decisions)} analysts' decision(s), listed below. "))
    else:
        parts.append(Text("No analyst has decided on this incident. "))
    blocks.append(Paragraph(tuple(parts), style="small"))
    if contested:
        blocks += contradictions
    summed = [plain(line) for line in matrix_summary(matrix).items]
    blocks.append(Paragraph((Strong("Legal elements: "), Text(" ".join(summed))),
                            style="small"))
    if incident.decisions:
        blocks += decisions_blocks(incident)
    blocks.append(Paragraph((Strong("Limitations: "), Text(" ".join(
        plain(line) for line in limitations(incident, profiles)))), style="small"))
    held = [exhibits[i] for i in sorted({m.document.item_id for m in incident.mentions})
            if i in exhibits]
    if held:
        links: list[Inline] = [Strong("Exhibits: ")]
        for n, exhibit in enumerate(held):
            if n:
                links.append(Text(", "))
            links.append(Link(f"{exhibit.label} ({exhibit.name})", exhibit_anchor(exhibit.number)))
        rows = sorted({m.document.name for m in incident.mentions})
        links.append(Text(f"; {', '.join(rows[:6])}{' …' if len(rows) > 6 else ''}."))
        blocks.append(Paragraph(tuple(links), style="small"))
    return tuple(blocks)


def sources_table(incident: Incident, profiles: SourceProfiles) -> Table:
    grades = {g.claim_id: g for g in assessment.claim_grades(incident, profiles)}
    rows: dict[tuple[str, int], list[ClaimRecord]] = {}
    for c in incident.claims:
        rows.setdefault((c.attributed_to or "unnamed", c.document.item_id), []).append(c)
    out = []
    for (who, _item), claims in sorted(rows.items(), key=lambda kv: (kv[0][0].lower(),
                                                                      kv[0][1])):
        codes = sorted({grades[c.id].code for c in claims if c.id in grades})
        kinds = sorted({c.kind.replace("_", " ") for c in claims})
        first = claims[0]
        out.append(((Text(who),), (Text(first.source_kind),),
                    (Text(", ".join(sorted({c.evidentiality for c in claims}))),),
                    (Text(", ".join(codes)),),
                    (Text(", ".join(kinds)), cite(*claims[:4])),
                    (Text(_source_phrase(first)),)))
    return Table(("Source", "Kind", "Evidentiality", "Grade", "Says", "Carried by"),
                 tuple(out), caption="Admiralty grades: reliability of the source (A-F) and "
                 "credibility of the information (1-6).", widths=(1.3, 0.8, 0.9, 0.6, 1.6, 1.6))
