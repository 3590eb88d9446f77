"""Running the extractor over the items of a case and keeping its results.

Each run reads one item's text (never the original bytes of anything but a text), extracts
incident mentions and claims, stores them as derived data together with what produced them
(extractor version, vocabulary digest, gazetteer version) and logs an ``extract`` custody entry
naming the item, its text and a digest of the results. Running again with the same extractor,
vocabulary and gazetteer does nothing; with a changed one, a new run replaces the old one as the
current result, and the old rows are kept. Analysts' decisions (merges, edits) refer to mentions
by their stable key, so a new run never undoes them.

A text the extractor fails on is not retried for ever: the failure is recorded (an
``extract-failed`` custody entry and an ``extraction_failures`` row naming the item, the rules
and the reason), and a later run with the same extractor, vocabulary, gazetteer and source
facts passes the item over and says so, unless forced. A long text is read a section at a time
(MentionExtractor.extract_by_section) and its results are kept as compact JSON until they are
written, so a 50 MB page costs memory in proportion to what is found in it, not to the text.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

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
    digest = hashlib.sha256()
    package = Path(__file__).parent
    # The gazetteer's code decides places, so it is part of what the extractor is.
    for path in sorted([*package.glob("*.py"), *(package.parent / "gazetteer").glob("*.py")]):
        digest.update(path.parent.name.encode() + b"/" + path.name.encode() + b"\0" +
                      path.read_bytes())
    return digest.hexdigest()[:12]


EXTRACTOR_ID = f"casebuilder-extractor {__version__} code-{_code_digest()}"
CACHE_ENV = "CASEBUILDER_CACHE"
#: The extractor of a run that imported a dataset's rows (extraction/datasets/importing.py): such
#: an item is never read as prose, not even with --force.
IMPORTED = "import:"
#: Results of one text kept in memory up to this size, on disk beyond (see _Results).
SPOOL_BYTES = 32 * 1024 * 1024


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

    @property
    def ids(self) -> ToolIds:
        return ToolIds(EXTRACTOR_ID, self.vocabulary.digest, self.gazetteer_id)


@dataclass(frozen=True)
class ToolIds:
    """What the rules of a run take from the tools that read it: the extractor's code, the
    vocabulary's digest and the gazetteer's version (a run's rules add its source's digest)."""

    extractor: str
    vocabulary_sha256: str
    gazetteer: str

    def rules(self, source: SourceText) -> Rules:
        return Rules(self.extractor, self.vocabulary_sha256, self.gazetteer, json_digest(
            [source.text, source.title, source.outlet,
             source.published.isoformat() if source.published else None]))


@dataclass
class ExtractOutcome:
    item_id: int
    name: str
    # "extracted" | "unchanged" | "no text" | "failed" (now, and recorded) | "failed before"
    # (passed over: these rules failed on this text in an earlier run, see ``reason``)
    status: str
    mentions: int = 0
    claims: int = 0
    reason: str = ""


@dataclass
class ExtractReport:
    outcomes: list[ExtractOutcome] = field(default_factory=list)

    @property
    def extracted(self) -> list[ExtractOutcome]:
        return [o for o in self.outcomes if o.status == "extracted"]

    @property
    def failed(self) -> list[ExtractOutcome]:
        """Items the extractor failed on in this run (each failure is recorded)."""
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def failed_before(self) -> list[ExtractOutcome]:
        return [o for o in self.outcomes if o.status == "failed before"]


@dataclass(frozen=True)
class Rules:
    """What an extraction of one text depends on: a run with the same rules is the same run."""

    extractor: str
    vocabulary_sha256: str
    gazetteer: str
    source_sha256: str

    def as_entry(self) -> dict[str, str]:
        return {"extractor": self.extractor, "vocabulary_sha256": self.vocabulary_sha256,
                "gazetteer": self.gazetteer, "source_sha256": self.source_sha256}


class _Results:
    """Extraction results, one record per mention ({"mention": row, "claims": [...]}), kept as
    JSON lines in a spooled temporary file: in memory while small, on disk (an unlinked file
    that vanishes with the process) beyond ``SPOOL_BYTES``. A 50 MB text of attack reports
    yields results several times its size, and holding them as objects until the write would
    cost gigabytes. Their digest is taken as they come: json_digest of a list is the SHA-256 of
    "[", the elements' JSON joined by ",", and "]"."""

    def __init__(self) -> None:
        self.file = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115
        self.hash = hashlib.sha256(b"[")
        self.mentions = 0
        self.claims = 0

    def add(self, row: dict[str, Any], claims: list[dict[str, Any]]) -> None:
        data = json.dumps({"mention": row, "claims": claims}, sort_keys=True,
                          separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False).encode("utf-8")
        self._append(data)
        self.claims += len(claims)

    def _append(self, data: bytes) -> None:
        if self.mentions:
            self.hash.update(b",")
        self.hash.update(data)
        self.file.write(data + b"\n")  # JSON escapes line breaks, so one record a line
        self.mentions += 1

    def __reduce__(self) -> tuple[Callable[[bytes, int], _Results], tuple[bytes, int]]:
        """Pickled as its JSON lines: the results of a text read by a worker of a cluster
        cross to the process that stores them (extraction/distributed.py), and their digest
        is taken again there, from what arrived."""
        self.file.seek(0)
        return _Results.from_lines, (self.file.read(), self.claims)

    @classmethod
    def from_lines(cls, data: bytes, claims: int) -> _Results:
        results = cls()
        for line in data.split(b"\n")[:-1]:
            results._append(line)
        results.claims = claims
        return results

    def digest(self) -> str:
        final = self.hash.copy()
        final.update(b"]")
        return final.hexdigest()

    def records(self) -> Iterator[dict[str, Any]]:
        self.file.seek(0)
        for line in self.file:
            yield json.loads(line)

    def close(self) -> None:
        self.file.close()


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
    with case.storage.open(text_item.sha256) as fh:
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


