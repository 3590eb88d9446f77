"""Incidents kept as tables between commands, and brought up to date part by part.

Place in the flow: extraction and dataset imports add mentions, analysts add decisions; this
module keeps what merging (resolution.merge) and settling (resolution.incidents) make of them in
the tables ``merge_entries``, ``merge_blocks``, ``stored_incidents`` and ``incident_members``,
each incident with its listing record (resolution.listing). Every reading command, the exports,
the case file and the web interface read incidents through :func:`refresh` first, so nobody
ever reads incidents older than the case.

**Why an update equals a full merge.** A merge shows each mention only the incidents filed
under its own index keys (merge.MergeIndex), and each mention is filed under the keys of all its
places whatever it joins: so which mentions meet depends only on the mentions, never on how
they were merged. The mentions that met (merge.Parts, together with the mentions each decision
names) form parts, and merging one part alone gives exactly its incidents in the whole case.
New mentions can only meet mentions whose blocks (merge.Block: kind, cells, region, buckets)
touch theirs; the parts holding those are merged again with the new mentions, and nothing else
changes. New decisions do the same with the parts of the mentions they name.

**When it rebuilds instead.** When a run stopped being current (re-extraction), when a decision
had to be re-anchored or names a mention the case no longer holds, when the rules changed (a
digest of the resolution code and the vocabulary), or when nothing was stored yet. ``casebuilder
incidents rebuild`` does it on request. See docs/decisions/0027-stored-incidents.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any, cast

from sqlalchemy import delete, func, insert, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from casebuilder.errors import NotFound
from casebuilder.extraction.run import EXTRACTOR_ID
from casebuilder.model.partial_date import PartialDate, Precision, within_dates
from casebuilder.preservation.case import Case
from casebuilder.resolution.anchoring import Anchoring, anchor_of, anchoring_for, referenced_keys
from casebuilder.resolution.decisions import Decision, load_decisions
from casebuilder.resolution.incidents import Settled, as_incident, candidate, settle
from casebuilder.resolution.listing import incident_properties, listing_line
from casebuilder.resolution.merge import Block, MergeCandidate, Parts, blocks_of
from casebuilder.resolution.profiles import load_profiles
from casebuilder.resolution.records import MentionRecord, load_mentions
from casebuilder.resolution.spatial import Near, within
from casebuilder.resolution.summary import Incident
from casebuilder.store import schema

ROWS_PER_STATEMENT = 500  # rows per IN (...) list or insert: well inside every database's limits


@cache
def rules_digest() -> str:
    """What the stored incidents depend on besides the data: the extractor (whose version
    decides mention keys), the resolution stage's code and profiles, and the vocabulary
    (which target types are only settings). Any upgrade of these rebuilds them."""
    digest = hashlib.sha256(EXTRACTOR_ID.encode())  # an upgrade may key mentions anew
    here = Path(__file__).parent
    vocab = here.parent / "extraction" / "vocab"
    for path in sorted([*here.glob("*.py"), *here.glob("*.toml"), *vocab.rglob("*.toml")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:32]


# -- merge candidates as stored JSON ---------------------------------------------------------

def candidate_json(c: MergeCandidate) -> dict[str, Any]:
    return {
        "key": c.key, "lat": c.lat, "lon": c.lon, "precision": c.precision,
        "uncertainty_km": c.uncertainty_km, "place_id": c.place_id, "admin1": c.admin1,
        "situation": c.situation, "categories": sorted(c.categories),
        "when": [c.when.start.isoformat(), c.when.end.isoformat(), c.when.precision]
        if c.when else None,
        "basis": c.basis, "reported": c.reported.isoformat() if c.reported else None,
        "targets": sorted(c.targets), "tolls": sorted(c.tolls), "label": c.label,
        "feature_kind": c.feature_kind, "order": c.order,
        "alternatives": [candidate_json(a) for a in c.alternatives],
        "label_place": c.label_place, "occupation": c.occupation, "tally": c.tally,
    }


def candidate_from_json(d: dict[str, Any]) -> MergeCandidate:
    when = d["when"]
    return MergeCandidate(
        key=d["key"], lat=d["lat"], lon=d["lon"], precision=d["precision"],
        uncertainty_km=d["uncertainty_km"], place_id=d["place_id"], admin1=d["admin1"],
        situation=d["situation"], categories=frozenset(d["categories"]),
        when=PartialDate(date.fromisoformat(when[0]), date.fromisoformat(when[1]),
                         cast(Precision, when[2])) if when else None,
        basis=d["basis"], reported=date.fromisoformat(d["reported"]) if d["reported"] else None,
        targets=frozenset(d["targets"]), tolls=frozenset(d["tolls"]), label=d["label"],
        feature_kind=d["feature_kind"], order=d["order"],
        alternatives=tuple(candidate_from_json(a) for a in d["alternatives"]),
        label_place=d["label_place"], occupation=d["occupation"], tally=d["tally"],
    )


# -- what the stored incidents were made from ------------------------------------------------

@dataclass(frozen=True)
class Observed:
    """The current extraction runs and the decisions, counted, with their highest ids."""

    runs: int
    last_run: int
    decisions: int
    last_decision: int

    @classmethod
    def now(cls, session: Session) -> Observed:
        runs, last_run = session.execute(
            select(func.count(schema.ExtractionRun.id), func.max(schema.ExtractionRun.id))
            .where(schema.ExtractionRun.current.is_(True))).one()
        decisions, last_decision = session.execute(
            select(func.count(schema.AnalystDecision.id),
                   func.max(schema.AnalystDecision.id))).one()
        return cls(int(runs), int(last_run or 0), int(decisions), int(last_decision or 0))

    def matches(self, state: schema.IncidentState | None) -> bool:
        return state is not None and state.rules == rules_digest() and (
            state.runs, state.last_run, state.decisions, state.last_decision) == (
            self.runs, self.last_run, self.decisions, self.last_decision)


@dataclass
class Refreshed:
    """What :func:`refresh` did: nothing (``fresh``), ``updated`` or ``rebuilt``."""

    how: str
    mentions_added: int = 0
    decisions_added: int = 0
    merged_again: int = 0  # mentions merged again (all of them when rebuilt)
    incidents_changed: int = 0
    incidents: int = 0
    why: str = ""

    def details(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in ("", None)}


@dataclass
class _Change:
    """The new runs and decisions since the stored incidents were made."""

    runs: list[int] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)


def refresh(case: Case, *, rebuild: bool = False) -> Refreshed:
    """Bring the stored incidents up to date with the case (or rebuild them), logged as an
    ``incidents`` custody entry when anything changed."""
    if not rebuild:
        with case.session() as session:
            if Observed.now(session).matches(session.get(schema.IncidentState, 1)):
                return Refreshed("fresh")
    with case.transaction() as tx:
        session = tx.session
        observed = Observed.now(session)
        state = session.get(schema.IncidentState, 1)
        if not rebuild and observed.matches(state):
            return Refreshed("fresh")
        change, why = (None, "asked for") if rebuild else _change(session, state, observed)
        done = _update(case, session, change) if change is not None else None
        if done is None:
            done, exact = _rebuild(case, session)
            done.why = why or "a decision names a mention outside the stored incidents"
        else:
            exact = True
        _write_state(session, observed, exact)
        tx.record("incidents", details=done.details())
    return done


def _change(session: Session, state: schema.IncidentState | None, observed: Observed
            ) -> tuple[_Change | None, str]:
    """The new runs and decisions, or None (and why) when only a rebuild is right."""
    if state is None:
        return None, "no incidents stored yet"
    if state.rules != rules_digest():
        return None, "the merging rules changed"
    if not state.exact_anchors:
        return None, "decisions were re-anchored onto re-extracted mentions"
    runs = list(session.execute(select(schema.ExtractionRun.id).where(
        schema.ExtractionRun.current.is_(True),
        schema.ExtractionRun.id > state.last_run)).scalars())
    if observed.runs != state.runs + len(runs):
        return None, "runs were superseded by re-extraction"
    rows = session.execute(select(schema.AnalystDecision).where(
        schema.AnalystDecision.id > state.last_decision).order_by(
        schema.AnalystDecision.id)).scalars()
    decisions = [Decision(d.id, d.action, d.incident_id, dict(d.payload), d.reason, "", "")
                 for d in rows]
    if observed.decisions != state.decisions + len(decisions):
        return None, "decisions were removed"
    return _Change(runs, decisions), ""


def _write_state(session: Session, observed: Observed, exact: bool) -> None:
    state = session.get(schema.IncidentState, 1) or schema.IncidentState(id=1)
    state.runs, state.last_run = observed.runs, observed.last_run
    state.decisions, state.last_decision = observed.decisions, observed.last_decision
    state.rules, state.exact_anchors = rules_digest(), exact
    session.add(state)


# -- rebuilding and updating ------------------------------------------------------------------

#: Makes the listing record of each settled incident (read before anything is written).
Describe = Callable[[Sequence[Settled]], list[dict[str, Any]]]


def _rebuild(case: Case, session: Session) -> tuple[Refreshed, bool]:
    mentions = load_mentions(case)
    decisions = load_decisions(case)
    anchoring = anchoring_for(case, decisions, {m.key: anchor_of(m) for m in mentions})
    by_key = {m.key: m for m in mentions}
    count = store_everything(session, [candidate(m) for m in mentions], decisions, anchoring,
                             {m.key: m.id for m in mentions}, _describer(by_key))
    exact = not (anchoring.moved or anchoring.lost or anchoring.unapplied)
    return Refreshed("rebuilt", mentions_added=len(mentions), merged_again=len(mentions),
                     incidents_changed=count, incidents=count), exact


def _describer(records: Mapping[str, MentionRecord]) -> Describe:
    profiles = load_profiles()
    return lambda settled: [incident_properties(as_incident(s, records), profiles)
                            for s in settled]


def store_everything(session: Session, candidates: Sequence[MergeCandidate],
                     recorded: Sequence[Decision], anchoring: Anchoring,
                     ids: Mapping[str, int | None], describe: Describe) -> int:
    """Merge every mention under the decisions (as ``recorded`` and as re-anchored) and store
    the result in place of what was stored; returns the number of incidents."""
    parts = Parts()
    settled = settle(candidates, recorded, anchoring, parts)
    for table in (schema.MergeEntry, schema.MergeBlock, schema.StoredIncident,
                  schema.IncidentMember):
        session.execute(delete(table))
    _write_entries(session, candidates, parts, ids)
    _write_blocks(session, candidates)
    for chunk in _chunks(settled):
        _write_incidents(session, chunk, describe(chunk), parts)
    return len(settled)


def _update(case: Case, session: Session, change: _Change) -> Refreshed | None:
    """Merge again the parts the new mentions and decisions touch; None if a decision names a
    mention the case does not hold (a rebuild then says what became of it)."""
    new = load_mentions(case, run_ids=change.runs) if change.runs else []
    named = {k for d in change.decisions for k in referenced_keys(d.payload)}
    named |= _undone_keys(session, change.decisions)

    def describe(settled: Sequence[Settled]) -> list[dict[str, Any]]:
        return _describer(_records_for(case, settled, new, session))(settled)

    done = merge_again(session, [candidate(m) for m in new], {m.key: m.id for m in new},
                       named, load_decisions(case), describe)
    if done is None:
        return None
    merged, changed = done
    return Refreshed("updated", mentions_added=len(new), decisions_added=len(change.decisions),
                     merged_again=merged, incidents_changed=changed,
                     incidents=_count_incidents(session))


def merge_again(session: Session, fresh: Sequence[MergeCandidate],
                fresh_ids: Mapping[str, int | None], named: set[str],
                decisions: Sequence[Decision], describe: Describe) -> tuple[int, int] | None:
    """Add the mentions ``fresh`` and take account of decisions naming ``named``: the parts
    they touch are merged again, with every decision in force that names their mentions.
    Returns how many mentions were merged again and how many incidents changed, or None if a
    decision names a mention no part holds."""
    touched = _touched_parts(session, fresh) | _parts_of(session, named)
    stored = [candidate_from_json(e.candidate) for e in _entries_of_parts(session, touched)]
    group = [*stored, *fresh]
    keys = {c.key for c in group}
    if named - keys:
        return None
    applying = [d for d in decisions if set(referenced_keys(d.payload)) & keys]
    parts = Parts()
    settled = settle(group, applying, Anchoring(decisions=applying), parts)
    old = {i.id: i for i in _incidents_of_parts(session, touched)}
    old_members = _members_of(session, old)
    unchanged = {s.id for s in settled if s.id in old and _same(old[s.id], old_members, s)}
    changed = [s for s in settled if s.id not in unchanged]
    ids = {**_mention_ids(session, [c.key for c in stored]), **fresh_ids}
    records = describe(changed)  # read before anything is written
    # what is merged again is written again: its entries, members and changed incidents
    _delete_in(session, schema.MergeEntry.key, [c.key for c in stored])
    _delete_in(session, schema.IncidentMember.incident_id, list(old))
    _delete_in(session, schema.StoredIncident.id, [i for i in old if i not in unchanged])
    _write_entries(session, group, parts, ids)
    _write_blocks(session, fresh)
    for s in settled:
        if s.id in unchanged:
            old[s.id].part = parts.find(s.members[0].key)
    _write_incidents(session, changed, records, parts)
    _write_members(session, [s for s in settled if s.id in unchanged])
    gone = set(old) - {s.id for s in settled}
    return len(group), len(changed) + len(gone)


def _same(row: schema.StoredIncident, members: dict[str, list[str]], s: Settled) -> bool:
    return (members.get(row.id) == [m.key for m in s.members] and row.reasons == s.reasons
            and row.decisions == s.decisions and row.overrides == s.overrides)


#: Cells of the merge's index per side of a map area, and buckets per chunk, of merge_blocks.
AREA_CELLS = 2
CHUNK_BUCKETS = 16


def _areas(block: Block) -> list[str]:
    """The map areas a block is filed under: the squares its cells cover, and its region."""
    out = []
    if block.rows is not None and block.cols is not None:
        out = [f"{r}:{c}" for r in range(block.rows[0] // AREA_CELLS,
                                         block.rows[1] // AREA_CELLS + 1)
               for c in range(block.cols[0] // AREA_CELLS, block.cols[1] // AREA_CELLS + 1)]
    if block.admin1:
        out.append(f"region:{block.admin1}")
    return out


def _chunks_of(block: Block) -> list[int]:
    return list(range(block.buckets[0] // CHUNK_BUCKETS, block.buckets[1] // CHUNK_BUCKETS + 1))


def _touched_parts(session: Session, fresh: Sequence[MergeCandidate]) -> set[str]:
    """The parts holding a mention whose blocks touch a new mention's."""
    keys: set[str] = set()
    for c in fresh:
        for block in blocks_of(c):
            keys |= {row.key for row in _blocks_near(session, block)
                     if _as_block(row).touches(block)}
    return _parts_of(session, keys)


