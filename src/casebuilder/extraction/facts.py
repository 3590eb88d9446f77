"""What one sentence gives: its signals of harm, places, dates, figures and source.

:class:`SentenceFacts` holds what :class:`~casebuilder.extraction.mentions.MentionExtractor`
found in one sentence; the functions here answer questions about those facts that assembling
mentions asks (does the sentence name a settlement? another place than the one in focus? a
whole country's total?). Word classes come from the lexicon by name (vocab/lexicon/).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from casebuilder.extraction.attribution import Attribution
from casebuilder.extraction.claims import IncidentMention
from casebuilder.extraction.dates import DateMention, TimeOfDay
from casebuilder.extraction.figures import CasualtyFigure
from casebuilder.extraction.phrases import PhraseMatch
from casebuilder.extraction.text import Sentence, Token
from casebuilder.gazetteer import Place, ToponymMention
from casebuilder.gazetteer.model import same_place
from casebuilder.model.claim_values import NotTakenValue
from casebuilder.model.lexicon import Lexicon

#: Lower is more precise (see :func:`place_rank`).


@dataclass(frozen=True)
class NotTaken:
    """A value of a sentence a rule set aside or gave another role, with the rule's name
    (``table/rule``): what becomes a ``not_taken`` claim of the mentions the sentence joins."""

    start: int
    end: int
    value: NotTakenValue  # what it was (category, place, date ...), its words, its role
    rule: str

    @classmethod
    def by(cls, table: str, rule: str, start: int, end: int, value: NotTakenValue
           ) -> NotTaken:
        return cls(start, end, value, f"{table}/{rule}")


@dataclass
class SentenceFacts:
    sentence: Sentence
    attribution: Attribution
    categories: dict[str, list[PhraseMatch[str]]]
    weapons: list[PhraseMatch[str]]
    targets: list[PhraseMatch[str]]
    actors: list[PhraseMatch[str]]
    figures: list[CasualtyFigure]
    dates: list[DateMention]
    places: list[tuple[ToponymMention, Place, str]]  # mention, resolved place, role
    denial: bool
    qualifies_previous: bool
    cues: bool = False  # words of a continuing situation ("relentless", "for weeks")
    harm_words: bool = False  # any harm word at all, even one too weak to start a mention
    #: Harm that continues (a siege, a campaign of shelling) rather than one attack; see
    #: :func:`is_situation`.
    situation: bool = False
    #: What rules set aside or gave another role in the sentence (negative traces).
    not_taken: list[NotTaken] = field(default_factory=list)
    #: Times of day with no day beside them ("as of 11am"): report times, not dates.
    times: list[TimeOfDay] = field(default_factory=list)

    @property
    def eventful(self) -> bool:
        return bool(self.categories)


def is_situation(categories: dict[str, list[PhraseMatch[str]]], dates: list[DateMention],
                 figures: list[CasualtyFigure], cues: bool, lexicon: Lexicon) -> bool:
    """Harm that continues (a siege, a campaign of shelling) rather than one attack."""
    found = set(categories)
    situations = lexicon.words("situation_categories")
    attack = found - situations
    one_day = any(d.value.days <= 2 for d in dates if d.role == "event")
    if found & situations and not attack:
        return True
    # "Rescuers searched for days after the strike killed 12": one attack's toll, not a
    # running total, makes the sentence about one attack whatever the cue words say
    tolls = lexicon.words("attack_toll_measures")
    toll = any(f.measure in tolls and not f.cumulative and (f.low or 0) > 0 for f in figures)
    return bool(attack) and cues and not one_day and not toll


# -- questions about a sentence's places ------------------------------------------------------

def fine_places(fact: SentenceFacts, lexicon: Lexicon) -> bool:
    """Does the sentence name a known settlement or site where something may have happened?
    (A dateline, a region or a place fire came from does not count.)"""
    kinds = lexicon.words("fine_place_kinds")
    roles = lexicon.words("fine_place_roles")
    return any(p.feature_kind in kinds and role in roles for _, p, role in fact.places)


def only_speaker_places(fact: SentenceFacts, lexicon: Lexicon) -> bool:
    """Every settlement the sentence names is part of who speaks ("the Belgorod governor")."""
    kinds = lexicon.words("fine_place_kinds")
    roles = {role for _, place, role in fact.places if place.feature_kind in kinds}
    return bool(roles) and roles <= lexicon.words("speaking_roles")


def unknown_place(fact: SentenceFacts, lexicon: Lexicon, *, speaker_ok: bool = False
                  ) -> str | None:
    """A settlement the text names as one ("the village of Zarichne") but no gazetteer knows.
    One named only as the speaker's office ("the head of the village of Zarichne said") is
    who speaks, not where; with ``speaker_ok`` it is the fallback, as for known places."""
    a = fact.attribution
    offices = lexicon.words("settlement_office_words")
    speaker = None
    for match in lexicon.pattern("named_settlement").finditer(fact.sentence.text):
        start = fact.sentence.start + match.start("name")
        before = fact.sentence.text[: match.start()].lower().split()[-3:]
        if (a.start is not None and a.end is not None and a.start <= start < a.end) or any(
                w in offices for w in before):
            speaker = speaker or match.group("name")
            continue
        return match.group("name")
    return speaker if speaker_ok else None


def elsewhere(fact: SentenceFacts, focus: IncidentMention, lexicon: Lexicon) -> bool:
    """Does the sentence name a place (even a region) that is not the focus's?"""
    if not fine_places(fact, lexicon) and unknown_place(fact, lexicon) is not None:
        # a village no gazetteer knows: matched by name and date where it is handled
        return True
    if focus.place is None:
        return False
    new_paragraph = fact.sentence.paragraph != focus.paragraph_last
    placing = lexicon.words("placing_roles")
    speaking = lexicon.words("speaking_roles")
    for _, place, role in fact.places:
        if role not in placing or place.feature_kind == "country":
            continue
        if role in speaking and not new_paragraph:
            continue  # "..., according to the Belgorod governor": who says, not where
        if place.feature_kind == "region":
            if place.admin1 and place.admin1 != focus.place.admin1:
                return True
            continue
        if not same_place(place, focus.place):
            return True
    return False


