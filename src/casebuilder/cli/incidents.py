"""Commands of the resolution stage: list incidents, show one, and analysts' decisions."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from casebuilder.cli.main import CliState, cli, opened_case
from casebuilder.model.terms import CATEGORY_ORDER as CATEGORIES
from casebuilder.model.terms import GRADES

if TYPE_CHECKING:
    from casebuilder.model.claim_values import NotTakenValue
    from casebuilder.preservation.case import Case
    from casebuilder.resolution.summary import Incident


def _properties(incidents: list[Incident]) -> list[dict[str, Any]]:
    from casebuilder.resolution.listing import incident_properties
    from casebuilder.resolution.profiles import load_profiles

    profiles = load_profiles()
    return [incident_properties(i, profiles) for i in incidents]


def warn_unapplied(case: Case) -> None:
    """Say on standard error which texts are not extracted yet, and which analysts' decisions
    no longer apply (their mentions were replaced by re-extraction and could not be
    re-anchored)."""
    from casebuilder.extraction.pending import unextracted_items
    from casebuilder.resolution.incidents import stale_decisions

    pending = unextracted_items(case)
    if pending:
        shown = ", ".join(map(str, pending[:10])) + (", …" if len(pending) > 10 else "")
        click.echo(
            f"warning: {len(pending)} text(s) held are not extracted yet (items {shown}), so "
            "their incidents are missing here; run 'casebuilder extract'",
            err=True,
        )

    for d in stale_decisions(case):
        click.echo(
            f"warning: the {d.action} of {d.incident_id} by {d.actor} ({d.at}) no longer "
            "matches any mention after re-extraction and is NOT applied; review it",
            err=True,
        )


@cli.group("incidents", invoke_without_command=True)
@click.option("--place", help="Only incidents whose place or region contains this text.")
@click.option("--from", "since", type=click.DateTime(["%Y-%m-%d"]), help="From this date.")
@click.option("--to", "until", type=click.DateTime(["%Y-%m-%d"]), help="Up to this date.")
@click.option("--category", type=click.Choice(CATEGORIES),
              help="Only incidents of this category.")
@click.option("--grade", type=click.Choice(GRADES), help="Only incidents of this grade.")
@click.option("--near", metavar="LAT,LON",
              help="Only incidents within --km of this point (degrees).")
@click.option("--km", type=float, help="The distance for --near (default 10).")
@click.option("--json", "as_json", is_flag=True, help="Print the chosen incidents as JSON.")
@click.pass_context
def incidents_command(
    context: click.Context,
    place: str | None,
    since: Any,
    until: Any,
    category: str | None,
    grade: str | None,
    near: str | None,
    km: float | None,
    as_json: bool,
) -> None:
    """List the case's incidents as a table (the listing is logged as a view), read from the
    stored incidents after bringing them up to date; 'incidents rebuild' merges them afresh."""
    from rich.console import Console
    from rich.table import Table

    from casebuilder.preservation.reads import log_view
    from casebuilder.resolution.spatial import Near
    from casebuilder.resolution.stored import ListFilter, listed

    if context.invoked_subcommand is not None:
        return
    state: CliState = context.obj
    chosen_by = ListFilter(place=place, since=since.date() if since else None,
                           until=until.date() if until else None, category=category,
                           grade=grade, near=Near.parse(near, km) if near else None)
    with opened_case(state, create=False) as case:
        chosen, total = listed(case, chosen_by, whole=as_json)
        warn_unapplied(case)
        filters = {"place": place, "from": since.date().isoformat() if since else None,
                   "to": until.date().isoformat() if until else None, "category": category,
                   "grade": grade, "near": near,
                   "km": str(km) if near and km is not None else None}  # the log holds no floats
        log_view(case, "incident list", details={
            "filters": {k: v for k, v in filters.items() if v is not None}})
    if as_json:
        click.echo(json.dumps({"count": len(chosen), "of": total, "incidents": chosen},
                              indent=2, ensure_ascii=False))
        return
    table = Table(title=f"{len(chosen)} of {total} incidents", show_lines=False)
    for column in (
        "id",
        "date",
        "place",
        "categories",
        "killed",
        "injured",
        "weapon",
        "grade",
        "sources",
        "docs",
    ):
        table.add_column(column, overflow="fold")
    for p in chosen:
        when = p["date_start"] or "?"
        if p["date_end"] and p["date_end"] != p["date_start"]:
            when = f"{when}..{p['date_end']}"

        table.add_row(
            p["id"],
            when,
            f"{p['place']} ({p['precision']})",
            ", ".join(p["categories"]),
            _toll(p, "killed"),
            _toll(p, "injured"),
            p["weapon"] or "-",
            p["grade"],
            str(p["independent_sources"]),
            str(p["document_count"]),
        )
    Console(width=160).print(table)


@incidents_command.command("rebuild")
@click.pass_obj
def incidents_rebuild(state: CliState) -> None:
    """Merge every current mention afresh into the stored incidents (logged); incidents are
    otherwise kept up to date part by part as documents and decisions arrive."""
    from casebuilder.resolution.stored import refresh

    with opened_case(state, create=False) as case:
        done = refresh(case, rebuild=True)
    click.echo(f"Rebuilt {done.incidents} incident(s) from {done.merged_again} mention(s).")


def _not_taken(n: dict[str, Any]) -> str:
    """"place 'Kyiv', taken as venue — place_roles/venue-of-a-gathering (report.txt
    [120:124])"."""
    from casebuilder.model.claim_values import not_taken_from_json, taken_as

    value = not_taken_from_json(n["value"])
    detail = _detail(value)
    what = f"{value.what} {value.words!r}" + (f" ({detail})" if detail else "")
    role = taken_as(value)
    if role:
        what += f", taken as {role.replace('_', ' ')}"
    return f"{what} — {n['rule']} ({n['document']} [{n['char_start']}:{n['char_end']}])"