def _blocks_near(session: Session, block: Block) -> list[schema.MergeBlock]:
    """Stored blocks of the same kind filed under the block's squares and chunks, or under
    its region when one of the two is placed only at region level (the exact test is
    Block.touches)."""
    b = schema.MergeBlock
    squares = [a for a in _areas(block) if not a.startswith("region:")]
    where: list[ColumnElement[bool]] = []
    if squares:
        where.append(b.area.in_(squares))
    if block.admin1:
        region = b.area == f"region:{block.admin1}"
        where.append(region if block.broad else region & b.broad.is_(True))
    if not where:
        return []
    return list(session.execute(select(b).where(
        b.situation.is_(block.situation), b.chunk.in_(_chunks_of(block)), or_(*where))
    ).scalars())


def _as_block(row: schema.MergeBlock) -> Block:
    rows = (row.row_lo, row.row_hi) if row.row_lo is not None and row.row_hi is not None \
        else None
    cols = (row.col_lo, row.col_hi) if row.col_lo is not None and row.col_hi is not None \
        else None
    return Block(row.situation, row.broad, row.admin1, rows, cols,
                 (row.bucket_lo, row.bucket_hi))


def _chunks(values: Iterable[Any]) -> Iterator[list[Any]]:
    values = list(values)
    for start in range(0, len(values), ROWS_PER_STATEMENT):
        yield values[start:start + ROWS_PER_STATEMENT]


