"""Assembling a document's incident mentions from its sentences, in reading order.

A sentence that reports harm starts or joins an incident mention. Whether the settlements it
names say where, or only who speaks ("according to the Belgorod governor"), is decided by the
rule table ``vocab/rules/places_of_speakers.toml``; where the sentence goes, by
``vocab/rules/sentence_mentions.toml`` (its own places, the mention the
paragraph is about, the besieged city, the place the whole report is about, a village no
gazetteer knows ...). A sentence with no harm of its own may still add to the mention in
focus ("He said five children were among the dead"): ``vocab/rules/joins_the_focus.toml``
decides. This module builds what those tables' predicates look at (:class:`MentionContext`,
:class:`FocusContext`), offers the predicates, and keeps the state of one document's assembly
(the mentions so far, the one in focus, the sentence that set the scene) in an
:class:`Assembly` made for that document. One step of :mod:`casebuilder.extraction.mentions`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from casebuilder.extraction import facts as f
from casebuilder.extraction.claims import IncidentMention
from casebuilder.extraction.facts import NotTaken, SentenceFacts, finer, unique
from casebuilder.extraction.mention_claims import ClaimWriter
from casebuilder.extraction.reading import DocumentReading
from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.gazetteer import Gazetteer, Place, distance_km
from casebuilder.gazetteer.model import same_place
from casebuilder.model.claim_values import NotTakenPlace, TargetValue
from casebuilder.model.lexicon import Lexicon
from casebuilder.model.partial_date import PartialDate

#: Where a sentence that reports harm goes (vocab/rules/sentence_mentions.toml).
DESTINATIONS_OUTCOMES = ("own_places", "besieged_city", "aftermath", "at_focus_place", "focus",
                "document_place", "unknown_place", "pending")
TARGET_TABLE = "sentence_mentions"
#: Whether the places a sentence of harm names say where, or only who speaks.
SPEAKING_OUTCOMES = ("place", "who_speaks")
SPEAKER_TABLE = "places_of_speakers"
#: Whether a sentence without harm of its own adds to the mention in focus.
JOINING_OUTCOMES = ("joins", "apart")
JOIN_TABLE = "joins_the_focus"

Placed = tuple[str, Place]


# -- where a sentence that reports harm goes -------------------------------------------------

@dataclass(slots=True)
class MentionContext:
    """One sentence that reports harm, with the state of the assembly when it is read."""

    assembly: Assembly
    fact: SentenceFacts
    places: list[Placed]  # the places of harm it names (or takes from the scene's setting)
    focus: IncidentMention | None
    lexicon: Lexicon

    @classmethod
    def of(cls, assembly: Assembly, fact: SentenceFacts, places: list[Placed]
           ) -> MentionContext:
        return cls(assembly, fact, places, assembly.focus, assembly.lexicon)


def _focus_near(c: MentionContext, wanted: bool) -> bool:
    focus, s = c.focus, c.fact.sentence
    near = focus is not None and (s.paragraph == focus.paragraph_last
                                  or s.index - focus.sentence_last <= 1)
    return near is wanted


def _elsewhere(c: MentionContext, wanted: bool) -> bool:
    found = c.focus is not None and f.elsewhere(c.fact, c.focus, c.lexicon)
    return found is wanted


def _kind_differs(c: MentionContext, wanted: bool) -> bool:
    return (c.focus is not None and c.fact.situation != c.focus.situation) is wanted


def _focus_adjacent(c: MentionContext, wanted: bool) -> bool:
    focus = c.focus
    found = focus is not None and c.fact.sentence.index - focus.sentence_last <= 1
    return found is wanted


def _in_focus_paragraph_or_region(c: MentionContext, wanted: bool) -> bool:
    focus = c.focus
    found = focus is not None and (
        c.fact.sentence.paragraph == focus.paragraph_last or focus.place is None or
        all(p.admin1 == focus.place.admin1 for _, p in c.places))
    return found is wanted


def _situation_known_at_focus(c: MentionContext, wanted: bool) -> bool:
    focus = c.focus
    place = focus.place if focus is not None else None
    known = place is not None and any(
        m.situation and m.place is not None and m.place.gazetteer_id == place.gazetteer_id
        for m in c.assembly.mentions)
    return known is wanted



MENTION_PREDICATES: dict[str, Predicate[MentionContext]] = {p.name: p for p in (
    Predicate("no_places", "the sentence names no place of harm (nor does the sentence that "
              "set the scene)", "bool", flag(lambda c: not c.places)),
    Predicate("besieged_city", "it speaks of 'the besieged city' and a siege of the document "
              "is at a place", "bool",
              flag(lambda c: c.assembly.besieged_city(c.fact) is not None)),
    Predicate("focus", "a mention is in focus", "bool", flag(lambda c: c.focus is not None)),
    Predicate("focus_near", "the mention in focus was added to in this paragraph or in the "
              "sentence just before", "bool", _focus_near),
    Predicate("elsewhere", "the sentence names a place (even a region) that is not the "
              "focus's, or a village no gazetteer knows", "bool", _elsewhere),
    Predicate("focus_placed", "the mention in focus has a known place", "bool",
              flag(lambda c: c.focus is not None and c.focus.place is not None)),
    Predicate("kind_differs", "one of the sentence and the mention in focus tells a "
              "continuing situation, the other one attack", "bool", _kind_differs),
    Predicate("situation", "the sentence tells a continuing situation", "bool",
              flag(lambda c: c.fact.situation)),
    Predicate("situation_known_at_focus", "the document already has a situation at the "
              "focus's place", "bool", _situation_known_at_focus),
    Predicate("situation_evidence", "the sentence gives a running total or a span of days",
              "bool", flag(lambda c: f.situation_evidence(c.fact))),
    Predicate("document_place", "the report is about one place (its dateline, headline or "
              "first sentences)", "bool",
              flag(lambda c: c.assembly.document_place is not None)),
    Predicate("nationwide", "it summarises many attacks ('across the country', "
              "@nationwide)", "bool", flag(lambda c: f.nationwide(c.fact, c.lexicon))),
    Predicate("country_total", "it gives a figure for a whole country", "bool",
              flag(lambda c: f.country_total(c.fact))),
    Predicate("single_incident", "the document's harm is told at one fine place at most",
              "bool", flag(lambda c: c.assembly.single)),
    Predicate("fine_places", "it names a known settlement or site where something may have "
              "happened", "bool", flag(lambda c: f.fine_places(c.fact, c.lexicon))),
    Predicate("unknown_place", "it names a settlement no gazetteer knows ('the village of "
              "Zarichne', @named_settlement)", "bool",
              flag(lambda c: f.unknown_place(c.fact, c.lexicon, speaker_ok=True) is not None)),
    Predicate("one_attack_told", "it tells one attack: no country's or month's total", "bool",
              flag(lambda c: f.one_attack_told(c.fact, c.lexicon))),
    Predicate("only_speaker_places", "every settlement it names is part of who speaks or "
              "which office acts", "bool",
              flag(lambda c: f.only_speaker_places(c.fact, c.lexicon))),
    Predicate("focus_adjacent", "the mention in focus was added to by the sentence just "
              "before", "bool", _focus_adjacent),
    Predicate("dated_or_counted", "it gives an event date or a casualty figure of its own",
              "bool", flag(lambda c: bool(c.fact.figures) or any(
                  d.role == "event" for d in c.fact.dates))),
    Predicate("in_focus_paragraph_or_region", "it is in the focus's paragraph, or the focus "
              "has no known place, or every place it names lies in the focus's region",
              "bool", _in_focus_paragraph_or_region),
    Predicate("eventful", "it tells harm in words of its own (not only a running tally)",
              "bool", flag(lambda c: c.fact.eventful)),
    Predicate("attack_in_document", "some sentence of the document tells one attack (harm "
              "that is not a continuing situation)", "bool",
              flag(lambda c: c.assembly.attack_told)),
)}


# -- whether a sentence with no harm of its own adds to the mention in focus ----------------

@dataclass(slots=True)
class FocusContext:
    """A sentence that reports no harm of its own, and the mention in focus."""

    assembly: Assembly
    fact: SentenceFacts
    focus: IncidentMention
    places: list[Placed]

    @property
    def adjacent(self) -> bool:
        return self.fact.sentence.index - self.focus.sentence_last <= 1


def _other_place(c: FocusContext, wanted: bool) -> bool:
    place = c.focus.place
    found = bool(c.places) and place is not None and not any(
        p.gazetteer_id == place.gazetteer_id for _, p in c.places)
    return found is wanted


def _paragraphs_after_focus_above(c: FocusContext, count: int) -> bool:
    return c.fact.sentence.paragraph - c.focus.paragraph_last > count


def _near_focus(c: FocusContext, wanted: bool) -> bool:
    near = c.fact.sentence.paragraph == c.focus.paragraph_last or c.adjacent
    return near is wanted


def _shared_target(c: FocusContext, wanted: bool) -> bool:
    named = {m.value.target_type for m in c.focus.claims if isinstance(m.value, TargetValue)}
    return any(t.payload in named for t in c.fact.targets) is wanted


FOCUS_PREDICATES: dict[str, Predicate[FocusContext]] = {p.name: p for p in (
    Predicate("other_place", "the sentence names places of harm, none of them the focus's",
              "bool", _other_place),
    Predicate("single_incident", "the document's harm is told at one fine place at most",
              "bool", flag(lambda c: c.assembly.single)),
    Predicate("harm_words", "a harm word is in the sentence, even one set aside", "bool",
              flag(lambda c: c.fact.harm_words)),
    Predicate("outlet", "the sentence is the outlet's own, no named source's", "bool",
              flag(lambda c: c.fact.attribution.kind == "outlet")),
    Predicate("situation", "the sentence tells a continuing situation", "bool",
              flag(lambda c: c.fact.situation)),
    Predicate("paragraphs_after_focus_above", "more paragraphs than this lie between the "
              "sentence and the last one that added to the focus", "int",
              _paragraphs_after_focus_above),
    Predicate("figures", "the sentence gives a casualty figure", "bool",
              flag(lambda c: c.fact.figures)),
    Predicate("near_focus", "the focus was added to in this paragraph or the sentence just "
              "before", "bool", _near_focus),
    Predicate("adjacent", "the focus was added to by the sentence just before", "bool",
              flag(lambda c: c.adjacent)),
    Predicate("same_speaker", "the sentence's source shares a name or role word with the "
              "source of the focus's latest sentence", "bool",
              flag(lambda c: c.assembly.same_speaker(c.fact, c.focus))),
    Predicate("denial", "the sentence denies", "bool", flag(lambda c: c.fact.denial)),
    Predicate("weapons", "the sentence names a weapon", "bool",
              flag(lambda c: c.fact.weapons)),
    Predicate("qualifies_previous", "the sentence qualifies the one before ('This could not "
              "be verified')", "bool", flag(lambda c: c.fact.qualifies_previous)),
    Predicate("objective_words", "the sentence names military things a source may say were "
              "the target (@military_objective_words)", "bool",
              flag(lambda c: c.assembly.writer.objective_words(c.fact.sentence))),
    Predicate("shared_target", "the sentence names a target type the focus has", "bool",
              _shared_target),
)}


def load_assembly_tables(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    rules = vocabulary.directory / "rules"
    return {
        SPEAKER_TABLE: load_rule_table(rules / f"{SPEAKER_TABLE}.toml", MENTION_PREDICATES,
                                       SPEAKING_OUTCOMES, vocabulary.lexicon),
        TARGET_TABLE: load_rule_table(rules / f"{TARGET_TABLE}.toml", MENTION_PREDICATES,
                                      DESTINATIONS_OUTCOMES, vocabulary.lexicon),
        JOIN_TABLE: load_rule_table(rules / f"{JOIN_TABLE}.toml", FOCUS_PREDICATES,
                                    JOINING_OUTCOMES, vocabulary.lexicon),
    }


# -- the assembly of one document -------------------------------------------------------------

class MentionAssembler:
    """What every document's assembly uses. Build once, reuse."""

    def __init__(self, vocabulary: Vocabulary, gazetteer: Gazetteer, writer: ClaimWriter
                 ) -> None:
        self.lexicon = vocabulary.lexicon
        self.gazetteer = gazetteer
        self.writer = writer

    def assemble(self, facts: list[SentenceFacts], reading: DocumentReading
                 ) -> list[IncidentMention]:
        return Assembly(self, reading, facts).run()

    def regional_centre(self, region: Place) -> Place | None:
        """The city a region is named after, when it is the region's centre."""
        suffixes = self.lexicon.words("region_name_suffixes")
        words = region.name.split(" ")
        while len(words) > 1 and words[-1].lower() in suffixes:
            words.pop()
        stem = " ".join(words)
        found = self.gazetteer.resolve(f"{stem}, {region.admin1 or region.name}").place
        if found is None or found.feature_kind != "settlement":
            return None
        if distance_km(found.coordinates, region.coordinates) > 15:
            return None
        return found