@dataclass
class Job:
    """An item whose text is to be read, with the rules it is read under (see plan_item)."""

    item: schema.Item
    name: str
    source: SourceText
    rules: Rules


@dataclass(frozen=True)
class Failure:
    """Why the extractor failed on a text, as the ``extract-failed`` entry records it."""

    reason: str


def failure_reason(exc: Exception) -> str:
    return str(exc) if isinstance(exc, CasebuilderError) else \
        f"the extractor failed: {type(exc).__name__}: {exc}"


def plan_item(case: Case, ids: ToolIds, item: schema.Item, *, name: str = "",
              force: bool = False) -> ExtractOutcome | Job:
    """What to do with an item: its outcome when there is nothing to read (no text, read
    already with these rules, failed before with them), else the job of reading its text."""
    source = source_text(case, item)
    if source is None:
        return ExtractOutcome(item.id, name, "no text")
    with case.session() as session:
        current = session.execute(select(schema.ExtractionRun).where(
            schema.ExtractionRun.item_id == item.id,
            schema.ExtractionRun.current.is_(True))).scalars().first()
    if current is not None and current.extractor.startswith(IMPORTED):
        # a dataset's rows were imported (extraction/datasets/): its text is no prose to read
        return ExtractOutcome(item.id, name, "unchanged", current.mention_count,
                              current.claim_count)
    rules = ids.rules(source)
    if not force and current is not None and (
            current.extractor, current.vocabulary_sha256, current.gazetteer,
            current.source_sha256) == (rules.extractor, rules.vocabulary_sha256,
                                       rules.gazetteer, rules.source_sha256):
        return ExtractOutcome(item.id, name, "unchanged", current.mention_count,
                              current.claim_count)
    if not force:
        earlier = failed_before(case, item.id, rules)
        if earlier is not None:
            return ExtractOutcome(
                item.id, name, "failed before",
                reason=f"not tried again: these rules failed on this text at {earlier.at} "
                       f"({earlier.reason}); use --force to try again")
    return Job(item, name, source, rules)


def read_text(tools: ExtractionTools, source: SourceText, sha256: str) -> _Results | Failure:
    """The results of extracting one text (``sha256``: its item's), or why the extractor
    failed on it. Touches no case: the serial path and the workers of a cluster both call it."""
    results = _Results()
    try:
        _extract_results(tools, source, sha256, results)
    except Exception as exc:  # noqa: BLE001 - one bad text must not stop the others
        results.close()
        return Failure(failure_reason(exc))
    return results


def store_read(case: Case, job: Job, read: _Results | Failure) -> ExtractOutcome:
    """Keep what reading a job's text gave: a run with its results, or the failure."""
    if isinstance(read, Failure):
        record_extraction_failure(case, job.item, job.rules, read.reason)
        return ExtractOutcome(job.item.id, job.name, "failed", reason=read.reason)
    try:
        _record_run(case, job.item, job.rules, read)
    finally:
        read.close()
    return ExtractOutcome(job.item.id, job.name, "extracted", read.mentions, read.claims)


def extract_item(case: Case, tools: ExtractionTools, item: schema.Item, *, name: str = "",
                 force: bool = False) -> ExtractOutcome:
    planned = plan_item(case, tools.ids, item, name=name, force=force)
    if isinstance(planned, ExtractOutcome):
        return planned
    return store_read(case, planned, read_text(tools, planned.source, item.sha256))


def _extract_results(tools: ExtractionTools, source: SourceText, sha256: str,
                     results: _Results) -> None:
    """Extract a section at a time, keeping only each section's results, as JSON."""
    for mentions in tools.extractor.extract_by_section(source):
        for mention in mentions:
            results.add(_mention_row(mention, sha256, tools, source.published),
                        [c.as_json() for c in mention.claims])


