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
can see why a value was taken. They apply the same way whoever is accused.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from casebuilder.extraction.attribution import Attribution, Attributor
from casebuilder.extraction.dates import (
    DateMention,
    DateResolver,
    find_relative_events,
    resolve_anchor,
)
from casebuilder.extraction.figures import (
    CasualtyFigure,
    find_fatality_fields,
    find_figures,
    find_single_victims,
)
from casebuilder.extraction.phrases import PhraseMatch, PhraseMatcher
from casebuilder.extraction.text import SECTION_CHARS, Sentence, TextAnalyser, Token, sections
from casebuilder.extraction.vocabulary import CATEGORY_ORDER, Vocabulary
from casebuilder.gazetteer import Gazetteer, Place, ToponymMention, distance_km
from casebuilder.model.partial_date import PartialDate

SITUATION_CATEGORIES = frozenset({"siege", "displacement"})
EXPLOSIVE_FAMILIES_CATEGORY = "explosive_attack"
# Words before a place name that make it somewhere people went or came from, not where the
# harm happened ("fleeing to Zaporizhzhia", "troops returned to Belarus", "talks in Istanbul"
# has no harm word and is never a mention anyway).
_MOTION_BEFORE = frozenset({"to", "toward", "towards", "from", "into", "via", "across",
                            "through", "out"})
_EVENT_BEFORE = frozenset({"in", "at", "on", "near", "outside", "around", "of", "hit",
                           "struck", "shelled", "bombed", "attacked", "over", "across"})
_MILITARY_OBJECTIVE = ("military", "weapons", "ammunition", "depot", "depots", "hangars",
                       "command", "commanders", "fighters", "troops", "soldiers", "oil",
                       "fuel", "air defence", "military facilities", "military target",
                       "military targets", "military infrastructure", "targets")
# Words for places where people live: harm to them is harm in a populated area.
_POPULATED_WORDS = frozenset({"city", "cities", "town", "towns", "village", "villages",
                              "settlement", "settlements", "neighbourhood", "neighborhood",
                              "suburb", "suburbs", "outskirts", "centre", "center", "downtown",
                              "residential", "district", "districts", "streets", "street"})
_SINCE_START = re.compile(r"\s*(?:since|from the start of|so far (?:this|in))\b", re.IGNORECASE)
_JOINT_TOTAL = re.compile(
    r"\b(?:(?:the|both|all)\s+(?:two|three|four|five)\s+(?:attacks|strikes)|both\s+(?:attacks|"
    r"strikes)|(?:attacks|strikes)\s+(?:\w+\s+)?together|combined\s+(?:death\s+)?toll)\b",
    re.IGNORECASE)
_SAME_DAY = re.compile(r"\b(?:the same day|later that day|earlier that day|that (?:morning|"
                       r"afternoon|evening|night|day)|the next day|the following day|"
                       r"the day after)\b", re.IGNORECASE)
_PERSON_WORDS = frozenset({"men", "women", "man", "woman", "them", "him", "her", "detainees",
                           "prisoners", "volunteers", "journalists", "officials", "teenagers",
                           "boys", "girls", "mayor", "priest", "activists", "farmers",
                           "journalist", "volunteer", "activist", "teacher", "teachers",
                           "population", "inhabitants", "persons"})
_USE_VERBS = frozenset({"hit", "hits", "struck", "dropped", "launched", "fired", "fire",
                        "shelled", "targeted", "used", "landed", "exploded", "fell"})
_DIRECTIONS = frozenset({"north", "south", "east", "west", "northeast", "northwest", "southeast",
                         "southwest", "north-east", "north-west", "south-east", "south-west",
                         "km", "kilometres", "kilometers", "miles"})
_AREA_WORDS = frozenset({"suburbs", "suburb", "outskirts", "region", "oblast", "district",
                         "area", "vicinity", "province", "raion", "rayon"})
# An attack named as the reason for another is not reported by that sentence.
_MOTIVE_WORDS = frozenset({"retaliation", "revenge", "reprisal", "reprisals", "response"})
_GOVERNMENT_VERBS = frozenset({"asked", "accused", "blamed", "wants", "has", "had", "would",
                               "will", "called", "warned", "insisted", "responded", "rejected",
                               "demanded", "condemned", "announced", "says", "said", "denied",
                               "claimed", "admitted", "vowed", "threatened", "might", "may",
                               "could", "can", "must", "is", "was", "does", "did", "trade",
                               "traded", "blame", "blames", "accuses", "calls", "insists",
                               "rejects", "denies", "claims", "warns", "wanted", "sought",
                               "silent", "responds", "replied", "replies", "opens",
                               "launches", "sends", "announces", "vows", "retaliates"})
#: Verbs whose object a capital stands for its government: "It accused Kyiv of ...".
_ADDRESS_VERBS = frozenset({"accused", "accuses", "accusing", "blamed", "blames", "blaming",
                            "urged", "urges", "asked", "asks", "warned", "warns", "told",
                            "criticised", "criticized", "condemned", "pressed"})
#: Words that make the harm after them a fear, threat or plan, not something that happened.
_HYPOTHETICAL = frozenset({"might", "may", "could", "would", "will", "threatened",
                           "threatens", "threaten", "plans", "planned", "planning", "intends",
                           "intended", "preparing", "unless"})
_LAUNCH_WORDS = frozenset({"launched", "fired", "shot", "flew", "came", "coming"})
_DETERMINERS = frozenset({"the", "a", "an", "its", "their", "his", "her", "this", "that"})
_INSTITUTION_NOUNS = frozenset({"police", "administration", "council", "prosecutor's",
                                "prosecutors", "authorities", "government", "governor",
                                "department", "office", "service", "court", "hospital",
                                "military", "state", "prosecutor"})
#: Gatherings whose place is where people met or spoke, not where harm was done.
_VENUE_WORDS = frozenset({"meeting", "summit", "talks", "conference", "session", "assembly",
                          "headquarters", "forum", "briefing", "speech", "hearing", "tribunal",
                          "court", "negotiations", "ceremony", "funeral", "funerals",
                          "memorial", "vigil", "rally", "exhibition", "embassy", "visit",
                          "visiting", "speaking", "presenting", "presented", "leaders",
                          "critics", "diplomats",
                          "governments", "capitals", "allies", "protesters", "mourners"})
#: What a capital's government has: "at Moscow's request", "Kyiv's Western backers".
_GOVERNMENT_NOUNS = frozenset({"request", "claim", "claims", "account", "version", "forces",
                               "troops", "military", "army", "ambassador", "envoy", "backers",
                               "allies", "government", "officials", "position", "response",
                               "demand", "demands", "invasion", "war", "offensive",
                               "accusations", "denial", "western", "missiles", "drones",
                               "strikes", "aggression", "representative", "delegation",
                               "appointed", "installed", "backed", "proxy", "proxies",
                               "occupation", "administration"})
_OFFICE_WORDS = frozenset({"head", "chief", "governor", "mayor", "spokesman", "spokeswoman",
                           "spokesperson", "secretary", "deputy", "official", "officials"})
_NEGATIONS = frozenset({"no", "not", "never", "without", "nothing", "none"})
_CIVILIAN_WORDS = frozenset({"civilian", "civilians", "residents", "children", "women",
                             "elderly", "people", "shoppers", "passengers", "families",
                             "villagers", "mourners", "mayor", "priest", "journalist",
                             "journalists", "volunteer", "volunteers", "activist", "activists",
                             "teacher", "teachers", "orphans", "patients", "inhabitants"})


@dataclass(frozen=True)
class Provenance:
    item_id: int
    char_start: int
    char_end: int
    quote: str  # the whole sentence the value came from
    sentence_start: int
    sentence_end: int


@dataclass(frozen=True)
class Claim:
    kind: str  # category | place | date | killed | injured | weapon | target | perpetrator
    #            | denial | military_objective | no_military_objective | civilian_status
    value: dict[str, Any]
    provenance: Provenance
    attribution: Attribution
    rule: str

    @property
    def in_text(self) -> bool:
        """False for a value cited to the collection's headline rather than the text."""
        return self.value.get("field") != "title"

    def as_json(self) -> dict[str, Any]:
        a = self.attribution
        p = self.provenance
        return {
            "kind": self.kind, "value": self.value, "rule": self.rule,
            "item_id": p.item_id, "char_start": p.char_start, "char_end": p.char_end,
            "quote": p.quote, "sentence_start": p.sentence_start, "sentence_end": p.sentence_end,
            "attributed_to": a.speaker, "speaker_role": a.role, "source_kind": a.kind,
            "party": a.party, "verb": a.verb, "evidentiality": a.evidentiality,
            "qualifiers": list(a.qualifiers), "also_attributed": list(a.others),
        }