@dataclass
class Assembly:
    """The assembly of one document's mentions: made for the document, then dropped."""

    assembler: MentionAssembler
    reading: DocumentReading
    facts: list[SentenceFacts]
    mentions: list[IncidentMention] = field(default_factory=list)
    focus: IncidentMention | None = None  # what the current paragraph is about
    setting: SentenceFacts | None = None  # "Between 3 and 30 March, in Yahidne, ..."
    pending: list[SentenceFacts] = field(default_factory=list)  # harm told before any place
    regions_named: set[str] = field(default_factory=set)
    document_place: Placed | None = None
    single: bool = False
    #: Some sentence of the document tells one attack (not a continuing situation).
    attack_told: bool = False
    #: The mentions made of a running tally alone, at the place the report is about (by
    #: ``id``): kept with no category of their own, to lend their figures to the situation
    #: at that place when merged (resolution/merge.py).
    tallies: set[int] = field(default_factory=set)

    @property
    def lexicon(self) -> Lexicon:
        return self.assembler.lexicon

    @property
    def writer(self) -> ClaimWriter:
        return self.assembler.writer

    def run(self) -> list[IncidentMention]:
        self._prepare()
        for fact in self.facts:
            self._read(fact)
        found = [m for m in self.mentions if m.categories or id(m) in self.tallies]
        if any(not m.situation for m in found):
            found = [m for m in found if not self.thin_situation(m)]
        return found

    def _prepare(self) -> None:
        facts, reading = self.facts, self.reading
        fine = self.lexicon.words("fine_place_kinds")
        self.regions_named = {p.admin1 for x in facts for _, p, _ in x.places if p.admin1}
        self.document_place = self._document_place()
        reading.has_fine_place = any(role == "event" and p.feature_kind in fine
                                     for x in facts if x.eventful for _, p, role in x.places)
        if self.document_place is None and not reading.has_fine_place and \
                reading.title_place is not None:
            toponym, place = reading.title_place
            self.document_place = toponym.text, place
        if self.document_place is None and not reading.has_fine_place:
            # "ZAPORIZHZHIA (Ukraine) — A missile tore through ... in the southern city": with
            # no finer place anywhere in the report, the city it was filed from is the best
            # guess for a single incident (still subject to the single-incident test below)
            self.document_place = self._dateline_place()
        self.single = self._single_incident()
        self.attack_told = any(x.eventful and not x.situation for x in facts)

    # -- one sentence ---------------------------------------------------------------------
    def _read(self, fact: SentenceFacts) -> None:
        places = self.event_places(fact)
        situation_only = f.situation_only(fact)
        if self.setting is not None and \
                self.setting.sentence.paragraph != fact.sentence.paragraph:
            self.setting = None
        if self._sets_the_scene(fact, places, situation_only):
            # A sentence that sets the scene names where and when; the harm comes in the
            # sentences after it, which often say neither.
            self.setting = fact
        from_setting = False
        if fact.eventful and not places and self.setting is not None and \
                not self._focus_in_paragraph(fact):
            places = self.event_places(self.setting)
            from_setting = bool(places)
        if places and self._only_who_speaks(fact, places):
            places = []
        self._date_the_anchor()
        if fact.eventful or (situation_only and (places or self.focus is not None
                                                 or self.document_place is not None)):
            # a running tally with no place and nothing in focus ("157 civilians have been
            # killed") may still be the tally of the place the report is about
            self._report(fact, places, from_setting)
        elif self.focus is not None and self._joins_focus(fact, self.focus, places):
            self.writer.add_claims(self.focus, fact, self.reading)

    def _focus_in_paragraph(self, fact: SentenceFacts) -> bool:
        return self.focus is not None and \
            self.focus.paragraph_last == fact.sentence.paragraph

    def _sets_the_scene(self, fact: SentenceFacts, places: list[Placed],
                        situation_only: bool) -> bool:
        return not fact.eventful and not situation_only and (
            bool(places) or any(d.role == "event" for d in fact.dates)) and \
            not self._focus_in_paragraph(fact)

    def _only_who_speaks(self, fact: SentenceFacts, places: list[Placed]) -> bool:
        """"according to the Belgorod governor", or "The Bryansk governor said" opening the
        next paragraph about an attack in his region: who says, not where."""
        s = fact.sentence
        decision = self.reading.decide(SPEAKER_TABLE, MentionContext.of(self, fact, places),
                                       s.start, s.end)
        if decision.outcome != "who_speaks":
            return False
        named = {p.gazetteer_id for _, p in places}
        fact.not_taken += [NotTaken.by(SPEAKER_TABLE, decision.rule, t.start, t.end,
                                       NotTakenPlace(words=t.text, gazetteer_id=p.gazetteer_id,
                                                     taken_as="who_speaks"))
                           for t, p, _ in fact.places if p.gazetteer_id in named]
        return True

    def _date_the_anchor(self) -> None:
        if self.reading.anchor_date is None and self.mentions:
            dated = [m.event_date()[0] for m in self.mentions if not m.situation]
            self.reading.anchor_date = next((d for d in dated if d is not None), None)

    def _report(self, fact: SentenceFacts, places: list[Placed], from_setting: bool) -> None:
        """A sentence that reports harm: the mentions it goes to take its claims."""
        s = fact.sentence
        decision = self.reading.decide(TARGET_TABLE, MentionContext.of(self, fact, places),
                                       s.start, s.end)
        targets = self._targets(decision.outcome, fact, places)
        focus = self.focus
        self.reading.focus_date = focus.event_date()[0] if focus is not None else None
        told = fact
        if decision.outcome == "aftermath":
            # its words still belong to the attack, as told by its source, but not as a
            # situation
            situations = self.lexicon.words("situation_categories")
            told = replace(fact, categories={k: v for k, v in fact.categories.items()
                                             if k not in situations})
        if decision.outcome == "document_place" and focus is None and not fact.eventful:
            # a tally of the report's place, told before any harm: its situation so far
            self.tallies.update(id(m) for m in targets)
        for mention in targets:
            if from_setting and self.setting is not None:
                self.writer.add_setting_claims(mention, self.setting, self.reading.source)
            self.writer.add_claims(mention, told, self.reading)
        if targets and self.pending and not targets[0].situation:
            for early in self.pending:
                if self.single or s.paragraph - early.sentence.paragraph <= 1:
                    self.writer.add_claims(targets[0], early, self.reading)
            self.pending = []
        if targets:
            self.focus = targets[0]

    def _targets(self, destination: str, fact: SentenceFacts, places: list[Placed]
                 ) -> list[IncidentMention]:
        focus = self.focus
        if destination == "besieged_city":
            return [self.mention_for(fact, self.besieged_city(fact))]
        if (destination == "aftermath" or destination == "focus") and focus is not None:
            return [focus]
        if destination == "at_focus_place" and focus is not None and focus.place is not None:
            return [self.mention_for(fact, (focus.place_name, focus.place))]
        if destination == "document_place":
            return [self.mention_for(fact, self.document_place)]
        if destination == "unknown_place":
            name = f.unknown_place(fact, self.lexicon, speaker_ok=True)
            assert name is not None
            return [self.unplaced_mention(fact, name)]
        if destination == "pending":
            # "The number killed in the June 27 strike on a restaurant has risen to 13",
            # before any sentence says where: kept for the place to come
            self.pending.append(fact)
        return [self.mention_for(fact, place) for place in places]

    def _joins_focus(self, fact: SentenceFacts, focus: IncidentMention, places: list[Placed]
                     ) -> bool:
        """Does a sentence without harm words still add to the mention in focus?"""
        s = fact.sentence
        decision = self.reading.decide(JOIN_TABLE, FocusContext(self, fact, focus, places),
                                       s.start, s.end)
        return decision.outcome == "joins"

    # -- places ---------------------------------------------------------------------------
    def event_places(self, fact: SentenceFacts) -> list[Placed]:
        """The places of harm a sentence names, finest first; a region only when nothing
        finer is named in the document."""
        fine = self.lexicon.words("fine_place_kinds")
        found = [(t.text, p) for t, p, role in fact.places if role == "event"
                 and p.feature_kind in fine]
        if found:
            return unique(found)
        if "displacement" in fact.categories:
            # "children from the Kherson children's home were taken to Crimea": a deportation
            # happens where people are taken from
            origin = [(t.text, p) for t, p, role in fact.places if role == "origin"
                      and p.feature_kind in fine]
            if origin:
                return unique(origin[:1])
        speaking = self.lexicon.words("speaking_roles")
        speaker = [(t.text, p) for t, p, role in fact.places if role in speaking
                   and p.feature_kind in fine]
        if speaker and fact.eventful:
            return unique(speaker[:1])
        centre = self._regional_centre_named(fact)
        if centre is not None:
            return [centre]
        # A region or country on its own is a place only when nothing finer was named in the
        # document inside it (then "in the Donetsk region" is the incident's best location).
        if self.reading.has_fine_place:
            return []
        coarse = [(t.text, p) for t, p, role in fact.places if role == "event"
                  and p.feature_kind == "region" and t.start > 0]
        return unique(coarse[:1])

    def _regional_centre_named(self, fact: SentenceFacts) -> Placed | None:
        """"The Kharkiv regional governor said ... strikes on the city": the regional
        capital."""
        if not fact.eventful or not self._definite_city(fact):
            return None
        roles = self.lexicon.words("centre_roles")
        for toponym, place, role in fact.places:
            if place.feature_kind == "region" and role in roles:
                centre = self.assembler.regional_centre(place)
                if centre is not None:
                    return toponym.text, centre
        return None

    def _definite_city(self, fact: SentenceFacts) -> bool:
        """"the city", "the capital": not "a city in the Kursk region", which is some city
        of the region, not its centre."""
        words = fact.sentence.words()
        cities = self.lexicon.words("city_words")
        indefinite = self.lexicon.words("indefinite_words")
        return any(w in cities and not (i and words[i - 1] in indefinite)
                   for i, w in enumerate(words))

    def besieged_city(self, fact: SentenceFacts) -> Placed | None:
        """"the besieged city" with no name: the place of the latest siege in the document."""
        words = set(fact.sentence.words())
        if not self.lexicon.words("besieged_words") & words or \
                not self.lexicon.words("area_kind_words") & words:
            return None
        for mention in reversed(self.mentions):
            if mention.situation and "siege" in mention.categories and mention.place:
                return mention.place_name, mention.place
        return None

    def _single_incident(self) -> bool:
        coarse = self.lexicon.words("coarse_place_kinds")
        places = {p.gazetteer_id for x in self.facts if x.eventful
                  for _, p in self.event_places(x) if p.feature_kind not in coarse}
        return len(places) <= 1

    def _document_place(self) -> Placed | None:
        """The place a one-incident report is about: its dateline or its headline's place."""
        fine = self.lexicon.words("fine_place_kinds")
        for fact in self.facts[:2]:
            for toponym, place, role in fact.places:
                if role == "event" and place.feature_kind in fine:
                    return toponym.text, place
        return None

    def _dateline_place(self) -> Placed | None:
        kinds = self.lexicon.words("dateline_place_kinds")
        for fact in self.facts[:1]:
            for toponym, place, role in fact.places:
                if role == "dateline" and place.feature_kind in kinds:
                    return toponym.text, place
        return None

    # -- mentions -------------------------------------------------------------------------
    def mention_for(self, fact: SentenceFacts, place: Placed | None) -> IncidentMention:
        """The mention at this place and of this kind the sentence joins, or a new one."""
        assert place is not None
        name, resolved = place
        situation = fact.situation or (f.situation_only(fact) and not fact.eventful)
        event_dates = [d.value for d in fact.dates if d.role == "event"]
        for mention in reversed(self.mentions):
            if mention.place is None or not same_place(mention.place, resolved):
                continue
            if mention.situation != situation:
                continue
            if self._another_day(mention, event_dates, situation):
                continue
            if finer(resolved, mention.place):
                mention.place, mention.place_name = resolved, name
            return mention
        return self._new_mention(fact, name, resolved, situation)

    def unplaced_mention(self, fact: SentenceFacts, name: str) -> IncidentMention:
        """The mention at a settlement no gazetteer knows, matched by its name."""
        event_dates = [d.value for d in fact.dates if d.role == "event"]
        for mention in self.mentions:
            if mention.place is None and mention.place_name == name and \
                    mention.situation == fact.situation:
                if self._another_day(mention, event_dates, fact.situation):
                    continue  # the same unknown village attacked again on another day
                return mention
        return self._new_mention(fact, name, None, fact.situation)

    @staticmethod
    def _another_day(mention: IncidentMention, event_dates: list[PartialDate],
                     situation: bool) -> bool:
        existing, _, _ = mention.event_date()
        return existing is not None and bool(event_dates) and not situation and not any(
            existing.overlaps(d) for d in event_dates)

    def _new_mention(self, fact: SentenceFacts, name: str, place: Place | None,
                     situation: bool) -> IncidentMention:
        mention = IncidentMention(self.reading.source.item_id, name, place, situation,
                                  fact.sentence.paragraph, first_sentence=fact.sentence.index)
        self.mentions.append(mention)
        return mention

    def same_speaker(self, fact: SentenceFacts, focus: IncidentMention) -> bool:
        """Do the sentence and the focus's latest sentence have the same named source?"""
        said = [c for c in focus.claims if c.in_text]
        if not said or fact.attribution.kind == "outlet":
            return False
        # the claims of the latest sentence (found once: a long text has thousands of claims)
        latest = max(c.provenance.sentence_start for c in said)
        last = [c for c in said if c.provenance.sentence_start == latest]
        filler = self.lexicon.words("speaker_filler_words")
        words = {w.lower().strip(".,") for w in (fact.attribution.speaker + " " +
                                                 fact.attribution.role).split()}
        earlier = {w.lower().strip(".,") for w in (last[0].attribution.speaker + " " +
                                                   last[0].attribution.role).split()}
        return bool((words & earlier) - filler)

    def thin_situation(self, mention: IncidentMention) -> bool:
        """A continuing situation told in one sentence with no figure and no dates of its own
        but a year or the war's whole span ("It has been shelled repeatedly since the invasion
        began", "was encircled in 2022"): in a report about an attack, background to it, too
        thin to stand as an incident of its own."""
        if not mention.situation:
            return False
        # the sentence that only said where ("Kramatorsk is one of the largest cities ...")
        # does not count
        sentences = {c.provenance.sentence_start for c in mention.claims
                     if c.in_text and c.kind != "place"}
        if len(sentences) > 1:
            return False
        tolls = self.lexicon.words("standing_toll_measures")
        if any(c.kind in tolls for c in mention.claims):
            return False
        dates = [PartialDate.parse_iso(v.iso) for _, v in mention.dates("event")]
        return all(d.precision == "year" or d.days > 180 for d in dates)
