"""Round-ups: a sentence that lists other places also targeted, with no harm of their own.

"Other regions, including Zhytomyr, Poltava and Sumy, were also targeted": a report of one
attack often ends by listing where else the same night's strikes fell. Each name in such a
list is no incident: the text tells nothing that happened there (no toll, nothing hit), and the
attack it is about is told elsewhere. The rule table ``vocab/rules/round_ups.toml`` decides,
for a sentence naming several places of harm, whether it gives them harm of their own
(``own``) or only lists them (``round_up``); the places of a round-up, and its harm words, are
set aside with the rule's name. A place the text gives its own harm in another sentence ("The
attack also hit Kharkiv, where two people were injured") is read there. One step of
:mod:`casebuilder.extraction.mentions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from casebuilder.extraction.figures import CasualtyFigure
from casebuilder.extraction.phrases import PhraseMatch
from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.extraction.text import Sentence
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.gazetteer import Place, ToponymMention

ROUND_UP_TABLE = "round_ups"
ROUND_UP_OUTCOMES = ("own", "round_up")


@dataclass(slots=True)
class RoundUpContext:
    """A sentence, the places it names with their roles, and the harm it gives."""

    sentence: Sentence
    places: list[tuple[ToponymMention, Place, str]]
    figures: list[CasualtyFigure]
    targets: list[PhraseMatch[str]]

    def event_places(self) -> int:
        return len({p.gazetteer_id for _, p, role in self.places
                    if role == "event" and p.feature_kind != "country"})



PREDICATES: dict[str, Predicate[RoundUpContext]] = {p.name: p for p in (
    Predicate("event_places_at_least", "the sentence names at least this many places as "
              "where harm happened (countries aside)", "int",
              lambda c, count: c.event_places() >= count),
    Predicate("sentence_matches", "the sentence matches the pattern", "pattern",
              lambda c, pattern: bool(pattern.search(c.sentence.text))),
    Predicate("figures", "the sentence gives a casualty figure", "bool",
              flag(lambda c: c.figures)),
    Predicate("targets", "the sentence names something hit (a target type)", "bool",
              flag(lambda c: c.targets)),
)}


def load_round_up_table(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    path = vocabulary.directory / "rules" / f"{ROUND_UP_TABLE}.toml"
    return {ROUND_UP_TABLE: load_rule_table(path, PREDICATES, ROUND_UP_OUTCOMES,
                                            vocabulary.lexicon)}
