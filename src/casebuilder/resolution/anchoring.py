"""Keeping analysts' decisions on their mentions when an upgrade changes how mentions are keyed.

A decision names the mentions it was made on by their keys. A key is derived from the document,
the place, the kind (single attack or continuing situation) and the event date, so it survives
re-extraction with the same key formula. When a new version computes keys differently, every
key a decision names disappears from the current extraction. The mentions themselves are still
there: the decision is re-anchored to the current mentions of the same document with the same
place, kind and date, read from what was stored when the decision was made (the ``anchors`` a
decision records since this module exists) or, for older decisions, from the superseded
extraction runs, which are kept.

Re-anchoring is worked out afresh each time incidents are built, so it only ever uses stored
data; :func:`record_reanchoring` (run by the command line after every extraction) writes each
re-anchoring, and each key that could not be re-anchored, to the custody log once, and the
incident output shows it beside the decision.
A decision none of whose mentions can be found any more does not apply, and every command that
shows or exports incidents says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select

from casebuilder.preservation.case import Case
from casebuilder.resolution.decisions import Decision, load_decisions
from casebuilder.resolution.records import MentionRecord
from casebuilder.store import schema

#: The payload fields of a decision that hold mention keys.
KEY_FIELDS = ("anchor_keys", "keys", "moved", "remaining")
NOTE = "analysts' decisions re-anchored after re-extraction changed mention keys"


@dataclass(frozen=True)
class Anchor:
    """What a mention key stands for: the same facts the key is computed from."""

    document: str  # SHA-256 of the item the mention is in
    place: str  # gazetteer id, else the place as written
    situation: bool
    when: str  # the stored event date ("start/end"), or "" when only the report dates it

    @classmethod
    def of(cls, sha256: str, place: Mapping[str, Any] | None, place_name: str,
           situation: bool, date_start: str | None, date_end: str | None,
           date_basis: str | None) -> Anchor:
        where = str((place or {}).get("gazetteer_id") or place_name or "")
        when = f"{date_start}/{date_end}" if date_basis == "event" and date_start else ""
        return cls(sha256, where, bool(situation), when)

    @classmethod
    def from_json(cls, value: Any) -> Anchor | None:
        if not isinstance(value, Mapping):
            return None
        try:
            return cls(str(value["document"]), str(value["place"]), bool(value["situation"]),
                       str(value["when"]))
        except KeyError:
            return None

    def as_json(self) -> dict[str, Any]:
        return {"document": self.document, "place": self.place, "situation": self.situation,
                "when": self.when}


def anchor_of(m: MentionRecord) -> Anchor:
    return Anchor.of(m.document.sha256, m.place, m.place_name, m.situation,
                     m.date.start.isoformat() if m.date else None,
                     m.date.end.isoformat() if m.date else None, m.date_basis)


def _row_anchor(row: schema.IncidentMention, sha256: str) -> Anchor:
    return Anchor.of(sha256, row.place, row.place_name, row.situation, row.date_start,
                     row.date_end, row.date_basis)


def referenced_keys(payload: Mapping[str, Any]) -> list[str]:
    """Every mention key a decision's payload names, each once, in the order given."""
    seen: dict[str, None] = {}
    for name in KEY_FIELDS:
        for key in payload.get(name, []) or []:
            seen.setdefault(str(key), None)
    return list(seen)


def applies(d: Decision, keys: set[str]) -> bool:
    """Whether a decision still does something when only ``keys`` exist: an edit or grade needs
    one of its mentions, a merge two, a split one moved and one remaining."""
    def present(name: str) -> int:
        return sum(1 for k in d.payload.get(name, []) or [] if k in keys)

    if d.action == "merge":
        return present("keys") >= 2
    if d.action == "split":
        return present("moved") >= 1 and present("remaining") >= 1
    return present("anchor_keys") >= 1


@dataclass
class Anchoring:
    """Decisions with their payload keys mapped onto the current mentions, and what changed."""

    decisions: list[Decision] = field(default_factory=list)  # with current keys; as given
    moved: dict[int, dict[str, list[str]]] = field(default_factory=dict)  # id: old key -> new
    lost: dict[int, list[str]] = field(default_factory=dict)  # id: keys found nowhere now
    unapplied: list[Decision] = field(default_factory=list)  # as recorded, doing nothing now

    def note(self, d: Decision) -> dict[str, Any]:
        """What an incident's output says about a decision's anchoring, if anything changed."""
        out: dict[str, Any] = {}
        if self.moved.get(d.id):
            out["reanchored"] = self.moved[d.id]
        if self.lost.get(d.id):
            out["unanchored_keys"] = self.lost[d.id]
        return out


