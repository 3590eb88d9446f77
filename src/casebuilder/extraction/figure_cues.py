"""Which cue makes a number a casualty figure, decided by the rule table
``vocab/rules/figure_cues.toml``.

Extraction stage, one step of :func:`casebuilder.extraction.figures.find_figures`. A number is
a figure only when a casualty word governs it; the table says, in order, which cue does: a
part of another figure ("including five children"), a toll ("the death toll rose to 50"), a
count of bodies, a verb before it ("killing ten"), a predicate after it ("ten were killed"), a
figure it is joined to ("21 killed and 25 wounded"), a belligerent's word for combatants it
killed ("destroyed up to 200 militants": a figure of the military, kept as a claim and never
an attack's toll), or none (``not-a-figure``). This module
builds what the table's predicates look at (:class:`FigureContext`: the number, the text
around it and the cue patterns of the figure lexicon) and offers those predicates; figures.py
turns the cue the table names into a figure. The rule that decided is kept on the figure
(``CasualtyFigure.cue_rule``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Final, Protocol

from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.model.lexicon import Lexicon

#: The cues a figure can have; figures.py builds one figure for each (not for "not-a-figure").
OUTCOMES: Final = ("part-before", "part-of-them", "part-of-those", "part-among", "toll",
                   "bodies-of", "of-the-dead", "bodies", "verb-before", "predicate-after",
                   "coordinated", "combatants", "not-a-figure")
NOT_A_FIGURE: Final = "not-a-figure"
TABLE: Final = Path("rules") / "figure_cues.toml"
#: How far back from a number its cues are looked for, in characters.
REACH_BACK: Final = 160


class CuePatterns(Protocol):
    """The compiled cue patterns a context reads (figures.FigureGrammar has them all)."""

    population_after: re.Pattern[str]
    part_cue_before: re.Pattern[str]
    of_them: re.Pattern[str]
    of_those_before: re.Pattern[str]
    were_population: re.Pattern[str]
    among: re.Pattern[str]
    toll: re.Pattern[str]
    bodies_before: re.Pattern[str]
    of_the_dead: re.Pattern[str]
    bodies_after: re.Pattern[str]
    verb_before: re.Pattern[str]
    predicate_after: re.Pattern[str]
    coordination: re.Pattern[str]
    combatant_verb_before: re.Pattern[str]
    combatants_after: re.Pattern[str]
    combatants_eliminated_after: re.Pattern[str]


@dataclass  # not frozen: one is made per number or date, and frozen ones are slower to make
class FigureContext:
    """What the figure-cue predicates may look at: one number of a sentence (``start`` to
    ``end``) and the figures found before it in the sentence."""

    text: str
    start: int
    end: int
    article: bool  # the number is a bare "a" or "an" ("killing a teenager")
    vague: bool  # "dozens", "hundreds": no number stated
    whole_known: bool  # a figure that is not a part stands before it in the sentence
    previous_end: int | None  # where the figure before it ends, if there is one
    cues: CuePatterns

    @cached_property
    def back(self) -> int:
        return max(0, self.start - REACH_BACK)

    @cached_property
    def population_after(self) -> re.Match[str] | None:
        return self.cues.population_after.match(self.text, self.end)

    @cached_property
    def part_cue_before(self) -> re.Match[str] | None:
        return self.cues.part_cue_before.search(self.text, self.back, self.start)

    @cached_property
    def of_them(self) -> re.Match[str] | None:
        return self.cues.of_them.match(self.text, self.end)

    @cached_property
    def of_those_before(self) -> re.Match[str] | None:
        return self.cues.of_those_before.search(self.text, self.back, self.start)

    @cached_property
    def were_population(self) -> re.Match[str] | None:
        return self.cues.were_population.match(self.text, self.end)

    @cached_property
    def among(self) -> re.Match[str] | None:
        return self.cues.among.match(self.text, self.end)

    @cached_property
    def toll(self) -> re.Match[str] | None:
        return self.cues.toll.search(self.text, self.back, self.start)

    @cached_property
    def bodies_before(self) -> re.Match[str] | None:
        return self.cues.bodies_before.search(self.text, self.back, self.start)

    @cached_property
    def of_the_dead(self) -> re.Match[str] | None:
        return self.cues.of_the_dead.match(self.text, self.end)

    @cached_property
    def bodies_after(self) -> re.Match[str] | None:
        return self.cues.bodies_after.match(self.text, self.end)

    @cached_property
    def verb_before(self) -> re.Match[str] | None:
        return self.cues.verb_before.search(self.text, self.back, self.start)

    @cached_property
    def predicate_after(self) -> re.Match[str] | None:
        return self.cues.predicate_after.match(self.text, self.end)

    @cached_property
    def combatant_verb_before(self) -> re.Match[str] | None:
        return self.cues.combatant_verb_before.search(self.text, self.back, self.start)

    @cached_property
    def combatants_after(self) -> re.Match[str] | None:
        return self.cues.combatants_after.match(self.text, self.end)

    @cached_property
    def combatants_eliminated_after(self) -> re.Match[str] | None:
        return self.cues.combatants_eliminated_after.match(self.text, self.end)

    def names_its_whole(self, match: re.Match[str] | None) -> bool:
        """A part cue that names what it is a part of ("among the dead"), or a figure before
        it to be a part of ("killing 12, including five children")."""
        if match is None:
            return False
        named = match.group("m") or match.group("m2")
        return bool(named) or self.whole_known

    @cached_property
    def joined_to_previous(self) -> bool:
        return self.previous_end is not None and bool(
            self.cues.coordination.match(self.text[self.previous_end:self.start]))



def _found(read: Callable[[FigureContext], re.Match[str] | None]
           ) -> Callable[[FigureContext, Any], bool]:
    return lambda c, wanted: (read(c) is not None) is wanted


PREDICATES: dict[str, Predicate[FigureContext]] = {p.name: p for p in (
    Predicate("article", "the number is a bare 'a' or 'an' ('killing a teenager')", "bool",
              flag(lambda c: c.article)),
    Predicate("vague", "the quantity states no number ('dozens', 'hundreds')", "bool",
              flag(lambda c: c.vague)),
    Predicate("population_after", "people follow the number ('ten civilians', 'five of the "
              "children'; lexicon: population_nouns)", "bool", _found(lambda c:
                                                                      c.population_after)),
    Predicate("part_cue_before", "'including', 'among them', 'among the dead' just before "
              "(lexicon: part_cue_before), and the cue names its whole or a figure stands "
              "before", "bool", flag(lambda c: c.names_its_whole(c.part_cue_before))),
    Predicate("of_them_after", "'of them', 'of whom', 'of the injured' just after, then "
              "people or a casualty word (lexicon: of_them_head), with a whole named or "
              "before", "bool", flag(lambda c: c.names_its_whole(c.of_them))),
    Predicate("of_those_before", "'of those killed,' just before (lexicon: of_those_before)",
              "bool", _found(lambda c: c.of_those_before)),
    Predicate("copula_population_after", "'were children' just after (lexicon: copulas)",
              "bool", _found(lambda c: c.were_population)),
    Predicate("among_after", "people, then 'were among the dead' (lexicon: among_the_dead)",
              "bool", _found(lambda c: c.among)),
    Predicate("toll_before", "a toll and its verb just before ('the death toll rose to'; "
              "lexicon: toll_head, toll_verb)", "bool", _found(lambda c: c.toll)),
    Predicate("bodies_before", "'the bodies of' just before (lexicon: bodies_before)", "bool",
              _found(lambda c: c.bodies_before)),
    Predicate("of_the_dead_after", "'of the dead', 'of dead and injured' just after "
              "(lexicon: of_the_dead_after)", "bool", _found(lambda c: c.of_the_dead)),
    Predicate("bodies_after", "'bodies', 'corpses' just after (lexicon: bodies_after)",
              "bool", _found(lambda c: c.bodies_after)),
    Predicate("casualty_verb_before", "a verb or noun of harm just before ('killing', "
              "'the deaths of'; lexicon: casualty_verb_before)", "bool",
              _found(lambda c: c.verb_before)),
    Predicate("casualty_predicate_after", "people (optional), then a casualty word ('were "
              "killed', 'dead', 'taken to hospital'; lexicon: casualty_predicate)", "bool",
              _found(lambda c: c.predicate_after)),
    Predicate("combatant_verb_before", "a belligerent's verb for killing combatants just "
              "before ('destroyed', 'eliminated'; lexicon: combatant_verb_before)", "bool",
              _found(lambda c: c.combatant_verb_before)),
    Predicate("combatants_after", "combatants follow the number ('200 militants'; lexicon: "
              "combatants_after)", "bool", _found(lambda c: c.combatants_after)),
    Predicate("combatants_eliminated_after", "combatants, then 'were eliminated' ('30 "
              "soldiers were eliminated'; lexicon: combatants_eliminated_after)", "bool",
              _found(lambda c: c.combatants_eliminated_after)),
    Predicate("joined_to_previous", "only 'and', ', and' or 'as well as' stands between the "
              "figure before and this number (lexicon: figure_coordination)", "bool",
              flag(lambda c: c.joined_to_previous)),
)}


def load_figure_cues(directory: Path, lexicon: Lexicon) -> RuleTable[FigureContext]:
    """The shipped table (``directory`` is the vocabulary folder), checked against the
    predicates and outcomes above."""
    return load_rule_table(directory / TABLE, PREDICATES, OUTCOMES, lexicon)
