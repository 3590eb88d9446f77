"""The case file: cover, patterns, a schedule of incidents by charge, the incident reports and
the exhibit list, as one Document.

Part of reporting/casefile. The schedule follows the annex of a charging document: numbered
material facts, one allegation a paragraph, each cited to its evidence and linked to its
incident report. An incident goes under the first charge of charges.toml whose every count its
claims reach; under later charges it reaches, a paragraph points back to its facts. Incidents no
charge reaches are scheduled too, in a group of their own: the schedule leaves nothing out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from casebuilder.analysis.elements.catalogue import Catalogue, Charge, Crime
from casebuilder.reporting.casefile.document import (
    Block,
    Heading,
    Inline,
    Link,
    PageBreak,
    Paragraph,
    Strong,
    Table,
    Text,
)
from casebuilder.reporting.casefile.incident_report import (
    Exhibit,
    cite,
    exhibit_list,
    incident_anchor,
    title_of,
)
from casebuilder.resolution import summary
from casebuilder.resolution.summary import Incident

UNCHARGED = "not reached by any charge"


@dataclass(frozen=True)
class ScheduleGroup:
    charge: Charge | None  # None: the incidents no charge reaches
    incidents: tuple[Incident, ...]  # scheduled here in full
    also: tuple[Incident, ...]  # scheduled under an earlier charge, referred to here


def charges_reached(crimes: Sequence[Crime], catalogue: Catalogue) -> list[Charge]:
    """The charges every count of which one of ``crimes`` satisfies."""
    reached = {c.id for c in crimes}
    return [charge for charge in catalogue.charges.values()
            if all(any(crime in reached for crime in count) for count in charge.counts)]


def schedule_groups(incidents: Sequence[Incident], reach: Mapping[str, Sequence[Crime]],
                    catalogue: Catalogue) -> list[ScheduleGroup]:
    first: dict[str, str | None] = {}
    by_charge: dict[str, list[Incident]] = {name: [] for name in catalogue.charges}
    for incident in incidents:
        charges = charges_reached(reach.get(incident.id, ()), catalogue)
        first[incident.id] = charges[0].name if charges else None
        for charge in charges:
            by_charge[charge.name].append(incident)
    groups = []
    for name, members in by_charge.items():
        if members:
            groups.append(ScheduleGroup(
                catalogue.charges[name],
                tuple(i for i in members if first[i.id] == name),
                tuple(i for i in members if first[i.id] != name)))
    rest = tuple(i for i in incidents if first[i.id] is None)
    if rest:
        groups.append(ScheduleGroup(None, rest, ()))
    return groups


class FactNumbers:
    """Numbers the schedule's paragraphs 1, 2, 3 ... across the whole document."""

    def __init__(self) -> None:
        self.count = 0
        self.of_incident: dict[str, tuple[int, int]] = {}

    def next(self) -> str:
        self.count += 1
        return f"{self.count}."


