"""The claims one sentence adds to the incident mention it joins.

Every value a sentence gives a mention (its categories, the mention's place, its dates, tolls,
weapons, targets, who is said to have acted, denials, military objectives, civilian status and
dates relative to other events) becomes a :class:`~casebuilder.extraction.claims.Claim` with
the offsets of its words, the sentence quoted, the sentence's source and the rule that took it.
Whether a mention takes a category, a figure, a weapon or a target of its sentence is decided
by the rule table ``vocab/rules/mention_values.toml`` (a siege does not take a killing, one
attack does not take a running total, a value named nearer another place is that place's).
One step of :mod:`casebuilder.extraction.mentions`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from casebuilder.extraction.claims import (
    NOT_TAKEN,
    Claim,
    IncidentMention,
    Provenance,
    SourceText,
)
from casebuilder.extraction.dates import DateMention, find_relative_events, resolve_anchor
from casebuilder.extraction.facts import NotTaken, SentenceFacts, unique
from casebuilder.extraction.figures import CasualtyFigure
from casebuilder.extraction.harm_words import HarmWords
from casebuilder.extraction.phrases import PhraseMatch, PhraseMatcher
from casebuilder.extraction.reading import DocumentReading, ReportTime
from casebuilder.extraction.rules import Predicate, RuleTable, load_rule_table
from casebuilder.extraction.text import Sentence, TextAnalyser, Token
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.gazetteer import Place, ToponymMention
from casebuilder.gazetteer.model import same_place
from casebuilder.model.claim_values import (
    NO_HARM_WORD_DISTANCE,
    CategoryValue,
    CivilianStatusValue,
    ClaimValue,
    DateValue,
    DenialValue,
    FigureValue,
    MilitaryObjectiveValue,
    NoMilitaryObjectiveValue,
    NotTakenCategory,
    NotTakenFigure,
    NotTakenPlace,
    NotTakenTarget,
    NotTakenValue,
    NotTakenWeapon,
    PerpetratorValue,
    PlaceValue,
    RelativeDateValue,
    StatementValue,
    TargetValue,
    WeaponValue,
)
from casebuilder.model.lexicon import Lexicon

#: Adds one claim of the sentence at hand: kind, value, start, end, rule.
AddClaim = Callable[[str, ClaimValue, int, int, str], None]
#: Asks the value table whether the mention takes a value: kind, start, end, category, figure.
Takes = Callable[..., bool]
VALUE_TABLE = "mention_values"
VALUE_OUTCOMES = ("take", "leave")


@dataclass(slots=True)
class ValueOwners:
    """Which of the fine event places a sentence names each of its values belongs to.

    Values split between places only when every place has a value nearer to it than to any
    other ("five killed in Kramatorsk, while shelling in Sloviansk injured two"). Otherwise
    the values are shared: "shelled Kramatorsk and Sloviansk with Smerch rockets, killing
    three" gives one weapon and one toll for both, so neither place loses them, and the toll
    records the places it was given for (``shared_by``) so it is never read as each place's
    own."""

    places: tuple[tuple[ToponymMention, Place], ...]
    split: bool
    shared_by: list[str]

    @classmethod
    def of(cls, fact: SentenceFacts, lexicon: Lexicon) -> ValueOwners:
        kinds = lexicon.words("fine_place_kinds")
        places = tuple((t, p) for t, p, role in fact.places if role == "event"
                       and p.feature_kind in kinds)
        distinct = {p.gazetteer_id for _, p in places}
        owners = cls(places, False, [])
        measures = lexicon.words("casualty_measures")
        positions = [f.start for f in fact.figures if f.measure in measures]
        positions += [w.start for w in fact.weapons] + [t.start for t in fact.targets]
        if len(distinct) < 2:
            return owners
        if {owners._nearest(p).gazetteer_id for p in positions} == distinct:
            return cls(places, True, [])
        return cls(places, False, [name for name, _ in unique([(t.text, p)
                                                               for t, p in places])])

    def _nearest(self, start: int) -> Place:
        return min(self.places, key=lambda tp: min(abs(start - tp[0].start),
                                                    abs(start - tp[0].end)))[1]

    def owner(self, start: int) -> Place | None:
        """The place a value at ``start`` belongs to; None when it is shared by all."""
        return self._nearest(start) if self.split else None


@dataclass(slots=True)
class ValueContext:
    """One value of a sentence (a category, figure, weapon or target) and the mention that
    may take it."""

    value: str  # "category" | "figure" | "weapon" | "target"
    mention: IncidentMention
    owners: ValueOwners
    lexicon: Lexicon
    start: int
    category: str = ""
    figure: CasualtyFigure | None = None


def _nearer_another_place(c: ValueContext, wanted: bool) -> bool:
    """In a sentence naming two places ("five killed in Kramatorsk, while shelling in
    Sloviansk injured two"), a value belongs to the place named nearest it."""
    found = c.owners.owner(c.start) if c.value != "category" else None
    nearer = found is not None and c.mention.place is not None and \
        not same_place(found, c.mention.place)
    return nearer is wanted


VALUE_PREDICATES: dict[str, Predicate[ValueContext]] = {p.name: p for p in (
    Predicate("value", "the kind of value is one of (category, figure, weapon, target)",
              "words", lambda c, kinds: c.value in kinds),
    Predicate("situation_mention", "the mention is a continuing situation", "bool",
              lambda c, wanted: c.mention.situation is wanted),
    Predicate("category", "the category is one of", "words",
              lambda c, words: c.category in words),
    Predicate("measure", "the figure's measure is one of", "words",
              lambda c, words: c.figure is not None and c.figure.measure in words),
    Predicate("running_total", "the figure is a running or joint total", "bool",
              lambda c, wanted: (c.figure is not None and c.figure.cumulative) is wanted),
    Predicate("nearer_another_place", "the sentence splits its values between places, and "
              "this one stands nearer another place than the mention's", "bool",
              _nearer_another_place),
)}


def load_mention_value_table(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    path = vocabulary.directory / "rules" / f"{VALUE_TABLE}.toml"
    return {VALUE_TABLE: load_rule_table(path, VALUE_PREDICATES, VALUE_OUTCOMES,
                                         vocabulary.lexicon)}


class ClaimWriter:
    """Turns the facts of a sentence into claims of a mention. Build once, reuse."""

    def __init__(self, analyser: TextAnalyser, vocabulary: Vocabulary, harm: HarmWords
                 ) -> None:
        self.vocabulary = vocabulary
        self.lexicon = vocabulary.lexicon
        self.harm = harm
        self._enemy = PhraseMatcher(analyser, [(w, "enemy") for w in vocabulary.enemy_words])

    @staticmethod
    def _adder(mention: IncidentMention, fact: SentenceFacts, source: SourceText) -> AddClaim:
        s = fact.sentence

        def claim(kind: str, value: ClaimValue, start: int, end: int, rule: str) -> None:
            mention.claims.append(Claim(kind, value, Provenance(source.item_id, start, end,
                                                                 s.text, s.start, s.end),
                                        fact.attribution, rule))
        return claim

    def add_setting_claims(self, mention: IncidentMention, setting: SentenceFacts,
                           source: SourceText) -> None:
        """Where and when from the sentence that set the scene, cited to its own words."""
        claim = self._adder(mention, setting, source)
        if mention.place is not None:
            for toponym, place, role in setting.places:
                if place.gazetteer_id == mention.place.gazetteer_id:
                    claim("place", PlaceValue(name=toponym.text,
                                              gazetteer_id=place.gazetteer_id, role=role),
                          toponym.start, toponym.end, "place-setting")
                    break
        for d in setting.dates:
            if d.role == "event":
                claim("date", DateValue(iso=d.value.iso(), precision=d.value.precision,
                                        expression=d.expression, role=d.role, distance=0,
                                        **_time_of(d)),
                      d.start, d.end, "date-setting")

    def add_claims(self, mention: IncidentMention, fact: SentenceFacts,
                   reading: DocumentReading) -> None:
        """Every value of the sentence the mention takes."""
        s = fact.sentence
        claim = self._adder(mention, fact, reading.source)
        entry = len(mention.claims)
        self._same_day_date(mention, fact, reading, claim)
        mention.paragraph_last = max(mention.paragraph_last, s.paragraph)
        mention.sentence_last = max(mention.sentence_last, s.index)
        before = len(mention.claims)
        owners = ValueOwners.of(fact, self.lexicon)
        left: list[NotTaken] = []

        def takes(value: str, start: int, end: int, trace: NotTakenValue, category: str = "",
                  figure: CasualtyFigure | None = None) -> bool:
            """Does the mention take the value? If not, ``trace`` records it as not taken."""
            context = ValueContext(value, mention, owners, self.lexicon, start, category,
                                   figure)
            decision = reading.decide(VALUE_TABLE, context, start, end)
            if decision.outcome == "take":
                return True
            left.append(NotTaken.by(VALUE_TABLE, decision.rule, start, end, trace))
            return False

        self._category_claims(fact, takes, claim)
        self._place_claim(mention, fact, claim)
        self._date_claims(fact, claim)
        self._figure_claims(fact, owners, takes, claim, self._stated_at(fact, reading))
        self._weapon_claims(fact, takes, claim)
        self._target_claims(fact, takes, claim)
        self._perpetrator_claims(fact, claim)
        self._objective_claims(fact, claim)
        self._civilian_claim(fact, claim)
        self._relative_date_claims(mention, fact, reading, claim)
        a = fact.attribution
        if len(mention.claims) == before and a.kind != "outlet" and a.start is not None:
            # "'It is impossible to imagine the number of victims,' the president wrote": a
            # named source's account of the incident with no figure or fact the rules read is
            # still a record of who said what about it (not counted as an origin of its facts)
            claim("statement", StatementValue(speaker=a.speaker, verb=a.verb), s.start, s.end,
                  "attributed-sentence")
        if len(mention.claims) > entry:
            # beside what the sentence gave the mention, what it offered and was not taken
            reading.set_aside(mention, [self._not_taken(mention, fact, reading.source, n)
                                        for n in [*fact.not_taken, *left]
                                        if not self._its_own_place(mention, n)])

    @staticmethod
    def _its_own_place(mention: IncidentMention, trace: NotTaken) -> bool:
        """A trace of the mention's own place in another role ("the Kharkiv governor" in a
        report of an attack on Kharkiv) says nothing the mention does not."""
        return isinstance(trace.value, NotTakenPlace) and mention.place is not None and \
            trace.value.gazetteer_id == mention.place.gazetteer_id

    @staticmethod
    def _not_taken(mention: IncidentMention, fact: SentenceFacts, source: SourceText,
                   trace: NotTaken) -> Claim:
        s = fact.sentence
        return Claim(NOT_TAKEN, trace.value, Provenance(source.item_id, trace.start, trace.end,
                                                        s.text, s.start, s.end),
                     fact.attribution, trace.rule)

    def _same_day_date(self, mention: IncidentMention, fact: SentenceFacts,
                       reading: DocumentReading, claim: AddClaim) -> None:
        """"Later that day, a drone hit Marhanets": dated by the incident before it."""
        s = fact.sentence
        same_day = self.lexicon.pattern("same_day_as_before").search(s.text)
        if not same_day or any(d.role == "event" for d in fact.dates) or \
                reading.focus_date is None or mention.event_date()[0] is not None:
            return
        words = same_day.group(0)
        shift = 1 if words.lower() in self.lexicon.phrases("next_day_phrases") else 0
        value = reading.focus_date.shifted(shift)
        start = s.start + same_day.start()
        claim("date", DateValue(iso=value.iso(), precision=value.precision, expression=words,
                                role="event", distance=0), start, start + len(words),
              "same-day-as-before")

    def _category_claims(self, fact: SentenceFacts, takes: Takes, claim: AddClaim) -> None:
        for category, matches in fact.categories.items():
            m = matches[0]
            if not takes("category", m.start, m.end, NotTakenCategory(words=m.phrase),
                         category=category):
                continue
            weak = all(self.harm.weak_phrase(category, x.phrase) for x in matches)
            claim("category", CategoryValue(category=category, trigger=m.phrase, weak=weak),
                  m.start, m.end, "trigger-word")

    @staticmethod
    def _place_claim(mention: IncidentMention, fact: SentenceFacts, claim: AddClaim) -> None:
        if mention.place is None:
            return
        for toponym, place, role in fact.places:
            if place.gazetteer_id == mention.place.gazetteer_id:
                claim("place", PlaceValue(name=toponym.text, gazetteer_id=place.gazetteer_id,
                                          role=role), toponym.start, toponym.end,
                      f"place-{role}")
                break

    def _date_claims(self, fact: SentenceFacts, claim: AddClaim) -> None:
        s = fact.sentence
        possessive = self.lexicon.words("possessive_marks")
        triggers = [m for matches in fact.categories.values() for m in matches] + fact.weapons
        for d in fact.dates:
            distance = min((abs(d.start - m.end) if d.start >= m.end else abs(m.start - d.end)
                            for m in triggers), default=NO_HARM_WORD_DISTANCE)
            if s.text[d.end - s.start : d.end - s.start + 2] in possessive or \
                    d.attack_day_rule:
                # "Friday's missile strike", "the April 24 attack" (attack_days.toml): the day
                # the text gives the attack
                distance = -1
            claim("date", DateValue(iso=d.value.iso(), precision=d.value.precision,
                                    expression=d.expression, role=d.role,
                                    distance=distance, **_time_of(d)), d.start, d.end, d.rule)

    def _stated_at(self, fact: SentenceFacts, reading: DocumentReading) -> dict[str, Any]:
        """When the sentence's figures are stated as of: a report time of the sentence with
        its time of day ("as of 09:30 on 8 August"), a time after "as of" or "by" alone (on
        the report's day), or else the report's dateline time; {} when none is known."""
        for d in fact.dates:
            if d.role == "report" and d.time is not None and d.value.precision == "day":
                return ReportTime(d.value.start, d.time, d.zone, d.start, d.end,
                                  d.expression).as_value()
        cues = self.lexicon.phrases("report_time_cues")
        day = reading.report_time.day if reading.report_time else reading.counted_from
        for t in fact.times:
            if t.cue in cues and day is not None:
                return ReportTime(day, t.time, t.zone, t.start, t.end, t.expression).as_value()
        return reading.report_time.as_value() if reading.report_time else {}

    @staticmethod
    def _figure_claims(fact: SentenceFacts, owners: ValueOwners, takes: Takes,
                       claim: AddClaim, stated: dict[str, Any]) -> None:
        for figure in fact.figures:
            if not takes("figure", figure.start, figure.end,
                         NotTakenFigure(words=figure.text, measure=figure.measure,
                                        low=figure.low, high=figure.high), figure=figure):
                continue
            claim(figure.measure, FigureValue(low=figure.low, high=figure.high,
                                              qualifier=figure.qualifier,
                                              population=figure.population,
                                              subgroup=figure.subgroup,
                                              cumulative=figure.cumulative, text=figure.text,
                                              earlier_report=figure.rule == "reported-earlier"
                                              or "earlier" in figure.rule,
                                              shared_by=tuple(owners.shared_by), **stated),
                  figure.start, figure.end, f"figure-{figure.rule}")

    def _weapon_claims(self, fact: SentenceFacts, takes: Takes, claim: AddClaim) -> None:
        seen: set[str] = set()
        for w in fact.weapons:
            if w.payload not in seen and takes("weapon", w.start, w.end,
                                               NotTakenWeapon(words=w.phrase,
                                                              weapon=w.payload)):
                seen.add(w.payload)
                weapon = self.vocabulary.weapons[w.payload]
                claim("weapon", WeaponValue(weapon=weapon.name, family=weapon.family,
                                            wide_area=weapon.wide_area, words=w.phrase),
                      w.start, w.end, "weapon-word")

    def _target_claims(self, fact: SentenceFacts, takes: Takes, claim: AddClaim) -> None:
        seen: set[str] = set()
        # A place named where no harm is told ("people were sheltering in the theatre", "graves
        # dug in the village cemetery") is kept, marked as the setting: merging does not take
        # it for what was hit
        setting = not (fact.eventful or fact.weapons)
        for t in fact.targets:
            if t.payload not in seen and takes("target", t.start, t.end,
                                               NotTakenTarget(words=t.phrase,
                                                              target_type=t.payload)):
                seen.add(t.payload)
                target = self.vocabulary.targets[t.payload]
                claim("target", TargetValue(target_type=target.name,
                                            protected=target.protected, words=t.phrase,
                                            setting=True if setting else None),
                      t.start, t.end, "target-word")

    def _civilian_claim(self, fact: SentenceFacts, claim: AddClaim) -> None:
        s = fact.sentence
        civilian = self.lexicon.words("civilian_words")
        populations = self.lexicon.words("civilian_populations")
        if any(w in civilian for w in s.words()) or any(
                f.population in populations for f in fact.figures):
            word = next((t for t in s.tokens if t.lower in civilian), s.tokens[0])
            claim("civilian_status", CivilianStatusValue(civilian=True, words=word.text),
                  word.start, word.end, "civilian-word")

    def _relative_date_claims(self, mention: IncidentMention, fact: SentenceFacts,
                              reading: DocumentReading, claim: AddClaim) -> None:
        s = fact.sentence
        for relative in find_relative_events(s.text, self.lexicon, base=s.start):
            claim("relative_date", RelativeDateValue(expression=relative.expression,
                                                     days_offset=relative.days_offset,
                                                     direction=relative.direction),
                  relative.start, relative.end, "relative-event")
            anchor = reading.anchor_date
            if anchor is not None and relative.direction == "after" and \
                    mention.event_date()[0] is None and mention.place is not None and any(
                        t.start > relative.end and same_place(p, mention.place)
                        for t, p, _ in fact.places):
                # "The strike came a day after an air attack near Barvinkove": the air attack
                # is dated from the strike the report is about.
                value = resolve_anchor(-relative.days_offset, anchor)
                claim("date", DateValue(iso=value.iso(), precision=value.precision,
                                        expression=relative.expression, role="event"),
                      relative.start, relative.end, "relative-to-main-event")

    # -- who acted, who denies, what was the target ---------------------------------------
    def _perpetrator_claims(self, fact: SentenceFacts, claim: AddClaim) -> None:
        a = fact.attribution
        speaker_party = a.party
        tokens = list(fact.sentence.tokens)
        parties = self.vocabulary.parties
        for actor in fact.actors:
            if a.start is not None and a.end is not None and a.start <= actor.start < a.end:
                continue  # "Russia's defence ministry said": the speaker, not an actor
            if not self._acts(tokens, actor):
                continue
            party = actor.payload
            if fact.denial and party == speaker_party:
                continue  # "denied that its forces ...": the denial says it, below
            claim("perpetrator", PerpetratorValue(party=party, label=parties[party].label,
                                                  words=actor.phrase, competing=fact.denial),
                  actor.start, actor.end,
                  "actor-phrase" if not fact.denial else "counter-accusation")
        for enemy in self._enemy.find(tokens):
            opponents = self.vocabulary.opponents.get(speaker_party or "", ())
            if len(opponents) == 1 and self._acts(tokens, enemy):
                claim("perpetrator", PerpetratorValue(party=opponents[0],
                                                      label=parties[opponents[0]].label,
                                                      words=enemy.phrase, competing=False),
                      enemy.start, enemy.end, "enemy-of-speaker")
        if fact.denial and self._denies_responsibility(fact):
            verb = next((t for t in fact.sentence.tokens
                         if self.vocabulary.evidentiality_verbs.get(t.lower) == "denied"),
                        fact.sentence.tokens[0])
            claim("denial", DenialValue(party=speaker_party, speaker=a.speaker,
                                        words=verb.text), verb.start, verb.end, "denial-verb")

    def _acts(self, tokens: list[Token], actor: PhraseMatch[str]) -> bool:
        """Is the party named the one said to act? ("Russian troops opened fire", "a
        Russian missile", "killed by Russian shelling", "fired by the Russian army"; not
        "Ukrainian soldiers removed bodies")."""
        agency = self.vocabulary.agency_verbs
        if actor.phrase.split()[-1] in agency:
            return True
        if actor.first > 0 and tokens[actor.first - 1].lower == "by":
            return True
        # "used only by the Ukrainian military": the agent after "by" and a determiner
        if actor.first > 1 and tokens[actor.first - 2].lower == "by" and \
                tokens[actor.first - 1].lower in self.lexicon.words("determiners"):
            return True
        after = [t.lower for t in tokens[actor.last : actor.last + 5]]
        return any(w in agency for w in after)

    def _denies_responsibility(self, fact: SentenceFacts) -> bool:
        """A denial of the attack itself, not a correction of details."""
        words = set(fact.sentence.words())
        return bool(words & self.lexicon.words("denied_deed_words")) or \
            fact.attribution.party is not None

    def objective_words(self, sentence: Sentence) -> list[Token]:
        """Words for military things a source may say were the target."""
        objective = self.lexicon.words("military_objective_words")
        return [t for t in sentence.tokens if t.lower in objective]

    def _objective_claims(self, fact: SentenceFacts, claim: AddClaim) -> None:
        words = self.objective_words(fact.sentence)
        if not words:
            return
        lowered = set(fact.sentence.words())
        negated = not lowered.isdisjoint(self.lexicon.words("negations"))
        targets_word = not lowered.isdisjoint(self.lexicon.words("targeting_words"))
        presence = self.lexicon.words("military_presence_words")
        if negated and any(t.lower in presence for t in words):
            first = words[0]
            claim("no_military_objective", NoMilitaryObjectiveValue(words=first.text),
                  first.start, first.end, "negated-military-word")
        elif targets_word and \
                fact.attribution.kind in self.lexicon.words("objective_claimant_kinds"):
            first = words[0]
            claim("military_objective", MilitaryObjectiveValue(
                words=first.text, claimed_by=fact.attribution.speaker), first.start, first.end,
                  "claimed-target")


def _time_of(d: DateMention) -> dict[str, Any]:
    """The time of day a date claim keeps, where its words give one."""
    return {"time": d.time, "zone": d.zone} if d.time is not None else {}
