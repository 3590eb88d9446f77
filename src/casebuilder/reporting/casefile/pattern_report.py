"""The pattern report: one pattern analysis (analysis/patterns) written as a :class:`Document`.

It says what the analysis finds and how: a summary table of the findings, then each finding
with its figures, the statistical test and Holm-adjusted p-value where the analysis made one,
a series map and a timeline of its incidents, and the incidents themselves by id, place and
date; then the distributions by hour and weekday, the weapon-target table, every test made,
and the parameters and input digest of the run so that it can be repeated. The wording is the
analysis's: a finding is a regularity among incidents as the sources report them, never a
statement of who did what; the parties the sources name are given as their claims.

:func:`pattern_blocks` is the body, for the case file to embed; :func:`pattern_document` wraps
it as a report of its own.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Protocol

from casebuilder.analysis.patterns.findings import Finding, StatTest
from casebuilder.analysis.patterns.run import KINDS, TESTED_KINDS, PatternReport
from casebuilder.reporting.casefile.document import (
    Block,
    BulletList,
    Document,
    Emphasis,
    Figure,
    Heading,
    Inline,
    Link,
    Paragraph,
    Strong,
    Table,
    Text,
)
from casebuilder.reporting.casefile.figures import ChartDrawer, Count, Dated, MapDrawer, MapPoint

#: How each kind of finding is headed in the report.
KIND_TITLES = {
    "scale": "Scale of the incidents selected",
    "series": "Series of strikes close in place and time",
    "repeated_site": "Repeated strikes on one site",
    "double_tap": "Second strike at the same place soon after a first",
    "same_day_same_site": "Several strikes on one site in one day",
    "protected_object": "Protected objects reported hit",
    "crowded_place_busy_hours": "Crowded places at busy hours",
    "wide_area_populated": "Wide-area weapons reported in populated places",
    "far_from_objective": "Far from any military objective a source names",
    "no_objective_stated": "A source states there was no military objective",
    "weapon_target": "A weapon and a kind of target reported together",
    "time_of_day": "Time of day",
    "weekday": "Day of the week",
    "campaign_onset": "A change in the rate of strikes (onset)",
    "rate_drop": "A drop in the rate of strikes",
}
#: A finding lists its incidents in a table up to this many; beyond, under its figure only.
TABLE_LIMIT = 60


class IncidentFacts(Protocol):
    """What the report shows of an incident beside its id (the analysis's IncidentRecord
    has it)."""

    @property
    def place(self) -> str: ...
    @property
    def day(self) -> date | None: ...
    @property
    def lat(self) -> float | None: ...
    @property
    def lon(self) -> float | None: ...
    @property
    def uncertainty_km(self) -> float | None: ...
    @property
    def killed(self) -> int | None: ...


def pattern_document(report: PatternReport, *, charts: ChartDrawer, maps: MapDrawer,
                     case_name: str, as_of: str, state_digest: str,
                     incidents_by_id: Mapping[str, IncidentFacts]) -> Document:
    """The pattern report of one run as a document of its own."""
    inputs = report.inputs
    return Document(
        title="Pattern analysis",
        subtitle=(f"{inputs.get('incidents', 0)} of {inputs.get('of', 0)} incidents; "
                  f"{len(report.findings)} finding(s)"),
        case_name=case_name, as_of=as_of, state_digest=state_digest,
        blocks=pattern_blocks(report, charts=charts, maps=maps,
                              incidents_by_id=incidents_by_id),
        notices=("Findings are regularities among incidents as the sources report them; "
                 "they do not establish who carried out any attack.",
                 f"Inputs digest {inputs.get('digest', '')}; parameters digest "
                 f"{report.parameters.digest()}."))


def pattern_blocks(report: PatternReport, *, charts: ChartDrawer, maps: MapDrawer,
                   incidents_by_id: Mapping[str, IncidentFacts]) -> tuple[Block, ...]:
    """The body of the pattern report (no title page), for the case file to embed."""
    blocks: list[Block] = [Heading(1, "Pattern analysis", "patterns")]
    blocks += _introduction(report)
    blocks += _summary(report)
    for number, finding in enumerate(report.findings, 1):
        blocks += _finding(number, finding, report, charts, maps, incidents_by_id)
    blocks += _distributions(report, charts)
    blocks += _weapon_target(report)
    blocks += _tests(report)
    blocks += _parameters(report)
    return tuple(blocks)


# --- parts -----------------------------------------------------------------------------------


def _introduction(report: PatternReport) -> list[Block]:
    inputs = report.inputs
    selection = report.selection.as_json()
    chosen = ("all incidents of the case" if not selection else
              "the incidents admitted by the selection " + ", ".join(
                  f"{k} {v}" for k, v in sorted(selection.items())))
    counts = Counter(f.kind for f in report.findings)
    kinds = ", ".join(f"{KIND_TITLES.get(k, k).lower()} ({counts[k]})" for k in KINDS
                      if counts[k])
    parts: list[Inline] = [Text(
        f"The analysis covers {inputs.get('incidents', 0)} of the case's "
        f"{inputs.get('of', 0)} incidents ({chosen}). ")]
    if report.findings:
        parts.append(Text(f"It finds {len(report.findings)} pattern(s): {kinds}. "))
    else:
        parts.append(Text("It finds no pattern. "))
    parts.append(Text(
        f"It made {len(report.tests)} statistical test(s); p-values are adjusted by Holm's "
        f"method within each kind of test, and a test counts as significant at an adjusted "
        f"p below {report.parameters.run.alpha}."))
    blocks: list[Block] = [Paragraph(tuple(parts))]
    blocks.append(Paragraph((Text(
        "A finding describes how incidents, as the sources report them, relate in place, "
        "time, weapon and target. It does not say who carried out an attack or why; where "
        "sources name a party, the report gives that as the sources' claim."),),
        style="note"))
    left_out = {k: v for k, v in sorted(report.left_out.items()) if v}
    if left_out:
        blocks.append(Paragraph((Text("Left out of some methods for want of data: " + "; ".join(
            f"{reason}: {count}" for reason, count in left_out.items()) + "."),),
            style="small"))
    return blocks


def _summary(report: PatternReport) -> list[Block]:
    if not report.findings:
        return []
    rows = []
    for number, f in enumerate(report.findings, 1):
        test, p_adjusted = _test_cells(f)
        rows.append((
            (Link(str(number), _anchor(f)),),
            (Text(KIND_TITLES.get(f.kind, f.kind)),),
            (Text(_sentence(f.summary)),),
            (Text(str(len(f.incidents))),),
            (Text(test),),
            (Text(p_adjusted),),
        ))
    return [Heading(2, "Summary of findings", "patterns-summary"),
            Table(("No.", "Kind", "What the analysis finds", "Incidents", "Test",
                   "p (Holm)"), tuple(rows), caption="Findings of the pattern analysis",
                  widths=(0.5, 1.6, 4.0, 0.8, 1.6, 0.9))]


def _finding(number: int, f: Finding, report: PatternReport, charts: ChartDrawer,
             maps: MapDrawer, incidents_by_id: Mapping[str, IncidentFacts]) -> list[Block]:
    title = KIND_TITLES.get(f.kind, f.kind)
    blocks: list[Block] = [Heading(3, f"Finding {number}: {title}", _anchor(f))]
    blocks.append(Paragraph((Text("The analysis finds "), Text(_sentence(f.summary)),
                             Text(f" ({len(f.incidents)} incident(s); finding {f.id})."))))
    if f.statistic:
        blocks.append(Paragraph(_statistic(f.statistic), style="note"))
    if f.kind in TESTED_KINDS and not f.statistic:
        blocks.append(Paragraph((Text("No test statistic was recorded for this finding."),),
                                style="small"))
    figures = [(Strong(_label(k)), Text(": " + _value(v))) for k, v in sorted(f.details.items())
               if not isinstance(v, dict | list)]
    if figures:
        blocks.append(BulletList(tuple(figures)))
    claimed = Counter(p for i in f.incidents for p in report.labels.get(i, ()))
    if claimed:
        blocks.append(Paragraph((Text(
            "Sources name as the party acting: " + "; ".join(
                f"{party} (in {count} of the {len(f.incidents)} incidents)"
                for party, count in sorted(claimed.items())) +
            ". These are the sources' claims; the analysis does not use them."),),
            style="note"))
    listed = f.incidents
    points = []
    for index, incident in enumerate(listed, 1):
        facts = incidents_by_id.get(incident)
        if facts is not None and facts.lat is not None and facts.lon is not None:
            points.append(MapPoint(lat=facts.lat, lon=facts.lon, label=str(index),
                                   incident_id=incident, uncertainty_km=facts.uncertainty_km))
    if points:
        blocks.append(Figure(
            maps.series(points, title=f"Finding {number}"),
            caption=(f"Finding {number}: the {len(points)} incident(s) with a known place, "
                     "numbered as listed"), incidents=listed))
    events = []
    for incident in listed:
        facts = incidents_by_id.get(incident)
        if facts is not None and facts.day is not None:
            events.append(Dated(day=facts.day.isoformat(), label=_short(incident, facts),
                                value=max(facts.killed or 0, 0)))
    if events:
        blocks.append(Figure(
            charts.timeline(events, title=f"Finding {number}: incidents by day"),
            caption=(f"Finding {number}: the {len(events)} incident(s) with a known day; mark "
                     "size grows with the number reported killed"), incidents=listed,
            width_mm=160.0))
    if len(listed) <= TABLE_LIMIT:
        blocks.append(_incident_table(number, listed, incidents_by_id))
    else:
        blocks.append(Paragraph((Text(
            f"The {len(listed)} incidents of this finding are listed under its figures."),),
            style="small"))
    return blocks


def _incident_table(number: int, incidents: Sequence[str],
                    incidents_by_id: Mapping[str, IncidentFacts]) -> Table:
    rows = []
    for index, incident in enumerate(incidents, 1):
        facts = incidents_by_id.get(incident)
        day = facts.day.isoformat() if facts is not None and facts.day else "date not known"
        place = facts.place if facts is not None and facts.place else "place not known"
        killed = (str(facts.killed) if facts is not None and facts.killed is not None
                  else "")
        rows.append(((Text(str(index)),), (Link(incident, f"incident-{incident}"),),
                     (Text(day),), (Text(place),), (Text(killed),)))
    return Table(("No.", "Incident", "Date", "Place", "Killed (reported)"), tuple(rows),
                 caption=f"Incidents of finding {number}", widths=(0.5, 1.6, 1.2, 3.0, 1.0))


def _distributions(report: PatternReport, charts: ChartDrawer) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Time of day and weekday", "patterns-time")]
    hours = next((t for t in report.tests if t.kind == "time_of_day"), None)
    week = next((t for t in report.tests if t.kind == "weekday"), None)
    if hours is not None and isinstance(hours.details.get("bins"), dict):
        counts = [Count(str(k), int(v)) for k, v in hours.details["bins"].items()]
        blocks.append(Figure(
            charts.bars(counts, "Incidents by hour of the day (local time)", "incidents"),
            caption="Incidents whose time of day a source gives, by hour (" +
                    _test_sentence(hours) + ")"))
    else:
        blocks.append(Paragraph((Text(
            "Too few incidents have a time of day for the distribution to be tested."),),
            style="small"))
    if week is not None and isinstance(week.details.get("observed"), dict):
        counts = [Count(str(k), int(v)) for k, v in week.details["observed"].items()]
        blocks.append(Figure(
            charts.bars(counts, "Incidents by day of the week", "incidents"),
            caption="Incidents known to the day, by weekday (" + _test_sentence(week) + ")"))
    else:
        blocks.append(Paragraph((Text(
            "Too few incidents are dated to the day for the weekdays to be tested."),),
            style="small"))
    return blocks


def _weapon_target(report: PatternReport) -> list[Block]:
    pairs = sorted((t for t in report.tests if t.kind == "weapon_target"),
                   key=lambda t: t.group)
    blocks: list[Block] = [Heading(2, "Weapons and targets", "patterns-weapon-target")]
    if not pairs:
        blocks.append(Paragraph((Text(
            "No weapon and kind of target are each named often enough for their pairing to "
            "be tested."),), style="small"))
        return blocks
    rows = []
    for t in pairs:
        rows.append(((Text(str(t.details.get("weapon", ""))),),
                     (Text(str(t.details.get("target", ""))),),
                     (Text(str(t.details.get("together", ""))),),
                     (Text(_value(t.details.get("expected", ""))),),
                     (Text(_p(t.p_value)),), (Text(_p(t.p_adjusted)),),
                     (Strong("yes"),) if t.significant else (Text("no"),)))
    blocks.append(Paragraph((Text(
        "Each weapon and each kind of target named often enough is tested in pairs (Fisher's "
        "exact test, one-sided): does the pair occur together more often than if weapon and "
        "target were independent?"),)))
    blocks.append(Table(("Weapon", "Target", "Together", "Expected", "p", "p (Holm)",
                         "Significant"), tuple(rows),
                        caption="Weapon-target pairs tested",
                        widths=(1.6, 1.8, 0.9, 0.9, 0.9, 0.9, 0.9)))
    return blocks


def _tests(report: PatternReport) -> list[Block]:
    if not report.tests:
        return []
    tests = sorted((t for t in report.tests if t.kind != "weapon_target"),
                   key=lambda t: (KINDS.index(t.kind) if t.kind in KINDS else len(KINDS),
                                  t.kind, t.group))
    if not tests:
        return []
    rows = tuple(((Text(t.kind),), (Text(t.group),), (Text(t.method),), (Text(str(t.n)),),
                  (Text(f"{t.statistic:.3f}"),), (Text(_p(t.p_value)),),
                  (Text(_p(t.p_adjusted)),), (Text("yes" if t.significant else "no"),))
                 for t in tests)
    return [Heading(2, "Every test made", "patterns-tests"),
            Paragraph((Text("The tests that found nothing are listed too, so that what was "
                            "looked for and not found can be read with what was found (the "
                            "weapon-target pairs are in the table above)."),)),
            Table(("Kind", "What", "Method", "n", "Statistic", "p", "p (Holm)",
                   "Significant"), rows, caption="Statistical tests of the run",
                  widths=(1.2, 1.6, 2.2, 0.5, 0.9, 0.8, 0.8, 0.8))]


def _parameters(report: PatternReport) -> list[Block]:
    inputs = report.inputs
    run: list[tuple[str, str]] = [
        ("Incidents analysed", f"{inputs.get('incidents', 0)} of {inputs.get('of', 0)}"),
        ("Input digest (SHA-256)", str(inputs.get("digest", ""))),
        ("Selection", _value(report.selection.as_json()) if report.selection.as_json()
         else "all incidents"),
        ("Parameters file", report.parameters.source),
        ("Parameters digest (SHA-256)", report.parameters.digest()),
        ("Findings digest (SHA-256)", report.findings_digest()),
    ]
    for section, values in sorted(report.parameters.as_json().items()):
        for name, value in sorted(values.items()):
            run.append((f"{section}.{name}", _value(value)))
    rows = tuple(((Text(k),), (Text(v),)) for k, v in run)
    return [Heading(2, "Parameters and inputs of the run", "patterns-parameters"),
            Paragraph((Text("The run can be repeated with these parameters on inputs with "
                            "this digest; the same inputs and parameters give the same "
                            "findings."),)),
            Table(("Parameter", "Value"), rows, caption="Parameters and inputs",
                  widths=(2.0, 4.0))]


# --- wording ---------------------------------------------------------------------------------


def _anchor(f: Finding) -> str:
    return f"finding-{f.id}"


def _sentence(summary: str) -> str:
    return summary.strip().rstrip(".")


def _short(incident: str, facts: IncidentFacts) -> str:
    return f"{facts.place} ({incident})" if facts.place else incident


def _label(key: str) -> str:
    return key.replace("_", " ")


def _value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "not known"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value == value else "n/a"
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _p(value: float) -> str:
    if value != value:  # NaN
        return "n/a"
    return "< 0.0001" if value < 0.0001 else f"{value:.4f}"


def _test_cells(f: Finding) -> tuple[str, str]:
    if not f.statistic:
        return "", ""
    adjusted = f.statistic.get("p_adjusted")
    return (str(f.statistic.get("test", "")),
            _p(float(adjusted)) if isinstance(adjusted, int | float) else "")


def _statistic(statistic: dict[str, Any]) -> tuple[Inline, ...]:
    """The test's own figures, then the p-value, the Holm-adjusted p-value and the verdict."""
    parts: list[Inline] = [Emphasis(str(statistic.get("test", "test")))]
    last = ("p_value", "p_adjusted", "significant")
    shown = [f"{_label(k)} {_value(v)}" for k, v in sorted(statistic.items())
             if k != "test" and k not in last]
    if isinstance(statistic.get("p_value"), int | float):
        shown.append(f"p {_p(float(statistic['p_value']))}")
    if isinstance(statistic.get("p_adjusted"), int | float):
        shown.append(f"Holm-adjusted p {_p(float(statistic['p_adjusted']))}")
    if isinstance(statistic.get("significant"), bool):
        shown.append("significant" if statistic["significant"] else "not significant")
    if shown:
        parts.append(Text(": " + ", ".join(shown) + "."))
    return tuple(parts)


def _test_sentence(t: StatTest) -> str:
    verdict = "significant" if t.significant else "not significant"
    return (f"{t.method}, n={t.n}, statistic {t.statistic:.2f}, p {_p(t.p_value)}, "
            f"Holm-adjusted {_p(t.p_adjusted)}: {verdict}")