def failed_before(case: Case, item_id: int, rules: Rules) -> schema.ExtractionFailure | None:
    """The latest recorded failure of these rules on this item's text, unless a run of the
    item was recorded after it (then the failure is history)."""
    with case.session() as session:
        failure = session.execute(select(schema.ExtractionFailure).where(
            schema.ExtractionFailure.item_id == item_id,
            schema.ExtractionFailure.extractor == rules.extractor,
            schema.ExtractionFailure.vocabulary_sha256 == rules.vocabulary_sha256,
            schema.ExtractionFailure.gazetteer == rules.gazetteer,
            schema.ExtractionFailure.source_sha256 == rules.source_sha256,
        ).order_by(schema.ExtractionFailure.entry_seq.desc()).limit(1)).scalars().first()
        if failure is None:
            return None
        later = session.execute(select(schema.ExtractionRun.id).where(
            schema.ExtractionRun.item_id == item_id,
            schema.ExtractionRun.entry_seq > failure.entry_seq).limit(1)).first()
    return None if later is not None else failure


def record_extraction_failure(case: Case, item: schema.Item, rules: Rules, reason: str) -> None:
    """Log that the extractor failed on the item's text and why (``extract-failed``)."""
    with case.transaction() as tx:
        original = tx.session.get(schema.Item, item.id)
        text_item = tx.session.get(schema.Item, item.text_item_id)
        assert original is not None and text_item is not None
        seq = tx.record("extract-failed",
                        [item_ref(original, "source"), item_ref(text_item, "text")],
                        {**rules.as_entry(), "reason": reason})
        tx.session.add(schema.ExtractionFailure(
            item_id=original.id, text_item_id=text_item.id, reason=reason, at=tx.last_time,
            entry_seq=seq, **rules.as_entry()))


def _record_run(case: Case, item: schema.Item, rules: Rules, results: _Results) -> None:
    with case.transaction() as tx:
        session = tx.session
        original = session.get(schema.Item, item.id)
        text_item = session.get(schema.Item, item.text_item_id)
        assert original is not None and text_item is not None
        digest = results.digest()
        session.execute(update(schema.ExtractionRun).where(
            schema.ExtractionRun.item_id == item.id).values(current=False))
        seq = tx.record("extract", [item_ref(original, "source"), item_ref(text_item, "text")],
                        {**rules.as_entry(),
                         "results_format": CURRENT_RESULTS_FORMAT,
                         "mentions": results.mentions,
                         "claims": results.claims, "results_sha256": digest})
        run = schema.ExtractionRun(
            item_id=item.id, text_item_id=text_item.id, extractor=rules.extractor,
            vocabulary_sha256=rules.vocabulary_sha256, gazetteer=rules.gazetteer,
            source_sha256=rules.source_sha256, created_at=tx.last_time, entry_seq=seq,
            mention_count=results.mentions, claim_count=results.claims, results_sha256=digest,
            current=True)
        session.add(run)
        session.flush()
        for record in results.records():
            _store_mention(session, run.id, item.id, record)


def _store_mention(session: Session, run_id: int, item_id: int, record: dict[str, Any]) -> None:
    """One mention's row and its claims' rows (claims in one multi-row insert: a long text may
    have thousands, and ORM objects for each would cost far more than the rows)."""
    stored = schema.IncidentMention(run_id=run_id, item_id=item_id, **record["mention"])
    session.add(stored)
    session.flush()
    # each key of a claim as digested (Claim.as_json) is a column of its row
    rows = [{**j, "mention_id": stored.id, "item_id": item_id} for j in record["claims"]]
    if rows:
        session.execute(insert(schema.Claim), rows)
    session.expunge(stored)


#: Reads the texts of planned items: yields, in the order given, each outcome as it is and
#: each job with what reading its text gave (extract_items reads them one by one, here;
#: extraction/distributed.py on the workers of a Dask cluster).
Reader = Callable[[Iterator[ExtractOutcome | Job]],
                  Iterator[ExtractOutcome | tuple[Job, _Results | Failure]]]


def extract_items(
    case: Case,
    tools: ExtractionTools,
    item_ids: Sequence[int] | None = None,
    *,
    on_item: Callable[[ExtractOutcome], None] | None = None,
    force: bool = False,
) -> ExtractReport:
    """Extract from the given items (default: every original with text)."""

    def one_by_one(planned: Iterator[ExtractOutcome | Job]
                   ) -> Iterator[ExtractOutcome | tuple[Job, _Results | Failure]]:
        for step in planned:
            yield step if isinstance(step, ExtractOutcome) else \
                (step, read_text(tools, step.source, step.item.sha256))

    return extract_with(case, tools.ids, one_by_one, item_ids, on_item=on_item, force=force)


def extract_with(
    case: Case,
    ids: ToolIds,
    reader: Reader,
    item_ids: Sequence[int] | None = None,
    *,
    on_item: Callable[[ExtractOutcome], None] | None = None,
    force: bool = False,
) -> ExtractReport:
    """Extract from the given items (default: every original with text), their texts read by
    ``reader`` with tools of these ``ids``: each item is planned and its results stored here,
    in item order, by this one process (the case's one writer); one checkpoint at the end."""
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
    planned = (plan_item(case, ids, item, name=names[item.id], force=force) for item in items
               if item.format != "collection-metadata")
    for step in reader(planned):
        outcome = step if isinstance(step, ExtractOutcome) else store_read(case, *step)
        report.outcomes.append(outcome)
        if on_item is not None:
            on_item(outcome)
    if report.extracted or report.failed:
        case.checkpoint()
    return report
