"""Running the extractor over the items of a case and keeping its results.

Each run reads one item's text (never the original bytes of anything but a text), extracts
incident mentions and claims, stores them as derived data together with what produced them
(extractor version, vocabulary digest, gazetteer version) and logs an ``extract`` custody entry
naming the item, its text and a digest of the results. Running again with the same extractor,
vocabulary and gazetteer does nothing; with a changed one, a new run replaces the old one as the
current result, and the old rows are kept. Analysts' decisions (merges, edits) refer to mentions
by their stable key, so a new run never undoes them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy import select, update

from casebuilder import __version__
from casebuilder.errors import CasebuilderError
from casebuilder.extraction.mentions import IncidentMention, MentionExtractor, SourceText
from casebuilder.extraction.occupation import OCCUPATION_BASIS, PERIOD_RULE
from casebuilder.extraction.text import TextAnalyser
from casebuilder.extraction.vocabulary import Vocabulary, load_vocabulary
from casebuilder.gazetteer import Gazetteer, Place, load_gazetteer
from casebuilder.model.partial_date import PartialDate
from casebuilder.preservation.canonical import json_digest
from casebuilder.preservation.case import Case
from casebuilder.preservation.items import item_ref
from casebuilder.preservation.verify import CURRENT_RESULTS_FORMAT
from casebuilder.store import schema


def _code_digest() -> str:
    """A digest of the extractor's own code, so a changed rule is a changed extractor even
    when nobody remembered to bump a version number."""
    import hashlib

    digest = hashlib.sha256()
    package = Path(__file__).parent
    # The gazetteer's code decides places, so it is part of what the extractor is.
    for path in sorted([*package.glob("*.py"), *(package.parent / "gazetteer").glob("*.py")]):
        digest.update(path.parent.name.encode() + b"/" + path.name.encode() + b"\0" +
                      path.read_bytes())
    return digest.hexdigest()[:12]


EXTRACTOR_ID = f"casebuilder-extractor {__version__} code-{_code_digest()}"
CACHE_ENV = "CASEBUILDER_CACHE"


def cache_dir(environ: Mapping[str, str]) -> Path:
    """Where derived, rebuildable data (the gazetteer index) is cached between runs."""
    if environ.get(CACHE_ENV):
        return Path(environ[CACHE_ENV])
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "casebuilder"


@dataclass
class ExtractionTools:
    """Everything extraction needs, built once and passed in."""

    analyser: TextAnalyser
    vocabulary: Vocabulary
    gazetteer: Gazetteer
    extractor: MentionExtractor
    gazetteer_id: str

    @classmethod
    def build(cls, cache: Path | None) -> ExtractionTools:
        analyser = TextAnalyser()
        vocabulary = load_vocabulary()
        gazetteer = load_gazetteer(cache / "gazetteer" if cache is not None else None)
        versions = getattr(getattr(gazetteer, "index", None), "versions", None)
        gazetteer_id = f"casebuilder-gazetteer {json_digest(versions)[:16]}" if versions \
            else "casebuilder-gazetteer"
        return cls(analyser, vocabulary, gazetteer,
                   MentionExtractor(analyser, vocabulary, gazetteer), gazetteer_id)


@dataclass
class ExtractOutcome:
    item_id: int
    name: str
    status: str  # "extracted" | "unchanged" | "no text" | "failed"
    mentions: int = 0
    claims: int = 0
    reason: str = ""


@dataclass
class ExtractReport:
    outcomes: list[ExtractOutcome] = field(default_factory=list)

    @property
    def extracted(self) -> list[ExtractOutcome]:
        return [o for o in self.outcomes if o.status == "extracted"]


def parse_published(value: Any) -> date | None:
    """The calendar day a report was published, as the report states it (its local date)."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def source_text(case: Case, item: schema.Item) -> SourceText | None:
    """The text of an item with the facts its collection gives: title, outlet, publication."""
    if item.text_item_id is None:
        return None
    with case.session() as session:
        text_item = session.get(schema.Item, item.text_item_id)
        origins = list(session.execute(select(schema.Origin).where(
            schema.Origin.item_id == item.id).order_by(schema.Origin.id)).scalars())
    if text_item is None:
        return None
    with case.objects.open(text_item.sha256) as fh:
        raw = fh.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    collection: dict[str, Any] = next((o.collection for o in origins if o.collection), {}) or {}
    metadata: dict[str, Any] = item.item_metadata or {}
    published = parse_published(collection.get("published")) or parse_published(
        metadata.get("published")) or parse_published(metadata.get("date")) or \
        parse_published(metadata.get("created"))
    return SourceText(
        item_id=item.id,
        text=text,
        title=str(collection.get("title") or metadata.get("title") or metadata.get("subject")
                  or ""),
        outlet=str(collection.get("outlet") or metadata.get("site_name") or
                   metadata.get("author") or metadata.get("from") or ""),
        published=published,
    )