def _selected_in(session: Session, selected: Any, column: Any, values: Iterable[Any]
                 ) -> list[Any]:
    """``selected`` (a table or a column) of the rows whose ``column`` is one of ``values``,
    asked for ROWS_PER_STATEMENT values at a time."""
    out: list[Any] = []
    for chunk in _chunks(sorted(set(values))):
        out.extend(session.execute(select(selected).where(column.in_(chunk))).scalars())
    return out


def _parts_of(session: Session, keys: Iterable[str]) -> set[str]:
    return set(_selected_in(session, schema.MergeEntry.part, schema.MergeEntry.key, keys))


def _entries_of_parts(session: Session, parts: set[str]) -> list[schema.MergeEntry]:
    return _selected_in(session, schema.MergeEntry, schema.MergeEntry.part, parts)


def _incidents_of_parts(session: Session, parts: set[str]) -> list[schema.StoredIncident]:
    return _selected_in(session, schema.StoredIncident, schema.StoredIncident.part, parts)


def _members_of(session: Session, incidents: Iterable[str]) -> dict[str, list[str]]:
    rows = _selected_in(session, schema.IncidentMember, schema.IncidentMember.incident_id,
                        incidents)
    return _in_position(rows)


def _in_position(rows: Iterable[schema.IncidentMember]) -> dict[str, list[str]]:
    """Each incident's member keys in the order they joined."""
    out: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        out.setdefault(row.incident_id, []).append((row.position, row.key))
    return {i: [k for _, k in sorted(keyed)] for i, keyed in out.items()}


