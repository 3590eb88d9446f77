"""Who says so: the speaker, reporting verb and evidentiality behind each sentence's claims.

The extractor asks, for every sentence, "according to whom?". The answer comes from patterns
over words, not from a trained parser:

* ``X said`` / ``X, the head of Y, wrote`` — a speaker phrase before a speech verb, with an
  apposition between commas kept as the speaker's role;
* ``"...," said X`` / ``explained his daughter, X`` — the inverted order after a quotation;
* ``according to X`` / ``citing X``;
* ``he said`` / ``the council said`` — a pronoun or a short definite phrase resolved to the
  speaker last named in the document with a matching surname or head word.

A sentence with no speaker is the outlet's own reporting. Evidentiality comes from the verb
(said: stated; accused: alleged; denied: denied; saw: observed), from phrases ("at the scene",
"satellite images showed") and from markers such as "could not be independently verified",
which qualify the claims of their own sentence or, when they stand alone, of the sentence
before. The kind of source (official, journalist, witness, belligerent statement, monitoring
mission) and its affiliation to a party come from the vocabularies.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from casebuilder.extraction.phrases import PhraseMatcher
from casebuilder.extraction.text import Sentence, TextAnalyser, Token
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.model.lexicon import Lexicon


@dataclass(frozen=True)
class SpeakerWords:
    """The word classes of ``vocab/lexicon/speakers.toml`` the attributor reads, looked up once
    per document rather than once per token."""

    pronouns: frozenset[str]
    person_pronouns: frozenset[str]
    skipped_before_verb: frozenset[str]
    breaks: frozenset[str]
    time_words: frozenset[str]
    leading_words: frozenset[str]
    clause_openers: frozenset[str]
    possessive_endings: frozenset[str]
    report_nouns: frozenset[str]
    report_noun_openers: frozenset[str]
    passive_auxiliaries: frozenset[str]
    naming_verbs: frozenset[str]
    naming_particles: frozenset[str]
    closing_quotes: frozenset[str]
    relative_pronouns: frozenset[str]
    definite_openers: frozenset[str]
    determiners: frozenset[str]
    aside_stops: frozenset[str]
    after_verb_openers: frozenset[str]
    after_verb_stops: frozenset[str]
    after_verb_places: frozenset[str]
    place_prepositions: frozenset[str]
    role_words: frozenset[str]

    @classmethod
    def of(cls, lexicon: Lexicon) -> SpeakerWords:
        return cls(**{f.name: lexicon.words(f"speaker_{f.name}") for f in fields(cls)})


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

    words: SpeakerWords
    named: list[Attribution] = field(default_factory=list)

    def remember(self, attribution: Attribution) -> None:
        if attribution.kind != "outlet":
            self.named.append(attribution)

    def resolve(self, words: list[str]) -> Attribution | None:
        if not words:
            return None
        lexicon = self.words
        if len(words) == 1 and words[0] in lexicon.pronouns:
            wanted_person = words[0] in lexicon.person_pronouns
            for earlier in reversed(self.named):
                if not wanted_person or _looks_like_person(earlier.speaker):
                    return earlier
            return None
        last = words[-1]
        for earlier in reversed(self.named):
            speaker_words = earlier.speaker.lower().split()
            known = set(speaker_words) | set(earlier.role.lower().split())
            # "The United Nations human rights office" is not "... of the presidential
            # office": every word that is not a determiner or a role word must be the earlier
            # speaker's ("Governor Kyrylenko", "the ministry", "Konashenkov")
            if words[0] == "its" and len(words) <= 3:
                return earlier  # "according to its initial report"
            foreign = [w for w in words if w not in known and w not in lexicon.determiners
                       and w not in lexicon.role_words]
            if foreign:
                continue
            if speaker_words and speaker_words[-1] == last and len(speaker_words) > len(words):
                return earlier
            if len(words) == 2 and words[0] in lexicon.definite_openers and \
                    last in earlier.speaker.lower().split():
                return earlier
        return None


def _looks_like_person(speaker: str) -> bool:
    parts = speaker.split()
    return 2 <= len(parts) <= 4 and all(p[:1].isupper() for p in parts)


def _clean(tokens: list[Token], words: SpeakerWords) -> list[Token]:
    while tokens and (tokens[0].is_punct or (tokens[0].lower in words.clause_openers
                                             and len(tokens) > 1)):
        tokens = tokens[1:]
    while tokens and tokens[-1].is_punct and tokens[-1].lower not in words.possessive_endings:
        tokens = tokens[:-1]
    return tokens


def _text(sentence: Sentence, tokens: list[Token]) -> str:
    if not tokens:
        return ""
    raw = sentence.text[tokens[0].start - sentence.start : tokens[-1].end - sentence.start]
    return " ".join(raw.split())  # a wrapped line break inside a name is a space


def _strip_time(tokens: list[Token], words: SpeakerWords) -> list[Token]:
    """"By Tuesday morning the State Emergency Service": drop the time before the speaker."""
    i = 0
    while i < len(tokens) - 1 and (tokens[i].lower in words.leading_words or
                                   tokens[i].lower in words.time_words or
                                   tokens[i].lower.isdigit()):
        i += 1
    return tokens[i:] if i and i < len(tokens) else tokens


def _breaks(tokens: list[Token], i: int, words: SpeakerWords) -> bool:
    """Does token ``i`` end a speaker phrase? A hyphen inside a word ("the Moscow-appointed
    head", "self-proclaimed") does not; a dash between words does."""
    if tokens[i].lower not in words.breaks:
        return False
    attached = 0 < i < len(tokens) - 1 and tokens[i - 1].end == tokens[i].start and \
        tokens[i].end == tokens[i + 1].start
    return not (tokens[i].lower == "-" and attached)


def _subject_ending(tokens: list[Token], end: int, reach: int, words: SpeakerWords
                    ) -> list[Token]:
    """The phrase ending before token ``end``, back to a comma or a clause word, at most
    ``reach`` tokens long, without leading times ("By Tuesday the ministry")."""
    k = end
    while k > 0 and not _breaks(tokens, k - 1, words) and tokens[k - 1].lower != "," and \
            end - k < reach:
        k -= 1
    return _strip_time(_clean(tokens[k:end], words), words)


def _is_name_token(token: Token) -> bool:
    return token.is_title and not token.is_punct


class Attributor:
    """Finds the attribution of each sentence of one document, in order."""

    def people(self) -> set[str]:
        """Every word of the person names attributed so far (to tell a surname that is also
        a village name from the village)."""
        return {w for a in self.memory.named if _looks_like_person(a.speaker)
                for w in a.speaker.split()}

    def __init__(self, analyser: TextAnalyser, vocabulary: Vocabulary, outlet: str) -> None:
        self.vocabulary = vocabulary
        self.outlet = outlet or "the publishing outlet"
        self.words = SpeakerWords.of(vocabulary.lexicon)
        self.memory = SpeakerMemory(self.words)
        self._phrases = PhraseMatcher(analyser, vocabulary.evidentiality_phrases.items())
        self._according = PhraseMatcher(analyser, [(p, p) for p in vocabulary.according_to])
        self._party_words = PhraseMatcher(
            analyser,
            [(w, key) for key, party in vocabulary.parties.items() for w in party.state_words],
        )
        self._previous: Attribution | None = None
        #: The party a stand-alone "could not be verified" sentence names, if any.
        self.qualified_party: str | None = None

    # -- public -------------------------------------------------------------------------
    def attribute(self, sentence: Sentence) -> tuple[Attribution, bool]:
        """The sentence's attribution, and whether the sentence only qualifies the one before
        (a stand-alone "The claim could not be independently verified.")."""
        tokens = list(sentence.tokens)
        phrase_kinds = {m.payload for m in self._phrases.find(tokens)}
        found = self._speaker_before_verb(sentence) or self._speaker_after_verb(sentence) or \
            self._according_to(sentence)
        if found is None:
            attribution = Attribution(self.outlet, "", "outlet", None, "", "stated")
        else:
            attribution = found
            self.memory.remember(found)
            also = self._according_to(sentence)
            if also is not None and also.speaker != found.speaker:
                self.memory.remember(also)
                attribution = replace(attribution, others=(also.speaker,))
        if "observed" in phrase_kinds and attribution.evidentiality in {"stated", "observed"}:
            attribution = replace(attribution, evidentiality="observed")
        if "denied" in phrase_kinds and attribution.evidentiality != "denied" and \
                attribution.kind != "outlet":
            attribution = replace(attribution, evidentiality="denied")
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
        self._previous = attribution
        return attribution, qualifies_previous

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
        if not all(_is_name_token(t) for t in name) or \
                not any(t.lower in self.words.role_words for t in role) or \
                any(t.lower in self.vocabulary.speech_verbs for t in tokens):
            return None
        return self._make(sentence, name, role, "signed", "stated")

    # -- patterns -----------------------------------------------------------------------
    def _according_to(self, sentence: Sentence) -> Attribution | None:
        tokens = list(sentence.tokens)
        for match in self._according.find(tokens):
            after = self._clean(self._phrase_after(tokens, match.last))
            if after:
                role: list[Token] = []
                follow = match.last + len(after)
                if follow < len(tokens) and tokens[follow].lower == ",":
                    role = self._clean(self._phrase_after(tokens, follow + 1))
                    if not any(t.lower in self.words.role_words for t in role):
                        role = []
                return self._make(sentence, after, role, match.phrase, "stated")
        return None

    def _speaker_before_verb(self, sentence: Sentence) -> Attribution | None:
        tokens = list(sentence.tokens)
        words = self.words
        for index, token in enumerate(tokens):
            if token.lower not in self.vocabulary.speech_verbs or index == 0:
                continue
            end = index
            while end > 0 and tokens[end - 1].lower in words.skipped_before_verb:
                end -= 1
            if token.lower in words.report_nouns and \
                    tokens[index - 1].lower in words.report_noun_openers:
                continue  # "Initial reports had put ...": a noun, not a verb
            if tokens[index - 1].lower in words.passive_auxiliaries:
                continue  # "Cases of rape have been reported": passive, no speaker here
            if token.lower in words.naming_verbs and index + 1 < len(tokens) and (
                    _is_name_token(tokens[index + 1]) or
                    tokens[index + 1].lower in words.naming_particles):
                continue  # "a village called Hroza", "a meeting called at Moscow's request"
            phrase, role = self._phrase_before(tokens, end)
            phrase = self._clean(phrase)
            if not phrase and tokens[end - 1].lower == "and":
                # "President Zelensky published a video ... and said": the sentence's subject
                phrase, role = self._opening_subject(tokens), []
            if not phrase or not self._plausible_speaker(phrase):
                continue
            evidentiality = self.vocabulary.evidentiality_verbs.get(token.lower, "stated")
            return self._make(sentence, phrase, role, token.lower, evidentiality)
        return None

    def _speaker_after_verb(self, sentence: Sentence) -> Attribution | None:
        tokens = list(sentence.tokens)
        for index, token in enumerate(tokens[:-1]):
            if token.lower not in self.vocabulary.speech_verbs or index == 0:
                continue
            before = tokens[index - 1]
            if not (before.is_punct or before.lower in self.words.closing_quotes):
                continue
            after = self._phrase_after(tokens, index + 1)
            role: list[Token] = []
            # "explained his daughter, Kristina Katrikova": role, then the name
            if after and not _is_name_token(after[0]) and index + 1 + len(after) < len(tokens) \
                    and tokens[index + 1 + len(after)].lower == ",":
                role = after
                after = self._phrase_after(tokens, index + 2 + len(after))
            after = self._clean(after)
            if after and not (_is_name_token(after[0]) or
                              after[0].lower in self.words.determiners):
                continue  # "said dozens of residents were found": the reported content
            if after and self._plausible_speaker(after):
                evidentiality = self.vocabulary.evidentiality_verbs.get(token.lower, "stated")
                return self._make(sentence, after, role, token.lower, evidentiality)
        return None

    # -- helpers ------------------------------------------------------------------------
    def _clean(self, tokens: list[Token]) -> list[Token]:
        return _clean(tokens, self.words)

    def _strip_time(self, tokens: list[Token]) -> list[Token]:
        return _strip_time(tokens, self.words)

    def _phrase_after(self, tokens: list[Token], start: int) -> list[Token]:
        words = self.words
        out: list[Token] = []
        if start < len(tokens) and tokens[start].lower in words.after_verb_openers:
            return out
        for token in tokens[start:]:
            if token.lower in words.after_verb_stops or (
                    token.lower in words.after_verb_places and out and not out[-1].is_title):
                break
            out.append(token)
            if len(out) >= 12:
                break
        return out

    def _phrase_before(self, tokens: list[Token], end: int) -> tuple[list[Token], list[Token]]:
        """The speaker ending before ``end`` and its role, from up to three comma-separated
        segments: "Name, role, said", "Role, Name, said", "Subject, aside, said"."""
        aside = self._before_long_aside(tokens, end)
        if aside is not None:
            return aside
        segments: list[list[Token]] = []
        relative = False  # the verb belongs to a "who" or "which" clause
        closed_by_comma = end > 0 and tokens[end - 1].lower == ","
        i = end - 1 if closed_by_comma else end
        while len(segments) < 3:
            k = i
            while k > 0 and not _breaks(tokens, k - 1, self.words) and \
                    tokens[k - 1].lower != "," and i - k < 18:
                k -= 1
            if i - k >= 18:
                break
            segment = tokens[k:i]
            if segment:
                segments.insert(0, segment)
            if k > 1 and tokens[k - 1].lower in self.words.relative_pronouns and \
                    tokens[k - 2].lower == ",":
                relative = True
                if segment:
                    segments.pop(0)  # "X, who walked out of the city, told": an aside
                else:
                    # "no comment from Moscow, which denies ...": the verb is the relative
                    # clause's own, and its subject is the name just before the comma
                    j = k - 2
                    while j > 0 and _is_name_token(tokens[j - 1]) and k - 2 - j < 5:
                        j -= 1
                    if j < k - 2 and (j == 0 or not _is_name_token(tokens[j - 1])):
                        return tokens[j : k - 2], []
                i = k - 2
                continue
            if k > 0 and tokens[k - 1].lower == ",":
                i = k - 1
                continue
            break
        if not segments:
            return [], []
        last = self._strip_time(self._clean(segments[-1]))
        previous = self._strip_time(self._clean(segments[-2])) if len(segments) > 1 else []

        def names(seg: list[Token]) -> bool:
            return bool(seg) and len(seg) <= 5 and all(
                _is_name_token(t) or t.lower in self.words.possessive_endings for t in seg)

        def roleish(seg: list[Token]) -> bool:
            return any(t.lower in self.words.role_words for t in seg)

        if names(last):
            return last, previous if roleish(previous) else []
        if closed_by_comma and names(previous) and self._plausible_speaker(last):
            return previous, last
        if relative and names(previous) and roleish(last) and len(segments) == 2:
            return previous, last  # "Oleksiy Arestovych, an adviser to ..., who said"
        if self._plausible_speaker(last) and not closed_by_comma:
            return last, []
        if previous and len(previous) <= 6 and self._plausible_speaker(previous):
            return previous, []
        if self._plausible_speaker(last):
            return last, []
        return [], []

    def _opening_subject(self, tokens: list[Token]) -> list[Token]:
        """The name (with a title) a sentence opens with: "President Volodymyr Zelensky"."""
        run: list[Token] = []
        for token in tokens[:7]:
            if _is_name_token(token) or (run and token.lower in self.words.possessive_endings):
                run.append(token)
            else:
                break
        return run if len(run) >= 2 or (run and run[0].lower in self.words.role_words) else []

    def _before_long_aside(self, tokens: list[Token], end: int
                           ) -> tuple[list[Token], list[Token]] | None:
        """"President Zelenskiy, who was in Granada, Spain, for a summit, called ...": the
        subject before a relative clause that runs over several commas up to the verb."""
        if end >= 3 and tokens[end - 1].lower != ",":
            # "A woman who was evacuated in January and now lives in Dnipro said": the
            # subject before a "who" clause with no commas
            for j in range(end - 2, max(0, end - 25), -1):
                word = tokens[j].lower
                if word in self.words.aside_stops or word == ",":
                    break
                if word == "who" and j >= 1:
                    subject = _subject_ending(tokens, j, 8, self.words)
                    if subject and self._plausible_speaker(subject):
                        return subject, []
                    break
            return None
        if end < 2 or tokens[end - 1].lower != ",":
            return None
        j = end - 2
        while j > 1 and end - j < 30:
            word = tokens[j].lower
            if word in self.words.aside_stops:
                return None
            if word in self.words.relative_pronouns and tokens[j - 1].lower == ",":
                subject = _subject_ending(tokens, j - 1, 14, self.words)
                if subject and self._plausible_speaker(subject):
                    return subject, []
                return None
            j -= 1
        return None

    def _plausible_speaker(self, phrase: list[Token]) -> bool:
        words = [t.lower for t in phrase]
        if all(w in self.words.time_words or w.isdigit() for w in words):
            return False  # "as recently as Monday"
        if len(words) == 1 and words[0] in self.words.pronouns:
            return True
        if len(words) > 12:
            return False
        if any(_is_name_token(t) for t in phrase):
            return True
        return any(w in self.words.role_words for w in words)

    def _make(self, sentence: Sentence, phrase: list[Token], role: list[Token], verb: str,
              evidentiality: str) -> Attribution:
        words = [t.lower for t in phrase]
        earlier = self.memory.resolve(words)
        if earlier is not None and (len(words) == 1 or words[0] in self.words.definite_openers or
                                    len(words) < len(earlier.speaker.split())):
            return replace(earlier, verb=verb, evidentiality=evidentiality, qualifiers=(),
                           start=phrase[0].start, end=phrase[-1].end)
        by = next((i for i, t in enumerate(phrase) if t.lower == "by"), None)
        if by is not None and by + 1 < len(phrase) and _is_name_token(phrase[by + 1]):
            # "Satellite images taken by Maxar Technologies": the maker is the source
            names = [t for t in phrase[by + 1 :]]
            cut = next((i for i, t in enumerate(names) if not _is_name_token(t)), len(names))
            role, phrase = phrase[:by], names[:cut]
        of = next((i for i, t in enumerate(phrase) if t.lower == "of"), None)
        if of is not None and not role and 2 <= of <= 4 and \
                all(_is_name_token(t) for t in phrase[:of]) and \
                any(t.lower in self.words.role_words for t in phrase[of + 1 :]):
            # "Kyrylo Tymoshenko of the Ukrainian presidential office": a person, and where
            # they work
            phrase, role = phrase[:of], phrase[of:]
        speaker = _text(sentence, phrase)
        role_text = _text(sentence, self._clean(role))
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
