"""Commands of the extraction stage: extract, geocode, export incidents."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from casebuilder.cli.main import CliState, cli, collect_as_usual, opened_case

if TYPE_CHECKING:
    from casebuilder.preservation.case import Case


def extraction_tools() -> object:
    from casebuilder.extraction.run import ExtractionTools, cache_dir

    return ExtractionTools.build(cache_dir(dict(os.environ)))


def run_extraction(
    case: Case, item_ids: list[int] | None, *, quiet: bool = False, force: bool = False,
    workers: int | None = None, scheduler: str | None = None,
) -> bool:
    """Extract and print what happened; returns False when the extractor failed on an item
    in this run (each failure is recorded in the custody log). With ``workers`` or
    ``scheduler`` the texts are read on a Dask cluster (extraction/distributed.py)."""
    if workers is not None or scheduler is not None:
        from casebuilder.extraction.distributed import extract_on_cluster

        report = extract_on_cluster(case, item_ids, workers=workers, scheduler=scheduler,
                                    force=force)
    else:
        from casebuilder.extraction.run import ExtractionTools, extract_items

        tools = extraction_tools()
        assert isinstance(tools, ExtractionTools)
        report = extract_items(case, tools, item_ids, force=force)
    done = report.extracted
    mentions = sum(o.mentions for o in done)
    claims = sum(o.claims for o in done)
    unchanged = [o for o in report.outcomes if o.status == "unchanged"]
    failed = [o for o in report.outcomes
              if o.status in {"failed", "no text", "failed before"} and o.reason]
    if not quiet or done or failed:
        click.echo(
            f"Extraction: {len(done)} texts read, {mentions} incident mentions, "
            f"{claims} claims; {len(unchanged)} already extracted with these rules"
            + (f"; {len(report.failed)} failed (recorded in the custody log)"
               if report.failed else "") + "."
        )
    for o in failed:
        click.echo(f"  item {o.item_id} ({o.name}): {o.reason}")
    # Analysts' decisions name mentions by key: if this version keys them differently, they are
    # re-anchored to the same mentions; the custody log says so once, and any that no longer
    # apply are named.
    from casebuilder.cli.incidents import warn_unapplied
    from casebuilder.resolution.anchoring import record_reanchoring

    noted = record_reanchoring(case)
    if noted:
        case.checkpoint()
        click.echo(f"Analysts' decisions: {noted} re-anchored to changed mention keys or found "
                   "unanchorable (logged in the custody log).")
    warn_unapplied(case)
    return not report.failed


@cli.command("extract")
@click.argument("items", nargs=-1, type=int)
@click.option(
    "--force",
    is_flag=True,
    help="Extract again even where these rules already ran (a new run is logged; "
    "analysts' decisions are kept).",
)
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="Read the texts in N worker processes of a Dask cluster started on this "
              "machine (results are stored as a serial run stores them).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Read the texts on the workers of a running Dask cluster "
              "(tcp://host:port); they must run this casebuilder.")
@click.pass_obj
def extract_command(state: CliState, items: tuple[int, ...], force: bool, workers: int | None,
                    scheduler: str | None) -> None:
    """Find incident mentions and claims in the texts held (default: all)."""
    if workers is not None and scheduler is not None:
        raise click.UsageError("--workers starts a cluster, --scheduler uses one: not both")
    with opened_case(state, create=False) as case:
        complete = run_extraction(case, list(items) or None, force=force, workers=workers,
                                  scheduler=scheduler)
    sys.exit(0 if complete else 1)  # 1: the extractor failed on some item (partial failure)


@cli.command("geocode")
@click.argument("queries", nargs=-1)
@click.pass_obj
def geocode_command(state: CliState, queries: tuple[str, ...]) -> None:
    """Place free-text place strings offline; one JSON object per query (or per line of stdin).

    Each line may be a place query ("Hroza, Kharkiv Oblast") or free text ("Kupyansk in the
    Kharkov region.", "Zaporozhye region: in Orekhov, Gulyaipole and Preobrazhenka"): the
    object holds the first place named, the reason it was chosen, and every other place of
    the string under "others"."""
    from casebuilder.extraction.run import cache_dir
    from casebuilder.gazetteer import load_gazetteer

    collect_as_usual()

    del state
    gazetteer = load_gazetteer(cache_dir(dict(os.environ)) / "gazetteer")
    lines = list(queries) if queries else (line.rstrip("\n") for line in sys.stdin)
    out = sys.stdout
    for query in lines:
        found = gazetteer.geocode(query)
        record: dict[str, object] = {"query": query, **_place_record(found.main)}
        record["read_as"] = found.how
        record["others"] = [_place_record(other) for other in found.others]
        out.write(json.dumps(record, ensure_ascii=False) + "\n")


def _place_record(resolution: object) -> dict[str, object]:
    from casebuilder.gazetteer import Resolution

    assert isinstance(resolution, Resolution)
    place = resolution.place
    return {
        "name": place.name if place else None,
        "lat": place.lat if place else None,
        "lon": place.lon if place else None,
        "admin1": (place.admin1 or None) if place else None,
        "country": place.country if place else None,
        "gazetteer_id": place.gazetteer_id if place else None,
        "precision": place.precision if place else None,
        "uncertainty_km": place.uncertainty_km if place else None,
        "matched": resolution.matched_name or None,
        "reason": resolution.reason,
    }


@cli.group("export")
def export_group() -> None:
    """Standard exports of the case."""


@export_group.command("incidents")
@click.option(
    "--format",
    "fmt",
    # the formats of casebuilder.reporting.export.FORMATS (not imported: the CLI starts light)
    type=click.Choice(["geojson", "csv", "json", "acled-csv", "timemap", "kml"]),
    default="geojson",
    show_default=True,
)
@click.option("-o", "--output", "out", required=True, type=click.Path(path_type=Path),
              help="The file to write; for timemap, the directory to write its files into.")
@click.pass_obj
def export_incidents_command(state: CliState, fmt: str, out: Path) -> None:
    """Export the case's incidents with their sources and quotes.

    geojson, csv and json are casebuilder's own records; acled-csv is ACLED's table (one row
    per incident); timemap is a directory of the JSON files Forensic Architecture's TimeMap
    reads (see its README.txt); kml is a KML 2.2 document for Google Earth and GIS tools."""
    from casebuilder.cli.incidents import warn_unapplied
    from casebuilder.reporting.export import export_incidents
    from casebuilder.resolution.incidents import build_incidents

    with opened_case(state, create=False) as case:
        incidents = build_incidents(case)
        sha256 = export_incidents(case, incidents, fmt, out)
        warn_unapplied(case)
    click.echo(f"Wrote {len(incidents)} incidents to {out} ({fmt}, sha256 {sha256[:16]}…).")