def _mention_ids(session: Session, keys: Sequence[str]) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for chunk in _chunks(keys):
        for key, mention_id in session.execute(
                select(schema.MergeEntry.key, schema.MergeEntry.mention_id)
                .where(schema.MergeEntry.key.in_(chunk))):
            out[key] = mention_id
    return out


def _undone_keys(session: Session, decisions: Sequence[Decision]) -> set[str]:
    """The mentions named by the decisions that new ``undo`` decisions take back, following
    an undo of an undo down to the decision it brings back."""
    keys: set[str] = set()
    seen: set[int] = set()
    waiting = [d.payload.get("undoes") for d in decisions if d.action == "undo"]
    while waiting:
        wanted = sorted({int(u) for u in waiting if isinstance(u, int)} - seen)
        seen.update(wanted)
        waiting = []
        for chunk in _chunks(wanted):
            for payload in session.execute(select(schema.AnalystDecision.payload).where(
                    schema.AnalystDecision.id.in_(chunk))).scalars():
                keys.update(referenced_keys(payload))
                waiting.append(payload.get("undoes"))
    return keys


def _delete_in(session: Session, column: Any, values: Sequence[Any]) -> None:
    for chunk in _chunks(values):
        session.execute(delete(column.class_).where(column.in_(chunk)))


