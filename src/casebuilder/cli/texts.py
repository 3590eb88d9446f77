"""Reading what the case holds: one item's text, and a search through every text.

Both are reads of evidence, so both are logged as ``view`` entries naming the items shown (the
search logs its query and the items it found)."""

from __future__ import annotations

import json
import re

import click

from casebuilder.cli.main import CliState, cli, opened_case
from casebuilder.errors import NotFound

SNIPPET = 70  # characters shown either side of a hit


@cli.command("text")
@click.argument("item_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="The text with its item ids, as JSON.")
@click.pass_obj
def text_command(state: CliState, item_id: int, as_json: bool) -> None:
    """Print the text read from an item (logged as a view of the item and its text)."""
    from casebuilder.preservation.items import item_ref
    from casebuilder.preservation.reads import log_view, text_of
    from casebuilder.store.schema import Item

    with opened_case(state, create=False) as case:
        with case.session() as session:
            item = session.get(Item, item_id)
        if item is None:
            raise NotFound(f"no item {item_id} in this case")
        found = text_of(case, item)
        if found is None:
            raise NotFound(f"item {item_id} has no text (format {item.format or 'unknown'}, "
                           f"read: {item.parse_status})")
        text_item, text = found
        refs = [item_ref(item)] + ([item_ref(text_item)] if text_item.id != item.id else [])
        log_view(case, "item text", refs)
    if as_json:
        click.echo(json.dumps({"item": item.id, "text_item": text_item.id, "text": text},
                              ensure_ascii=False))
    else:
        click.echo(text, nl=not text.endswith("\n"))


@cli.command("search")
@click.argument("query")
@click.option("--regex", is_flag=True, help="QUERY is a regular expression (Python syntax).")
@click.option("--limit", type=click.IntRange(min=1), default=200, show_default=True,
              help="At most this many hits.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per hit.")
@click.pass_obj
def search_command(state: CliState, query: str, regex: bool, limit: int, as_json: bool) -> None:
    """Find words in every text the case holds; each hit with its item and character offset.
    Case-insensitive. The search (query and items found) is logged as a view."""
    from sqlalchemy import select

    from casebuilder.preservation.items import item_ref
    from casebuilder.preservation.reads import log_view, text_of
    from casebuilder.store.schema import Item

    try:
        pattern = re.compile(query if regex else re.escape(query), re.IGNORECASE)
    except re.error as exc:
        raise click.BadParameter(f"not a regular expression: {exc}", param_hint="QUERY") from exc
    hits: list[dict[str, object]] = []
    with opened_case(state, create=False) as case:
        with case.session() as session:
            originals = list(session.execute(
                select(Item).where(Item.kind == "original", Item.text_item_id.is_not(None))
                .order_by(Item.id)).scalars())
            names = {i.id: (i.origins[0].name if i.origins else f"item {i.id}")
                     for i in originals}
        seen: list[Item] = []
        for item in originals:
            found = text_of(case, item)
            if found is None:
                continue
            text_item, text = found
            matches = list(pattern.finditer(text))
            if matches:
                seen.append(item)
            for match in matches:
                if len(hits) >= limit:
                    break
                start, end = match.span()
                hits.append({
                    "item": item.id, "name": names[item.id], "text_item": text_item.id,
                    "char_start": start, "char_end": end,
                    "snippet": text[max(0, start - SNIPPET): end + SNIPPET].replace("\n", " "),
                })
        log_view(case, "text search", [item_ref(i) for i in seen],
                 {"query": query, "regex": regex, "hits": len(hits)})
    for hit in hits:
        if as_json:
            click.echo(json.dumps(hit, ensure_ascii=False))
        else:
            click.echo(f"#{hit['item']:<5} [{hit['char_start']}:{hit['char_end']}] "
                       f"{hit['name']}: …{hit['snippet']}…")
    if not as_json:
        click.echo(f"{len(hits)} hit(s) in {len(seen)} text(s)"
                   + (f" (stopped at --limit {limit})" if len(hits) >= limit else "") + ".")