@dataclass
class IncidentMention:
    """One attack or situation at one place, as one document reports it."""

    item_id: int
    place_name: str  # as written in the text ("Odessa")
    place: Place | None
    situation: bool  # an ongoing situation (siege, displacement) rather than one attack
    paragraph: int
    claims: list[Claim] = field(default_factory=list)
    first_sentence: int = 0
    paragraph_last: int = 0  # the last paragraph that added to it
    sentence_last: int = 0  # the last sentence that added to it
    #: Other places of the same name the document gave nothing to choose between (see
    #: gazetteer Resolution.undecided); merging may settle it with other documents.
    undecided: tuple[Place, ...] = ()

    @property
    def categories(self) -> list[str]:
        claims = [c for c in self.claims if c.kind == "category"]
        found = {c.value["category"] for c in claims}
        # "killed"/"dead" in a report of a missile strike is the strike's toll: it makes a
        # killing only if some sentence says how (shot, executed) rather than just "killed".
        if "explosive_attack" in found and all(
                c.value.get("weak") for c in claims if c.value["category"] == "killing"):
            found.discard("killing")
        return [c for c in CATEGORY_ORDER if c in found]

    def event_date(self) -> tuple[PartialDate | None, str, str]:
        """The mention's date: the most precise event date its claims give."""
        dates = [c for c in self.claims if c.kind == "date" and c.value.get("role") == "event"]
        if not dates:
            return None, "", ""
        best = min(dates, key=lambda c: (PartialDate.parse_iso(c.value["iso"]).days,
                                         c.value.get("distance", 999),
                                         c.provenance.char_start))
        return PartialDate.parse_iso(best.value["iso"]), best.value["expression"], best.rule

    def report_date(self) -> tuple[PartialDate | None, str]:
        """When no claim dates the event, the earliest date a source reported it on."""
        dates = [c for c in self.claims if c.kind == "date" and c.value.get("role") == "report"]
        if not dates:
            return None, ""
        best = min(dates, key=lambda c: PartialDate.parse_iso(c.value["iso"]).start)
        return PartialDate.parse_iso(best.value["iso"]), best.value["expression"]

    def situation_span(self, war_start: date | None, published: date | None
                       ) -> PartialDate | None:
        """A continuing situation runs from its earliest stated start (or the war's start)
        to the report: "remained cut off" on 3 April is a siege from 24 February to then."""
        first = min((c.provenance.sentence_start for c in self.claims if c.in_text),
                    default=0)
        dated = [c for c in self.claims if c.kind == "date" and c.value.get("role") == "event"
                 and c.value.get("distance", 999) <= 60
                 and c.provenance.sentence_start == first]
        if dated:
            # "ordered residents to leave on 5 November", "taken to Crimea in October 2022":
            # a date given beside the harm, in the sentence that first reports the situation
            best = min(dated, key=lambda c: c.value.get("distance", 999))
            return PartialDate.parse_iso(best.value["iso"])
        starts = [PartialDate.parse_iso(c.value["iso"]).start for c in self.claims
                  if c.kind == "date" and c.value.get("role") == "event"]
        begin = war_start or min(starts, default=None)
        end = published or max((PartialDate.parse_iso(c.value["iso"]).end for c in self.claims
                                if c.kind == "date"), default=None)
        if begin is None or end is None or begin > end:
            return None
        return PartialDate.range(begin, end)

    def key(self, sha256: str) -> str:
        """A stable identity for the mention across re-extraction of the same text: the text,
        the place, the kind and the date, not the sentence offsets a new rule may move (an
        analyst's decisions name mentions by this key)."""
        place = self.place.gazetteer_id if self.place else self.place_name
        when, _, _ = self.event_date()
        raw = f"{sha256}:{place}:{int(self.situation)}:{when.iso() if when else ''}"
        return "m-" + hashlib.sha256(raw.encode()).hexdigest()[:16]


def _shifted(mention: IncidentMention, base: int) -> IncidentMention:
    """``mention`` found in a section that starts at ``base`` of the text, with its claims'
    offsets counted from the start of the text (a claim cited to the headline keeps its own)."""
    def moved(claim: Claim) -> Claim:
        if not claim.in_text:
            return claim
        p = claim.provenance
        return replace(claim, provenance=replace(
            p, char_start=p.char_start + base, char_end=p.char_end + base,
            sentence_start=p.sentence_start + base, sentence_end=p.sentence_end + base))

    return replace(mention, claims=[moved(c) for c in mention.claims])


@dataclass
class SourceText:
    """The text of one item and what its collection says about it."""

    item_id: int
    text: str
    title: str = ""
    outlet: str = ""
    published: date | None = None


@dataclass
class _SentenceFacts:
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

    @property
    def eventful(self) -> bool:
        return bool(self.categories)

    @property
    def situation(self) -> bool:
        """Harm that continues (a siege, a campaign of shelling) rather than one attack."""
        found = set(self.categories)
        attack = found - SITUATION_CATEGORIES
        one_day = any(d.value.days <= 2 for d in self.dates if d.role == "event")
        if found & SITUATION_CATEGORIES and not attack:
            return True
        # "Rescuers searched for days after the strike killed 12": one attack's toll, not a
        # running total, makes the sentence about one attack whatever the cue words say
        toll = any(f.measure in {"killed", "injured"} and not f.cumulative and (f.low or 0) > 0
                   for f in self.figures)
        return bool(attack) and self.cues and not one_day and not toll


