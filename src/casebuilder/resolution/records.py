"""Reading the current extraction results of a case as mention records.

A mention record is one stored incident mention with its claims and the facts about the
document it came from (file name, hashes, title, outlet, publication date) that every
exported source needs. A row of an imported dataset (extraction/datasets/) is loaded the same way;
its document is the dataset file named with the row's line, with the row's title and the
dataset as outlet (:func:`_row_documents`). Resolution builds incidents from these records;
nothing here writes.

A stored claim of kind ``not_taken`` (a value a rule set aside, and the rule) is no evidence:
it goes to the record's :attr:`MentionRecord.not_taken`, never to its claims, so nothing that
grades, merges or sums up an incident ever counts it; only the displays show it.

Each stored claim value is read back through ``model.claim_values.from_json``: a row whose value
has a key its kind does not have, lacks one or holds the wrong type stops the reading with a
:class:`~casebuilder.errors.ClaimValueError` naming the claim (an item extracted by an older
extractor whose values had another shape is re-extracted with ``casebuilder extract --force``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, TypeVar, cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from casebuilder.errors import ClaimValueError
from casebuilder.extraction.claims import NOT_TAKEN
from casebuilder.extraction.run import IMPORTED, parse_published
from casebuilder.model.claim_values import ClaimValue, from_json
from casebuilder.model.partial_date import PartialDate, Precision
from casebuilder.preservation.case import Case
from casebuilder.store import schema

V = TypeVar("V")


@dataclass(frozen=True)
class DocumentInfo:
    item_id: int
    name: str  # the file name it was ingested from
    sha256: str
    title: str
    outlet: str
    published: date | None
    published_raw: str  # as the collection metadata gives it, with time and zone if known


@dataclass
class ClaimRecord:
    id: int
    kind: str
    value: ClaimValue
    rule: str
    char_start: int
    char_end: int
    sentence_start: int
    sentence_end: int
    quote: str
    attributed_to: str
    speaker_role: str
    source_kind: str
    party: str | None
    verb: str
    evidentiality: str
    qualifiers: list[str]
    also_attributed: list[str]
    document: DocumentInfo


@dataclass
class MentionRecord:
    id: int
    key: str
    situation: bool
    categories: list[str]
    place_name: str
    place: dict[str, Any] | None
    date: PartialDate | None
    date_expression: str
    date_basis: str
    document: DocumentInfo
    claims: list[ClaimRecord] = field(default_factory=list)
    #: Values the rules set aside in the mention's sentences (never evidence).
    not_taken: list[ClaimRecord] = field(default_factory=list)

    @property
    def coordinates(self) -> tuple[float, float] | None:
        if self.place is None:
            return None
        return float(self.place["lat"]), float(self.place["lon"])


def claims_of(claims: Iterable[ClaimRecord], cls: type[V]) -> list[tuple[ClaimRecord, V]]:
    """The claims whose value is a ``cls`` (a WeaponValue, a FigureValue ...), each with it."""
    return [(c, c.value) for c in claims if isinstance(c.value, cls)]


def _document(item: schema.Item) -> DocumentInfo:
    origin = item.origins[0] if item.origins else None
    collection: dict[str, Any] = {}
    for o in item.origins:
        if o.collection:
            collection = o.collection
            break
    metadata: dict[str, Any] = item.item_metadata or {}
    raw = str(collection.get("published") or metadata.get("published") or
              metadata.get("date") or "")
    return DocumentInfo(
        item_id=item.id,
        name=origin.name if origin else f"item-{item.id}",
        sha256=item.sha256,
        title=str(collection.get("title") or metadata.get("title") or ""),
        outlet=str(collection.get("outlet") or metadata.get("site_name") or ""),
        published=parse_published(raw),
        published_raw=raw,
    )


def _row_documents(session: Session, run_ids: list[int], documents: dict[int, DocumentInfo]
                   ) -> dict[tuple[int, str], DocumentInfo]:
    """Each imported dataset row as the document its claims come from: the dataset file's
    item and hashes, named with the row's line, titled with the row's own words, the dataset
    as its outlet, and published when the row says it was recorded (or on the event's day)."""
    out: dict[tuple[int, str], DocumentInfo] = {}
    for row in session.execute(select(schema.DatasetRow).where(
            schema.DatasetRow.run_id.in_(run_ids),
            schema.DatasetRow.mention_key.is_not(None))).scalars():
        whole = documents.get(row.item_id)
        if whole is None or row.mention_key is None:
            continue
        facts = row.facts or {}
        raw = str(facts.get("published") or facts.get("date") or "")
        out[(row.run_id, row.mention_key)] = replace(
            whole, name=f"{whole.name} line {row.line}", title=str(facts.get("title") or ""),
            outlet=str(facts.get("source") or whole.outlet), published=parse_published(raw),
            published_raw=raw)
    return out


def load_mentions(case: Case, *, run_ids: Iterable[int] | None = None,
                  mention_ids: Iterable[int] | None = None) -> list[MentionRecord]:
    """Every mention of every current extraction run, in document and text order; or only
    those of the current runs ``run_ids``, or only the mentions ``mention_ids``."""
    with case.session() as session:
        mentions = select(schema.IncidentMention).join(
            schema.ExtractionRun, schema.ExtractionRun.id == schema.IncidentMention.run_id
        ).where(schema.ExtractionRun.current.is_(True))
        if run_ids is not None:
            mentions = mentions.where(schema.IncidentMention.run_id.in_(list(run_ids)))
        if mention_ids is not None:
            mentions = mentions.where(schema.IncidentMention.id.in_(list(mention_ids)))
        rows = list(session.execute(mentions.order_by(
            schema.IncidentMention.item_id, schema.IncidentMention.char_start,
            schema.IncidentMention.id)).scalars())
        if not rows:
            return []
        runs = {r.id: r for r in session.execute(select(schema.ExtractionRun).where(
            schema.ExtractionRun.id.in_({r.run_id for r in rows}))).scalars()}
        claims = list(session.execute(select(schema.Claim).where(
            schema.Claim.mention_id.in_([r.id for r in rows])).order_by(
            schema.Claim.id)).scalars())
        documents = {item.id: _document(item) for item in session.execute(select(
            schema.Item).where(schema.Item.id.in_({r.item_id for r in rows}))).scalars()}
        imported = [i for i, r in runs.items() if r.extractor.startswith(IMPORTED)]
        row_documents = _row_documents(session, imported, documents) if imported else {}
    records: dict[int, MentionRecord] = {}
    for row in rows:
        value = None
        if row.date_start and row.date_end and row.date_precision:
            value = PartialDate(date.fromisoformat(row.date_start),
                                date.fromisoformat(row.date_end),
                                cast(Precision, row.date_precision))
        records[row.id] = MentionRecord(
            id=row.id, key=row.key, situation=row.situation, categories=list(row.categories),
            place_name=row.place_name, place=row.place, date=value,
            date_expression=row.date_expression or "", date_basis=row.date_basis or "",
            document=row_documents.get((row.run_id, row.key)) or documents[row.item_id])
    for c in claims:
        record = records[c.mention_id]
        (record.not_taken if c.kind == NOT_TAKEN else record.claims).append(ClaimRecord(
            id=c.id, kind=c.kind, value=_value(c), rule=c.rule, char_start=c.char_start,
            char_end=c.char_end, sentence_start=c.sentence_start,
            sentence_end=c.sentence_end, quote=c.quote, attributed_to=c.attributed_to,
            speaker_role=c.speaker_role, source_kind=c.source_kind, party=c.party, verb=c.verb,
            evidentiality=c.evidentiality, qualifiers=list(c.qualifiers),
            also_attributed=list(c.also_attributed), document=record.document))
    return list(records.values())


def _value(row: schema.Claim) -> ClaimValue:
    try:
        return from_json(row.kind, row.value)
    except ClaimValueError as exc:
        raise ClaimValueError(f"claim {row.id} of item {row.item_id}: {exc}; re-extract the "
                              f"item (casebuilder extract --force {row.item_id})") from exc
