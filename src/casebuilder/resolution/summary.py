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
from functools import cache
from typing import Any

from casebuilder.extraction.vocabulary import shipped_vocabulary
from casebuilder.gazetteer.model import precision_rank
from casebuilder.model.claim_values import (
    CivilianStatusValue,
    DateValue,
    FigureValue,
    PerpetratorValue,
    TargetValue,
    WeaponValue,
    is_not_taken,
    taken_as,
    to_json,
)
from casebuilder.model.partial_date import PartialDate
from casebuilder.model.terms import CATEGORY_ORDER
from casebuilder.resolution.records import ClaimRecord, MentionRecord, claims_of


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
    #: The time the text states the figure as of ("as of 09:30 on 8 August", the dateline's
    #: time), as written: "2023-08-08T09:30" and its zone; "" when it states none.
    stated_at: str = ""
    stated_zone: str = ""
    #: Whether ``order`` holds a time of day (stated, or the collection's timestamp); a
    #: figure known only to its day cannot be put before or after a timed one of that day.
    timed: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"measure": self.measure, "low": self.low, "high": self.high,
                "qualifier": self.qualifier, "text": self.text, "source": self.source,
                "source_kind": self.source_kind, "evidentiality": self.evidentiality,
                "document": self.document, "reported_at": self.reported_at,
                "earlier_report": self.earlier_report, "shared_by": list(self.shared_by),
                "population": self.population, "stated_at": self.stated_at or None,
                "stated_zone": self.stated_zone or None}


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
    """The narrowest event date any member gives; otherwise the narrowest occupation period
    (crimes found after a retaking), the situation's span or the earliest report date.
    Returns the value and the basis ("event", "occupation", "situation", "report")."""
    if "date" in incident.overrides:
        return PartialDate.parse_iso(str(incident.overrides["date"])), "analyst"
    for basis in ("event", "occupation", "situation", "report"):
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


def time_of_day(incident: Incident, when: PartialDate | None, basis: str
                ) -> tuple[str | None, str]:
    """The time of day of the incident's event, where a source gives one beside the day
    the incident is dated by ("on Tuesday at 14:10 local time"), and its zone as written;
    the earliest-reported source's when several do."""
    if when is None or basis != "event" or when.precision != "day":
        return None, ""
    timed = [(c, v) for c, v in claims_of(incident.claims, DateValue)
             if v.role == "event" and v.time and v.iso == when.iso()]
    if not timed:
        return None, ""
    _, first = min(timed, key=lambda t: (_report_key(t[0].document.published_raw,
                                                     t[0].document.published), t[0].char_start))
    return first.time, first.zone or ""


def open_start(incident: Incident, when: PartialDate | None, basis: str) -> bool:
    """Whether the incident's date is an occupation period whose start no text states: its
    start is then only the earliest it can be (the war's first day), not a known day."""
    if when is None or basis != "occupation":
        return False
    periods = [v for _, v in claims_of(incident.claims, DateValue)
               if v.period == "occupation" and v.iso == when.iso()]
    return bool(periods) and all(v.open_start for v in periods)


def figures(incident: Incident, measure: str) -> list[Figure]:
    """Every figure of one measure, oldest report first. Sub-group figures ("five children
    among the dead") are parts, not totals, and cumulative figures belong to situations."""
    out = []
    coarse_docs = {m.document.item_id for m in incident.mentions
                   if m.place and m.place.get("precision") in {"region", "country"}}
    fine = any(m.place and m.place.get("precision") not in {"region", "country"}
               for m in incident.mentions)
    for c, v in claims_of(incident.claims, FigureValue):
        if c.kind != measure or v.subgroup:
            continue
        if v.cumulative and not incident.situation:
            continue
        moment, timed = _moment(c, v)
        out.append(Figure(
            measure=measure, low=v.low, high=v.high, qualifier=v.qualifier, text=v.text,
            source=c.attributed_to, source_kind=c.source_kind, evidentiality=c.evidentiality,
            document=c.document.name, reported_at=c.document.published_raw,
            order=(moment, c.char_start),
            earlier_report=v.earlier_report, claim_id=c.id,
            coarse=fine and c.document.item_id in coarse_docs,
            shared_by=v.shared_by, population=v.population,
            stated_at=v.stated_at or "", stated_zone=v.stated_zone or "", timed=timed))
    return sorted(out, key=lambda f: f.order)


def _moment(c: ClaimRecord, v: FigureValue) -> tuple[str, bool]:
    """When a figure was given, sortable (see :func:`_report_key`), and whether that holds a
    time of day: the time the text states it as of, else the document's report time."""
    if v.stated_at:
        return _stated_key(v.stated_at, v.stated_zone or ""), True
    raw = c.document.published_raw
    key = _report_key(raw, c.document.published)
    return key, len(raw) > 10 and not key.endswith("T23:59:59")