def _count_incidents(session: Session) -> int:
    return int(session.execute(select(func.count(schema.StoredIncident.id))).scalar_one())


def _records_for(case: Case, settled: Sequence[Settled], new: Sequence[MentionRecord],
                 session: Session) -> dict[str, MentionRecord]:
    """The mention records of the incidents whose listing record must be made again."""
    records = {m.key: m for m in new}
    wanted = [m.key for s in settled for m in s.members if m.key not in records]
    ids = [i for i in _mention_ids(session, wanted).values() if i is not None]
    if ids:
        records.update({m.key: m for m in load_mentions(case, mention_ids=ids)})
    return records


def _write_entries(session: Session, candidates: Sequence[MergeCandidate], parts: Parts,
                   ids: Mapping[str, int | None]) -> None:
    for chunk in _chunks(candidates):
        session.execute(insert(schema.MergeEntry), [
            {"key": c.key, "mention_id": ids.get(c.key), "part": parts.find(c.key),
             "candidate": candidate_json(c)} for c in chunk])


def _write_blocks(session: Session, candidates: Sequence[MergeCandidate]) -> None:
    rows = [{"key": c.key, "area": area, "chunk": chunk, "situation": b.situation,
             "broad": b.broad, "admin1": b.admin1,
             "row_lo": b.rows[0] if b.rows else None, "row_hi": b.rows[1] if b.rows else None,
             "col_lo": b.cols[0] if b.cols else None, "col_hi": b.cols[1] if b.cols else None,
             "bucket_lo": b.buckets[0], "bucket_hi": b.buckets[1]}
            for c in candidates for b in blocks_of(c) for area in _areas(b)
            for chunk in _chunks_of(b)]
    for chunk_rows in _chunks(rows):
        session.execute(insert(schema.MergeBlock), chunk_rows)