def reanchor(decisions: Sequence[Decision], current: Mapping[str, Anchor],
             superseded: Mapping[str, Anchor]) -> Anchoring:
    """Map every key a decision names that is not a current mention onto the current mentions
    of the same document, place, kind and date (several if the new extraction tells apart what
    the old key did not). The facts behind an old key come from the decision's own ``anchors``
    or, failing that, from the superseded runs (``superseded``)."""
    by_anchor: dict[Anchor, list[str]] = {}
    for key, facts in sorted(current.items()):
        by_anchor.setdefault(facts, []).append(key)
    result = Anchoring()
    for d in decisions:
        recorded = d.payload.get("anchors") or {}
        mapping: dict[str, list[str]] = {}
        lost: list[str] = []
        for key in referenced_keys(d.payload):
            if key in current:
                continue
            anchor = Anchor.from_json(recorded.get(key)) \
                if isinstance(recorded, Mapping) else None
            anchor = anchor or superseded.get(key)
            found = by_anchor.get(anchor, []) if anchor is not None else []
            if found:
                mapping[key] = list(found)
            else:
                lost.append(key)
        if mapping:
            payload = dict(d.payload)
            for name in KEY_FIELDS:
                if name in payload:
                    keys: dict[str, None] = {}
                    for key in payload[name] or []:
                        for new in mapping.get(key, [key]):
                            keys.setdefault(new, None)
                    payload[name] = list(keys)
            applied = replace(d, payload=payload)
            result.moved[d.id] = mapping
        else:
            applied = d
        if lost:
            result.lost[d.id] = lost
        if applies(applied, set(current)):
            result.decisions.append(applied)
        else:
            result.unapplied.append(d)
    return result


def current_anchors(case: Case) -> dict[str, Anchor]:
    """The key and facts of every mention of the current extraction runs."""
    with case.session() as session:
        rows = session.execute(
            select(schema.IncidentMention, schema.Item.sha256)
            .join(schema.ExtractionRun, schema.ExtractionRun.id == schema.IncidentMention.run_id)
            .join(schema.Item, schema.Item.id == schema.IncidentMention.item_id)
            .where(schema.ExtractionRun.current.is_(True))).all()
        return {row.key: _row_anchor(row, sha256) for row, sha256 in rows}


def superseded_anchors(case: Case, keys: Iterable[str]) -> dict[str, Anchor]:
    """The facts behind mention keys that only superseded extraction runs hold (the latest row
    of each)."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    found: dict[str, Anchor] = {}
    with case.session() as session:
        for start in range(0, len(wanted), 500):
            rows = session.execute(
                select(schema.IncidentMention, schema.Item.sha256)
                .join(schema.Item, schema.Item.id == schema.IncidentMention.item_id)
                .where(schema.IncidentMention.key.in_(wanted[start:start + 500]))
                .order_by(schema.IncidentMention.id)).all()
            for row, sha256 in rows:
                found[row.key] = _row_anchor(row, sha256)
    return found


def anchoring_for(case: Case, decisions: Sequence[Decision],
                  current: Mapping[str, Anchor]) -> Anchoring:
    """Re-anchor ``decisions`` onto the ``current`` mentions of the case, reading the facts
    of keys no longer current from the superseded runs where a decision did not record them."""
    stale = {k for d in decisions for k in referenced_keys(d.payload) if k not in current}
    return reanchor(decisions, current, superseded_anchors(case, stale))


def describe(case: Case, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The facts behind current mention keys, stored with a decision so it can be re-anchored
    whatever later happens to the keys."""
    current = current_anchors(case)
    return {k: current[k].as_json() for k in keys if k in current}


def unapplied_decisions(case: Case) -> list[Decision]:
    """Decisions that no longer do anything: their mentions were replaced by re-extraction and
    no current mention has the same document, place, kind and date. An analyst should review
    them; every command that shows or exports incidents warns about them."""
    decisions = load_decisions(case)
    if not decisions:
        return []
    return anchoring_for(case, decisions, current_anchors(case)).unapplied


def record_reanchoring(case: Case) -> int:
    """Log, once, each re-anchoring of a decision and each key that could not be re-anchored
    (an ``annotate`` custody entry); returns for how many decisions something was logged. The
    caller checkpoints the log. Run after extraction."""
    decisions = load_decisions(case)
    if not decisions:
        return 0
    current = current_anchors(case)
    if all(k in current for d in decisions for k in referenced_keys(d.payload)):
        return 0
    anchoring = anchoring_for(case, decisions, current)
    logged_moves: set[tuple[int, str, tuple[str, ...]]] = set()
    logged_lost: set[tuple[int, str]] = set()
    with case.session() as session:
        for entry in session.execute(select(schema.CustodyEvent.entry).where(
                schema.CustodyEvent.action == "annotate")).scalars():
            details = json.loads(entry).get("details", {})
            if details.get("note") != NOTE:
                continue
            for r in details.get("reanchored", []):
                for old, new in r.get("keys", {}).items():
                    logged_moves.add((int(r["decision"]), old, tuple(new)))
            for r in details.get("unanchored", []):
                for old in r.get("keys", []):
                    logged_lost.add((int(r["decision"]), old))
    unapplied = {d.id for d in anchoring.unapplied}
    moved, lost = [], []
    for d in decisions:
        keys = {old: new for old, new in anchoring.moved.get(d.id, {}).items()
                if (d.id, old, tuple(new)) not in logged_moves}
        if keys:
            moved.append({"decision": d.id, "action": d.action, "incident": d.incident_id,
                          "keys": keys})
        missing = [k for k in anchoring.lost.get(d.id, []) if (d.id, k) not in logged_lost]
        if missing:
            lost.append({"decision": d.id, "action": d.action, "incident": d.incident_id,
                         "keys": missing, "applies": d.id not in unapplied})
    if not moved and not lost:
        return 0
    with case.transaction() as tx:
        tx.record("annotate", details={"note": NOTE, "reanchored": moved, "unanchored": lost})
    return len(moved) + len(lost)
