"""``casebuilder demo``: the main job, end to end, on the sample reports shipped in the package."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import click

from casebuilder.cli.extraction import run_extraction
from casebuilder.cli.locker import print_ingest_report, print_verification
from casebuilder.cli.main import CliState, cli, opened_case

DEMO_HOME = Path("casebuilder-demo")


def sample_paths(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_file()
        and p.name not in {"README.md", "__init__.py"}
        and not p.name.endswith(".pyc")
    )


@cli.command("demo")
@click.pass_obj
def demo_command(state: CliState) -> None:
    """Preserve the shipped sample reports, verify the case and write a court bundle."""
    # The stages are imported when a command runs, so "casebuilder --help" starts quickly.
    from casebuilder.intake.ingest import ingest
    from casebuilder.preservation.verify import record_verification, verify_case
    from casebuilder.reporting.bundle import write_bundle
    from casebuilder.reporting.export import export_incidents
    from casebuilder.resolution.incidents import build_incidents

    home = state.home if state.home_given else DEMO_HOME
    state = CliState(home=home, home_given=True)
    with resources.as_file(resources.files("casebuilder.samples")) as folder:
        samples = sample_paths(Path(folder))
        click.echo(f"casebuilder demo: {len(samples)} sample files from {folder}")
        with opened_case(state) as case:
            report = ingest(case, samples)
            print_ingest_report(report, home)
            run_extraction(case, None)
            incidents = build_incidents(case)
            exports = home / "exports"
            export_incidents(case, incidents, "geojson", exports / "incidents.geojson")
            export_incidents(case, incidents, "csv", exports / "incidents.csv")
            verification = verify_case(case)
            record_verification(case, verification)
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            bundle = write_bundle(case, home / "exports" / f"bundle-{stamp}")
    click.echo("")
    click.echo("Verification:")
    print_verification(verification)
    click.echo(f"Case home:    {home.resolve()}")
    click.echo(
        f"Incidents:    {len(incidents)} -> {(exports / 'incidents.geojson').resolve()} "
        "(and incidents.csv)"
    )
    click.echo(f"Court bundle: {bundle.path.resolve()} ({bundle.items} items)")
    click.echo(f"Next: casebuilder --home {home} items | verify | log --tail 5")
    sys.exit(0 if verification.ok else 1)
