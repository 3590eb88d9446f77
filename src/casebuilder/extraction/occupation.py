"""Crimes of an occupation, dated by the occupation rather than by the day they were found.

Extraction stage, one step of :meth:`casebuilder.extraction.mentions.MentionExtractor.read`,
run on a document's mentions once they are assembled. Killings, torture and detention done
while a place was held come to light when it is retaken: bodies found, graves exhumed, a
basement where people were kept. A report of them is written on the day of the discovery, and
without this step the mention is dated by that day, which splits it from the other reports of
the same crimes and dates the crimes after they ended.

The rule table ``vocab/rules/occupation_dates.toml`` decides, for each mention, whether it is
dated by the occupation (outcome ``occupation``) or as found (``as_found``): it looks at the
mention's categories, the words of its sentences and of the whole document. A mention dated by
the occupation gets a date claim for the period (rule ``occupation-period``): from the day the
text says the place was entered or taken, to the day it says the place was retaken (each the
date nearest to those words in their sentence). When the text names no start, the period is
open at the start (``open_start``; its stored start is the war's first day, the earliest it
can be); when it names no retaking, it ends on the report's day. The claim quotes the words of
the end (or of the occupation, when no end is said) and keeps the offsets of the start's words.
Dates the mention had that lie in the period and do not come from those two sentences stay its
dates (the day a family was taken away); the others no longer date it (see
:meth:`~casebuilder.extraction.claims.IncidentMention.event_date`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from functools import cached_property
from typing import Any, Final

from casebuilder.extraction.claims import Claim, IncidentMention, Provenance
from casebuilder.extraction.dates import DateMention
from casebuilder.extraction.facts import SentenceFacts
from casebuilder.extraction.reading import DocumentReading
from casebuilder.extraction.rules import Predicate, RuleTable, load_rule_table
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.model.claim_values import DateValue
from casebuilder.model.lexicon import Lexicon
from casebuilder.model.partial_date import PartialDate

OCCUPATION_TABLE: Final = "occupation_dates"
OCCUPATION_OUTCOMES = ("occupation", "as_found")
PERIOD_RULE: Final = "occupation-period"
#: The basis of a mention's date when the occupation period gives it (beside "event",
#: "situation" and "report").
OCCUPATION_BASIS: Final = "occupation"


@dataclass
class OccupationContext:
    """What the occupation-date predicates look at: one mention and its document."""

    mention: IncidentMention
    document: str
    #: One of the mention's own event dates lies wholly after the retaking the text states.
    after_retaking: bool = False

    @cached_property
    def sentences(self) -> list[str]:
        seen: dict[int, str] = {}
        for c in self.mention.claims:
            if c.in_text:
                seen.setdefault(c.provenance.sentence_start, c.provenance.quote)
        return list(seen.values())


def _mention_matches(c: OccupationContext, pattern: re.Pattern[str]) -> bool:
    return any(pattern.search(s) for s in c.sentences)


OCCUPATION_PREDICATES: dict[str, Predicate[OccupationContext]] = {p.name: p for p in (
    Predicate("dated_after_the_retaking", "one of the mention's own event dates lies wholly "
              "after the retaking the text states", "bool",
              lambda c, wanted: c.after_retaking is wanted),
    Predicate("crime_category", "the mention's categories include one of", "words",
              lambda c, words: bool(set(c.mention.categories) & words)),
    Predicate("mention_matches", "a sentence of the mention matches the pattern", "pattern",
              _mention_matches),
    Predicate("document_matches", "the document's text matches the pattern", "pattern",
              lambda c, pattern: bool(pattern.search(c.document))),
    Predicate("document_also_matches", "the document's text matches this pattern too (a "
              "second pattern beside document_matches)", "pattern",
              lambda c, pattern: bool(pattern.search(c.document))),
)}


def load_occupation_table(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    path = vocabulary.directory / "rules" / f"{OCCUPATION_TABLE}.toml"
    return {OCCUPATION_TABLE: load_rule_table(path, OCCUPATION_PREDICATES, OCCUPATION_OUTCOMES,
                                              vocabulary.lexicon)}


@dataclass(frozen=True, slots=True)
class Bound:
    """A date the text gives for the start or the end of an occupation, with its sentence."""

    date: DateMention
    fact: SentenceFacts


@dataclass(frozen=True, slots=True)
class OccupationPeriod:
    """The occupation a document tells of: its stated start and end, where it states them."""

    start: Bound | None
    end: Bound | None

    @property
    def bound_sentences(self) -> frozenset[int]:
        return frozenset(b.fact.sentence.start for b in (self.start, self.end) if b)

    @classmethod
    def of(cls, facts: list[SentenceFacts], lexicon: Lexicon) -> OccupationPeriod:
        starts = _bounds(facts, lexicon.pattern("occupation_start_words"))
        ends = _bounds(facts, lexicon.pattern("retaking_words"))
        end = min(ends, key=lambda b: b.date.value.end, default=None)
        start = min((b for b in starts if end is None or b.date.value.start <= end.date.value.end),
                    key=lambda b: b.date.value.start, default=None)
        return cls(start, end)

    def value(self, war_start: date | None, published: date | None
              ) -> tuple[PartialDate, bool] | None:
        """The period as a date, and whether its start is open (not stated)."""
        last = self.end.date.value.end if self.end else published
        first = self.start.date.value.start if self.start else war_start
        if last is None or first is None or first > last:
            return None
        return PartialDate.range(first, last), self.start is None


def _after(mention: IncidentMention, period: OccupationPeriod) -> bool:
    """Whether one of the mention's event dates, outside the sentences of the period's own
    edges, lies wholly after the retaking: harm done after the place was retaken."""
    if period.end is None:
        return False
    end = period.end.date.value.end
    edges = period.bound_sentences
    return any(c.provenance.sentence_start not in edges
               and PartialDate.parse_iso(v.iso).start > end for c, v in mention.dates("event"))


def _bounds(facts: list[SentenceFacts], pattern: re.Pattern[str]) -> list[Bound]:
    """For each sentence the pattern matches, the date nearest to the words it matched."""
    found = []
    for fact in facts:
        s = fact.sentence
        match = pattern.search(s.text)
        if match is None or not fact.dates:
            continue
        cue_start, cue_end = s.start + match.start(), s.start + match.end()
        nearest = min(fact.dates, key=lambda d: max(d.start - cue_end, cue_start - d.end, 0))
        found.append(Bound(nearest, fact))
    return found


class OccupationDating:
    """Dates the crimes of an occupation by the occupation. Build once, reuse."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.lexicon = vocabulary.lexicon
        self.wars = vocabulary.wars

    def date(self, mentions: list[IncidentMention], facts: list[SentenceFacts],
             reading: DocumentReading) -> None:
        source = reading.source
        period = OccupationPeriod.of(facts, self.lexicon)
        for mention in mentions:
            if mention.situation:
                continue
            trigger = next((c for c in mention.claims if c.kind == "category"), None)
            if trigger is None:
                continue
            context = OccupationContext(mention, source.text, _after(mention, period))
            decision = reading.decide(OCCUPATION_TABLE, context, trigger.provenance.char_start,
                                      trigger.provenance.char_end)
            if decision.outcome != "occupation":
                continue
            day = reading.counted_from
            war = self.wars.war_for("war", day) if day else None
            dated = period.value(war.start if war else None, day)
            if dated is None:
                continue
            self._add_period(mention, period, dated, decision.rule, trigger, source.item_id)

    @staticmethod
    def _add_period(mention: IncidentMention, period: OccupationPeriod,
                    dated: tuple[PartialDate, bool], rule: str, trigger: Claim,
                    item_id: int) -> None:
        value, open_start = dated
        bounds = period.bound_sentences
        for index, claim in enumerate(mention.claims):
            if isinstance(claim.value, DateValue) and claim.provenance.sentence_start in bounds:
                # the period's edge, not a crime's day
                mention.claims[index] = replace(
                    claim, value=replace(claim.value, occupation_bound=True))
        provenance, attribution = trigger.provenance, trigger.attribution
        words = period.end.date if period.end else None
        if period.end is not None:
            where = period.end.fact.sentence
            provenance = Provenance(item_id, period.end.date.start, period.end.date.end,
                                    where.text, where.start, where.end)
            attribution = period.end.fact.attribution
        start_words = period.start.date if period.start else None
        mention.claims.append(Claim("date", DateValue(
            iso=value.iso(), precision=value.precision,
            expression=_expression(start_words, words), role="event",
            period="occupation", open_start=open_start, distance=0,
            decided_by=f"{OCCUPATION_TABLE}/{rule}",
            start_words=start_words.expression if start_words else None,
            start_char_start=start_words.start if start_words else None,
            start_char_end=start_words.end if start_words else None,
        ), provenance, attribution, PERIOD_RULE))


def _expression(start: DateMention | None, end: DateMention | None) -> str:
    opening = f"from {start.expression}" if start else "from a start not stated"
    closing = f"until the retaking ({end.expression})" if end else "until the report"
    return f"occupation, {opening} {closing}"
