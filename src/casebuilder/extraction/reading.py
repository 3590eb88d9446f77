"""What the extractor learns about one document while it reads it.

The extractor (:class:`~casebuilder.extraction.mentions.MentionExtractor`) is built once and
reused for many documents, from several threads if need be, so it keeps nothing about the
document in hand. All of that lives in a :class:`DocumentReading`, made afresh for each
document and passed along: the place its headline names, the names it left undecided, the
dates later sentences are dated from, the rule tables in force, and every decision a rule
table made, with the words it was about (what the rule tests read to check each rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeVar

from casebuilder.extraction.claims import Claim, IncidentMention, SourceText
from casebuilder.extraction.page_segments import Segment
from casebuilder.extraction.rules import Decision, RuleTable
from casebuilder.extraction.value_roles import NamedAttack
from casebuilder.gazetteer import Place, ToponymMention
from casebuilder.model.partial_date import PartialDate

C = TypeVar("C")

#: The rule tables of a reading, by name (the file name in vocab/rules/ without ``.toml``).
RuleTables = Mapping[str, RuleTable[Any]]


@dataclass(slots=True)
class TracedDecision:
    """One decision of a rule table about the words at ``start:end`` of the text."""

    table: str
    start: int
    end: int
    decision: Decision


@dataclass(frozen=True, slots=True)
class ReportTime:
    """A time a report states for what it says: its dateline's, or "as of 11am" beside a
    figure."""

    day: date
    time: str  # "HH:MM"
    zone: str  # as written, or ""
    start: int
    end: int
    words: str

    def as_value(self) -> dict[str, Any]:
        return {"stated_at": f"{self.day.isoformat()}T{self.time}", "stated_zone": self.zone,
                "stated_words": self.words, "stated_char_start": self.start,
                "stated_char_end": self.end}


@dataclass
class DocumentReading:
    """The state of reading one document; nothing in it outlives the document."""

    source: SourceText
    tables: RuleTables
    #: The settlement the headline names ("Uman: 23 dead after ...").
    title_place: tuple[ToponymMention, Place] | None = None
    #: Names of a town read as the region named after it (vocab/rules/place_levels.toml),
    #: by the offset of the name: the rule and the town.
    relevelled: dict[int, tuple[str, Place]] = field(default_factory=dict)
    #: Places of a name the document gave nothing to choose between, by the one chosen.
    undecided: dict[str, tuple[Place, ...]] = field(default_factory=dict)
    #: Some sentence with harm names a settlement or site where it happened.
    has_fine_place: bool = False
    #: The date of the first dated attack, which "a day after an air attack" counts from.
    anchor_date: PartialDate | None = None
    #: The date of the mention in focus, which "later that day" means.
    focus_date: PartialDate | None = None
    #: When the report says it was written, where its dateline gives a time: the day,
    #: "HH:MM", the zone as written, and the offsets of the words (see
    #: :meth:`~casebuilder.extraction.mentions.MentionExtractor.read`).
    report_time: ReportTime | None = None
    #: The day relative dates ("on Thursday", "yesterday") count from: the day the text's
    #: dateline gives when the page was published a few days after it (a republication),
    #: else the publication day.
    report_day: date | None = None
    #: The day the report says its source spoke ("the governor said on Tuesday"), when it is
    #: a few days before the report: "today" quoted from that statement is that day.
    statement_day: date | None = None

    @property
    def counted_from(self) -> date | None:
        return self.report_day or self.source.published
    #: Some sentence read so far (not page furniture) told harm.
    harm_told: bool = False
    #: The first dateline with a time of day read so far ("30 May, 2023 22:11" near the top
    #: of the page): what a weekday read after it is checked against (stamp_days.toml).
    stamp: ReportTime | None = None
    #: The latest attack's own day a sentence named ("the April 24 attack") that lies before
    #: the day relative dates count from: "overnight" just after it is that attack's night.
    named_attack: NamedAttack | None = None
    decisions: list[TracedDecision] = field(default_factory=list)
    #: The blocks of the page that are not running text: headings, datelines, and the
    #: furniture kept out of every incident (extraction/page_segments.py).
    segments: list[Segment] = field(default_factory=list)
    mentions: list[IncidentMention] = field(default_factory=list)
    #: The ``not_taken`` claims of each mention (by ``id``), kept out of its claims until
    #: the document is read, so no rule of assembly ever counts them.
    not_taken: dict[int, list[Claim]] = field(default_factory=dict)

    def decide(self, table: str, context: Any, start: int, end: int) -> Decision:
        """Apply the table ``table`` to ``context`` and keep the decision in the trace."""
        decision = self.tables[table].decide(context)
        self.decisions.append(TracedDecision(table, start, end, decision))
        return decision

    def set_aside(self, mention: IncidentMention, claims: list[Claim]) -> None:
        """Record values not taken beside ``mention`` (each once)."""
        kept = self.not_taken.setdefault(id(mention), [])
        seen = {(c.rule, c.provenance.char_start, c.provenance.char_end) for c in kept}
        for claim in claims:
            key = (claim.rule, claim.provenance.char_start, claim.provenance.char_end)
            if key not in seen:
                seen.add(key)
                kept.append(claim)

    def traced_mentions(self, mentions: list[IncidentMention]) -> list[IncidentMention]:
        """The mentions with their ``not_taken`` claims after their other claims."""
        for mention in mentions:
            mention.claims.extend(self.not_taken.pop(id(mention), []))
        return mentions

    def segment_at(self, start: int, end: int) -> Segment | None:
        """The page segment that holds the words at ``start:end``, if any."""
        return next((s for s in self.segments if s.covers(start, end)), None)

    def decisions_about(self, table: str, start: int, end: int) -> list[Decision]:
        """The decisions of ``table`` about words that cover ``start:end``, in order."""
        return [t.decision for t in self.decisions
                if t.table == table and t.start <= start and end <= t.end]