class MentionExtractor:
    """Turns one document's text into incident mentions. Build once, reuse for many texts."""

    def __init__(self, analyser: TextAnalyser, vocabulary: Vocabulary, gazetteer: Gazetteer
                 ) -> None:
        self.analyser = analyser
        self.vocabulary = vocabulary
        self.gazetteer = gazetteer
        self.dates = DateResolver(vocabulary.wars)
        v = vocabulary
        ignored = [(phrase, "") for phrase in v.ignore_phrases]
        self._categories = PhraseMatcher(
            analyser, [(t, c.key) for c in v.categories.values() for t in c.triggers] + ignored)
        self._cues = PhraseMatcher(analyser, [(c, c) for c in v.situation_cues])
        self._weak = {c.key: c.weak for c in v.categories.values()}
        self._requires_harm = {c.key for c in v.categories.values() if c.requires_harm}
        self._weapons = PhraseMatcher(
            analyser, [(a, w.name) for w in v.weapons.values()
                       for a in (*w.aliases, w.name.lower())] + ignored)
        self._targets = PhraseMatcher(
            analyser, [(a, t.name) for t in v.targets.values() for a in (*t.aliases,
                                                                          t.name.lower())])
        self._actors = PhraseMatcher(
            analyser, [(f, p.key) for p in v.parties.values() for f in p.forces])
        self._enemy = PhraseMatcher(analyser, [(w, "enemy") for w in v.enemy_words])
        self._anchor_date: PartialDate | None = None
        self._focus_date: PartialDate | None = None
        self._military = PhraseMatcher(analyser, [(p, p) for p in v.military_objects])
        self._remnants = PhraseMatcher(analyser, [(p, p) for p in v.remnants])
        self._document_has_fine_place = False
        self._title_place: tuple[ToponymMention, Place] | None = None
        self._undecided: dict[str, tuple[Place, ...]] = {}

    # -- the document -------------------------------------------------------------------
    def extract(self, source: SourceText) -> list[IncidentMention]:
        """Every incident mention of the document (see :meth:`extract_by_section`)."""
        return [m for found in self.extract_by_section(source) for m in found]

    def extract_by_section(self, source: SourceText) -> Iterator[list[IncidentMention]]:
        """The mentions of each section of the text in turn (text.sections): a text within
        SECTION_CHARS is one section, read as a whole. A longer one (a 50 MB page on one line)
        is read a section at a time, each as a document of its own, so the work and memory per
        section stay bounded; every offset is counted from the start of the whole text, so each
        claim's offsets and quote still point into the item's text."""
        bounds = sections(source.text, SECTION_CHARS)
        if len(bounds) == 1:
            yield self._extract_document(source)
            return
        for start, end in bounds:
            part = replace(source, text=source.text[start:end])
            yield [_shifted(m, start) for m in self._extract_document(part)]

    def _extract_document(self, source: SourceText) -> list[IncidentMention]:
        sentences = self.analyser.sentences(source.text)
        toponyms = self.gazetteer.find_toponyms(source.text)
        resolved = self._resolve_places(toponyms)
        attributor = Attributor(self.analyser, self.vocabulary, source.outlet)
        facts: list[_SentenceFacts] = []
        previous: _SentenceFacts | None = None
        for sentence in sentences:
            attribution, qualifies_previous = attributor.attribute(sentence)
            if qualifies_previous and previous is not None:
                target = previous
                party = attributor.qualified_party
                if party is not None and previous.attribution.party != party:
                    target = next((f for f in reversed(facts[-4:])
                                   if f.attribution.party == party), previous)
                target.attribution = target.attribution.qualified("unverified")
            fact = self._sentence_facts(sentence, attribution, resolved, source,
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
        self._title_place = self._place_in_title(source)
        mentions = self._assemble(facts, source)
        self._cite_title_place(mentions, source)
        for mention in mentions:
            if mention.place is not None:
                mention.undecided = self._undecided.get(mention.place.gazetteer_id, ())
        return mentions

    def _place_in_title(self, source: SourceText) -> tuple[ToponymMention, Place] | None:
        """The settlement a headline names ("Uman: 23 dead after missile ..."). A report's
        body often says only "the city" because its headline has already said which."""
        if not source.title:
            return None
        toponyms = self.gazetteer.find_toponyms(source.title)
        for toponym, resolution in zip(toponyms, self.gazetteer.resolve_mentions(toponyms),
                                       strict=True):
            place = resolution.place
            if place is not None and place.feature_kind in {"settlement", "city_district",
                                                            "feature"}:
                return toponym, place
        return None

    def _cite_title_place(self, mentions: list[IncidentMention], source: SourceText) -> None:
        """A mention placed by the headline cites the headline's words for its place."""
        if self._title_place is None:
            return
        toponym, place = self._title_place
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

    def _resolve_places(self, toponyms: list[ToponymMention]
                        ) -> list[tuple[ToponymMention, Place]]:
        """Resolve every place name of the document together: the regions and raions it
        names, the places already resolved nearby, and locators such as "Vilkhivka
        (Kharkivskyi, Kharkiv)" decide between places of the same name. A name the gazetteer
        will not place stays unplaced rather than taking its first candidate."""
        resolutions = self.gazetteer.resolve_mentions(toponyms)
        out = []
        self._undecided = {}
        decided: set[str] = set()
        for toponym, resolution in zip(toponyms, resolutions, strict=True):
            place = resolution.place
            if place is not None:
                if resolution.undecided:
                    self._undecided[place.gazetteer_id] = resolution.undecided
                else:
                    decided.add(place.gazetteer_id)
            words = toponym.text.lower().split()
            if words and words[-1] in _AREA_WORDS and toponym.candidates and \
                    toponym.candidates[0].feature_kind == "region":
                # "the Bilhorod-Dnistrovskyi district" names the raion, not its town
                place = toponym.candidates[0]
            if place is not None:
                out.append((toponym, place))
        for gazetteer_id in decided:  # placed on evidence somewhere in the document
            self._undecided.pop(gazetteer_id, None)
        return out

    # -- one sentence -------------------------------------------------------------------
    def _sentence_facts(self, sentence: Sentence, attribution: Attribution,
                        places: list[tuple[ToponymMention, Place]], source: SourceText,
                        people: set[str] | None = None) -> _SentenceFacts:
        tokens = list(sentence.tokens)
        weapons = [w for w in self._weapons.find(tokens) if w.payload]
        targets = [t for t in self._targets.find(tokens) if not _care_destination(tokens, t)]
        figures = find_figures(sentence.text, base=sentence.start)
        fields = [f for f in find_fatality_fields(sentence.text, base=sentence.start)
                  if not any(f.measure == g.measure for g in figures)]
        figures += fields
        if not any(f.measure == "killed" for f in figures):
            figures += find_single_victims(sentence.text, base=sentence.start)
        if _SINCE_START.match(sentence.text) or _JOINT_TOTAL.search(sentence.text):
            # "Since 1 March, shelling has killed 40", "the two attacks together killed 55": a
            # running or joint total, not one attack's toll
            figures = [replace(f, cumulative=True) for f in figures]
        dates = [_as_of(d, sentence) for d in
                 self.dates.find(sentence.text, source.published, base=sentence.start)]
        if _TOLL_STATEMENT.search(sentence.text):
            # "On April 4 the emergency service said the final death toll had reached 37":
            # the day of the count, not of the attack
            dates = [replace(d, role="report") for d in dates]
        actors = self._actors.find(tokens)
        denial = attribution.evidentiality == "denied"
        categories = self._categories_of(tokens, weapons, targets, figures)
        in_sentence = [(t, p) for t, p in places
                       if sentence.start <= t.start and t.end <= sentence.end
                       and not any(w.start <= t.start < w.end or t.start <= w.start < t.end
                                   for w in weapons)  # "Vilkha rockets" name a weapon
                       and not _inside_compound(sentence, t)]
        roles = [(t, p, "person" if t.text in (people or set()) and
                  p.feature_kind != "region" and (p.population or 0) < 50_000
                  else "government" if self._government(tokens, t)
                  else self._place_role(tokens, t, attribution)) for t, p in in_sentence]
        roles = _share_list_roles(sentence.text, sentence.start, roles)
        cues = bool(self._cues.find(tokens))
        harm_words = any(m.payload for m in self._categories.find(tokens))
        return _SentenceFacts(sentence, attribution, categories, weapons, targets, actors,
                              figures, dates, roles, denial, False, cues, harm_words)

    def _categories_of(self, tokens: list[Token], weapons: list[PhraseMatch[str]],
                       targets: list[PhraseMatch[str]], figures: list[CasualtyFigure]
                       ) -> dict[str, list[PhraseMatch[str]]]:
        found: dict[str, list[PhraseMatch[str]]] = {}
        words = {t.lower for t in tokens}
        harm = any(f.measure in {"killed", "injured", "casualties"} and (f.low or 0) > 0
                   for f in figures)
        victims = harm or bool(words & _CIVILIAN_WORDS)
        killed = [f for f in figures if f.measure == "killed" and (f.low or 0) > 0]
        populated = bool(words & _POPULATED_WORDS)
        civilian_targets = [t for t in targets if t.payload not in {"vehicle"}]
        explosive = [w for w in weapons if self.vocabulary.weapons[w.payload].category
                     == EXPLOSIVE_FAMILIES_CATEGORY]
        matches = [m for m in self._categories.find(tokens, overlapping=False) if m.payload]
        strong = {m.payload for m in matches if m.phrase not in self._weak[m.payload]}
        for match in matches:
            category = match.payload
            weak = match.phrase in self._weak[category]
            if {t.lower for t in tokens[max(0, match.first - 4) : match.first]} & _MOTIVE_WORDS:
                continue  # "in retaliation for the attack on the bridge": a motive given
            if match.phrase in {"explosion", "explosions", "blast", "blasts"} and \
                    words & {"heard", "hear", "audible"} and not harm:
                continue  # "explosions were heard in Kyiv": a sound, not a reported harm
            if category == "destruction" and match.first > 0 and \
                    tokens[match.first - 1].lower in _DETERMINERS and \
                    not (harm or weapons or strong - {category}):
                continue  # "flowers outside the burned market": the state left, not an event
            if weak and not (harm or weapons or targets or strong - {category}):
                continue
            if not harm and _HYPOTHETICAL & set(_clause_before(tokens, match.first, 6)):
                continue  # "Moscow might try to launch heavy strikes": feared, not done
            if weak and category in SITUATION_CATEGORIES and not strong & SITUATION_CATEGORIES:
                continue  # "waiting to be evacuated": the setting of an attack, not a harm
            if category == "killing" and weak and (explosive or
                                                    EXPLOSIVE_FAMILIES_CATEGORY in strong):
                continue  # "killed" after a missile strike is the strike's toll, not a killing
            if category == "killing" and not victims:
                continue  # "shooting at buildings": gunfire with no one said to be hit
            if category == "killing" and killed and all(f.population == "military"
                                                        for f in killed):
                continue  # "a soldier killed in 2022": a combatant's death, not a crime here
            if category == "detention" and weak and not self._person_follows(tokens, match):
                continue  # "the shelter held": nobody is said to be held
            if category in self._requires_harm and not (harm or targets or
                                                        strong - {category}):
                continue
            found.setdefault(category, []).append(match)
        # A weapon used on something ("a drone dropped an explosive on a civilian", "MLRS hit
        # Orikhiv") is an explosive attack even without one of the trigger words.
        if explosive and "explosive_attack" not in found and (harm or civilian_targets or
                                                               words & _USE_VERBS):
            found["explosive_attack"] = [PhraseMatch(explosive[0].first, explosive[0].last,
                                                     explosive[0].start, explosive[0].end,
                                                     explosive[0].phrase, "explosive_attack")]
        # A cumulative toll ("2,400 killed since the start of the war") describes a situation,
        # not a killing by shooting.
        if "killing" in found and all(m.phrase in self._weak["killing"] for m in found["killing"]) \
                and figures and all(f.cumulative for f in figures if f.measure == "killed"):
            del found["killing"]
        # Only military objects hit ("a destroyed tank", "shelling of positions") and nobody
        # civilian said to be harmed: not an attack on civilians.
        if found and self._military_objects(tokens) and not victims and not civilian_targets \
                and not populated:
            return {}
        # The remains of a weapon ("rocket remnants embedded in the ground") are not an attack.
        if found and self._remnants.find(tokens) and not victims and not civilian_targets \
                and set(found) <= {"explosive_attack"} and not strong - {"explosive_attack"}:
            return {}
        return found

    def _government(self, tokens: list[Token], toponym: ToponymMention) -> bool:
        """"Moscow said", "Kyiv has denied": a capital standing for its government, which
        speaks or acts, is not where anything happened."""
        name = toponym.text.lower()
        if not any(name in p.state_words for p in self.vocabulary.parties.values()):
            return False
        index = next((i for i, t in enumerate(tokens) if t.start >= toponym.start), 0)
        before = tokens[index - 1].lower if index > 0 else ""
        following = [t for t in tokens if t.start >= toponym.end]
        after = following[0].lower if following else ""
        if before in _EVENT_BEFORE | _MOTION_BEFORE and not (
                after in {"'s", "’s"} and before in {"at", "on", "of"}):
            return False  # "in Moscow", "missiles hit Kyiv" (but "at Moscow's request")
        if before in _ADDRESS_VERBS:
            return True  # "It accused Kyiv of using civilians as a shield"
        if after in {"'s", "’s"}:
            return len(following) > 1 and following[1].lower in _GOVERNMENT_NOUNS
        if after == "and" and len(following) > 2 and following[1].is_title:
            after = following[2].lower  # "Moscow and Kyiv trade blame"
        return after in self.vocabulary.evidentiality_verbs or after in _GOVERNMENT_VERBS or (
            after.endswith("ed") and len(after) > 3)  # "Moscow pulled out of the deal"

    def _military_objects(self, tokens: list[Token]) -> list[PhraseMatch[str]]:
        """Military things named as harmed, not as the ones who act ("abducted by Russian
        soldiers", "troops opened fire"): the actors are not what was attacked."""
        agency = self.vocabulary.agency_verbs
        out = []
        for match in self._military.find(tokens):
            before = [t.lower for t in tokens[max(0, match.first - 3) : match.first]]
            after = [t.lower for t in tokens[match.last : match.last + 3]]
            if "by" in before or any(w in agency for w in after):
                continue
            out.append(match)
        return out

    @staticmethod
    def _person_follows(tokens: list[Token], match: PhraseMatch[str]) -> bool:
        """"held at least 15 civilian men", "captured two residents": a person is the object."""
        after = tokens[match.last : match.last + 5]
        # "villagers were taken away", "two men were being held": a person before a passive
        before = tokens[max(0, match.first - 4) : match.first]
        passive = any(t.lower in {"was", "were", "been", "being"} for t in before)
        return any(t.lower in _CIVILIAN_WORDS | _PERSON_WORDS or t.lower.isdigit()
                   for t in after) or (passive and any(
                       t.lower in _CIVILIAN_WORDS | _PERSON_WORDS for t in before))

    @staticmethod
    def _place_role(tokens: list[Token], toponym: ToponymMention, attribution: Attribution
                    ) -> str:
        if toponym.locates is not None:
            return "locator"  # "(Kharkivskyi, Kharkiv)": says where the place before it is
        if toponym.dateline:
            return "dateline"  # "KYIV, June 16 —": where the report was filed
        rest = [t for t in tokens if t.start >= toponym.end][:2]
        if [t.lower for t in rest] in (["people", "'s"], ["people", "’s"]):
            return "entity"  # "the self-proclaimed Luhansk People's Republic": not the city
        if attribution.start is not None and attribution.end is not None and \
                attribution.start <= toponym.start and toponym.end <= attribution.end:
            if (toponym.start, toponym.end) == (attribution.start, attribution.end):
                return "person"  # "Chaus said": the speaker himself, not a village
            return "speaker"
        index = next((i for i, t in enumerate(tokens) if t.start >= toponym.start), None)
        if len(rest) == 2 and rest[0].text == "-" and rest[0].start == toponym.end and \
                rest[1].start == rest[0].end and rest[1].text[:1].islower():
            return "modifier"  # "the Moscow-appointed head", "Kyiv-based": not a place of harm
        if index is None or index == 0:
            return "event"
        before = tokens[index - 1].lower
        if before == "in" and rest and rest[0].lower == "," and \
                attribution.start is not None and 0 <= attribution.start - rest[0].end <= 2:
            return "venue"  # "In Moscow, Foreign Ministry spokeswoman Maria Zakharova said"
        if before in {"the", "a", "an", "occupied", "russian-occupied", "annexed"} and \
                index >= 2:
            before = tokens[index - 2].lower  # "across the Dnipro": the motion word
        after = [t.lower for t in tokens if t.start >= toponym.end and t.lower != "-"][:2]
        following = after[0] if after else ""
        # "about 140 km north of Kyiv", "30 miles from Kharkiv": a reference point
        window = {t.lower for t in tokens[max(0, index - 4) : index]}
        if before in {"of", "from"} and window & _DIRECTIONS:
            return "reference"
        recent = [t.lower for t in tokens[max(0, index - 8) : index]]
        if _locates_by_layout(recent):
            return "locator"
        motive = max((i for i, w in enumerate(recent) if w in _MOTIVE_WORDS), default=None)
        if motive is not None and not {",", ";", "and", "but"} & set(recent[motive:]):
            return "motive"  # "in retaliation for the attack on the Crimean bridge"
        clause = _clause_before(tokens, index, 8)
        launched = "from" in clause and _LAUNCH_WORDS & set(clause[clause.index("from") + 1:])
        if before == "from" or (before == "of" and "from" in window and window & {
                "area", "direction", "side", "vicinity", "outskirts"}) or (
                launched and (before == "in" or (before in {"'s", "’s"} and index >= 3 and
                                                  tokens[index - 3].lower == "in"))):
            # ("launched from across the border in Russia's Belgorod region")
            # where people were taken or fled from; where fire came from ("launched from the
            # area of Kramatorsk")
            return "origin"
        if before in _MOTION_BEFORE:
            return "motion"
        if before in {"visiting", "visited", "visits", "toured"}:
            return "venue"  # "as the Secretary of State was visiting Kyiv"
        if before in {"in", "at"} and _VENUE_WORDS & set(_clause_before(tokens, index, 7)):
            return "venue"  # "the Security Council's meeting in New York": where people met
        # "the Kyiv suburbs of Irpin", "the Kharkiv region's outskirts": the first name only
        # locates the second
        if following in {"region", "oblast", "province", "region's", "oblast's"}:
            return "region"  # "the Kharkiv region": the region, not its capital
        if following in _AREA_WORDS and (len(after) < 2 or after[1] in {"of", "village",
                                                                        "town", "city"}):
            return "locator"
        # "In the town of Merefa, near Kharkiv": a second place that only locates the first
        if before in {"near", "outside"} and index >= 2 and tokens[index - 2].lower == ",":
            return "locator"
        # "Vyacheslav Chaus": a surname that is also a village name
        if tokens[index - 1].is_title and not tokens[index - 1].is_punct and \
                before not in _EVENT_BEFORE and index - 1 > 0 and \
                toponym.candidates and toponym.candidates[0].feature_kind != "region" and \
                (toponym.candidates[0].population or 0) < 50_000:
            return "person"
        # "the Donetsk regional military administration", "Kyiv Mayor": a place naming an
        # institution or office, not where the harm happened.
        office = before == "of" and any(
            t.lower in _OFFICE_WORDS for t in tokens[max(0, index - 4) : index])
        if following in {"regional", "city", "district", "oblast"} and len(after) > 1 and \
                after[1] in _INSTITUTION_NOUNS:
            return "institution"  # "the head of the department of the Kharkiv regional police"
        if following in {"regional", "mayor", "governor", "city", "council", "region's",
                         "oblast's", "administration", "prosecutor's", "prosecutors"} and \
                (before not in _EVENT_BEFORE or office):
            return "institution"  # also "the head of the Cherkasy regional administration"
        return "event"

    # -- the mentions -------------------------------------------------------------------
    def _assemble(self, facts: list[_SentenceFacts], source: SourceText
                  ) -> list[IncidentMention]:
        mentions: list[IncidentMention] = []
        regions_named = {p.admin1 for f in facts for _, p, _ in f.places if p.admin1}
        focus: IncidentMention | None = None  # what the current paragraph is about
        document_place = self._document_place(facts)
        self._anchor_date = None
        self._focus_date = None
        self._document_has_fine_place = any(
            role == "event" and p.feature_kind in {"settlement", "city_district", "feature"}
            for f in facts if f.eventful for _, p, role in f.places)
        if document_place is None and not self._document_has_fine_place and \
                self._title_place is not None:
            toponym, place = self._title_place
            document_place = toponym.text, place
        if document_place is None and not self._document_has_fine_place:
            # "ZAPORIZHZHIA (Ukraine) — A missile tore through ... in the southern city": with
            # no finer place anywhere in the report, the city it was filed from is the best
            # guess for a single incident (still subject to the single-incident test below)
            document_place = self._dateline_place(facts)
        setting: _SentenceFacts | None = None  # "Between 3 and 30 March, in Yahidne, ..."
        single = self._single_incident(facts, regions_named)
        pending: list[_SentenceFacts] = []  # harm told before any place is named
        for fact in facts:
            places = self._event_places(fact, regions_named)
            situation_only = self._situation_only(fact)
            if setting is not None and setting.sentence.paragraph != fact.sentence.paragraph:
                setting = None
            if not fact.eventful and not situation_only and (places or any(
                    d.role == "event" for d in fact.dates)) and (
                    focus is None or focus.paragraph_last != fact.sentence.paragraph):
                # A sentence that sets the scene names where and when; the harm comes in the
                # sentences after it, which often say neither.
                setting = fact
            from_setting = False
            if fact.eventful and not places and setting is not None and (
                    focus is None or focus.paragraph_last != fact.sentence.paragraph):
                places = self._event_places(setting, regions_named)
                from_setting = bool(places)
            if places and focus is not None and self._only_speaker_places(fact) and \
                    fact.sentence.index - focus.sentence_last <= 1 and (
                        fact.sentence.paragraph == focus.paragraph_last or
                        focus.place is None or
                        all(p.admin1 == focus.place.admin1 for _, p in places)):
                # "according to the Belgorod governor", or "The Bryansk governor said" opening
                # the next paragraph about an attack in his region: who says, not where
                places = []
            if self._anchor_date is None and mentions:
                dated = [m.event_date()[0] for m in mentions if not m.situation]
                self._anchor_date = next((d for d in dated if d is not None), None)
            if fact.eventful or (situation_only and (places or focus is not None)):
                aftermath = False
                besieged = self._besieged_city(fact, mentions)
                if not places and besieged is not None:
                    targets = [self._mention_for(mentions, fact, besieged, source)]
                elif not places and focus is not None and not self._elsewhere(fact, focus) and (
                        fact.sentence.paragraph == focus.paragraph_last
                        or fact.sentence.index - focus.sentence_last <= 1):
                    anchor = (focus.place_name, focus.place) if focus.place else None
                    if anchor and fact.situation != focus.situation:
                        # "people were trapped under the rubble", "every day Russia kills
                        # civilians" after an attack: the attack's aftermath or rhetoric, not
                        # a siege of the place, unless the sentence gives a span or a total
                        known = any(m.situation and m.place is not None and
                                    m.place.gazetteer_id == anchor[1].gazetteer_id
                                    for m in mentions)
                        if fact.situation and not known and \
                                not self._situation_evidence(fact):
                            # its words still belong to the attack, as told by its source
                            aftermath = True
                            targets = [focus]
                        else:
                            targets = [self._mention_for(mentions, fact, anchor, source)]
                    else:
                        targets = [focus]
                elif not places and document_place is not None and \
                        not _NATIONWIDE.search(fact.sentence.text) and \
                        not self._country_total(fact) and single:
                    targets = [self._mention_for(mentions, fact, document_place, source)]
                elif not places and not _fine_places(fact) and (
                        unknown := _unknown_place(fact, speaker_ok=True)):
                    # "in the village of Zarichne" that no gazetteer knows: kept by name, with
                    # no geometry, rather than dropped
                    targets = [self._unplaced_mention(mentions, fact, unknown, source)]
                else:
                    targets = [self._mention_for(mentions, fact, place, source)
                               for place in places]
                    if not places and focus is None and not fact.situation and \
                            self._one_attack_told(fact):
                        # "The number killed in the June 27 strike on a restaurant has risen
                        # to 13", before any sentence says where: kept for the place to come
                        pending.append(fact)
                self._focus_date = focus.event_date()[0] if focus is not None else None
                told = replace(fact, categories={
                    k: v for k, v in fact.categories.items()
                    if k not in SITUATION_CATEGORIES}) if aftermath else fact
                for mention in targets:
                    if from_setting and setting is not None:
                        self._add_setting_claims(mention, setting, source)
                    self._add_claims(mention, told, source)
                if targets and pending and not targets[0].situation:
                    for early in pending:
                        if single or fact.sentence.paragraph - early.sentence.paragraph <= 1:
                            self._add_claims(targets[0], early, source)
                    pending = []
                if targets:
                    focus = targets[0]
            elif focus is not None and self._adds_to(fact, focus, places, single):
                self._add_claims(focus, fact, source)
        found = [m for m in mentions if m.categories]
        if any(not m.situation for m in found):
            found = [m for m in found if not _thin_situation(m)]
        return found

    @staticmethod
    def _same_speaker(fact: _SentenceFacts, focus: IncidentMention) -> bool:
        said = [c for c in focus.claims if c.in_text]
        if not said or fact.attribution.kind == "outlet":
            return False
        # the claims of the latest sentence (found once: a long text has thousands of claims)
        latest = max(c.provenance.sentence_start for c in said)
        last = [c for c in said if c.provenance.sentence_start == latest]
        if not last:
            return False
        words = {w.lower().strip(".,") for w in (fact.attribution.speaker + " " +
                                                 fact.attribution.role).split()}
        earlier = {w.lower().strip(".,") for w in (last[0].attribution.speaker + " " +
                                                   last[0].attribution.role).split()}
        shared = (words & earlier) - {"the", "of", "a", "an", "in", "said"}
        return bool(shared)

    @staticmethod
    def _elsewhere(fact: _SentenceFacts, focus: IncidentMention) -> bool:
        """Does the sentence name a place (even a region) that is not the focus's?"""
        if not _fine_places(fact) and _unknown_place(fact) is not None:
            # a village no gazetteer knows: matched by name and date where it is handled
            return True
        if focus.place is None:
            return False
        new_paragraph = fact.sentence.paragraph != focus.paragraph_last
        for _, place, role in fact.places:
            if role not in {"event", "institution", "speaker"} or place.feature_kind == "country":
                continue
            if role in {"speaker", "institution"} and not new_paragraph:
                continue  # "..., according to the Belgorod governor": who says, not where
            if place.feature_kind == "region":
                if place.admin1 and place.admin1 != focus.place.admin1:
                    return True
                continue
            if not _same_place(place, focus.place):
                return True
        return False

    @staticmethod
    def _only_speaker_places(fact: _SentenceFacts) -> bool:
        roles = {role for _, place, role in fact.places
                 if place.feature_kind in {"settlement", "city_district", "feature"}}
        return bool(roles) and roles <= {"speaker", "institution"}

    @staticmethod
    def _besieged_city(fact: _SentenceFacts, mentions: list[IncidentMention]
                       ) -> tuple[str, Place] | None:
        """"the besieged city" with no name: the place of the latest siege in the document."""
        words = fact.sentence.words()
        if "besieged" not in words or not {"city", "town", "village"} & set(words):
            return None
        for mention in reversed(mentions):
            if mention.situation and "siege" in mention.categories and mention.place:
                return mention.place_name, mention.place
        return None

    @staticmethod
    def _one_attack_told(fact: _SentenceFacts) -> bool:
        """Not a country's or a month's total ("In January 2024, at least 158 civilians were
        killed in Ukraine"), which no single attack's place may take."""
        if _NATIONWIDE.search(fact.sentence.text) or MentionExtractor._country_total(fact):
            return False
        return not _spans_days(fact)

    @staticmethod
    def _country_total(fact: _SentenceFacts) -> bool:
        """"... were killed in Ukraine": a figure for the whole country."""
        return bool(fact.figures) and any(
            role == "event" and p.feature_kind == "country" for _, p, role in fact.places)

    @staticmethod
    def _situation_evidence(fact: _SentenceFacts) -> bool:
        """A running total or a span of days: what shows harm that went on."""
        return any(f.cumulative for f in fact.figures) or _spans_days(fact)

    @staticmethod
    def _situation_only(fact: _SentenceFacts) -> bool:
        """A cumulative toll with no harm word still describes the situation at a place."""
        return any(f.cumulative and f.measure == "killed" for f in fact.figures)

    def _single_incident(self, facts: list[_SentenceFacts], regions_named: set[str]) -> bool:
        places = {p.gazetteer_id for f in facts if f.eventful
                  for _, p in self._event_places(f, regions_named)
                  if p.feature_kind not in {"region", "country"}}
        return len(places) <= 1

    def _document_place(self, facts: list[_SentenceFacts]
                        ) -> tuple[str, Place] | None:
        """The place a one-incident report is about: its dateline or its headline's place."""
        for fact in facts[:2]:
            for toponym, place, role in fact.places:
                if role == "event" and place.feature_kind in {"settlement", "city_district",
                                                               "feature"}:
                    return toponym.text, place
        return None

    @staticmethod
    def _dateline_place(facts: list[_SentenceFacts]) -> tuple[str, Place] | None:
        for fact in facts[:1]:
            for toponym, place, role in fact.places:
                if role == "dateline" and place.feature_kind in {"settlement", "city_district"}:
                    return toponym.text, place
        return None

    def _event_places(self, fact: _SentenceFacts, regions_named: set[str]
                      ) -> list[tuple[str, Place]]:
        fine = [(t.text, p) for t, p, role in fact.places if role == "event"
                and p.feature_kind in {"settlement", "city_district", "feature"}]
        if fine:
            return _unique(fine)
        if "displacement" in fact.categories:
            # "children from the Kherson children's home were taken to Crimea": a deportation
            # happens where people are taken from
            origin = [(t.text, p) for t, p, role in fact.places if role == "origin"
                      and p.feature_kind in {"settlement", "city_district", "feature"}]
            if origin:
                return _unique(origin[:1])
        speaker = [(t.text, p) for t, p, role in fact.places if role in {"speaker",
                                                                          "institution"}
                   and p.feature_kind in {"settlement", "city_district", "feature"}]
        if speaker and fact.eventful:
            return _unique(speaker[:1])
        # "The Kharkiv regional governor said ... strikes on the city": the regional capital
        if fact.eventful and {"city", "capital"} & set(fact.sentence.words()):
            for toponym, place, role in fact.places:
                if place.feature_kind == "region" and role in {"institution", "speaker",
                                                               "event"}:
                    centre = self._regional_centre(place)
                    if centre is not None:
                        return [(toponym.text, centre)]
        # A region or country on its own is a place only when nothing finer was named in the
        # document inside it (then "in the Donetsk region" is the incident's best location).
        if self._document_has_fine_place:
            return []
        coarse = [(t.text, p) for t, p, role in fact.places if role == "event"
                  and p.feature_kind == "region" and t.start > 0]
        return _unique(coarse[:1])

    @staticmethod
    def _unplaced_mention(mentions: list[IncidentMention], fact: _SentenceFacts, name: str,
                          source: SourceText) -> IncidentMention:
        event_dates = [d.value for d in fact.dates if d.role == "event"]
        for mention in mentions:
            if mention.place is None and mention.place_name == name and \
                    mention.situation == fact.situation:
                existing, _, _ = mention.event_date()
                if existing is not None and event_dates and not fact.situation and not any(
                        existing.overlaps(d) for d in event_dates):
                    continue  # the same unknown village attacked again on another day
                return mention
        mention = IncidentMention(source.item_id, name, None, fact.situation,
                                  fact.sentence.paragraph, first_sentence=fact.sentence.index)
        mentions.append(mention)
        return mention

    def _regional_centre(self, region: Place) -> Place | None:
        """The city a region is named after, when it is the region's centre."""
        stem = region.name
        for suffix in (" Oblast", " oblast", " region", " Region", " City"):
            stem = stem.removesuffix(suffix)
        found = self.gazetteer.resolve(f"{stem}, {region.admin1 or region.name}").place
        if found is None or found.feature_kind != "settlement":
            return None
        if distance_km(found.coordinates, region.coordinates) > 15:
            return None
        return found

    def _mention_for(self, mentions: list[IncidentMention], fact: _SentenceFacts,
                     place: tuple[str, Place] | None, source: SourceText) -> IncidentMention:
        assert place is not None
        name, resolved = place
        situation = fact.situation or (self._situation_only(fact) and not fact.eventful)
        event_dates = [d.value for d in fact.dates if d.role == "event"]
        for mention in reversed(mentions):
            if mention.place is None or not _same_place(mention.place, resolved):
                continue
            if mention.situation != situation:
                continue
            existing, _, _ = mention.event_date()
            if existing is not None and event_dates and not situation and not any(
                    existing.overlaps(d) for d in event_dates):
                continue
            if _finer(resolved, mention.place):
                mention.place, mention.place_name = resolved, name
            return mention
        mention = IncidentMention(source.item_id, name, resolved, situation,
                                  fact.sentence.paragraph, first_sentence=fact.sentence.index)
        mentions.append(mention)
        return mention

    def _adds_to(self, fact: _SentenceFacts, focus: IncidentMention,
                 places: list[tuple[str, Place]], single: bool = False) -> bool:
        """Does a sentence without harm words still add to the mention in focus? ``single``:
        the document reports one incident, so a named source speaking of the harm anywhere in
        it speaks of that incident."""
        if places and focus.place is not None and not any(
                p.gazetteer_id == focus.place.gazetteer_id for _, p in places):
            return False
        if single and fact.harm_words and fact.attribution.kind != "outlet" and \
                not fact.situation:
            return True
        adjacent = fact.sentence.index - focus.sentence_last <= 1
        if fact.sentence.paragraph - focus.paragraph_last > 1 and not fact.figures:
            return False
        if fact.harm_words and (fact.sentence.paragraph == focus.paragraph_last or adjacent):
            return True
        if adjacent and self._same_speaker(fact, focus):
            return True  # the same official goes on: "Mayor Vladyslav Atroshenko said"
        focus_targets = {c.value["target_type"] for c in focus.claims if c.kind == "target"}
        shared_target = any(t.payload in focus_targets for t in fact.targets)
        return bool(fact.figures or fact.denial or fact.weapons or fact.qualifies_previous
                    or self._objective_words(fact) or shared_target)

    # -- claims -------------------------------------------------------------------------
    @staticmethod
    def _add_setting_claims(mention: IncidentMention, setting: _SentenceFacts,
                            source: SourceText) -> None:
        """Where and when from the sentence that set the scene, cited to its own words."""
        s = setting.sentence

        def claim(kind: str, value: dict[str, Any], start: int, end: int, rule: str) -> None:
            mention.claims.append(Claim(kind, value, Provenance(source.item_id, start, end,
                                                                 s.text, s.start, s.end),
                                        setting.attribution, rule))

        if mention.place is not None:
            for toponym, place, role in setting.places:
                if place.gazetteer_id == mention.place.gazetteer_id:
                    claim("place", {"name": toponym.text, "gazetteer_id": place.gazetteer_id,
                                    "role": role}, toponym.start, toponym.end, "place-setting")
                    break
        for d in setting.dates:
            if d.role == "event":
                claim("date", {"iso": d.value.iso(), "precision": d.value.precision,
                               "expression": d.expression, "role": d.role, "distance": 0},
                      d.start, d.end, "date-setting")

    def _add_claims(self, mention: IncidentMention, fact: _SentenceFacts,
                    source: SourceText) -> None:
        s = fact.sentence
        a = fact.attribution
        same_day = _SAME_DAY.search(s.text)
        if same_day and not any(d.role == "event" for d in fact.dates) and \
                self._focus_date is not None and mention.event_date()[0] is None:
            # "Later that day, a drone hit Marhanets": dated by the incident before it.
            shift = 1 if same_day.group(0).lower() in {"the next day", "the following day",
                                                       "the day after"} else 0
            value = self._focus_date.shifted(shift)
            start = s.start + same_day.start()
            mention.claims.append(Claim("date", {"iso": value.iso(), "precision":
                                                 value.precision, "expression": same_day.group(0),
                                                 "role": "event", "distance": 0},
                                        Provenance(source.item_id, start,
                                                   start + len(same_day.group(0)), s.text,
                                                   s.start, s.end), a, "same-day-as-before"))

        mention.paragraph_last = max(mention.paragraph_last, s.paragraph)
        mention.sentence_last = max(mention.sentence_last, s.index)
        before = len(mention.claims)

        def claim(kind: str, value: dict[str, Any], start: int, end: int, rule: str) -> None:
            mention.claims.append(Claim(kind, value, Provenance(source.item_id, start, end,
                                                                 s.text, s.start, s.end),
                                        a, rule))

        for category, matches in fact.categories.items():
            if mention.situation and category not in SITUATION_CATEGORIES | {
                    "explosive_attack", "destruction"}:
                continue  # a siege's bombardment belongs to it; a killing is its own incident
            if not mention.situation and category in SITUATION_CATEGORIES:
                continue  # "during the evacuation", "the besieged city": the setting
            m = matches[0]
            weak = all(x.phrase in self._weak[category] for x in matches)
            claim("category", {"category": category, "trigger": m.phrase, "weak": weak},
                  m.start, m.end, "trigger-word")
        if mention.place is not None:
            for toponym, place, role in fact.places:
                if place.gazetteer_id == mention.place.gazetteer_id:
                    claim("place", {"name": toponym.text, "gazetteer_id": place.gazetteer_id,
                                    "role": role}, toponym.start, toponym.end, f"place-{role}")
                    break
        triggers = [m for matches in fact.categories.values() for m in matches] + fact.weapons
        for d in fact.dates:
            distance = min((abs(d.start - m.end) if d.start >= m.end else abs(m.start - d.end)
                            for m in triggers), default=999)
            if s.text[d.end - s.start : d.end - s.start + 2] in {"'s", "’s"}:
                distance = -1  # "Friday's missile strike": the day the text gives the attack
            claim("date", {"iso": d.value.iso(), "precision": d.value.precision,
                           "expression": d.expression, "role": d.role,
                           "distance": distance}, d.start, d.end, d.rule)
        owners = _ValueOwners.of(fact)

        def mine(start: int) -> bool:
            """In a sentence naming two places ("five killed in Kramatorsk, while shelling in
            Sloviansk injured two"), a value belongs to the place named nearest it."""
            found = owners.owner(start)
            return found is None or mention.place is None or _same_place(found, mention.place)

        for figure in fact.figures:
            if figure.measure not in {"killed", "injured", "missing", "casualties"}:
                continue
            if figure.cumulative and not mention.situation:
                continue
            if not mine(figure.start):
                continue
            claim(figure.measure, {"low": figure.low, "high": figure.high,
                                   "qualifier": figure.qualifier,
                                   "population": figure.population,
                                   "subgroup": figure.subgroup,
                                   "cumulative": figure.cumulative, "text": figure.text,
                                   "earlier_report": figure.rule == "reported-earlier"
                                   or "earlier" in figure.rule,
                                   "shared_by": owners.shared_by},
                  figure.start, figure.end, f"figure-{figure.rule}")
        seen_weapons: set[str] = set()
        for w in fact.weapons:
            if w.payload not in seen_weapons and mine(w.start):
                seen_weapons.add(w.payload)
                weapon = self.vocabulary.weapons[w.payload]
                claim("weapon", {"weapon": weapon.name, "family": weapon.family,
                                 "wide_area": weapon.wide_area, "words": w.phrase},
                      w.start, w.end, "weapon-word")
        seen_targets: set[str] = set()
        # A place named where no harm is told ("people were sheltering in the theatre", "graves
        # dug in the village cemetery") is kept, marked as the setting: merging does not take
        # it for what was hit
        setting = not (fact.eventful or fact.weapons)
        for t in fact.targets:
            if t.payload not in seen_targets and mine(t.start):
                seen_targets.add(t.payload)
                target = self.vocabulary.targets[t.payload]
                claim("target", {"target_type": target.name, "protected": target.protected,
                                 "words": t.phrase, **({"setting": True} if setting else {})},
                      t.start, t.end, "target-word")
        self._perpetrator_claims(fact, claim)
        self._objective_claims(fact, claim)
        if any(w in _CIVILIAN_WORDS for w in s.words()) or any(
                f.population in {"civilians", "children"} for f in fact.figures):
            word = next((t for t in s.tokens if t.lower in _CIVILIAN_WORDS), s.tokens[0])
            claim("civilian_status", {"civilian": True, "words": word.text}, word.start,
                  word.end, "civilian-word")
        for relative in find_relative_events(s.text, base=s.start):
            claim("relative_date", {"expression": relative.expression,
                                    "days_offset": relative.days_offset,
                                    "direction": relative.direction},
                  relative.start, relative.end, "relative-event")
            anchor = self._anchor_date
            if anchor is not None and relative.direction == "after" and \
                    mention.event_date()[0] is None and mention.place is not None and any(
                        t.start > relative.end and _same_place(p, mention.place)
                        for t, p, _ in fact.places):
                # "The strike came a day after an air attack near Barvinkove": the air attack
                # is dated from the strike the report is about.
                value = resolve_anchor(-relative.days_offset, anchor)
                claim("date", {"iso": value.iso(), "precision": value.precision,
                               "expression": relative.expression, "role": "event"},
                      relative.start, relative.end, "relative-to-main-event")
        if len(mention.claims) == before and a.kind != "outlet" and a.start is not None:
            # "'It is impossible to imagine the number of victims,' the president wrote": a
            # named source's account of the incident with no figure or fact the rules read is
            # still a record of who said what about it (not counted as an origin of its facts)
            claim("statement", {"speaker": a.speaker, "verb": a.verb}, s.start, s.end,
                  "attributed-sentence")

    def _perpetrator_claims(self, fact: _SentenceFacts, claim: Any) -> None:
        a = fact.attribution
        speaker_party = a.party
        tokens = list(fact.sentence.tokens)
        for actor in fact.actors:
            if a.start is not None and a.end is not None and a.start <= actor.start < a.end:
                continue  # "Russia's defence ministry said": the speaker, not an actor
            if not self._acts(tokens, actor):
                continue
            party = actor.payload
            if fact.denial and party == speaker_party:
                continue  # "denied that its forces ...": the denial says it, below
            claim("perpetrator", {"party": party,
                                  "label": self.vocabulary.parties[party].label,
                                  "words": actor.phrase,
                                  "competing": fact.denial}, actor.start, actor.end,
                  "actor-phrase" if not fact.denial else "counter-accusation")
        for enemy in self._enemy.find(tokens):
            opponents = self.vocabulary.opponents.get(speaker_party or "", ())
            if len(opponents) == 1 and self._acts(tokens, enemy):
                claim("perpetrator", {"party": opponents[0],
                                      "label": self.vocabulary.parties[opponents[0]].label,
                                      "words": enemy.phrase, "competing": False},
                      enemy.start, enemy.end, "enemy-of-speaker")
        if fact.denial and self._denies_responsibility(fact):
            verb = next((t for t in fact.sentence.tokens
                         if self.vocabulary.evidentiality_verbs.get(t.lower) == "denied"),
                        fact.sentence.tokens[0])
            claim("denial", {"party": speaker_party, "speaker": a.speaker,
                             "words": verb.text}, verb.start, verb.end, "denial-verb")

    def _acts(self, tokens: list[Token], actor: PhraseMatch[str]) -> bool:
        """Is the party named the one said to act? ("Russian troops opened fire", "a
        Russian missile", "killed by Russian shelling"; not "Ukrainian soldiers removed
        bodies")."""
        agency = self.vocabulary.agency_verbs
        if actor.phrase.split()[-1] in agency:
            return True
        if actor.first > 0 and tokens[actor.first - 1].lower == "by":
            return True
        after = [t.lower for t in tokens[actor.last : actor.last + 5]]
        return any(w in agency for w in after)

    def _denies_responsibility(self, fact: _SentenceFacts) -> bool:
        """A denial of the attack itself, not a correction of details."""
        words = set(fact.sentence.words())
        return bool(words & {"responsibility", "involvement", "bombing", "attack", "strike",
                             "shelling", "striking", "targeting", "missions", "forces",
                             "troops", "it"}) or fact.attribution.party is not None

    def _objective_words(self, fact: _SentenceFacts) -> list[Token]:
        words = [t for t in fact.sentence.tokens if t.lower in _MILITARY_OBJECTIVE]
        return words

    def _objective_claims(self, fact: _SentenceFacts, claim: Any) -> None:
        words = self._objective_words(fact)
        if not words:
            return
        lowered = fact.sentence.words()
        negated = any(w in _NEGATIONS for w in lowered)
        targets_word = any(w in {"target", "targets", "targeted", "struck", "hit", "meeting"}
                           for w in lowered)
        if negated and any(t.lower in {"military", "soldiers", "troops"} for t in words):
            first = words[0]
            claim("no_military_objective", {"words": first.text}, first.start, first.end,
                  "negated-military-word")
        elif targets_word and fact.attribution.kind in {"belligerent_statement", "official"}:
            first = words[0]
            claim("military_objective", {"words": first.text, "claimed_by":
                                         fact.attribution.speaker}, first.start, first.end,
                  "claimed-target")


@dataclass(frozen=True)
class _ValueOwners:
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
    def of(cls, fact: _SentenceFacts) -> _ValueOwners:
        places = tuple((t, p) for t, p, role in fact.places if role == "event"
                       and p.feature_kind in {"settlement", "city_district", "feature"})
        distinct = {p.gazetteer_id for _, p in places}
        owners = cls(places, False, [])
        positions = [f.start for f in fact.figures
                     if f.measure in {"killed", "injured", "missing", "casualties"}]
        positions += [w.start for w in fact.weapons] + [t.start for t in fact.targets]
        if len(distinct) < 2:
            return owners
        if {owners._nearest(p).gazetteer_id for p in positions} == distinct:
            return cls(places, True, [])
        return cls(places, False, [name for name, _ in _unique([(t.text, p)
                                                                for t, p in places])])

    def _nearest(self, start: int) -> Place:
        return min(self.places, key=lambda tp: min(abs(start - tp[0].start),
                                                    abs(start - tp[0].end)))[1]

    def owner(self, start: int) -> Place | None:
        """The place a value at ``start`` belongs to; None when it is shared by all."""
        return self._nearest(start) if self.split else None


_UNKNOWN_PLACE = re.compile(
    r"\b(?:village|town|city|settlement|hamlet|suburb)\s+of\s+"
    r"(?P<name>[A-ZА-ЯІЇЄҐ][\w'’-]+(?:[ -][A-ZА-ЯІЇЄҐ][\w'’-]+)?)")


def _unknown_place(fact: _SentenceFacts, *, speaker_ok: bool = False) -> str | None:
    """A settlement the text names as one ("the village of Zarichne") but no gazetteer knows.
    One named only as the speaker's office ("the head of the village of Zarichne said") is
    who speaks, not where; with ``speaker_ok`` it is the fallback, as for known places."""
    a = fact.attribution
    speaker = None
    for match in _UNKNOWN_PLACE.finditer(fact.sentence.text):
        start = fact.sentence.start + match.start("name")
        before = fact.sentence.text[: match.start()].lower().split()[-3:]
        if (a.start is not None and a.end is not None and a.start <= start < a.end) or any(
                w in {"head", "mayor", "chief", "administration", "council", "elder"}
                for w in before):
            speaker = speaker or match.group("name")
            continue
        return match.group("name")
    return speaker if speaker_ok else None


# "Strikes across the country killed 18 this week": a summary of many attacks, not one
_NATIONWIDE = re.compile(r"\b(?:across|throughout|all over) (?:the country|ukraine|russia)\b|"
                         r"\bnationwide\b|\bin (?:several|many|\w+ separate) (?:attacks|"
                         r"strikes|regions|cities)\b", re.IGNORECASE)
_KIND_WORDS = frozenset({"village", "town", "settlement", "suburb", "hamlet", "district",
                         "neighbourhood", "neighborhood", "city", "microdistrict"})


def _locates_by_layout(recent: list[str]) -> bool:
    """A name that only says where the place before it is, by the way it is written:
    "Shebekino (Shebekinskiy, Belgorod)", "Stepanivka, a village on the northern edge of
    Kherson city". ``recent`` are the lower-cased tokens just before the name."""
    opened = max((i for i, w in enumerate(recent) if w == "("), default=None)
    if opened is not None and len(recent) - opened <= 4 and ")" not in recent[opened:]:
        return True
    comma = max((i for i, w in enumerate(recent) if w == ","), default=None)
    if comma is None:
        return False
    apposition = recent[comma + 1 :]
    return len(apposition) >= 2 and apposition[0] in {"a", "an"} and \
        apposition[1] in _KIND_WORDS and apposition[-1] in {"of", "near", "outside", "from"}


_CARE_VERBS = frozenset({"taken", "flown", "rushed", "brought", "treated", "admitted",
                         "hospitalised", "hospitalized", "transferred", "evacuated",
                         "airlifted", "died", "remain", "remained", "remains", "being",
                         "treatment", "care", "recovering", "sent", "moved", "transported",
                         "visit", "visited", "visiting"})


def _care_destination(tokens: list[Token], target: PhraseMatch[str]) -> bool:
    """"The wounded were flown to hospitals in Moscow", "died in hospital": where victims were
    cared for, not what was hit."""
    if target.payload != "hospital":
        return False
    before = _clause_before(tokens, target.first, 8)
    # the preposition may stand a few words back: "flown to two city hospitals"
    at = next((i for i, w in enumerate(before[:4]) if w in {"to", "in", "at"}), None)
    if at == 0 and before[0] in {"in", "to"} and tokens[target.first].lower == "hospital":
        return True  # "still in hospital", "taken to hospital": no article, a patient's stay
    return at is not None and bool(_CARE_VERBS & set(before[at + 1 : at + 5]))


def _spans_days(fact: _SentenceFacts) -> bool:
    """Does the sentence date what it tells over more than a day or two ("in January")?"""
    return any(d.role == "event" and d.value.days > 2 for d in fact.dates)


def _thin_situation(mention: IncidentMention) -> bool:
    """A continuing situation told in one sentence with no figure and no dates of its own
    but a year or the war's whole span ("It has been shelled repeatedly since the invasion
    began", "was encircled in 2022"): in a report about an attack, background to it, too thin
    to stand as an incident of its own."""
    if not mention.situation:
        return False
    # the sentence that only said where ("Kramatorsk is one of the largest cities ...")
    # does not count
    sentences = {c.provenance.sentence_start for c in mention.claims
                 if c.in_text and c.kind != "place"}
    if len(sentences) > 1:
        return False
    if any(c.kind in {"killed", "injured", "missing"} for c in mention.claims):
        return False
    dates = [PartialDate.parse_iso(c.value["iso"]) for c in mention.claims
             if c.kind == "date" and c.value.get("role") == "event"]
    return all(d.precision == "year" or d.days > 180 for d in dates)


def _inside_compound(sentence: Sentence, toponym: ToponymMention) -> bool:
    """"Maria Lvova-Belova": a name that is half of a hyphenated word is not a place."""
    text, base = sentence.text, sentence.start
    start, end = toponym.start - base, toponym.end - base
    before = text[max(0, start - 2) : start]
    after = text[end : end + 2]
    return (len(before) == 2 and before[1] == "-" and before[0].isalpha()) or (
        len(after) == 2 and after[0] == "-" and after[1].isupper())


def _clause_before(tokens: list[Token], index: int, reach: int) -> list[str]:
    """Up to ``reach`` words before token ``index``, not reaching back past a comma or a
    semicolon."""
    words: list[str] = []
    for token in reversed(tokens[max(0, index - reach) : index]):
        if token.lower in {",", ";", ":", "—", "–"}:
            break
        words.append(token.lower)
    return words


def _fine_places(fact: _SentenceFacts) -> bool:
    """Does the sentence name a known settlement or site where something may have happened?
    (A dateline, a region or a place fire came from does not count.)"""
    return any(p.feature_kind in {"settlement", "city_district", "feature"} and role in {
        "event", "speaker", "institution", "locator"} for _, p, role in fact.places)


def _share_list_roles(text: str, base: int, roles: list[tuple[ToponymMention, Place, str]]
                      ) -> list[tuple[ToponymMention, Place, str]]:
    """"fired from the direction of Krasnohorivka and Kurakhove": a name joined to the one
    before it by "and", "or" or a comma plays the same part."""
    out: list[tuple[ToponymMention, Place, str]] = []
    for toponym, place, role in roles:
        if out and role in {"event", "person"} and out[-1][2] in {
                "origin", "motion", "reference", "motive", "venue"}:
            between = text[out[-1][0].end - base : toponym.start - base].strip().lower()
            if between in {"and", "or", ",", ", and", ", or"}:
                role = out[-1][2]
        out.append((toponym, place, role))
    return out


def _as_of(mention: DateMention, sentence: Sentence) -> DateMention:
    """"By Tuesday morning, officials said 18 had died": the time of the count, not of the
    attack."""
    before = sentence.text[: mention.start - sentence.start].rstrip().lower()
    after = sentence.text[mention.end - sentence.start :]
    if after.startswith(("'s", "’s")):
        return mention  # "killed by Saturday's missile strike": the attack's own day
    if mention.role == "event" and (before.endswith(" by") or before == "by" or
                                    before.endswith("as of") or before.endswith("as at") or
                                    _TOLL_UPDATE.search(before) or _WORK_ENDED.search(before)):
        return replace(mention, role="report")
    return mention


# "When the rescue operation in Uman ended on Sunday": the day the work ended, not the attack
_WORK_ENDED = re.compile(r"\b(?:rescue|search|recovery|rescuers|operation|work)\b[^.;]{0,60}?"
                         r"\b(?:ended|finished|completed|concluded|wrapped\s+up|was\s+over)"
                         r"(?:\s+(?:late|early))?\s+(?:on|in|by)?$")
_TOLL_STATEMENT = re.compile(
    r"\b(?:final|updated|latest|overall)\s+(?:death\s+)?toll\b|\btoll\s+(?:had\s+|has\s+)?"
    r"(?:rose|risen|reached|climbed|increased|grown|grew|jumped|stood|stands|settled)\b",
    re.IGNORECASE)
# "The death toll rose to 28 on Monday": the day the count changed, not the day of the attack
_TOLL_UPDATE = re.compile(r"\b(?:rose|risen|climbed|increased|grew|jumped|reached)\s+"
                          r"(?:to\s+)?(?:at least\s+)?[\w,]+(?:\s+people)?\s*(?:on|by)?$")


_PRECISION_RANK = {"point": 0, "district": 1, "settlement": 2, "region": 3, "country": 4}


def _same_place(a: Place, b: Place) -> bool:
    """The same place, or one inside the other (a theatre in its city, a district)."""
    if a.gazetteer_id == b.gazetteer_id:
        return True
    if a.feature_kind in {"region", "country"} or b.feature_kind in {"region", "country"}:
        return False
    if a.feature_kind == b.feature_kind == "settlement":
        return False  # two towns or villages, however close, are two places
    reach = max(a.uncertainty_km, b.uncertainty_km, 5.0)
    return distance_km(a.coordinates, b.coordinates) <= reach


def place_rank(precision: str, uncertainty_km: float) -> tuple[float, float]:
    """Lower is more precise. A village placed only at its hromada's centre ("district"
    precision, many kilometres of uncertainty) is coarser than a located town."""
    rank = float(_PRECISION_RANK.get(precision, 9))
    if precision == "district" and uncertainty_km > 5:
        rank = 2.5
    return rank, uncertainty_km


def _finer(new: Place, old: Place) -> bool:
    return place_rank(new.precision, new.uncertainty_km) < place_rank(old.precision,
                                                                      old.uncertainty_km)


def _unique(places: Sequence[tuple[str, Place]]) -> list[tuple[str, Place]]:
    seen: set[str] = set()
    out = []
    for name, place in places:
        if place.gazetteer_id not in seen:
            seen.add(place.gazetteer_id)
            out.append((name, place))
    return out
