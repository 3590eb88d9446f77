"""Who says so: the speaker, reporting verb and evidentiality behind each sentence's claims.

The extractor asks, for every sentence, "according to whom?". The answer comes from patterns
over words, not from a trained parser:

* ``X said`` / ``X, the head of Y, wrote`` — a speaker phrase before a speech verb, with an
  apposition between commas kept as the speaker's role;
* ``"...," said X`` / ``explained his daughter, X`` — the inverted order after a quotation;
* ``according to X`` / ``citing X``;
* ``he said`` / ``the council said`` — a pronoun or a short definite phrase resolved to the
  speaker last named in the document with a matching surname or head word.

A sentence with no speaker inside a speaker's quotation that runs on over several sentences
('X noted: "Nine people were killed. 82 people were wounded."') is that speaker's (rule
``quotation-continued``); any other sentence with no speaker is the outlet's own reporting.
Evidentiality comes from the verb
(said: stated; accused: alleged; denied: denied; saw: observed), from phrases ("at the scene",
"satellite images showed") and from markers such as "could not be independently verified",
which qualify the claims of their own sentence or, when they stand alone, of the sentence
before. The kind of source (official, journalist, witness, belligerent statement, monitoring
mission) and its affiliation to a party come from the vocabularies.

Where a speaker phrase starts and stops, what can be a speaker and whom "the ministry" means
are decided by the rule tables ``vocab/rules/speaker_*.toml`` (see
:mod:`casebuilder.extraction.speaker_cues`). Every attribution names the rules that found and
shaped its speaker (``rules``) and the candidates the rules turned down (``refused_by``), so a
sentence left to the outlet says why no one in it was taken for its source.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from casebuilder.extraction.phrases import PhraseMatcher
from casebuilder.extraction.rules import Decision, RuleTable
from casebuilder.extraction.speaker_cues import (
    AfterContext,
    BeforeContext,
    PhraseContext,
    ReferenceContext,
    ShapeContext,
    SpeakerRules,
    SpeakerWords,
    VerbContext,
    clean,
    is_name_token,
    looks_like_person,
    phrase_after,
    span,
    speaker_rules,
)
from casebuilder.extraction.text import Sentence, TextAnalyser, Token
from casebuilder.extraction.vocabulary import Vocabulary

C = TypeVar("C")

#: How the rules of an attribution name an evidentiality phrase that changed it.
EVIDENCE = "evidentiality-phrase:"
#: The rule of a sentence inside a speaker's quotation opened in an earlier sentence.
QUOTATION_CONTINUED = "quotation-continued"
#: A quotation runs on over at most this many sentences after the one that opens it.
QUOTATION_REACH = 15


@dataclass(frozen=True)
class Refusal:
    """A candidate a speaker rule turned down: a reporting word that is no verb of speech
    here ("cases have been reported"), or a phrase that is no speaker ("as recently as
    Monday said")."""

    rule: str  # "table:rule", e.g. "speaker_cues:passive-voice"
    words: str  # the words refused, as written
    start: int
    end: int


@dataclass(frozen=True)
class Traced:
    """One decision of a speaker table and the words it was about."""

    table: str
    decision: Decision
    start: int
    end: int


@dataclass(frozen=True)
class Attribution:
    """The source of a sentence's claims."""

    speaker: str  # as the text names it, fullest known form ("Pavlo Kyrylenko")
    role: str  # the speaker's role or apposition ("governor of the Donetsk region"), or ""
    kind: str  # source kind key from sources.toml ("official", "witness", "outlet", ...)
    party: str | None  # affiliation to a party in actors.toml, if the words say so
    verb: str  # reporting verb or phrase ("said", "according to"), "" for the outlet's own
    evidentiality: str  # observed | stated | alleged | denied | unverified
    qualifiers: tuple[str, ...] = ()  # e.g. ("unverified",)
    others: tuple[str, ...] = ()  # further sources the same sentence names
    start: int | None = None  # the speaker's words in the text
    end: int | None = None
    #: The rules that found and shaped the speaker, "table:rule" in the order they applied
    #: ("speaker_before:name-then-role", "speaker_phrases:capitalised-name"), or the pattern
    #: ("according-to", "signature"), then any phrase that changed the evidentiality
    #: ("evidentiality-phrase:at the scene"); empty for the outlet's own reporting.
    rules: tuple[str, ...] = ()
    #: Candidates the sentence offered that the rules turned down, each with its rule.
    refused_by: tuple[Refusal, ...] = ()

    @property
    def rule(self) -> str:
        """The rule that found the speaker, "" for the outlet's own reporting."""
        return next((r for r in self.rules if not r.startswith(EVIDENCE)), "")

    def qualified(self, marker: str) -> Attribution:
        if marker in self.qualifiers:
            return self
        evidentiality = self.evidentiality
        if marker == "unverified" and evidentiality in {"stated", "alleged"}:
            evidentiality = "unverified"
        return replace(self, qualifiers=(*self.qualifiers, marker), evidentiality=evidentiality)


@dataclass
class SpeakerMemory:
    """Speakers named so far in one document, to resolve "he said" and "Kyrylenko said"."""

    references: RuleTable[ReferenceContext]
    words: SpeakerWords
    named: list[Attribution] = field(default_factory=list)

    def remember(self, attribution: Attribution) -> None:
        if attribution.kind != "outlet":
            self.named.append(attribution)

    def resolve(self, words: list[str]) -> tuple[Attribution | None, Decision | None]:
        """The latest speaker the words refer to (speaker_references), and the decision: the
        one that matched, or else the one about the speaker named last."""
        first: Decision | None = None
        if not words:
            return None, None
        asked: set[tuple[str, str]] = set()  # a speaker named again is the same question
        for earlier in reversed(self.named):
            if (earlier.speaker, earlier.role) in asked:
                continue
            asked.add((earlier.speaker, earlier.role))
            decision = self.references.decide(
                ReferenceContext(words, earlier.speaker, earlier.role, self.words))
            if decision.outcome == "same":
                return earlier, decision
            first = first or decision
        return None, first


@dataclass(frozen=True)
class _Matchers:
    """The phrase matchers of attribution, built once per analyser and vocabulary."""

    analyser: TextAnalyser  # held, so that its id is not reused while the entry lives
    phrases: PhraseMatcher[str]  # evidentiality phrases
    according: PhraseMatcher[str]  # "according to", "citing"
    party_words: PhraseMatcher[str]  # words tying a speaker to a party


#: Built matchers, by analyser and vocabulary: an Attributor is made for every document, and
#: tokenising every vocabulary phrase again for each one took a tenth of extraction time.
_BUILT: dict[tuple[int, Path, str], _Matchers] = {}


def _matchers(analyser: TextAnalyser, vocabulary: Vocabulary) -> _Matchers:
    key = (id(analyser), vocabulary.directory, vocabulary.digest)
    built = _BUILT.get(key)
    if built is None or built.analyser is not analyser:
        built = _BUILT[key] = _Matchers(
            analyser,
            PhraseMatcher(analyser, vocabulary.evidentiality_phrases.items()),
            PhraseMatcher(analyser, [(p, p) for p in vocabulary.according_to]),
            PhraseMatcher(analyser, [(w, party.key) for party in vocabulary.parties.values()
                                     for w in party.state_words]))
    return built


#: The rule recorded when a speaker given by role is the person the text names later.
NAMED_LATER = "named-later"


class Attributor:
    """Finds the attribution of each sentence of one document, in order."""

    def people(self) -> set[str]:
        """Every word of the person names attributed so far (to tell a surname that is also
        a village name from the village)."""
        return {w for a in self.memory.named if looks_like_person(a.speaker)
                for w in a.speaker.split()}

    def __init__(self, analyser: TextAnalyser, vocabulary: Vocabulary, outlet: str,
                 rules: SpeakerRules | None = None) -> None:
        self.vocabulary = vocabulary
        self.outlet = outlet or "the publishing outlet"
        self.rules = rules or speaker_rules(vocabulary)
        self.words = self.rules.words
        self.memory = SpeakerMemory(self.rules.references, self.words)
        matchers = _matchers(analyser, vocabulary)
        self._phrases = matchers.phrases
        self._according = matchers.according
        self._party_words = matchers.party_words
        self._previous: Attribution | None = None
        lexicon = vocabulary.lexicon
        self._openers = lexicon.words("quotation_openers")
        self._closers = lexicon.words("quotation_closers")
        self._straight = lexicon.words("quotation_marks_straight")
        #: The speaker whose quotation is open, its paragraph and the sentences it has run
        #: on over (see :meth:`_quotation`).
        self._quote: tuple[Attribution, int, int] | None = None
        #: The party a stand-alone "could not be verified" sentence names, if any.
        self.qualified_party: str | None = None
        #: The sentence just attributed names, after them, the source of the sentences before
        #: it ("This was reported by the mayor X", "X reported this on Monday").
        self.sources_previous = False
        #: Every speaker-table decision of the document, with the words it was about.
        self.trace: list[Traced] = []
        self._refused: list[Refusal] = []

    # -- public -------------------------------------------------------------------------
    def attribute(self, sentence: Sentence) -> tuple[Attribution, bool]:
        """The sentence's attribution, and whether the sentence only qualifies the one before
        (a stand-alone "The claim could not be independently verified.")."""
        tokens = list(sentence.tokens)
        self._refused = []
        phrases = self._phrases.find(tokens)
        phrase_kinds = {m.payload for m in phrases}
        named_after = self._reported_by(sentence)
        found = named_after or self._speaker_before_verb(sentence) or \
            self._speaker_after_verb(sentence) or self._according_to(sentence)
        self.sources_previous = named_after is not None or (
            found is not None and len(tokens) <= 25 and bool(
                self.vocabulary.lexicon.pattern("reports_previous_active").search(
                    sentence.text)))
        quoted = self._quotation(sentence, found)
        if found is None and quoted is not None:
            attribution = replace(quoted, rules=(*quoted.rules, QUOTATION_CONTINUED),
                                  qualifiers=(), others=(), refused_by=())
        elif found is None:
            attribution = Attribution(self.outlet, "", "outlet", None, "", "stated")
        else:
            attribution = found
            self.memory.remember(found)
            also = self._according_to(sentence)
            if also is not None and also.speaker != found.speaker:
                self.memory.remember(also)
                attribution = replace(attribution, others=(also.speaker,))
        attribution = self._weighed(attribution, {m.payload: m.phrase for m in reversed(phrases)})
        qualifies_previous = False
        self.qualified_party = None
        if "unverified" in phrase_kinds:
            if found is None and self._previous is not None and len(tokens) <= 14:
                qualifies_previous = True
                # "The Russian account could not be independently verified": the claim of
                # that party, which need not be the sentence just before
                self.qualified_party = next(
                    (m.payload for m in self._party_words.find(tokens)), None)
            else:
                attribution = attribution.qualified("unverified")
        if self._refused:
            attribution = replace(attribution, refused_by=tuple(self._refused))
        self._previous = attribution
        return attribution, qualifies_previous

    def _quotation(self, sentence: Sentence, found: Attribution | None
                   ) -> Attribution | None:
        """The speaker of a quotation open before this sentence, if the sentence is inside it;
        and the state for the next one. A quotation opens when a sentence with a speaker
        leaves one open; it closes with its closing mark, at a paragraph that does not open
        with a quotation mark, or after :data:`QUOTATION_REACH` sentences."""
        text = sentence.text
        opens = sum(text.count(m) for m in self._openers)
        closes = sum(text.count(m) for m in self._closers)
        straight = sum(text.count(m) for m in self._straight)
        leaves_open = opens > closes or (opens == closes == 0 and straight % 2 == 1)
        closing = closes > opens or (opens == closes == 0 and straight % 2 == 1)
        current = self._quote
        if current is not None:
            speaker, paragraph, run = current
            starts_quoted = text.lstrip()[:1] in self._openers | self._straight
            if (sentence.paragraph != paragraph and not starts_quoted) or \
                    run >= QUOTATION_REACH:
                current = None
        if current is None:
            self._quote = (found, sentence.paragraph, 0) if found is not None and \
                leaves_open else None
            return None
        speaker, _, run = current
        self._quote = None if closing else (speaker, sentence.paragraph, run + 1)
        return speaker

    def roles_named_later(self, attributions: list[Attribution]) -> list[Attribution]:
        """The attributions of a document's sentences, in order, with a speaker given only by
        role ("the acting governor said") before the text names the person in that role
        ("Olena Petrenko, the acting governor, said") given as that person: the nearest later
        person the speaker_references table takes the role phrase for, as it would take it
        after the name. The decision is kept in the trace."""
        out = list(attributions)
        for i, attribution in enumerate(attributions):
            if attribution.kind == "outlet" or not self._role_only(attribution.speaker):
                continue
            words = attribution.speaker.lower().split()
            asked: set[tuple[str, str]] = set()
            for later in attributions[i + 1 :]:
                if not looks_like_person(later.speaker) or \
                        (later.speaker, later.role) in asked:
                    continue
                asked.add((later.speaker, later.role))
                decision = self.rules.references.decide(
                    ReferenceContext(words, later.speaker, later.role, self.words))
                if attribution.start is not None and attribution.end is not None:
                    self.trace.append(Traced(self.rules.references.name, decision,
                                             attribution.start, attribution.end))
                if decision.outcome != "same":
                    continue
                out[i] = replace(later, verb=attribution.verb,
                                 evidentiality=attribution.evidentiality,
                                 qualifiers=attribution.qualifiers, start=attribution.start,
                                 end=attribution.end, others=attribution.others,
                                 refused_by=attribution.refused_by,
                                 rules=(*attribution.rules,
                                        f"speaker_references:{decision.rule}", NAMED_LATER))
                break
        return out

    def _role_only(self, speaker: str) -> bool:
        """A speaker phrase of lower-case words after at most an opening determiner ("the
        acting governor of the region", "its mayor"): a role, with no name in it."""
        words = speaker.split()
        if not words or not any(w.lower() in self.words.role_words for w in words):
            return False
        first = words[0]
        return (not first[:1].isupper() or first.lower() in self.words.determiners) and \
            not any(w[:1].isupper() for w in words[1:])

    @staticmethod
    def _weighed(attribution: Attribution, phrases: dict[str, str]) -> Attribution:
        """Evidentiality from the sentence's phrases (attribution.toml): "at the scene" makes
        a statement an observation, "denied responsibility" a source's claim a denial. The
        phrase that changed it is recorded among the rules."""
        observed, denied = phrases.get("observed"), phrases.get("denied")
        if observed is not None and attribution.evidentiality == "stated":
            attribution = replace(attribution, evidentiality="observed",
                                  rules=(*attribution.rules, f"{EVIDENCE}{observed}"))
        if denied is not None and attribution.evidentiality != "denied" and \
                attribution.kind != "outlet":
            attribution = replace(attribution, evidentiality="denied",
                                  rules=(*attribution.rules, f"{EVIDENCE}{denied}"))
        return attribution

    def signature(self, sentence: Sentence) -> Attribution | None:
        """A closing line that signs the document ("Oleh Syniehubov, head of the Kharkiv
        regional military administration"): who speaks in the sentences that name nobody."""
        tokens = list(sentence.tokens)
        while tokens and tokens[-1].is_punct:
            tokens = tokens[:-1]
        if not 3 <= len(tokens) <= 20:
            return None
        comma = next((i for i, t in enumerate(tokens) if t.lower == ","), None)
        if comma is None or not 2 <= comma <= 4:
            return None
        name, role = tokens[:comma], tokens[comma + 1 :]
        if not all(is_name_token(t) for t in name) or \
                not any(t.lower in self.words.role_words for t in role) or \
                any(t.lower in self.vocabulary.speech_verbs for t in tokens):
            return None
        return self._make(sentence, name, role, "signed", "stated", ("signature",))

    # -- patterns -----------------------------------------------------------------------
    def _according_to(self, sentence: Sentence) -> Attribution | None:
        tokens = list(sentence.tokens)
        for match in self._according.find(tokens):
            after = clean(phrase_after(tokens, match.last, self.words), self.words)
            if after:
                role: list[Token] = []
                follow = match.last + len(after)
                if follow < len(tokens) and tokens[follow].lower == ",":
                    role = clean(phrase_after(tokens, follow + 1, self.words), self.words)
                    if not any(t.lower in self.words.role_words for t in role):
                        role = []
                return self._make(sentence, after, role, match.phrase, "stated",
                                  ("according-to",))
        return None

    def _reported_by(self, sentence: Sentence) -> Attribution | None:
        """"This was reported by the mayor X", "This was announced on Facebook by X": the
        speaker after "by" in a sentence that names the source of the ones before it."""
        if not self.vocabulary.lexicon.pattern("reported_by_opening").search(sentence.text):
            return None
        tokens = list(sentence.tokens)
        verb = next((t for t in tokens if t.lower in self.vocabulary.speech_verbs), None)
        by = next((i for i, t in enumerate(tokens) if t.lower == "by" and verb is not None
                   and t.start > verb.start), None)
        if by is None or verb is None:
            return None
        phrase = clean(phrase_after(tokens, by + 1, self.words), self.words)
        judged = self._judge(phrase, after_verb=True)
        if not phrase or judged.outcome != "speaker":
            if phrase:
                self._refuse(self.rules.phrases, judged, phrase)
            return None
        evidentiality = self.vocabulary.evidentiality_verbs.get(verb.lower, "stated")
        return self._make(sentence, phrase, [], verb.lower, evidentiality,
                          ("reported-by", f"speaker_phrases:{judged.rule}"))

    def _speaker_before_verb(self, sentence: Sentence) -> Attribution | None:
        """"X said": a reporting verb the speaker_cues table lets through, and the speaker
        before it that speaker_before finds and speaker_phrases accepts."""
        tokens = list(sentence.tokens)
        for index, token in enumerate(tokens):
            if token.lower not in self.vocabulary.speech_verbs or index == 0:
                continue
            verb = tokens[index : index + 1]
            cue = self._decide(self.rules.cues, VerbContext(tokens, index), verb)
            if cue.outcome == "not_a_cue":
                self._refuse(self.rules.cues, cue, verb)
                continue
            end = index
            while end > 0 and tokens[end - 1].lower in self.words.skipped_before_verb:
                end -= 1
            context = BeforeContext(tokens, end, self.words, self._speaker_before)
            found = self._decide(self.rules.before, context, verb)
            phrase, role = context.take(found.outcome)
            phrase = clean(phrase, self.words)
            if not phrase:
                self._refuse(self.rules.before, found, verb)
                continue
            judged = self._judge(phrase, after_verb=False)
            if judged.outcome != "speaker":
                self._refuse(self.rules.phrases, judged, phrase)
                continue
            evidentiality = self.vocabulary.evidentiality_verbs.get(token.lower, "stated")
            return self._make(sentence, phrase, role, token.lower, evidentiality,
                              (f"speaker_before:{found.rule}", f"speaker_phrases:{judged.rule}"))
        return None

    def _speaker_after_verb(self, sentence: Sentence) -> Attribution | None:
        """'"...," said X': the inverted order after a quotation (speaker_after)."""
        tokens = list(sentence.tokens)
        for index, token in enumerate(tokens[:-1]):
            if token.lower not in self.vocabulary.speech_verbs or index == 0:
                continue
            verb = tokens[index : index + 1]
            context = AfterContext(tokens, index, self.words)
            cue = self._decide(self.rules.after, context, verb)
            if cue.outcome == "not_a_cue":
                self._refuse(self.rules.after, cue, verb)
                continue
            phrase, role = context.take(cue.outcome)
            phrase = clean(phrase, self.words)
            if not phrase:
                continue
            judged = self._judge(phrase, after_verb=True)
            if judged.outcome != "speaker":
                self._refuse(self.rules.phrases, judged, phrase)
                continue
            evidentiality = self.vocabulary.evidentiality_verbs.get(token.lower, "stated")
            return self._make(sentence, phrase, role, token.lower, evidentiality,
                              (f"speaker_after:{cue.rule}", f"speaker_phrases:{judged.rule}"))
        return None

    # -- decisions ----------------------------------------------------------------------
    def _decide(self, table: RuleTable[C], context: C, about: list[Token]) -> Decision:
        decision = table.decide(context)
        start, end = span(about)
        self.trace.append(Traced(table.name, decision, start, end))
        return decision

    def _refuse(self, table: RuleTable[C], decision: Decision, words: list[Token]) -> None:
        start, end = span(words)
        self._refused.append(Refusal(f"{table.name}:{decision.rule}",
                                     " ".join(t.text for t in words), start, end))

    def _judge(self, phrase: list[Token], after_verb: bool) -> Decision:
        """Can the phrase be a speaker (speaker_phrases)?"""
        context = PhraseContext(phrase, after_verb)
        if not phrase:
            return self.rules.phrases.decide(context)
        return self._decide(self.rules.phrases, context, phrase)

    def _speaker_before(self, phrase: list[Token]) -> bool:
        return self._judge(phrase, after_verb=False).outcome == "speaker"

    def _make(self, sentence: Sentence, phrase: list[Token], role: list[Token], verb: str,
              evidentiality: str, found: tuple[str, ...]) -> Attribution:
        """The attribution to the phrase found: a speaker named before (speaker_references),
        or the phrase as speaker_shapes splits it into speaker and role."""
        earlier, reference = self.memory.resolve([t.lower for t in phrase])
        if reference is not None:
            start, end = span(phrase)
            self.trace.append(Traced(self.rules.references.name, reference, start, end))
        context = ShapeContext(phrase, role, earlier.speaker if earlier else None)
        shape = self._decide(self.rules.shapes, context, phrase)
        rules = found if shape.rule == "default" else (*found, f"speaker_shapes:{shape.rule}")
        if shape.outcome == "earlier_speaker" and earlier is not None and reference is not None:
            return replace(earlier, verb=verb, evidentiality=evidentiality, qualifiers=(),
                           start=phrase[0].start, end=phrase[-1].end, refused_by=(),
                           rules=(*rules, f"speaker_references:{reference.rule}"))
        if shape.outcome == "maker_after_by":
            phrase, role = context.split_by()
        elif shape.outcome == "person_and_workplace":
            phrase, role = context.split_of()
        speaker = _text(sentence, phrase)
        role_text = _text(sentence, clean(role, self.words))
        described = f"{speaker} {role_text}".lower()
        return Attribution(
            speaker=speaker,
            role=role_text,
            kind=self._kind(described),
            party=self._party(sentence, phrase + role),
            verb=verb,
            evidentiality=evidentiality,
            start=phrase[0].start,
            end=phrase[-1].end,
            rules=rules,
        )

    def _kind(self, described: str) -> str:
        """The kind whose longest marker appears in the speaker's words ("regional military
        administration" is an official body although "military" alone marks an army)."""
        padded = f" {described.replace('’', chr(39))} "
        best, best_length = "unknown", 0
        for kind in self.vocabulary.source_kinds:
            for marker in kind.markers:
                if f" {marker.strip()} " in padded and len(marker.strip()) > best_length:
                    best, best_length = kind.key, len(marker.strip())
        return best

    def _party(self, sentence: Sentence, phrase: list[Token]) -> str | None:
        del sentence
        for match in self._party_words.find(phrase):
            if match.first > 0 and \
                    phrase[match.first - 1].lower in self.words.place_prepositions:
                continue  # "the United States embassy in Kyiv" is not Ukrainian
            return match.payload
        return None


def _text(sentence: Sentence, tokens: list[Token]) -> str:
    if not tokens:
        return ""
    raw = sentence.text[tokens[0].start - sentence.start : tokens[-1].end - sentence.start]
    return " ".join(raw.split())  # a wrapped line break inside a name is a space