def incident_facts(incident: Incident, numbers: FactNumbers,
                   exhibits: Mapping[int, Exhibit]) -> list[Block]:
    """The material facts of one incident, one allegation a paragraph, each as claimed."""
    start = numbers.count + 1
    blocks: list[Block] = []
    claims = incident.claims
    place_name, place = summary.best_place(incident)
    where = (place or {}).get("name") or place_name or "an unplaced location"
    category = [c for c in claims if c.kind == "category"]
    lead: list[Inline] = [Strong(f"Incident {incident.id}. "),
                          Text(f"{title_of(incident)}.")]
    if category:
        lead.append(cite(*category[:2]))
    lead += [Text(" "), Link("Incident report", incident_anchor(incident.id)), Text(".")]
    blocks.append(Paragraph(tuple(lead), number=numbers.next(), group=incident.id))
    for measure in ("killed", "injured"):
        best = summary.best_figure(incident, measure)
        if best is None or best.low is None:
            continue
        stated = str(best.low) if best.high in (None, best.low) else f"{best.low}–{best.high}"
        qualifier = "" if best.qualifier in ("exact", "none", "") else f"{best.qualifier} "
        claim = next((c for c in claims if c.id == best.claim_id), None)
        parts: list[Inline] = [Text(f"According to {best.source or 'a source'}, "
                                    f"{qualifier}{stated} people were {measure} at {where}.")]
        if claim is not None:
            parts.append(cite(claim))
        low, high = summary.figure_range(incident, measure)
        if low is not None and high is not None and low != high:
            parts.append(Text(f" The figures given range from {low} to {high}."))
        blocks.append(Paragraph(tuple(parts), number=numbers.next(), group=incident.id))
    for kind, words in (("weapon", "the weapon as"), ("target", "what was hit as")):
        found = [c for c in claims if c.kind == kind]
        if not found:
            continue
        by_value: dict[str, list] = {}  # type: ignore[type-arg]
        for c in found:
            value = getattr(c.value, "weapon", None) or getattr(c.value, "target_type", "")
            by_value.setdefault(str(value).replace("_", " "), []).append(c)
        parts = []
        for value, group in sorted(by_value.items()):
            whom = ", ".join(sorted({c.attributed_to or "an unnamed source" for c in group}))
            parts += [Text(f"{whom[:1].upper()}{whom[1:]} describe(s) {words} {value}."),
                      cite(*group[:3]), Text(" ")]
        blocks.append(Paragraph(tuple(parts), number=numbers.next(), group=incident.id))
    perpetrators = [c for c in claims if c.kind == "perpetrator"]
    if perpetrators:
        parts = []
        for c in perpetrators[:6]:
            label = getattr(c.value, "label", "")
            verb = "counter-accuses" if getattr(c.value, "competing", False) else "attributes it to"
            parts += [Text(f"{c.attributed_to or 'An unnamed source'} {verb} {label}."),
                      cite(c), Text(" ")]
        blocks.append(Paragraph(tuple(parts), number=numbers.next(), group=incident.id))
    denials = [c for c in claims if c.kind in ("denial", "military_objective",
                                                "no_military_objective")]
    if denials:
        parts = []
        for c in denials[:6]:
            what = {"denial": "denies responsibility",
                    "military_objective": "claims a military objective",
                    "no_military_objective": "says there was no military objective"}[c.kind]
            parts += [Text(f"{c.attributed_to or 'An unnamed source'} {what}."), cite(c),
                      Text(" ")]
        blocks.append(Paragraph(tuple(parts), number=numbers.next(), group=incident.id))
    held = sorted({m.document.item_id for m in incident.mentions} & set(exhibits))
    if held:
        links: list[Inline] = [Text("Evidence: ")]
        for n, item_id in enumerate(held):
            if n:
                links.append(Text(", "))
            links.append(Link(exhibits[item_id].label, f"exhibit-{exhibits[item_id].number}"))
        links.append(Text("."))
        blocks.append(Paragraph(tuple(links), number=numbers.next(), style="small",
                                group=incident.id))
    numbers.of_incident[incident.id] = (start, numbers.count)
    return blocks


def schedule_blocks(groups: Sequence[ScheduleGroup], exhibits: Mapping[int, Exhibit]
                    ) -> list[Block]:
    numbers = FactNumbers()
    blocks: list[Block] = [Heading(1, "Schedule of incidents", anchor="schedule"),
                           Paragraph((Text(
                               "Each paragraph states one allegation as the sources make it, "
                               "with its footnote to the words it rests on. An incident is "
                               "set out in full under the first charge its claims reach and "
                               "referred to under any other."),), style="note")]
    for group in groups:
        if group.charge is None:
            blocks.append(Heading(2, f"Incidents {UNCHARGED}"))
            blocks.append(Paragraph((Text(
                "The claims of these incidents reach no charge of the catalogue in full; "
                "they are scheduled so that nothing is left out."),), style="note"))
        else:
            blocks.append(Heading(2, f"Charge: {group.charge.name}"))
            blocks.append(Paragraph((Text(f"{group.charge.about} Counts: "
                                          f"{group.charge.describe()}."),), style="note"))
        for incident in group.incidents:
            blocks += incident_facts(incident, numbers, exhibits)
        for incident in group.also:
            first, last = numbers.of_incident.get(incident.id, (0, 0))
            blocks.append(Paragraph((Strong(f"Incident {incident.id}. "), Text(
                f"Set out at paragraphs {first} to {last} above; its claims also reach this "
                "charge. "), Link("Incident report", incident_anchor(incident.id)),
                Text(".")), style="small"))
    return blocks


