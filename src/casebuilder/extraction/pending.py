"""Which stored texts extraction has not read yet.

Kept apart from the extractor so that listing incidents can warn about missing texts without
loading the rules, the gazetteer or spaCy.
"""

from __future__ import annotations

from sqlalchemy import select

from casebuilder.preservation.case import Case
from casebuilder.store import schema


def unextracted_items(case: Case) -> list[int]:
    """Originals with a text that no extraction run has read yet, whatever its rules: left by an
    ingest that stopped (killed, disk full) before extracting them, or ingested with
    ``--no-extract``. Re-reading texts already extracted with other rules is ``extract``'s job."""
    with case.session() as session:
        return list(session.execute(
            select(schema.Item.id)
            .where(schema.Item.kind == "original", schema.Item.text_item_id.is_not(None),
                   schema.Item.format.is_distinct_from("collection-metadata"),
                   ~select(schema.ExtractionRun.id)
                   .where(schema.ExtractionRun.item_id == schema.Item.id).exists())
            .order_by(schema.Item.id)).scalars())
