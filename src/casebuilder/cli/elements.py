"""Commands of the legal analysis: an incident's element matrix, and analysts' findings."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from casebuilder.analysis.elements.status import STANDARDS, STATUSES
from casebuilder.cli.main import CliState, cli, opened_case

if TYPE_CHECKING:
    from casebuilder.analysis.elements.matrix import Entry, IncidentMatrix


def _quote(entry: Entry) -> str:
    quote = entry.quote if len(entry.quote) <= 110 else entry.quote[:107] + "..."
    return (f"\"{quote}\" — {entry.attributed_to} ({entry.document} "
            f"[{entry.quote_start}:{entry.quote_end}], {entry.evidentiality}, {entry.grade}; "
            f"{entry.signal})")


def _show(matrix: IncidentMatrix) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=170)
    console.print(f"element matrix of {matrix.incident_id} (catalogue {matrix.catalogue[:12]}, "
                  f"pattern run: {matrix.pattern_run or 'none yet'})")
    by_crime = {c.crime.id: c for c in matrix.crimes}
    for charge in matrix.charges:
        console.print(f"charge {charge.name}: {charge.describe()}")
        for count in charge.counts:
            shown = [f"{c} {by_crime[c].statuses()}" for c in count if c in by_crime]
            console.print("  " + " OR ".join(shown))
    for crime in matrix.crimes:
        table = Table(title=f"{crime.crime.id} {crime.crime.title}", show_lines=True)
        for column, width in (("element", 14), ("status / rule", 24), ("for", 60),
                              ("against", 60)):
            table.add_column(column, overflow="fold", max_width=width)
        for row in crime.rows:
            status = f"{row.status}\n{row.rule}"
            if row.finding:
                f = row.finding
                status += (f"\nanalyst {f.actor} at {f.at} (decision {f.decision}): "
                           f"{f.standard or '-'}; {f.reason}")
            pending = [f"{p.signal}: {p.summary}" for p in row.patterns if p.side == "for"]
            against_patterns = [f"{p.signal}: {p.summary}" for p in row.patterns
                                if p.side == "against"]
            supporting = [_quote(e) for e in row.supporting[:4]]
            if len(row.supporting) > 4:
                supporting.append(f"... and {len(row.supporting) - 4} more (--json)")
            contrary = [_quote(e) for e in row.contrary]
            table.add_row(f"{row.element.id} ({row.element.kind})\n{row.element.statement}",
                          status, "\n".join(supporting + pending) or "-",
                          "\n".join(contrary + against_patterns) or "-")
        console.print(table)


@cli.command("elements")
@click.argument("incident_id")
@click.option("--charge", "charges", multiple=True,
              help="A charge of charges.toml, or a crime id such as 8(2)(b)(i); repeatable. "
              "Default: the crimes the incident's claims reach.")
@click.option("--all", "every_crime", is_flag=True, help="Every crime of the catalogue.")
@click.option("--json", "as_json", is_flag=True, help="Print the matrix as JSON.")
@click.pass_obj
def elements_command(state: CliState, incident_id: str, charges: tuple[str, ...],
                     every_crime: bool, as_json: bool) -> None:
    """An incident's element matrix: each element's status, the rule that set it, and the
    claims for and against it (logged as a view)."""
    from casebuilder.analysis.elements.catalogue import crimes_named, load_catalogue
    from casebuilder.analysis.elements.matrix import crimes_in_reach, element_matrix
    from casebuilder.analysis.elements.pattern_evidence import (
        case_pattern_report,
        pattern_evidence,
    )
    from casebuilder.cli.incidents import warn_unapplied
    from casebuilder.preservation.items import item_ref
    from casebuilder.preservation.reads import log_view
    from casebuilder.resolution.incidents import build_incidents, find_incident
    from casebuilder.store.schema import Item

    catalogue = load_catalogue()
    with opened_case(state, create=False) as case:
        incidents = build_incidents(case)
        incident = find_incident(incidents, incident_id)
        if every_crime:
            crimes = list(catalogue.crimes.values())
        elif charges:
            crimes = crimes_named(catalogue, charges)
        else:
            crimes = crimes_in_reach(incident, catalogue)
        chosen = [catalogue.charges[c] for c in charges if c in catalogue.charges]
        matrix = element_matrix(incident, catalogue, crimes, charges=chosen,
                                evidence=pattern_evidence(case_pattern_report(incidents),
                                                          incident.id))
        warn_unapplied(case)
        with case.session() as session:
            items = [session.get(Item, i) for i in sorted({m.document.item_id
                                                          for m in incident.mentions})]
            refs = [item_ref(i) for i in items if i is not None]
        log_view(case, "element matrix", refs, {
            "incident": incident.id, "crimes": [c.id for c in crimes],
            "charges": list(charges), "catalogue": catalogue.digest,
            "pattern_run": matrix.pattern_run})
    if as_json:
        click.echo(json.dumps(matrix.as_json(), indent=2, ensure_ascii=False))
        return
    _show(matrix)


@cli.group("element")
def element_group() -> None:
    """Record an analyst's finding on a legal element of an incident, or withdraw one."""


@element_group.command("assess")
@click.argument("incident_id")
@click.argument("element_id")
@click.option("--status", type=click.Choice(STATUSES), required=True,
              help="The element's status as the analyst finds it.")
@click.option("--standard", type=click.Choice(STANDARDS), default=None,
              help="The standard of proof the analyst says is reached (needed for supported).")
@click.option("--reason", required=True, help="Why: what the analyst relies on.")
@click.pass_obj
def element_assess(state: CliState, incident_id: str, element_id: str, status: str,
                   standard: str | None, reason: str) -> None:
    """Record an analyst's finding on ELEMENT_ID (e.g. 8(2)(b)(i)-3) of an incident."""
    from casebuilder.analysis.elements.catalogue import load_catalogue
    from casebuilder.analysis.elements.findings import record_finding
    from casebuilder.resolution.incidents import build_incidents, find_incident

    catalogue = load_catalogue()
    with opened_case(state, create=False) as case:
        incidents = build_incidents(case)
        incident = find_incident(incidents, incident_id)
        decision = record_finding(case, catalogue, incident, element_id, status, standard,
                                  reason)
    click.echo(f"finding on {element_id} of {incident.id} recorded as decision {decision.id} "
               f"({status}{', ' + standard if standard else ''}; logged in the custody log).")


@element_group.command("undo")
@click.argument("decision_id", type=int)
@click.option("--reason", required=True, help="Why the finding is withdrawn.")
@click.pass_obj
def element_undo(state: CliState, decision_id: int, reason: str) -> None:
    """Withdraw an analyst's finding on an element (by its decision number); logged, and
    itself undoable, like 'casebuilder incident undo'."""
    from casebuilder.analysis.elements.findings import ACTION
    from casebuilder.resolution.decisions import DecisionError, all_decisions, record_decision

    with opened_case(state, create=False) as case:
        target = next((d for d in all_decisions(case) if d.id == decision_id), None)
        if target is None or target.action != ACTION:
            raise DecisionError(f"there is no finding on an element with decision number "
                                f"{decision_id} (see 'casebuilder elements INCIDENT')")
        decision = record_decision(case, "undo", target.incident_id,
                                   {"undoes": decision_id, "undone_action": target.action},
                                   reason)
    element: Any = target.payload.get("element")
    click.echo(f"finding {decision_id} on {element} of {target.incident_id} withdrawn by "
               f"decision {decision.id} (logged in the custody log).")