@cache
def _zone_offsets() -> dict[str, str]:
    return shipped_vocabulary().lexicon.mapping("time_zones")


def _stated_key(stated: str, zone: str) -> str:
    """A stated time as a sortable key: in UTC when its zone fixes an offset, otherwise as
    written (a local time, usually the place's)."""
    from datetime import datetime, timedelta

    try:
        moment = datetime.fromisoformat(stated)
    except ValueError:
        return stated
    offset = _zone_offsets().get(zone.lower(), "")
    if offset:
        moment -= timedelta(hours=int(offset))
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


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
FIGURE_RELIABILITY = {"monitoring_mission": 0, "monitoring_dataset": 1, "official": 1,
                      "journalist": 1, "imagery": 2, "witness": 2, "outlet": 3,
                      "belligerent_statement": 3, "unknown": 3}


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
    if not any(f.timed for f in same_time):
        # Known only to the day, the latest figures cannot be put after the day's timed ones:
        # they stand beside the last of those ("as of 14:10, nine" beats "as of 09:30, six").
        day = latest[:10]
        timed = [f for f in candidates if f.timed and f.order[0][:10] == day]
        if timed:
            last = max(f.order[0] for f in timed)
            same_time += [f for f in timed if f.order[0] == last]
    if any((f.low or 0) > 1 for f in same_time):
        # "her husband was shot dead", told beside "the bodies of nine civilians": one of them
        same_time = [f for f in same_time if (f.low, f.high) != (1, 1)]
    return min(same_time, key=lambda f: (f.evidentiality in {"unverified", "alleged"},
                                         FIGURE_RELIABILITY.get(f.source_kind, 3),
                                         -(f.low or 0), f.order))


def figure_range(incident: Incident, measure: str) -> tuple[int | None, int | None]:
    stated = [v for f in figures(incident, measure) for v in (f.low, f.high) if v is not None]
    return (min(stated), max(stated)) if stated else (None, None)


def _ranked_values(named: list[tuple[str, bool]], generic: frozenset[str]) -> list[str]:
    """Values named (each with whether the words say it was hit), hit before named only as a
    setting, specific before generic, most often named, then last named, first."""
    counts = Counter(value for value, _ in named)
    last_seen = {value: i for i, (value, _) in enumerate(named)}
    hit = {value for value, was_hit in named if was_hit}
    return sorted(counts, key=lambda v: (v not in hit, v in generic, -counts[v],
                                         -last_seen[v]))


def weapons(incident: Incident) -> list[str]:
    """Every weapon named, named systems before families, most often named first."""
    return _ranked_values([(v.weapon, True) for _, v in claims_of(incident.claims,
                                                                   WeaponValue)],
                          generic_weapons())


def targets(incident: Incident) -> list[str]:
    # a target named only as the setting ("sheltering in the theatre") after one said hit;
    # a target claim without ``setting`` was named where harm is told
    return _ranked_values([(v.target_type, not v.setting)
                           for _, v in claims_of(incident.claims, TargetValue)],
                          generic_targets())


def perpetrators(incident: Incident) -> list[dict[str, Any]]:
    """Each party a source names as acting, with who says so; counter-accusations are kept."""
    out: dict[tuple[str, bool], dict[str, Any]] = {}
    for c, v in claims_of(incident.claims, PerpetratorValue):
        entry = out.setdefault((v.party, v.competing), {"party": v.party, "label": v.label,
                                                        "competing": v.competing,
                                                        "claimed_by": []})
        if c.attributed_to not in entry["claimed_by"]:
            entry["claimed_by"].append(c.attributed_to)
    return sorted(out.values(), key=lambda e: (e["competing"], -len(e["claimed_by"])))


def civilian(incident: Incident) -> bool | None:
    if any(v.civilian for _, v in claims_of(incident.claims, CivilianStatusValue)):
        return True
    populations = {v.population for c, v in claims_of(incident.claims, FigureValue)
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
        "what": v.what,
        "words": v.words,
        "taken_as": taken_as(v),
        "value": to_json(v),
        "rule": c.rule,
        "document": c.document.name,
        "item_id": c.document.item_id,
        "char_start": c.char_start,
        "char_end": c.char_end,
        "quote": c.quote,
        "attributed_to": c.attributed_to,
    } for c in incident.not_taken if is_not_taken(v := c.value)]



def reported_dates(incident: Incident) -> tuple[date | None, date | None]:
    published = [m.document.published for m in incident.mentions if m.document.published]
    return (min(published), max(published)) if published else (None, None)
