"""Commands for court bundles: write one (``bundle -o``), compare two (``bundle compare``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from casebuilder.cli.main import CliState, cli, collect_as_usual, opened_case
from casebuilder.errors import CasebuilderError


@cli.group("bundle", invoke_without_command=True)
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(path_type=Path),
    help="Directory to create, or a file ending in .zip.",
)
@click.option(
    "--item",
    "items",
    multiple=True,
    type=int,
    help="Only these items (repeatable); default: every item in the case.",
)
@click.pass_context
def bundle_group(ctx: click.Context, out: Path | None, items: tuple[int, ...]) -> None:
    """Write a BagIt court bundle that an expert can verify without casebuilder
    ('bundle -o OUT'), or compare two bundles of the case ('bundle compare A B')."""
    if ctx.invoked_subcommand is not None:
        if out is not None or items:
            raise click.UsageError("-o and --item belong to writing a bundle, not to a subcommand")
        return
    if out is None:
        raise click.UsageError("give -o OUT (a directory to create, or a .zip file)")
    state: CliState = ctx.obj
    write_bundle_command(state, out, items)


def write_bundle_command(state: CliState, out: Path, items: tuple[int, ...]) -> None:
    from casebuilder.reporting.bundle import write_bundle

    with opened_case(state, create=False) as case:
        summary = write_bundle(case, out, item_ids=list(items) or None)
    click.echo(
        f"Bundle written to {summary.path}: {summary.items} items, "
        f"{summary.payload_files} payload files ({summary.payload_bytes} bytes)."
    )
    click.echo(
        f"It carries the custody log to entry {summary.tree_size - 1} under signed root "
        f"{summary.root[:16]}…"
    )
    where = summary.path if summary.path.suffix != ".zip" else "the unzipped folder"
    click.echo(f"Check it with: bagit.py --validate {where}  and  python3 {where}/verify_bundle.py")


@bundle_group.command("compare")
@click.argument("first", type=click.Path(exists=True, path_type=Path))
@click.argument("second", type=click.Path(exists=True, path_type=Path))
def compare_command(first: Path, second: Path) -> None:
    """Check that two bundles of one case agree: the later extends the earlier (same log
    lines, a consistent signed root, the same key or a rotation the old key approved, the same
    item hashes). Exit 0 if they agree, 1 if not, 2 if a bundle cannot be read."""
    from casebuilder.reporting.bundle_compare import compare_bundles, read_bundle

    collect_as_usual()

    try:
        comparison = compare_bundles(read_bundle(first), read_bundle(second))
    except CasebuilderError as exc:
        click.echo(f"casebuilder: error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"Comparing {comparison.earlier} (earlier) with {comparison.later} (later).")
    for note in comparison.notes:
        click.echo(f"note: {note}")
    if comparison.ok:
        click.echo("OK: the later bundle extends the earlier one.")
        sys.exit(0)
    click.echo(f"DIFFERENT: {len(comparison.differences)} difference(s):")
    for difference in comparison.differences:
        click.echo(f"  - {difference}")
    sys.exit(1)