def _write_incidents(session: Session, settled: Sequence[Settled],
                     records: Sequence[dict[str, Any]], parts: Parts) -> None:
    rows = [{
        "id": s.id, "part": parts.find(s.members[0].key), "first_report": s.first_report,
        "date_from": record["date_start"] or record["date_earliest"],
        "date_to": record["date_end"],
        "place": f"{record['place']} {record['admin1']}".lower(),
        "categories": " " + " ".join(record["categories"]) + " ",
        "grade": record["grade"], "lat": record.get("lat"), "lon": record.get("lon"),
        "reasons": s.reasons, "decisions": s.decisions,
        "overrides": s.overrides, "record": record, "line": listing_line(record)}
        for s, record in zip(settled, records, strict=True)]
    for chunk in _chunks(rows):
        session.execute(insert(schema.StoredIncident), chunk)
    _write_members(session, settled)


def _write_members(session: Session, settled: Sequence[Settled]) -> None:
    rows = [{"key": m.key, "incident_id": s.id, "position": n}
            for s in settled for n, m in enumerate(s.members)]
    for chunk in _chunks(rows):
        session.execute(insert(schema.IncidentMember), chunk)


# -- reading ---------------------------------------------------------------------------------

def stored_incidents(case: Case) -> list[Incident]:
    """Every incident of the case, brought up to date, in the order of their first report.
    Stored members that are no current mention (the tables edited or restored apart from the
    mentions) make it rebuild them once, saying why, rather than fail or show a stale case."""
    refresh(case)
    for attempt in range(2):
        mentions = {m.key: m for m in load_mentions(case)}
        with case.session() as session:
            rows = list(session.execute(select(schema.StoredIncident).order_by(
                schema.StoredIncident.first_report, schema.StoredIncident.id)).scalars())
            members = _all_members(session)
        held = {k for keys in members.values() for k in keys}
        if held == set(mentions) or attempt:
            break
        _rebuild_because(case, "stored members and current mentions differ")
    return [_incident(row, members.get(row.id, []), mentions) for row in rows]


def _rebuild_because(case: Case, why: str) -> None:
    with case.transaction() as tx:
        done, exact = _rebuild(case, tx.session)
        done.why = why
        _write_state(tx.session, Observed.now(tx.session), exact)
        tx.record("incidents", details=done.details())


def _all_members(session: Session) -> dict[str, list[str]]:
    return _in_position(session.execute(select(schema.IncidentMember)).scalars())


def _incident(row: schema.StoredIncident, keys: Sequence[str],
              mentions: dict[str, MentionRecord]) -> Incident:
    return Incident(row.id, [mentions[k] for k in keys], list(row.reasons),
                    list(row.decisions), dict(row.overrides))