def _detail(value: NotTakenValue) -> str:
    """What kind of the thing it was: the category, measure, weapon or target type."""
    # Imported here: building the claim value classes costs every command a tenth of a second.
    from casebuilder.model.claim_values import (
        NotTakenCategory,
        NotTakenFigure,
        NotTakenTarget,
        NotTakenWeapon,
    )

    if isinstance(value, NotTakenCategory):
        return value.category or ""  # absent: the value table was asked about the words
    if isinstance(value, NotTakenFigure):
        return value.measure
    if isinstance(value, NotTakenWeapon):
        return value.weapon
    if isinstance(value, NotTakenTarget):
        return value.target_type
    return ""  # a date or a place: its words say it


def _toll(p: dict[str, Any], measure: str) -> str:
    low, high, qualifier = p[f"{measure}_min"], p[f"{measure}_max"], p[f"{measure}_qualifier"]
    if low is None:
        return "-"
    number = str(low) if high in (None, low) else f"{low}-{high}"
    toll = number if qualifier in (None, "exact") else f"{qualifier} {number}"
    shared = p.get(f"{measure}_shared_by") or []
    return f"{toll}, given jointly for {' and '.join(shared)}" if shared else toll


@cli.group("incident")
def incident_group() -> None:
    """Show one incident, or record an analyst's decision on it (each needs --reason)."""


@incident_group.command("show")
@click.argument("incident_id")
@click.option("--json", "as_json", is_flag=True, help="Print the full record as JSON.")
@click.pass_obj
def incident_show(state: CliState, incident_id: str, as_json: bool) -> None:
    """Why each document was joined, every source's version, figures, contradictions, grade."""
    from casebuilder.preservation.items import item_ref
    from casebuilder.resolution.stored import stored_incident
    from casebuilder.store.schema import Item

    with opened_case(state, create=False) as case:
        incident = stored_incident(case, incident_id)
        (p,) = _properties([incident])
        warn_unapplied(case)
        with case.transaction() as tx:
            items = [
                tx.session.get(Item, i) for i in {m.document.item_id for m in incident.mentions}
            ]
            tx.record(
                "view",
                [item_ref(i) for i in items if i is not None],
                {"what": "incident", "incident": incident.id},
            )
        case.checkpoint()
    if as_json:
        click.echo(json.dumps(p, indent=2, ensure_ascii=False))
        return
    click.echo(
        f"{p['id']}: {', '.join(p['categories'])} at {p['place']} "
        f"({p['precision']}, {p['admin1'] or '-'}, {p['country'] or '-'})"
    )
    start = p["date_start"]
    if p.get("date_open_start"):
        start = f"start not stated (not before {p['date_earliest']})"
    at = ""
    if p.get("time_of_day"):
        at = f", at {' '.join(filter(None, (p['time_of_day'], p.get('time_zone'))))}"
    click.echo(f"  date: {start} .. {p['date_end']} ({p['date_basis']}){at}")
    click.echo(f"  grade: {p['grade']}; independent origins: {p['independent_sources']}")
    for reason in p["grade_reasons"]:
        click.echo(f"    - {reason}")
    click.echo("  why these documents are one incident:")
    for reason in p["merge_reasons"]:
        click.echo(f"    - {reason}")
    for measure in ("killed", "injured"):
        timeline = p["figures"][measure]
        if timeline:
            click.echo(f"  {measure}, in report order (best: {_toll(p, measure)}):")
            for f in timeline:
                earlier = " [called an earlier report]" if f["earlier_report"] else ""
                if f.get("shared_by"):
                    earlier += f" [given jointly for {' and '.join(f['shared_by'])}]"
                when = f["reported_at"] or "?"
                if f.get("stated_at"):  # the time the text gives it as of
                    when = " ".join(filter(None, (f["stated_at"].replace("T", " "),
                                                  f.get("stated_zone"))))
                click.echo(
                    f"    {when:<26} {f['text']!r} — {f['source']} "
                    f"({f['document']}){earlier}"
                )
    if p["contradictions"]:
        click.echo("  contradictions and denials:")
        for c in p["contradictions"]:
            click.echo(f"    * {c['aspect']}: {c['summary']}")
            for version in c.get("versions", []):
                who = ", ".join(sorted({s.get("source", "?") for s in version["sources"]}))
                click.echo(f"        {version['value']}: {who}")
            for key in ("denied_by", "counter_accusations", "claimed", "disputed"):
                for s in c.get(key, []):
                    click.echo(
                        f'        {key.replace("_", " ")}: {s["source"]} — "{s["quote"][:120]}"'
                    )
    click.echo("  sources:")
    for s in p["sources"]:
        click.echo(
            f"    {s['document']} [{s['char_start']}:{s['char_end']}] "
            f"{s['attributed_to']} ({s['source_kind']}, {s['evidentiality']}, "
            f'{"/".join(s["admiralty"])}): "{s["quote"][:140]}"'
        )
    if p["not_taken"]:
        click.echo("  not taken (set aside or read otherwise by a rule; not evidence):")
        for n in p["not_taken"]:
            click.echo(f"    {_not_taken(n)}")
    for d in p["analyst_decisions"]:
        click.echo(f"  decision {d.get('id', '?')}: analyst {d['actor']} {d['action']} at "
                   f"{d['at']}: {d['reason']}")
        for old, new in d.get("reanchored", {}).items():
            click.echo(f"    re-anchored after re-extraction: {old} is now {', '.join(new)}")
        if d.get("unanchored_keys"):
            click.echo(f"    warning: {len(d['unanchored_keys'])} of its mentions no longer exist")


