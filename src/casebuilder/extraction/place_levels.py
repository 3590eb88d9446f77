"""Place levels: whether a name means the town the gazetteer resolved, or the region named
after it.

Many regions bear their centre's name (Kursk Oblast and Kursk, Kharkiv Oblast and Kharkiv),
and headlines drop the word "region" to save room: "Drone kills two in Russia's Kursk" heads a
report whose body says the drone hit a village of the Kursk region, 100 km from the city. Read
as the city, such a headline makes an incident of its own at the wrong place. The rule table
``vocab/rules/place_levels.toml`` decides, for each settlement name that is the centre of a
region the document also names as a region, whether it stays the town (``as_resolved``) or
stands for the region (``region``); a name read as the region keeps the rule's name in a
``not_taken`` trace of the town. The same holds whichever side the report accuses. One step of
:mod:`casebuilder.extraction.mentions`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.gazetteer import Place, ToponymMention
from casebuilder.model.lexicon import Lexicon

LEVEL_TABLE = "place_levels"
LEVEL_OUTCOMES = ("as_resolved", "region")

Resolved = tuple[ToponymMention, Place]


@dataclass(slots=True)
class LevelContext:
    """A settlement name that is the centre of a region the document names, and what the
    rest of the document says about that region and that town."""

    toponym: ToponymMention
    place: Place  # the town, as the gazetteer resolved the name
    region: Place  # the region named in the document whose centre the town is
    in_heading: bool  # the name stands in a headline or the title
    bare_elsewhere: bool  # the text names the town by this name outside headlines too
    finer_in_region: bool  # the text names another town or site of that region

    @classmethod
    def of(cls, toponym: ToponymMention, place: Place, region: Place, in_heading: bool,
           resolved: Sequence[Resolved], heading: Callable[[ToponymMention], bool],
           lexicon: Lexicon) -> LevelContext:
        """``heading`` tells a name in a headline; a finer place is of a kind of
        ``@fine_place_kinds`` (a settlement, a district of a city, a site)."""
        fine = lexicon.words("fine_place_kinds")
        bare = any(p.gazetteer_id == place.gazetteer_id and t is not toponym and not heading(t)
                   for t, p in resolved)
        finer = any(p.feature_kind in fine and p.gazetteer_id != place.gazetteer_id
                    and p.admin1 == region.admin1 and p.parent != place.name
                    for _t, p in resolved)
        return cls(toponym, place, region, in_heading, bare, finer)



PREDICATES: dict[str, Predicate[LevelContext]] = {p.name: p for p in (
    Predicate("in_heading", "the name stands in a headline (a heading of the page) or in the "
              "title", "bool", flag(lambda c: c.in_heading)),
    Predicate("bare_elsewhere", "the text names the same town by a name of its own (not as "
              "part of the region's name) outside headlines too", "bool",
              flag(lambda c: c.bare_elsewhere)),
    Predicate("finer_in_region", "the text names another town, district or site of the "
              "region (not a district of this town)", "bool",
              flag(lambda c: c.finer_in_region)),
)}


def load_level_table(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    path = vocabulary.directory / "rules" / f"{LEVEL_TABLE}.toml"
    return {LEVEL_TABLE: load_rule_table(path, PREDICATES, LEVEL_OUTCOMES,
                                         vocabulary.lexicon)}
