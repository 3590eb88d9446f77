"""What an incident amounts to, read from all the claims of its mentions.

An incident keeps every claim of every source; this module only derives the headline values an
export or a table shows (categories, place, dates, the current best casualty figure, weapon,
target, claimed perpetrators), each by a stated rule, and lists the sources with their quotes.
Nothing is dropped: contradicting values stay in the claims and in the lists of alternatives.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from casebuilder.extraction.vocabulary import shipped_vocabulary
from casebuilder.gazetteer.model import precision_rank
from casebuilder.model.partial_date import PartialDate
from casebuilder.model.terms import CATEGORY_ORDER
from casebuilder.resolution.records import ClaimRecord, MentionRecord


def generic_weapons() -> frozenset[str]:
    """Weapons named only by family, less specific than a named system (weapons.toml)."""
    return frozenset(w.name for w in shipped_vocabulary().weapons.values() if w.generic)


def generic_targets() -> frozenset[str]:
    """Target types that say little about what was hit (targets.toml)."""
    return frozenset(t.name for t in shipped_vocabulary().targets.values() if t.generic)


@dataclass(frozen=True)
class Figure:
    """One casualty figure as a source gave it, in report order."""

    measure: str
    low: int | None
    high: int | None
    qualifier: str
    text: str
    source: str
    source_kind: str
    evidentiality: str
    document: str
    reported_at: str  # the document's publication date and time as given
    order: tuple[str, int]  # report time, then position in the text
    earlier_report: bool
    claim_id: int
    coarse: bool = False  # given for a whole region or country, not for the incident's place
    shared_by: tuple[str, ...] = ()  # given jointly for these places ("three killed in A and B")
    population: str | None = None  # civilians, children, military, ... where the text says

    def as_json(self) -> dict[str, Any]:
        return {"measure": self.measure, "low": self.low, "high": self.high,
                "qualifier": self.qualifier, "text": self.text, "source": self.source,
                "source_kind": self.source_kind, "evidentiality": self.evidentiality,
                "document": self.document, "reported_at": self.reported_at,
                "earlier_report": self.earlier_report, "shared_by": list(self.shared_by),
                "population": self.population}


@dataclass
class Incident:
    """An incident: mentions from one or more documents judged to be one attack or situation."""

    id: str
    mentions: list[MentionRecord]
    reasons: list[str] = field(default_factory=list)  # why each document was joined
    decisions: list[dict[str, Any]] = field(default_factory=list)  # analysts' decisions
    overrides: dict[str, Any] = field(default_factory=dict)  # analysts' edits

    @property
    def claims(self) -> list[ClaimRecord]:
        return [c for m in self.mentions for c in m.claims]

    @property
    def not_taken(self) -> list[ClaimRecord]:
        """What the rules set aside in the sentences of its mentions (never evidence)."""
        return [c for m in self.mentions for c in m.not_taken]

    @property
    def situation(self) -> bool:
        return all(m.situation for m in self.mentions)


def categories(incident: Incident) -> list[str]:
    if "categories" in incident.overrides:
        return list(incident.overrides["categories"])
    found = {c for m in incident.mentions for c in m.categories}
    return [c for c in CATEGORY_ORDER if c in found]


def best_place(incident: Incident) -> tuple[str, dict[str, Any] | None]:
    """The most precise place any member gives (a station point beats its city)."""
    if "place" in incident.overrides:
        place = incident.overrides["place"]
        return str(place.get("name", "")), place
    placed = [m for m in incident.mentions if m.place is not None]
    if not placed:
        return (incident.mentions[0].place_name if incident.mentions else ""), None
    # a place its document could not tell from others of its name comes after any placed on
    # evidence: it joined because one of its namesakes fits the incident
    best = min(placed, key=lambda m: (bool(m.place and m.place.get("undecided")),
                                      _rank(m.place), m.id))
    return best.place_name, best.place


def _rank(place: dict[str, Any] | None) -> tuple[float, float]:
    if place is None:
        return 9.0, 0.0
    uncertainty = float(place.get("uncertainty_km") or 0.0)
    return precision_rank(str(place.get("precision")), uncertainty), uncertainty


def dates(incident: Incident) -> tuple[PartialDate | None, str]:
    """The narrowest event date any member gives; otherwise the situation's span or the
    earliest report date. Returns the value and the basis ("event", "situation", "report")."""
    if "date" in incident.overrides:
        return PartialDate.parse_iso(str(incident.overrides["date"])), "analyst"
    for basis in ("event", "situation", "report"):
        values = [m.date for m in incident.mentions if m.date is not None and
                  m.date_basis == basis]
        if not values:
            continue
        if basis == "situation":
            start = min(v.start for v in values)
            end = max(v.end for v in values)
            return PartialDate.range(start, end), basis
        return min(values, key=lambda v: (v.days, v.start)), basis
    return None, ""


def figures(incident: Incident, measure: str) -> list[Figure]:
    """Every figure of one measure, oldest report first. Sub-group figures ("five children
    among the dead") are parts, not totals, and cumulative figures belong to situations."""
    out = []
    coarse_docs = {m.document.item_id for m in incident.mentions
                   if m.place and m.place.get("precision") in {"region", "country"}}
    fine = any(m.place and m.place.get("precision") not in {"region", "country"}
               for m in incident.mentions)
    for c in incident.claims:
        if c.kind != measure or c.value.get("subgroup"):
            continue
        if c.value.get("cumulative") and not incident.situation:
            continue
        out.append(Figure(
            measure=measure, low=c.value.get("low"), high=c.value.get("high"),
            qualifier=str(c.value.get("qualifier", "")), text=str(c.value.get("text", "")),
            source=c.attributed_to, source_kind=c.source_kind, evidentiality=c.evidentiality,
            document=c.document.name, reported_at=c.document.published_raw,
            order=(_report_key(c.document.published_raw, c.document.published), c.char_start),
            earlier_report=bool(c.value.get("earlier_report")), claim_id=c.id,
            coarse=fine and c.document.item_id in coarse_docs,
            shared_by=tuple(str(p) for p in c.value.get("shared_by") or ()),
            population=c.value.get("population")))
    return sorted(out, key=lambda f: f.order)


def _report_key(raw: str, published: date | None) -> str:
    """Sortable report time: the full timestamp when the collection gives one (normalised to
    UTC), otherwise the date alone, which then sorts at the end of its day."""
    from datetime import UTC, datetime

    if len(raw) > 10:
        try:
            moment = datetime.fromisoformat(raw)
            if moment.tzinfo is not None:
                return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
            return moment.strftime("%Y-%m-%dT%H:%M:%S")
        except ValueError:
            pass
    return f"{published.isoformat()}T23:59:59" if published else "9999"


#: How reliable each kind of source is taken to be for casualty figures (lower is better).
FIGURE_RELIABILITY = {"monitoring_mission": 0, "official": 1, "journalist": 1, "imagery": 2,
                      "witness": 2, "outlet": 3, "belligerent_statement": 3, "unknown": 3}


def best_figure(incident: Incident, measure: str) -> Figure | None:
    """The current best figure: the latest report, and among figures reported at that same
    time, the one from the most reliable kind of source; a figure the text itself calls an
    earlier report is never the current one, nor is a count of the military.

    Tolls rise as bodies are found, so the latest figure is usually the most complete; a
    figure given alongside it by a less reliable source does not replace it.
    """
    if f"{measure}_best" in incident.overrides:
        value = incident.overrides[f"{measure}_best"]
        return Figure(measure, value.get("low"), value.get("high"), "analyst",
                      str(value.get("text", "")), "analyst", "analyst", "stated", "", "",
                      ("9999", 0), False, -1)
    # combatants a belligerent says it killed ("destroyed up to 200 militants") are kept as
    # claims, but no count of the military is an attack's toll of civilian harm
    usable = [f for f in figures(incident, measure) if not f.earlier_report and
              f.evidentiality != "denied" and not f.coarse and f.population != "military"]
    # A toll given jointly for several places is the best figure only when no source gives
    # this place its own: "three killed in Kramatorsk and Sloviansk" is not three in each.
    candidates = [f for f in usable if not f.shared_by] or usable
    if not candidates:
        return None
    counted = [f for f in candidates if f.qualifier != "vague"]
    best = _latest_most_reliable(counted or candidates)
    if best.qualifier in {"at least", "more than"} and best.low is not None:
        # "at least 25" after a count of 27 is a floor the 27 already meets, not a revision
        higher = [f for f in counted if f.order[0] < best.order[0] and (f.low or 0) > best.low
                  and f.qualifier == "exact" and f.population != "military"
                  and f.evidentiality not in {"unverified", "alleged"}]
        if higher:
            best = _latest_most_reliable(higher)
    if counted:
        # "dozens" or "scores" said after a count of 53 adds nothing to it; a vague figure
        # replaces a count only when it says more ("hundreds" after "twelve")
        vague = [f for f in candidates if f.qualifier == "vague" and f.order[0] > best.order[0]
                 and (f.low or 0) > (best.high or best.low or 0)]
        if vague:
            best = _latest_most_reliable(vague)
    return best


def _latest_most_reliable(candidates: list[Figure]) -> Figure:
    """Among the figures of the latest report, one the text does not call unverified, from the
    most reliable kind of source; then the largest."""
    latest = max(f.order[0] for f in candidates)
    same_time = [f for f in candidates if f.order[0] == latest]
    if any((f.low or 0) > 1 for f in same_time):
        # "her husband was shot dead", told beside "the bodies of nine civilians": one of them
        same_time = [f for f in same_time if (f.low, f.high) != (1, 1)]
    return min(same_time, key=lambda f: (f.evidentiality in {"unverified", "alleged"},
                                         FIGURE_RELIABILITY.get(f.source_kind, 3),
                                         -(f.low or 0), f.order))


def figure_range(incident: Incident, measure: str) -> tuple[int | None, int | None]:
    stated = [v for f in figures(incident, measure) for v in (f.low, f.high) if v is not None]
    return (min(stated), max(stated)) if stated else (None, None)


def _ranked_values(incident: Incident, kind: str, key: str, generic: frozenset[str]
                   ) -> list[str]:
    claims = [c for c in incident.claims if c.kind == kind]
    counts = Counter(str(c.value[key]) for c in claims)
    last_seen = {str(c.value[key]): i for i, c in enumerate(claims)}
    # a target named only as the setting ("sheltering in the theatre") after one said hit
    hit = {str(c.value[key]) for c in claims if not c.value.get("setting")}
    return sorted(counts, key=lambda v: (v not in hit, v in generic, -counts[v],
                                         -last_seen[v]))


def weapons(incident: Incident) -> list[str]:
    """Every weapon named, named systems before families, most often named first."""
    return _ranked_values(incident, "weapon", "weapon", generic_weapons())


def targets(incident: Incident) -> list[str]:
    return _ranked_values(incident, "target", "target_type", generic_targets())


def perpetrators(incident: Incident) -> list[dict[str, Any]]:
    """Each party a source names as acting, with who says so; counter-accusations are kept."""
    out: dict[tuple[str, bool], dict[str, Any]] = {}
    for c in incident.claims:
        if c.kind != "perpetrator":
            continue
        key = (str(c.value["party"]), bool(c.value.get("competing")))
        entry = out.setdefault(key, {"party": c.value["party"], "label": c.value.get("label"),
                                     "competing": bool(c.value.get("competing")),
                                     "claimed_by": []})
        if c.attributed_to not in entry["claimed_by"]:
            entry["claimed_by"].append(c.attributed_to)
    return sorted(out.values(), key=lambda e: (e["competing"], -len(e["claimed_by"])))


def civilian(incident: Incident) -> bool | None:
    if any(c.kind == "civilian_status" and c.value.get("civilian") for c in incident.claims):
        return True
    populations = {c.value.get("population") for c in incident.claims
                   if c.kind in {"killed", "injured"}}
    if populations & {"civilians", "children"}:
        return True
    if populations & {"military", "prisoners of war"}:
        return False
    return None


def sources(incident: Incident) -> list[dict[str, Any]]:
    """One entry per sentence that supports the incident, with who said it and how."""
    seen: dict[tuple[int, int], dict[str, Any]] = {}
    for c in incident.claims:
        sentence_key = (c.document.item_id, c.sentence_start)
        if sentence_key in seen:
            entry = seen[sentence_key]
            if c.kind not in entry["claims"]:
                entry["claims"].append(c.kind)
            continue
        seen[sentence_key] = {
            "document": c.document.name,
            "item_id": c.document.item_id,
            "sha256": c.document.sha256,
            "title": c.document.title,
            "outlet": c.document.outlet,
            "published": c.document.published_raw or None,
            "attributed_to": c.attributed_to,
            "also_attributed": list(c.also_attributed),
            "speaker_role": c.speaker_role,
            "source_kind": c.source_kind,
            "party": c.party,
            "reporting_verb": c.verb,
            "evidentiality": c.evidentiality,
            "qualifiers": list(c.qualifiers),
            "quote": c.quote,
            "char_start": c.sentence_start,
            "char_end": c.sentence_end,
            "claims": [c.kind],
        }
        # A sentence that names a second source ("officials said ..., according to the
        # ombudsman") supports the incident through both.
        for other in c.also_attributed:
            seen[(c.document.item_id, -c.sentence_start - 1)] = dict(
                seen[sentence_key], attributed_to=other, also_attributed=[c.attributed_to],
                speaker_role="", source_kind="unknown", party=None, reporting_verb="",
                evidentiality=c.evidentiality, claims=["also_attributed"])
    return list(seen.values())


def not_taken(incident: Incident) -> list[dict[str, Any]]:
    """Each value a rule set aside or gave another role in the incident's sentences, with the
    rule: what an analyst needs to see beside what was taken."""
    return [{
        "what": c.value.get("what"),
        "words": c.value.get("words"),
        "taken_as": c.value.get("taken_as"),
        "value": dict(c.value),
        "rule": c.rule,
        "document": c.document.name,
        "item_id": c.document.item_id,
        "char_start": c.char_start,
        "char_end": c.char_end,
        "quote": c.quote,
        "attributed_to": c.attributed_to,
    } for c in incident.not_taken]


def reported_dates(incident: Incident) -> tuple[date | None, date | None]:
    published = [m.document.published for m in incident.mentions if m.document.published]
    return (min(published), max(published)) if published else (None, None)