def country_total(fact: SentenceFacts) -> bool:
    """"... were killed in Ukraine": a figure for the whole country."""
    return bool(fact.figures) and any(
        role == "event" and p.feature_kind == "country" for _, p, role in fact.places)


# -- questions about what a sentence tells -------------------------------------------------------

def spans_days(fact: SentenceFacts) -> bool:
    """Does the sentence date what it tells over more than a day or two ("in January")?"""
    return any(d.role == "event" and d.value.days > 2 for d in fact.dates)


def nationwide(fact: SentenceFacts, lexicon: Lexicon) -> bool:
    """"Strikes across the country killed 18 this week": a summary of many attacks."""
    return bool(lexicon.pattern("nationwide").search(fact.sentence.text))


def one_attack_told(fact: SentenceFacts, lexicon: Lexicon) -> bool:
    """Not a country's or a month's total ("In January 2024, at least 158 civilians were
    killed in Ukraine"), which no single attack's place may take."""
    if nationwide(fact, lexicon) or country_total(fact):
        return False
    return not spans_days(fact)


def situation_evidence(fact: SentenceFacts) -> bool:
    """A running total or a span of days: what shows harm that went on."""
    return any(f.cumulative for f in fact.figures) or spans_days(fact)


def situation_only(fact: SentenceFacts) -> bool:
    """A cumulative toll with no harm word still describes the situation at a place."""
    return any(f.cumulative and f.measure == "killed" for f in fact.figures)


def clause_before(tokens: Sequence[Token], index: int, reach: int, lexicon: Lexicon
                  ) -> list[str]:
    """Up to ``reach`` words before token ``index``, not reaching back past a comma, a
    semicolon, a colon or a dash."""
    stops = lexicon.words("clause_stops")
    words: list[str] = []
    for token in reversed(tokens[max(0, index - reach) : index]):
        if token.lower in stops:
            break
        words.append(token.lower)
    return words


# -- places compared ------------------------------------------------------------------------------

def finer(new: Place, old: Place) -> bool:
    """Placed more precisely (the gazetteer's precision rank, then the smaller radius)."""
    return (new.precision_rank, new.uncertainty_km) < (old.precision_rank, old.uncertainty_km)


def unique(places: Sequence[tuple[str, Place]]) -> list[tuple[str, Place]]:
    seen: set[str] = set()
    out = []
    for name, place in places:
        if place.gazetteer_id not in seen:
            seen.add(place.gazetteer_id)
            out.append((name, place))
    return out
