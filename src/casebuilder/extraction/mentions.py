"""Incident mentions: the attacks and harms one document reports, each built from claims.

For every sentence the extractor finds the signals of harm (category words, weapons, target
types, casualty figures), the places named and the role each plays, the dates and whether they
date the event or the report, the parties named as acting, and who says so
(:mod:`casebuilder.extraction.attribution`). A sentence that reports harm somewhere starts or
joins an *incident mention*: one attack or situation at one place in this document. Sentences
that only add to it (a toll, a denial, a weapon, "He said five children were among the dead")
join the mention the paragraph is about. Every value becomes a :class:`Claim` carrying the
character offsets of its words and the quoted sentence, and the attribution of that sentence.

Rules, not a trained model: each rule is small and named in the claim's ``rule`` so an analyst
can see why a value was taken. They apply the same way whoever is accused. Local decisions are
ordered rule tables (vocab/rules/), word classes are the lexicon (vocab/lexicon/); the steps
live in their own modules: :mod:`~casebuilder.extraction.harm_words` (which harm words report
harm), :mod:`~casebuilder.extraction.place_roles` (what part a place plays),
:mod:`~casebuilder.extraction.assembly` (which mention a sentence joins) and
:mod:`~casebuilder.extraction.mention_claims` (the claims it adds). What is learnt about one
document lives in a :class:`~casebuilder.extraction.reading.DocumentReading`, so one extractor
serves any number of documents.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from casebuilder.extraction.assembly import MentionAssembler, load_assembly_tables
from casebuilder.extraction.attribution import Attribution, Attributor
from casebuilder.extraction.claims import Claim, IncidentMention, Provenance, SourceText
from casebuilder.extraction.dates import DateMention, DateResolver
from casebuilder.extraction.facts import SentenceFacts, clause_before, is_situation
from casebuilder.extraction.figures import (
    CasualtyFigure,
    find_fatality_fields,
    find_figures,
    find_single_victims,
)
from casebuilder.extraction.harm_words import HarmWords, load_harm_tables
from casebuilder.extraction.mention_claims import ClaimWriter
from casebuilder.extraction.phrases import PhraseMatch, PhraseMatcher
from casebuilder.extraction.place_roles import (
    PlaceContext,
    capital_as_government,
    load_place_roles,
)
from casebuilder.extraction.reading import DocumentReading, RuleTables
from casebuilder.extraction.rules import Decision, RuleTable
from casebuilder.extraction.text import Sentence, TextAnalyser, Token
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.gazetteer import Gazetteer, Place, ToponymMention

__all__ = ["Claim", "IncidentMention", "MentionExtractor", "Provenance", "SourceText"]

PLACE_ROLE_TABLE = "place_roles"


def load_tables(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    """Every rule table of mention extraction, by name."""
    return {PLACE_ROLE_TABLE: load_place_roles(vocabulary), **load_harm_tables(vocabulary),
            **load_assembly_tables(vocabulary)}


class MentionExtractor:
    """Turns one document's text into incident mentions. Build once, reuse for many texts
    (it keeps nothing of a document: see :meth:`read`)."""

    def __init__(self, analyser: TextAnalyser, vocabulary: Vocabulary, gazetteer: Gazetteer
                 ) -> None:
        self.analyser = analyser
        self.vocabulary = vocabulary
        self.lexicon = vocabulary.lexicon
        self.gazetteer = gazetteer
        self.dates = DateResolver(vocabulary.wars)
        v = vocabulary
        ignored = [(phrase, "") for phrase in v.ignore_phrases]
        self.harm = HarmWords(analyser, vocabulary)
        self._cues = PhraseMatcher(analyser, [(c, c) for c in v.situation_cues])
        self._weapons = PhraseMatcher(
            analyser, [(a, w.name) for w in v.weapons.values()
                       for a in (*w.aliases, w.name.lower())] + ignored)
        self._targets = PhraseMatcher(
            analyser, [(a, t.name) for t in v.targets.values() for a in (*t.aliases,
                                                                          t.name.lower())])
        self._actors = PhraseMatcher(
            analyser, [(f, p.key) for p in v.parties.values() for f in p.forces])
        self.writer = ClaimWriter(analyser, vocabulary, self.harm)
        self.assembler = MentionAssembler(vocabulary, gazetteer, self.writer)
        #: The rule tables a reading uses unless told otherwise (see :meth:`read`).
        self.tables: RuleTables = load_tables(vocabulary)

    # -- the document -------------------------------------------------------------------
    def extract(self, source: SourceText) -> list[IncidentMention]:
        return self.read(source).mentions

    def read(self, source: SourceText, tables: RuleTables | None = None) -> DocumentReading:
        """Read one document: its mentions, and everything decided on the way. ``tables``
        replaces the rule tables (the rule tests switch rules off this way)."""
        reading = DocumentReading(source, self.tables if tables is None else tables)
        sentences = self.analyser.sentences(source.text)
        toponyms = self.gazetteer.find_toponyms(source.text)
        resolved = self._resolve_places(toponyms, reading)
        attributor = Attributor(self.analyser, self.vocabulary, source.outlet)
        facts: list[SentenceFacts] = []
        previous: SentenceFacts | None = None
        for sentence in sentences:
            attribution, qualifies_previous = attributor.attribute(sentence)
            if qualifies_previous and previous is not None:
                target = previous
                party = attributor.qualified_party
                if party is not None and previous.attribution.party != party:
                    target = next((f for f in reversed(facts[-4:])
                                   if f.attribution.party == party), previous)
                target.attribution = target.attribution.qualified("unverified")
            fact = self._sentence_facts(sentence, attribution, resolved, reading,
                                        attributor.people())
            fact.qualifies_previous = qualifies_previous
            facts.append(fact)
            previous = fact
        signed = attributor.signature(sentences[-1]) if sentences else None
        if signed is not None and not facts[-1].eventful:
            # a round-up signed by the governor: his account, not the channel's own
            for fact in facts:
                if fact.attribution.kind == "outlet":
                    fact.attribution = replace(
                        signed, evidentiality=fact.attribution.evidentiality,
                        qualifiers=fact.attribution.qualifiers)
        reading.title_place = self._place_in_title(source)
        mentions = self.assembler.assemble(facts, reading)
        self._cite_title_place(mentions, reading)
        for mention in mentions:
            if mention.place is not None:
                mention.undecided = reading.undecided.get(mention.place.gazetteer_id, ())
        reading.mentions = mentions
        return reading

    def _place_in_title(self, source: SourceText) -> tuple[ToponymMention, Place] | None:
        """The settlement a headline names ("Uman: 23 dead after missile ..."). A report's
        body often says only "the city" because its headline has already said which."""
        if not source.title:
            return None
        toponyms = self.gazetteer.find_toponyms(source.title)
        kinds = self.lexicon.words("fine_place_kinds")
        for toponym, resolution in zip(toponyms, self.gazetteer.resolve_mentions(toponyms),
                                       strict=True):
            place = resolution.place
            if place is not None and place.feature_kind in kinds:
                return toponym, place
        return None

    @staticmethod
    def _cite_title_place(mentions: list[IncidentMention], reading: DocumentReading) -> None:
        """A mention placed by the headline cites the headline's words for its place."""
        if reading.title_place is None:
            return
        source = reading.source
        toponym, place = reading.title_place
        for mention in mentions:
            if mention.place is None or mention.place.gazetteer_id != place.gazetteer_id or \
                    any(c.kind == "place" for c in mention.claims):
                continue
            mention.claims.append(Claim(
                "place", {"name": toponym.text, "gazetteer_id": place.gazetteer_id,
                          "role": "event", "field": "title"},
                Provenance(source.item_id, toponym.start, toponym.end, source.title, 0,
                           len(source.title)),
                Attribution(source.outlet or "the publishing outlet", "", "outlet", None, "",
                            "stated"), "place-title"))

    def _resolve_places(self, toponyms: list[ToponymMention], reading: DocumentReading
                        ) -> list[tuple[ToponymMention, Place]]:
        """Resolve every place name of the document together: the regions and raions it
        names, the places already resolved nearby, and locators such as "Vilkhivka
        (Kharkivskyi, Kharkiv)" decide between places of the same name. A name the gazetteer
        will not place stays unplaced rather than taking its first candidate."""
        resolutions = self.gazetteer.resolve_mentions(toponyms)
        out = []
        undecided = reading.undecided
        decided: set[str] = set()
        areas = self.lexicon.words("area_words")
        for toponym, resolution in zip(toponyms, resolutions, strict=True):
            place = resolution.place
            if place is not None:
                if resolution.undecided:
                    undecided[place.gazetteer_id] = resolution.undecided
                else:
                    decided.add(place.gazetteer_id)
            words = toponym.text.lower().split()
            if words and words[-1] in areas and toponym.candidates and \
                    toponym.candidates[0].feature_kind == "region":
                # "the Bilhorod-Dnistrovskyi district" names the raion, not its town
                place = toponym.candidates[0]
            if place is not None:
                out.append((toponym, place))
        for gazetteer_id in decided:  # placed on evidence somewhere in the document
            undecided.pop(gazetteer_id, None)
        return out

    # -- one sentence -------------------------------------------------------------------
    def _sentence_facts(self, sentence: Sentence, attribution: Attribution,
                        places: list[tuple[ToponymMention, Place]], reading: DocumentReading,
                        people: set[str] | None = None) -> SentenceFacts:
        tokens = list(sentence.tokens)
        weapons = [w for w in self._weapons.find(tokens) if w.payload]
        targets = [t for t in self._targets.find(tokens) if not self._care_destination(tokens, t)]
        figures = self._figures(sentence)
        dates = self._dates(sentence, reading)
        matches = self.harm.find(tokens)
        categories = self.harm.categories_of(tokens, weapons, targets, figures, reading,
                                             matches)
        roles = self._place_roles(sentence, tokens, places, weapons, attribution, people,
                                  reading)
        cues = bool(self._cues.find(tokens))
        return SentenceFacts(sentence, attribution, categories, weapons, targets,
                             self._actors.find(tokens), figures, dates, roles,
                             attribution.evidentiality == "denied", False, cues, bool(matches),
                             is_situation(categories, dates, figures, cues, self.lexicon))

    def _figures(self, sentence: Sentence) -> list[CasualtyFigure]:
        """The casualty figures of a sentence; a running or joint total is marked so."""
        figures = find_figures(sentence.text, base=sentence.start)
        fields = [f for f in find_fatality_fields(sentence.text, base=sentence.start)
                  if not any(f.measure == g.measure for g in figures)]
        figures += fields
        if not any(f.measure == "killed" for f in figures):
            figures += find_single_victims(sentence.text, base=sentence.start)
        if self.lexicon.pattern("running_total_opening").search(sentence.text) or \
                self.lexicon.pattern("joint_total").search(sentence.text):
            # "Since 1 March, shelling has killed 40", "the two attacks together killed 55": a
            # running or joint total, not one attack's toll
            figures = [replace(f, cumulative=True) for f in figures]
        return figures

    def _dates(self, sentence: Sentence, reading: DocumentReading) -> list[DateMention]:
        """The dates of a sentence, each dating the event or the report of it."""
        dates = [self._as_of(d, sentence) for d in
                 self.dates.find(sentence.text, reading.source.published, base=sentence.start)]
        if self.lexicon.pattern("toll_statement").search(sentence.text):
            # "On April 4 the emergency service said the final death toll had reached 37":
            # the day of the count, not of the attack
            dates = [replace(d, role="report") for d in dates]
        return dates

    def _as_of(self, mention: DateMention, sentence: Sentence) -> DateMention:
        """"By Tuesday morning, officials said 18 had died": the time of the count, not of the
        attack."""
        before = sentence.text[: mention.start - sentence.start].rstrip().lower()
        after = sentence.text[mention.end - sentence.start :]
        if after.startswith(tuple(self.lexicon.words("possessive_marks"))):
            return mention  # "killed by Saturday's missile strike": the attack's own day
        if mention.role == "event" and (
                before.endswith(" by") or before == "by" or before.endswith("as of") or
                before.endswith("as at") or self.lexicon.pattern("toll_update").search(before)
                or self.lexicon.pattern("work_ended").search(before)):
            return replace(mention, role="report")
        return mention

    def _place_roles(self, sentence: Sentence, tokens: list[Token],
                     places: list[tuple[ToponymMention, Place]], weapons: list[PhraseMatch[str]],
                     attribution: Attribution, people: set[str] | None,
                     reading: DocumentReading) -> list[tuple[ToponymMention, Place, str]]:
        """The places the sentence names, each with its role in the sentence."""
        in_sentence = [(t, p) for t, p in places
                       if sentence.start <= t.start and t.end <= sentence.end
                       and not any(w.start <= t.start < w.end or t.start <= w.start < t.end
                                   for w in weapons)  # "Vilkha rockets" name a weapon
                       and not _inside_compound(sentence, t)]
        roles = [(t, p, self.place_role(tokens, t, p, attribution, reading, people).outcome)
                 for t, p in in_sentence]
        return self._share_list_roles(sentence.text, sentence.start, roles)

    def place_role(self, tokens: list[Token], toponym: ToponymMention, place: Place | None,
                   attribution: Attribution, reading: DocumentReading,
                   people: set[str] | None = None) -> Decision:
        """The role of a place name in its sentence and the rule that gave it
        (vocab/rules/place_roles.toml)."""
        context = PlaceContext(tokens, toponym, attribution, self.lexicon, place,
                               known_person=toponym.text in (people or set()),
                               government=capital_as_government(tokens, toponym,
                                                                self.vocabulary))
        return reading.decide(PLACE_ROLE_TABLE, context, toponym.start, toponym.end)

    def _share_list_roles(self, text: str, base: int,
                          roles: list[tuple[ToponymMention, Place, str]]
                          ) -> list[tuple[ToponymMention, Place, str]]:
        """"fired from the direction of Krasnohorivka and Kurakhove": a name joined to the
        one before it by "and", "or" or a comma plays the same part."""
        sharing = self.lexicon.words("list_sharing_roles")
        shared = self.lexicon.words("shared_list_roles")
        joiners = self.lexicon.phrases("list_joiners")
        out: list[tuple[ToponymMention, Place, str]] = []
        for toponym, place, role in roles:
            if out and role in sharing and out[-1][2] in shared:
                between = text[out[-1][0].end - base : toponym.start - base].strip().lower()
                if between in joiners:
                    role = out[-1][2]
            out.append((toponym, place, role))
        return out

    def _care_destination(self, tokens: list[Token], target: PhraseMatch[str]) -> bool:
        """"The wounded were flown to hospitals in Moscow", "died in hospital": where victims
        were cared for, not what was hit."""
        if target.payload != "hospital":
            return False
        before = clause_before(tokens, target.first, 8, self.lexicon)
        # the preposition may stand a few words back: "flown to two city hospitals"
        prepositions = self.lexicon.words("care_prepositions")
        at = next((i for i, w in enumerate(before[:4]) if w in prepositions), None)
        if at == 0 and before[0] in self.lexicon.words("stay_prepositions") and \
                tokens[target.first].lower == "hospital":
            return True  # "still in hospital", "taken to hospital": no article, a patient's stay
        return at is not None and bool(self.lexicon.words("care_words") &
                                       set(before[at + 1 : at + 5]))


def _inside_compound(sentence: Sentence, toponym: ToponymMention) -> bool:
    """"Maria Lvova-Belova": a name that is half of a hyphenated word is not a place."""
    text, base = sentence.text, sentence.start
    start, end = toponym.start - base, toponym.end - base
    before = text[max(0, start - 2) : start]
    after = text[end : end + 2]
    return (len(before) == 2 and before[1] == "-" and before[0].isalpha()) or (
        len(after) == 2 and after[0] == "-" and after[1].isupper())