def mention_dates(mention: IncidentMention, tools: ExtractionTools, published: date | None
                  ) -> tuple[PartialDate | None, str, str]:
    """The date stored for a mention, the words it came from and its basis."""
    if mention.situation:
        war = tools.vocabulary.wars.war_for("war", published) if published else None
        span = mention.situation_span(war.start if war else None, published)
        return span, "ongoing at the time of the report", "situation"
    value, expression, rule = mention.event_date()
    if value is not None:
        if published is not None and value.end > published >= value.start:
            # "in September" in a report of 23 September: not after the report
            value = PartialDate.range(value.start, published)
        return value, expression, OCCUPATION_BASIS if rule == PERIOD_RULE else "event"
    reported, expression = mention.report_date()
    if reported is not None:
        return reported, expression, "report"
    if published is not None:
        # Undated in the text: it happened on or before the day it was published.
        return PartialDate.parse_iso(published.isoformat()), "publication date", "report"
    return None, "", ""


def _place_json(place: Place) -> dict[str, Any]:
    return {"name": place.name, "lat": place.lat, "lon": place.lon, "admin1": place.admin1,
            "country": place.country, "gazetteer_id": place.gazetteer_id,
            "precision": place.precision, "feature_kind": place.feature_kind,
            "uncertainty_km": place.uncertainty_km, "placed_at": place.placed_at}


def _mention_row(mention: IncidentMention, sha256: str, tools: ExtractionTools,
                 published: date | None) -> dict[str, Any]:
    value, expression, basis = mention_dates(mention, tools, published)
    place = mention.place
    in_text = [c for c in mention.claims if c.in_text] or mention.claims
    return {
        "key": mention.key(sha256),
        "situation": mention.situation,
        "categories": mention.categories,
        "place_name": mention.place_name,
        "place": None if place is None else {
            **_place_json(place),
            **({"undecided": [_place_json(p) for p in mention.undecided]}
               if mention.undecided else {})},
        "lat": None if place is None else place.lat,
        "lon": None if place is None else place.lon,
        "date_start": None if value is None else value.start.isoformat(),
        "date_end": None if value is None else value.end.isoformat(),
        "date_precision": None if value is None else value.precision,
        "date_expression": expression or None,
        "date_basis": basis or None,
        # the span in the text; a place cited to the headline is not in it
        "char_start": min(c.provenance.sentence_start for c in in_text),
        "char_end": max(c.provenance.sentence_end for c in in_text),
    }