def cover_blocks(incidents: Sequence[Incident], groups: Sequence[ScheduleGroup],
                 exhibits: Sequence[Exhibit], selection: str) -> list[Block]:
    categories = Counter(c for i in incidents for c in summary.categories(i)[:1])
    dated = [d for i in incidents if (d := summary.dates(i)[0]) is not None]
    span = (f"{min(d.start for d in dated).isoformat()} to "
            f"{max(d.end for d in dated).isoformat()}" if dated else "undated")
    reports = len({m.document.item_id for i in incidents for m in i.mentions})
    rows: list[tuple[tuple[Inline, ...], ...]] = [
        ((Text("Incidents"),), (Text(str(len(incidents))),)),
        ((Text("Period the reports cover"),), (Text(span),)),
        ((Text("Items relied on"),), (Text(f"{reports} items; {len(exhibits)} exhibits"),)),
        ((Text("Selection"),), (Text(selection or "the whole case"),)),
    ]
    rows += [((Text(f"Reported as {k.replace('_', ' ')}"),), (Text(str(v)),))
             for k, v in sorted(categories.items(), key=lambda kv: (-kv[1], kv[0]))[:8]]
    charged = [((Text(g.charge.name if g.charge else UNCHARGED),),
                (Text(f"{len(g.incidents) + len(g.also)} incidents"),)) for g in groups]
    return [Heading(1, "Summary", anchor="summary"),
            Paragraph((Text(
                "This case file sets out what the reports and datasets held in the case say "
                "about each incident, who says it, and how each statement can be checked "
                "against the preserved originals. It states claims, not findings: contested "
                "facts are given with every version, denials included."),)),
            Table(("", ""), tuple(rows), widths=(1.6, 3.0)),
            Heading(2, "Charges and the incidents their elements reach"),
            Table(("Charge", "Incidents"), tuple(charged), widths=(3.0, 1.2))]


def case_blocks(incidents: Sequence[Incident], *, reach: Mapping[str, Sequence[Crime]],
                catalogue: Catalogue, exhibits: Mapping[int, Exhibit],
                pattern_blocks: Sequence[Block],
                incident_report: Callable[[Incident, str], Sequence[Block]],
                short_form: Callable[[Incident], bool],
                selection: str) -> tuple[Block, ...]:
    """The case file's blocks. Incidents with a full report come first, each a part of its
    own; those ``short_form`` picks (known from dataset rows alone) follow as sections of one
    part, so that thousands of them read as a register, not thousands of parts."""
    groups = schedule_groups(incidents, reach, catalogue)
    ordered_exhibits = [exhibits[k] for k in sorted(exhibits, key=lambda k: exhibits[k].number)]
    blocks: list[Block] = [*cover_blocks(incidents, groups, ordered_exhibits, selection)]
    blocks += pattern_blocks  # opens with its own part heading
    blocks += schedule_blocks(groups, exhibits)
    full = [i for i in incidents if not short_form(i)]
    short = [i for i in incidents if short_form(i)]
    for n, incident in enumerate(full, 1):
        blocks += incident_report(incident, str(n))
    if short:
        blocks += [Heading(1, "Incidents recorded only in datasets", anchor="dataset-incidents"),
                   Paragraph((Text(
                       "Each incident below is known from rows of the datasets held in the "
                       "case, not from a report. Its section gives what the rows record, with "
                       "each value cited to its cell; the full report, with maps, is made by "
                       "'casebuilder report incident ID'."),), style="note")]
        for n, incident in enumerate(short, len(full) + 1):
            blocks += incident_report(incident, str(n))
    blocks += [PageBreak(), Heading(1, "Exhibits", anchor="exhibits"),
               *exhibit_list(ordered_exhibits)]
    return tuple(blocks)