def stored_incident(case: Case, incident_id: str) -> Incident:
    """One incident, by its id or the key of one of its mentions, reading only its mentions."""
    refresh(case)
    row, keys, mentions = _read_one(case, incident_id)
    if not set(keys) <= set(mentions):
        _rebuild_because(case, "stored members and current mentions differ")
        row, keys, mentions = _read_one(case, incident_id)
    return _incident(row, keys, mentions)


def _read_one(case: Case, incident_id: str
              ) -> tuple[schema.StoredIncident, list[str], dict[str, MentionRecord]]:
    with case.session() as session:
        row = session.get(schema.StoredIncident, incident_id)
        if row is None:
            member = session.get(schema.IncidentMember, incident_id)
            row = session.get(schema.StoredIncident, member.incident_id) if member else None
        if row is None:
            raise NotFound(f"no incident {incident_id} in this case (see 'casebuilder "
                           "incidents')")
        keys = _members_of(session, [row.id]).get(row.id, [])
        ids = [i for i in _mention_ids(session, keys).values() if i is not None]
    return row, keys, {m.key: m for m in load_mentions(case, mention_ids=ids)}


@dataclass(frozen=True)
class ListFilter:
    """What ``casebuilder incidents`` and the web's list filter on (each optional)."""

    place: str | None = None
    since: date | None = None
    until: date | None = None
    category: str | None = None
    grade: str | None = None
    near: Near | None = None  # within km of a point (resolution/spatial.py)


def listed(case: Case, chosen: ListFilter, *, whole: bool = False
           ) -> tuple[list[dict[str, Any]], int]:
    """The incidents that pass the filter, in the order of their first report, as the lines a
    list shows (or ``whole`` records), and how many incidents the case holds; brought up to
    date first."""
    refresh(case)
    with case.session() as session:
        return listed_in(session, chosen, whole=whole)


def listed_in(session: Session, chosen: ListFilter, *, whole: bool = False
              ) -> tuple[list[dict[str, Any]], int]:
    """:func:`listed` on stored incidents as they are. The columns narrow the rows in the
    database; each row is then tested by the one date rule (within_dates)."""
    i = schema.StoredIncident
    query = select(i.record if whole else i.line)
    if chosen.place:
        escaped = chosen.place.lower().replace("\\", "\\\\").replace("%", "\\%").replace(
            "_", "\\_")
        query = query.where(i.place.like(f"%{escaped}%", escape="\\"))
    if chosen.category:
        query = query.where(i.categories.like(f"% {chosen.category} %"))
    if chosen.grade:
        query = query.where(i.grade == chosen.grade)
    if chosen.until:
        query = query.where(or_(i.date_from.is_(None), i.date_from <= chosen.until.isoformat()))
    exact = True
    if chosen.near:
        condition, exact = within(session, chosen.near)
        query = query.where(condition)
    total = _count_incidents(session)
    out = []
    for r in session.execute(query.order_by(i.first_report, i.id)).scalars():
        if not line_within(r, chosen.since, chosen.until):
            continue
        if not exact and chosen.near and not chosen.near.holds(r.get("lat"), r.get("lon")):
            continue
        out.append(r)
    return out, total


def line_within(line: Mapping[str, Any], since: date | None, until: date | None) -> bool:
    """Whether a listed incident passes a date filter (within_dates on its days; an open
    start counts from the earliest day it can be)."""
    first = line["date_start"] or line.get("date_earliest")
    last = line.get("date_end")
    return within_dates(date.fromisoformat(first) if first else None,
                        date.fromisoformat(last) if last else None, since, until)


def stored_record(case: Case, incident_id: str) -> dict[str, Any]:
    """One incident's whole listing record (resolution.listing) as stored, brought up to date
    first: what the web interface's incident page shows, without reading any claim."""
    refresh(case)
    with case.session() as session:
        row = session.get(schema.StoredIncident, incident_id)
        if row is None:
            raise NotFound(f"no incident {incident_id} in this case")
        return dict(row.record)