def _decide(
    state: CliState, action: str, incident_id: str, payload: dict[str, Any], reason: str
) -> None:
    from casebuilder.resolution.review import change_incident
    from casebuilder.resolution.stored import stored_incident

    with opened_case(state, create=False) as case:
        decision = change_incident(case, action, incident_id, payload, reason)
        click.echo(f"{action} recorded for {decision.incident_id} as decision {decision.id} "
                   "(logged in the custody log).")
        if action == "split":
            moved = stored_incident(case, decision.payload["moved"][0])
            click.echo(f"The documents moved out are now incident {moved.id}.")


@incident_group.command("merge")
@click.argument("incident_id")
@click.argument("others", nargs=-1, required=True)
@click.option("--reason", required=True, help="Why these are one incident.")
@click.pass_obj
def incident_merge(state: CliState, incident_id: str, others: tuple[str, ...], reason: str) -> None:
    """Merge other incidents into INCIDENT_ID."""
    _decide(state, "merge", incident_id, {"others": list(others)}, reason)


@incident_group.command("split")
@click.argument("incident_id")
@click.option(
    "--document",
    "documents",
    multiple=True,
    required=True,
    help="A document (file name, item id or mention key) to move out; repeatable.",
)
@click.option("--reason", required=True, help="Why they are a different incident.")
@click.pass_obj
def incident_split(
    state: CliState, incident_id: str, documents: tuple[str, ...], reason: str
) -> None:
    """Move documents out of an incident into a new one, and keep them apart."""
    _decide(state, "split", incident_id, {"documents": list(documents)}, reason)


@incident_group.command("undo")
@click.argument("decision_id", type=int)
@click.option("--reason", required=True, help="Why the decision is withdrawn.")
@click.pass_obj
def incident_undo(state: CliState, decision_id: int, reason: str) -> None:
    """Withdraw an analyst's decision (by its number, see 'incident show'); nothing is erased:
    the undo is a decision of its own, logged, and can itself be undone."""
    from casebuilder.resolution.decisions import DecisionError, all_decisions, record_decision

    with opened_case(state, create=False) as case:
        target = next((d for d in all_decisions(case) if d.id == decision_id), None)
        if target is None:
            raise DecisionError(f"there is no decision {decision_id} to undo")
        decision = record_decision(case, "undo", target.incident_id,
                                   {"undoes": decision_id, "undone_action": target.action},
                                   reason)
    click.echo(f"decision {decision_id} ({target.action} of {target.incident_id}) withdrawn by "
               f"decision {decision.id} (logged in the custody log).")


@incident_group.command("edit")
@click.argument("incident_id")
@click.option(
    "--set",
    "assignment",
    required=True,
    help="FIELD=VALUE; fields: place (JSON object), date (ISO, e.g. 2022-04-08 or "
    "2022-03), categories (comma-separated), killed_best / injured_best "
    "(a number or low-high), note.",
)
@click.option("--reason", required=True, help="Why the value is changed.")
@click.pass_obj
def incident_edit(state: CliState, incident_id: str, assignment: str, reason: str) -> None:
    """Override one value of an incident (the sources' claims are kept)."""
    from casebuilder.resolution.decisions import edit_value

    field, _, raw = assignment.partition("=")
    value = edit_value(field, raw)
    _decide(state, "edit", incident_id, {"field": field, "value": value}, reason)


@incident_group.command("grade")
@click.argument("incident_id")
@click.argument("grade", type=click.Choice(GRADES))
@click.option("--reason", required=True, help="Why this grade.")
@click.pass_obj
def incident_grade(state: CliState, incident_id: str, grade: str, reason: str) -> None:
    """Set an incident's civilian-harm grade by hand."""
    _decide(state, "grade", incident_id, {"grade": grade}, reason)