def extract_item(case: Case, tools: ExtractionTools, item: schema.Item, *, name: str = "",
                 force: bool = False) -> ExtractOutcome:
    source = source_text(case, item)
    if source is None:
        return ExtractOutcome(item.id, name, "no text")
    with case.session() as session:
        current = session.execute(select(schema.ExtractionRun).where(
            schema.ExtractionRun.item_id == item.id,
            schema.ExtractionRun.current.is_(True))).scalars().first()
    source_digest = json_digest([source.text, source.title, source.outlet,
                                 source.published.isoformat() if source.published else None])
    if not force and current is not None and (
            current.extractor, current.vocabulary_sha256, current.gazetteer,
            current.source_sha256) == (EXTRACTOR_ID, tools.vocabulary.digest,
                                       tools.gazetteer_id, source_digest):
        return ExtractOutcome(item.id, name, "unchanged", current.mention_count,
                              current.claim_count)
    try:
        mentions = tools.extractor.extract(source)
    except CasebuilderError as exc:
        return ExtractOutcome(item.id, name, "failed", reason=str(exc))
    except Exception as exc:  # noqa: BLE001 - one bad text must not stop the others
        return ExtractOutcome(item.id, name, "failed",
                              reason=f"the extractor failed: {type(exc).__name__}: {exc}")
    rows = [(_mention_row(m, item.sha256, tools, source.published), m) for m in mentions]
    results = [{"mention": row, "claims": [c.as_json() for c in m.claims]} for row, m in rows]
    digest = json_digest(results)
    claim_count = sum(len(m.claims) for m in mentions)
    with case.transaction() as tx:
        session = tx.session
        original = session.get(schema.Item, item.id)
        text_item = session.get(schema.Item, item.text_item_id)
        assert original is not None and text_item is not None
        session.execute(update(schema.ExtractionRun).where(
            schema.ExtractionRun.item_id == item.id).values(current=False))
        seq = tx.record("extract", [item_ref(original, "source"), item_ref(text_item, "text")],
                        {"extractor": EXTRACTOR_ID, "vocabulary_sha256": tools.vocabulary.digest,
                         "gazetteer": tools.gazetteer_id, "source_sha256": source_digest,
                         "results_format": CURRENT_RESULTS_FORMAT,
                         "mentions": len(mentions),
                         "claims": claim_count, "results_sha256": digest})
        run = schema.ExtractionRun(
            item_id=item.id, text_item_id=text_item.id, extractor=EXTRACTOR_ID,
            vocabulary_sha256=tools.vocabulary.digest, gazetteer=tools.gazetteer_id,
            source_sha256=source_digest, created_at=tx.last_time, entry_seq=seq,
            mention_count=len(mentions), claim_count=claim_count, results_sha256=digest,
            current=True)
        session.add(run)
        session.flush()
        for row, mention in rows:
            stored = schema.IncidentMention(run_id=run.id, item_id=item.id, **row)
            session.add(stored)
            session.flush()
            for c in mention.claims:
                j = c.as_json()
                session.add(schema.Claim(
                    mention_id=stored.id, item_id=item.id, kind=c.kind, value=c.value,
                    rule=c.rule, char_start=j["char_start"], char_end=j["char_end"],
                    sentence_start=j["sentence_start"], sentence_end=j["sentence_end"],
                    quote=j["quote"], attributed_to=j["attributed_to"],
                    speaker_role=j["speaker_role"], source_kind=j["source_kind"],
                    party=j["party"], verb=j["verb"], evidentiality=j["evidentiality"],
                    qualifiers=j["qualifiers"], also_attributed=j["also_attributed"]))
    return ExtractOutcome(item.id, name, "extracted", len(mentions), claim_count)


def extract_items(
    case: Case,
    tools: ExtractionTools,
    item_ids: Sequence[int] | None = None,
    *,
    on_item: Callable[[ExtractOutcome], None] | None = None,
    force: bool = False,
) -> ExtractReport:
    """Extract from the given items (default: every original with text)."""
    report = ExtractReport()
    with case.session() as session:
        query = select(schema.Item).where(schema.Item.kind == "original",
                                          schema.Item.text_item_id.is_not(None))
        if item_ids is not None:
            query = query.where(schema.Item.id.in_(list(item_ids)))
        items = list(session.execute(query.order_by(schema.Item.id)).scalars())
        names = {i.id: (i.origins[0].name if i.origins else f"item {i.id}") for i in items}
    if item_ids is not None:
        missing = sorted(set(item_ids) - {i.id for i in items})
        for item_id in missing:
            report.outcomes.append(ExtractOutcome(item_id, f"item {item_id}", "no text",
                                                  reason="no such item with text"))
    for item in items:
        if item.format == "collection-metadata":
            continue
        outcome = extract_item(case, tools, item, name=names[item.id], force=force)
        report.outcomes.append(outcome)
        if on_item is not None:
            on_item(outcome)
    if report.extracted:
        case.checkpoint()
    return report
