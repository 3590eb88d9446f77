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

from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from typing import Any

from casebuilder.extraction.assembly import MentionAssembler, load_assembly_tables
from casebuilder.extraction.attribution import Attribution, Attributor
from casebuilder.extraction.claims import (
    NOT_TAKEN,
    Claim,
    IncidentMention,
    Provenance,
    SourceText,
)
from casebuilder.extraction.date_roles import PASSING
from casebuilder.extraction.dates import (
    DateMention,
    DateResolver,
    DateTrace,
    TimeOfDay,
    find_relative_events,
)
from casebuilder.extraction.facts import NotTaken, SentenceFacts, is_situation
from casebuilder.extraction.figures import (
    CasualtyFigure,
    find_fatality_fields,
    find_figures,
    find_single_victims,
)
from casebuilder.extraction.harm_words import HarmWords, load_harm_tables
from casebuilder.extraction.mention_claims import ClaimWriter, load_mention_value_table
from casebuilder.extraction.occupation import OccupationDating, load_occupation_table
from casebuilder.extraction.page_segments import (
    SEGMENT_TABLE,
    PageReader,
    Segment,
    breaks,
    load_segment_table,
)
from casebuilder.extraction.phrases import PhraseMatch, PhraseMatcher
from casebuilder.extraction.place_levels import LEVEL_TABLE, LevelContext, load_level_table
from casebuilder.extraction.place_roles import (
    PlaceContext,
    capital_as_government,
    load_place_roles,
)
from casebuilder.extraction.reading import DocumentReading, ReportTime, RuleTables
from casebuilder.extraction.round_ups import ROUND_UP_TABLE, RoundUpContext, load_round_up_table
from casebuilder.extraction.rules import Decision, RuleTable
from casebuilder.extraction.text import SECTION_CHARS, Sentence, TextAnalyser, Token, sections
from casebuilder.extraction.value_roles import (
    ATTACK_DAY_TABLE,
    CARE_TABLE,
    COUNT_BACK_TABLE,
    DATE_TABLE,
    LIST_TABLE,
    LOOK_BACK_TABLE,
    NAME_TABLE,
    STAMP_TABLE,
    TOTAL_TABLE,
    CountBackContext,
    DateContext,
    FiguresContext,
    ListContext,
    LookBackContext,
    NameContext,
    NamedAttack,
    StampContext,
    TargetContext,
    load_value_tables,
)
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.gazetteer import Gazetteer, Place, ToponymMention
from casebuilder.model.claim_values import (
    NotTakenCategory,
    NotTakenDate,
    NotTakenFigure,
    NotTakenPlace,
    NotTakenTarget,
    NotTakenValue,
    PlaceValue,
)
from casebuilder.model.partial_date import PartialDate

__all__ = ["Claim", "IncidentMention", "MentionExtractor", "Provenance", "SourceText"]

PLACE_ROLE_TABLE = "place_roles"
DATE_ROLE_TABLE = "date_roles"
#: How far into a text (in characters) its dateline is looked for.
DATELINE_REACH = 600
#: A dateline this many days before publication makes the page a republication, whose
#: relative dates count from the dateline's day.
REPUBLISHED_WITHIN_DAYS = 7
#: The date-role rule of a statement's day ("said on Tuesday"), and how many days before the
#: report such a day may lie for "today" quoted from the statement to count from it.
STATEMENT_RULE = "said-on-the-day"
STATEMENT_WITHIN_DAYS = 3


def load_tables(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    """Every rule table of mention extraction, by name."""
    return {PLACE_ROLE_TABLE: load_place_roles(vocabulary), **load_harm_tables(vocabulary),
            **load_value_tables(vocabulary), **load_mention_value_table(vocabulary),
            **load_assembly_tables(vocabulary), **load_occupation_table(vocabulary),
            **load_segment_table(vocabulary), **load_round_up_table(vocabulary),
            **load_level_table(vocabulary)}


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


class MentionExtractor:
    """Turns one document's text into incident mentions. Build once, reuse for many texts
    (it keeps nothing of a document: see :meth:`read`)."""

    def __init__(self, analyser: TextAnalyser, vocabulary: Vocabulary, gazetteer: Gazetteer
                 ) -> None:
        self.analyser = analyser
        self.vocabulary = vocabulary
        self.lexicon = vocabulary.lexicon
        self.gazetteer = gazetteer
        self.dates = DateResolver.of(vocabulary)
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
        self.occupation = OccupationDating(vocabulary)
        self.page = PageReader(vocabulary)
        #: The rule tables a reading uses unless told otherwise (see :meth:`read`).
        self.tables: RuleTables = load_tables(vocabulary)

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
            yield self.read(source).mentions
            return
        for start, end in bounds:
            part = replace(source, text=source.text[start:end])
            yield [_shifted(m, start) for m in self.read(part).mentions]

    def read(self, source: SourceText, tables: RuleTables | None = None) -> DocumentReading:
        """Read one document: its mentions, and everything decided on the way. ``tables``
        replaces the rule tables (the rule tests switch rules off this way)."""
        reading = DocumentReading(source, self.tables if tables is None else tables)
        reading.report_day = self._dateline_day(source)
        reading.statement_day = self._statement_day(source, reading.counted_from)
        toponyms = self.gazetteer.find_toponyms(source.text)
        reading.segments = self._segments(toponyms, reading)
        sentences = self.analyser.sentences(source.text, breaks(reading.segments))
        resolved = self._resolve_places(toponyms, reading)
        attributor = Attributor(self.analyser, self.vocabulary, source.outlet)
        facts: list[SentenceFacts] = []
        kept_out: list[tuple[SentenceFacts, Segment]] = []
        previous: SentenceFacts | None = None
        kinds = self.lexicon.words("kept_out_segments")
        for sentence in sentences:
            segment = reading.segment_at(sentence.start, sentence.end)
            if segment is not None and segment.kind in kinds:
                # a caption, a teaser, a byline: read for the trace only, by nobody's account
                kept_out.append((self._sentence_facts(sentence, _outlet(source), resolved,
                                                      reading), segment))
                continue
            attribution, qualifies_previous = attributor.attribute(
                _past_dateline(sentence, reading))
            if attributor.sources_previous:
                _source_the_sentences_before(facts, sentence, attribution)
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
            reading.harm_told = reading.harm_told or fact.eventful
            facts.append(fact)
            previous = fact
        # "the acting governor said" before "Olena Petrenko, the acting governor, said"
        for fact, named in zip(facts, attributor.roles_named_later(
                [f.attribution for f in facts]), strict=True):
            fact.attribution = named
        # A time stamp kept out as furniture ("Last updated: 8 August 2023, 12:00") still says
        # when the report was written, so it is read for the report time.
        reading.report_time = self._report_time(
            sorted([*facts, *(f for f, _ in kept_out)], key=lambda f: f.sentence.start),
            reading)
        signed = attributor.signature(facts[-1].sentence) if facts else None
        if signed is not None and not facts[-1].eventful:
            # a round-up signed by the governor: his account, not the channel's own
            for fact in facts:
                if fact.attribution.kind == "outlet":
                    fact.attribution = replace(
                        signed, evidentiality=fact.attribution.evidentiality,
                        qualifiers=fact.attribution.qualifiers)
        reading.title_place = self._place_in_title(source, resolved, reading)
        mentions = self.assembler.assemble(facts, reading)
        self.occupation.date(mentions, facts, reading)
        self._cite_title_place(mentions, reading)
        self._trace_kept_out(mentions, kept_out, reading)
        self._trace_round_ups(mentions, facts, reading)
        for mention in mentions:
            if mention.place is not None:
                mention.undecided = reading.undecided.get(mention.place.gazetteer_id, ())
        reading.mentions = reading.traced_mentions(mentions)
        return reading

    def _dateline_day(self, source: SourceText) -> date | None:
        """The day the text's own dateline gives ("KYIV, July 6 (Reuters) -", "Published 6
        July 2023"), when the page was published up to a week after it: relative dates in
        republished copy count from the day the report was written, not from the copy's."""
        published = source.published
        if published is None:
            return None
        rules = self.lexicon.words("dateline_rules")
        for found in self.dates.find(source.text[:DATELINE_REACH], published):
            if found.role == "report" and found.role_rule in rules and \
                    found.value.precision == "day":
                lag = (published - found.value.start).days
                return found.value.start if 0 < lag <= REPUBLISHED_WITHIN_DAYS else None
        return None

    def _statement_day(self, source: SourceText, counted_from: date | None) -> date | None:
        """The day the text says its source spoke ("Gladkov said on Tuesday"), when that is
        one to three days before the report's day; None otherwise."""
        if counted_from is None or not any(q in source.text for q in "\"“«"):
            return None
        for found in self.dates.find(source.text, counted_from):
            if found.role == "report" and found.role_rule == STATEMENT_RULE and \
                    found.value.precision == "day":
                lag = (counted_from - found.value.start).days
                return found.value.start if 0 < lag <= STATEMENT_WITHIN_DAYS else None
        return None

    def _report_time(self, facts: list[SentenceFacts], reading: DocumentReading
                     ) -> ReportTime | None:
        """The time the report says it was written: a dateline's date with its time
        ("08.08.2023 12:00" on a line of its own), or a time that opens the text ("01.04 EDT
        Missiles hit ..."), on the publication day. None when the text gives neither."""
        published = reading.counted_from
        for fact in facts:
            if fact.sentence.start > DATELINE_REACH:
                break
            for d in fact.dates:
                if d.time is not None and d.role == "report" and d.value.precision == "day" \
                        and d.role_rule in self.lexicon.words("dateline_rules"):
                    return ReportTime(d.value.start, d.time, d.zone, d.start, d.end,
                                      d.expression)
            opening = [t for t in fact.times if t.start == fact.sentence.start == 0]
            if opening and published is not None:
                t = opening[0]
                return ReportTime(published, t.time, t.zone, t.start, t.end, t.expression)
        return None

    def _segments(self, toponyms: list[ToponymMention], reading: DocumentReading
                  ) -> list[Segment]:
        """The blocks of the page that are not running text (vocab/rules/page_segments.toml),
        each decision kept in the trace."""
        found = []
        previous = ""
        for context in self.page.contexts(reading.source.text, toponyms):
            context.previous_rule = previous
            decision = reading.decide(SEGMENT_TABLE, context, context.start, context.end)
            previous = decision.rule
            segment = self.page.segment(context, decision.outcome, decision.rule)
            if segment is not None:
                found.append(segment)
        return found

    @staticmethod
    def _trace_kept_out(mentions: list[IncidentMention],
                        kept_out: list[tuple[SentenceFacts, Segment]],
                        reading: DocumentReading) -> None:
        """What a caption, teaser or byline held, shown as not taken beside the mentions that
        share a place with it (or else the document's first mention)."""
        if not mentions:
            return
        for fact, segment in kept_out:
            traces = _held(fact, segment)
            if not traces:
                continue
            named = {p.gazetteer_id for _, p, _ in fact.places}
            targets = [m for m in mentions if m.place is not None and
                       m.place.gazetteer_id in named] or mentions[:1]
            s = fact.sentence
            for mention in targets:
                reading.set_aside(mention, [
                    Claim(NOT_TAKEN, t.value, Provenance(reading.source.item_id, t.start, t.end,
                                                         s.text, s.start, s.end),
                          fact.attribution, t.rule) for t in traces])

    @staticmethod
    def _trace_round_ups(mentions: list[IncidentMention], facts: list[SentenceFacts],
                         reading: DocumentReading) -> None:
        """A round-up that joined no mention shows what it set aside beside the mention told
        before it (or else the first); so does a headline whose town stood for its region
        (vocab/rules/place_levels.toml)."""
        prefixes = (f"{ROUND_UP_TABLE}/", f"{LEVEL_TABLE}/")
        for fact in facts:
            traces = [n for n in fact.not_taken if n.rule.startswith(prefixes)]
            s = fact.sentence
            if not traces or not mentions or any(
                    c.provenance.sentence_start == s.start for m in mentions for c in m.claims):
                continue
            before = [m for m in mentions if m.first_sentence < s.index]
            mention = before[-1] if before else mentions[0]
            reading.set_aside(mention, [
                Claim(NOT_TAKEN, t.value, Provenance(reading.source.item_id, t.start, t.end,
                                                     s.text, s.start, s.end),
                      fact.attribution, t.rule) for t in traces])

    def _place_in_title(self, source: SourceText,
                        resolved: list[tuple[ToponymMention, Place]], reading: DocumentReading
                        ) -> tuple[ToponymMention, Place] | None:
        """The settlement a headline names ("Uman: 23 dead after missile ..."). A report's
        body often says only "the city" because its headline has already said which; but a
        town that stands for its region there (vocab/rules/place_levels.toml) is no such
        place."""
        if not source.title:
            return None
        toponyms = self.gazetteer.find_toponyms(source.title)
        kinds = self.lexicon.words("fine_place_kinds")
        regions = self._centred_regions(resolved)
        for toponym, resolution in zip(toponyms, self.gazetteer.resolve_mentions(toponyms),
                                       strict=True):
            place = resolution.place
            if place is None or place.feature_kind not in kinds:
                continue
            region = regions.get(place.gazetteer_id)
            if region is not None and self.tables[LEVEL_TABLE].decide(LevelContext.of(
                    toponym, place, region, True, resolved,
                    lambda t: _in_heading(t, reading), self.lexicon)).outcome == "region":
                continue
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
                "place", PlaceValue(name=toponym.text, gazetteer_id=place.gazetteer_id,
                                    role="event", field="title"),
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
        return self._levelled(out, reading)

    def _levelled(self, resolved: list[tuple[ToponymMention, Place]], reading: DocumentReading
                  ) -> list[tuple[ToponymMention, Place]]:
        """A town that is the centre of a region the document names as a region may stand
        for that region ("Russia's Kursk" heading a report on a village of the Kursk region):
        vocab/rules/place_levels.toml decides; the town is kept in ``reading.relevelled``."""
        regions = self._centred_regions(resolved)
        if not regions:
            return resolved
        out = []
        for toponym, place in resolved:
            region = regions.get(place.gazetteer_id) if place.feature_kind == "settlement" \
                else None
            if region is not None:
                context = LevelContext.of(toponym, place, region, _in_heading(toponym, reading),
                                          resolved, lambda t: _in_heading(t, reading),
                                          self.lexicon)
                decision = reading.decide(LEVEL_TABLE, context, toponym.start, toponym.end)
                if decision.outcome == "region":
                    reading.relevelled[toponym.start] = (decision.rule, place)
                    place = region
            out.append((toponym, place))
        return out

    def _centred_regions(self, resolved: list[tuple[ToponymMention, Place]]
                         ) -> dict[str, Place]:
        """The regions (not raions) the document names, by the gazetteer id of the town each
        is centred on and named after."""
        regions: dict[str, Place] = {}
        for _toponym, place in resolved:
            if place.feature_kind != "region" or place.is_raion:
                continue
            centre = self.assembler.regional_centre(place)
            if centre is not None:
                regions.setdefault(centre.gazetteer_id, place)
        return regions

    # -- one sentence -------------------------------------------------------------------
    def _sentence_facts(self, sentence: Sentence, attribution: Attribution,
                        places: list[tuple[ToponymMention, Place]], reading: DocumentReading,
                        people: set[str] | None = None) -> SentenceFacts:
        tokens = list(sentence.tokens)
        not_taken: list[NotTaken] = []
        weapons = [w for w in self._weapons.find(tokens) if w.payload]
        targets = self._targets_hit(tokens, reading, not_taken)
        times: list[TimeOfDay] = []
        dates = self._dates(sentence, reading, not_taken, times)
        placed = any(sentence.start <= t.start < sentence.end for t, _ in places)
        figures = self._figures(sentence, reading, not_taken,
                                FiguresContext(sentence, reading.harm_told, placed, bool(dates)))
        matches = self.harm.find(tokens)
        categories = self.harm.categories_of(tokens, weapons, targets, figures, reading,
                                             matches, not_taken)
        dates += self._counted_back(sentence, dates, categories, weapons, reading)
        roles = self._place_roles(sentence, tokens, places, weapons, attribution, people,
                                  reading, not_taken)
        if self._round_up(RoundUpContext(sentence, roles, figures, targets), reading,
                          categories, not_taken):
            roles = [(t, p, "round_up" if role == "event" else role) for t, p, role in roles]
            categories = {}
        cues = bool(self._cues.find(tokens))
        return SentenceFacts(sentence, attribution, categories, weapons, targets,
                             self._actors.find(tokens), figures, dates, roles,
                             attribution.evidentiality == "denied", False, cues, bool(matches),
                             is_situation(categories, dates, figures, cues, self.lexicon),
                             sorted(not_taken, key=lambda n: n.start), times)

    def _figures(self, sentence: Sentence, reading: DocumentReading,
                 not_taken: list[NotTaken], context: FiguresContext) -> list[CasualtyFigure]:
        """The casualty figures of a sentence; a running or joint total is marked so."""
        figures = find_figures(sentence.text, self.vocabulary.lexicon, base=sentence.start)
        fields = [f for f in find_fatality_fields(sentence.text, self.vocabulary.lexicon,
                                                  base=sentence.start)
                  if not any(f.measure == g.measure for g in figures)]
        figures += fields
        if not any(f.measure == "killed" for f in figures):
            # a victim counted already ("a man and a woman were wounded") is not one more
            figures += [v for v in find_single_victims(sentence.text, self.vocabulary.lexicon,
                                                       base=sentence.start)
                        if not any(f.start < v.end and v.start < f.end for f in figures)]
        if not figures:
            return figures
        decision = reading.decide(TOTAL_TABLE, context, sentence.start, sentence.end)
        if decision.outcome == "running_total":
            not_taken += [NotTaken.by(TOTAL_TABLE, decision.rule, f.start, f.end,
                                      NotTakenFigure(words=f.text, measure=f.measure,
                                                     low=f.low, high=f.high,
                                                     taken_as="running_total"))
                          for f in figures if not f.cumulative]
            figures = [replace(f, cumulative=True) for f in figures]
        return figures

    def _dates(self, sentence: Sentence, reading: DocumentReading,
               not_taken: list[NotTaken], times: list[TimeOfDay]) -> list[DateMention]:
        """The dates of a sentence, each dating the event or the report of it; a date of
        something else named in passing (a year of birth) is kept as a negative trace."""
        dates = []
        trace: list[DateTrace] = []
        for found in self.dates.find(sentence.text, reading.counted_from,
                                     base=sentence.start, trace=trace, times=times):
            self._read_stamp(found, reading)
            segment = reading.segment_at(found.start, found.end)
            if segment is not None and segment.kind == "dateline":
                # "LVIV, June 3 (Reuters) -": the day the report was filed
                if found.role != "report":
                    not_taken.append(NotTaken.by(SEGMENT_TABLE, segment.rule, found.start,
                                                 found.end, NotTakenDate(
                                                     words=found.expression,
                                                     iso=found.value.iso(),
                                                     taken_as="report")))
                    found = replace(found, role="report")
                dates.append(found)
                continue
            decision = reading.decide(DATE_TABLE, DateContext.of(sentence, found), found.start,
                                      found.end)
            if decision.outcome == "report" and found.role != "report":
                not_taken.append(NotTaken.by(DATE_TABLE, decision.rule, found.start, found.end,
                                             NotTakenDate(words=found.expression,
                                                          iso=found.value.iso(),
                                                          taken_as="report")))
                found = replace(found, role="report")
            if found.role == "event":
                found = self._after_the_stamp(sentence, found, reading, not_taken)
                found = self._look_back(sentence, found, reading, not_taken)
            dates.append(self._as_said(found, reading))
        not_taken += [NotTaken.by(DATE_ROLE_TABLE, t.decision.rule, t.start, t.end,
                                  NotTakenDate(words=t.expression, taken_as=PASSING))
                      for t in trace if t.decision.outcome == PASSING]
        return dates

    def _read_stamp(self, found: DateMention, reading: DocumentReading) -> None:
        """The first dateline with a time near the top of the page ("30 May, 2023 22:11")
        is the report's stamp, which the weekdays read after it are checked against."""
        if reading.stamp is not None or found.time is None or found.start > DATELINE_REACH \
                or found.role != "report" or found.value.precision != "day" or \
                found.role_rule not in self.lexicon.words("dateline_rules"):
            return
        reading.stamp = ReportTime(found.value.start, found.time, found.zone, found.start,
                                   found.end, found.expression)

    @staticmethod
    def _after_the_stamp(sentence: Sentence, found: DateMention, reading: DocumentReading,
                         not_taken: list[NotTaken]) -> DateMention:
        """"On Wednesday" in a report stamped late on a Tuesday: the day after the stamp,
        where the day has begun, not six days before it (stamp_days.toml); the day first read
        is kept as a negative trace."""
        stamp = reading.stamp
        context = StampContext(sentence, found, stamp.day if stamp else None,
                               stamp.time if stamp else None)
        decision = reading.decide(STAMP_TABLE, context, found.start, found.end)
        after = context.next_day
        if decision.outcome != "next_day" or after is None:
            return found
        not_taken.append(NotTaken.by(STAMP_TABLE, decision.rule, found.start, found.end,
                                     NotTakenDate(words=found.expression,
                                                  iso=found.value.iso(),
                                                  taken_as="next_day")))
        return replace(found, value=PartialDate.day(after),
                       rule=f"{found.rule}-after-the-stamp")

    def _counted_back(self, sentence: Sentence, dates: list[DateMention],
                      categories: dict[str, list[PhraseMatch[str]]],
                      weapons: list[PhraseMatch[str]], reading: DocumentReading
                      ) -> list[DateMention]:
        """"Four days after the missile strike, rescuers are still searching": the days a
        report counts from an attack it names date that attack, counted back from the day the
        sentence tells of (a day it gives, else the report's), as the attack's own day
        (counted_back_days.toml)."""
        found: list[DateMention] = []
        base = sentence.start
        stops = self.lexicon.words("clause_stops")
        named = self.lexicon.pattern("attack_after_a_marker")
        attacks = self.lexicon.words("categories_of_another_attack")
        for marker in find_relative_events(sentence.text, self.lexicon, base=base):
            stop = next((t.start for t in sentence.tokens
                         if t.start >= marker.end and t.lower in stops), sentence.end)
            after = sentence.text[marker.end - base:]

            def inside(start: int, m: tuple[int, int] = (marker.start, stop)) -> bool:
                return m[0] <= start < m[1]
            own = [d for d in dates if d.value.precision == "day" and not inside(d.start)]
            besides = any(not inside(w.start) for w in weapons) or any(
                not inside(m.start) and not self.harm.weak_phrase(category, m.phrase)
                for category, matches in categories.items() if category in attacks
                for m in matches)
            context = CountBackContext(sentence, marker, after, bool(named.match(after)),
                                       any(inside(d.start) for d in dates), bool(own),
                                       besides)
            decision = reading.decide(COUNT_BACK_TABLE, context, marker.start, stop)
            counted_from = reading.counted_from
            if decision.outcome != "counted_back":
                continue
            if own:
                day = own[0].value
            elif counted_from is not None:
                day = PartialDate.day(counted_from)
            else:
                continue
            value = day.shifted(-marker.days_offset)
            found.append(DateMention(marker.start, stop, sentence.text[marker.start - base:
                                                                       stop - base].rstrip(),
                                     value, "event", "counted-back",
                                     attack_day_rule=f"{COUNT_BACK_TABLE}/{decision.rule}"))
            if counted_from is not None and value.precision == "day" and \
                    value.end < counted_from:
                reading.named_attack = NamedAttack(value, sentence.paragraph, sentence.index)
        return found

    @staticmethod
    def _look_back(sentence: Sentence, found: DateMention, reading: DocumentReading,
                   not_taken: list[NotTaken]) -> DateMention:
        """An event date that names the attack's own day ("the April 24 attack") is marked
        so (attack_days.toml) and remembered; a relative day told just after it ("overnight")
        counts from that attack, not from publication (look_back_days.toml), and keeps the
        day it was first read as in a negative trace."""
        named = reading.decide(ATTACK_DAY_TABLE, DateContext.of(sentence, found), found.start,
                               found.end)
        if named.outcome == "attack_day":
            counted_from = reading.counted_from
            if found.value.precision == "day" and counted_from is not None and \
                    found.value.end < counted_from:
                reading.named_attack = NamedAttack(found.value, sentence.paragraph,
                                                   sentence.index)
            return replace(found, attack_day_rule=named.rule)
        context = LookBackContext(sentence, found, reading.named_attack)
        decision = reading.decide(LOOK_BACK_TABLE, context, found.start, found.end)
        if decision.outcome != "named_attack" or reading.named_attack is None:
            return found
        not_taken.append(NotTaken.by(LOOK_BACK_TABLE, decision.rule, found.start, found.end,
                                     NotTakenDate(words=found.expression,
                                                  iso=found.value.iso(),
                                                  taken_as="named_attack")))
        return replace(found, value=reading.named_attack.day,
                       rule=f"{found.rule}-of-the-named-attack")

    def _as_said(self, found: DateMention, reading: DocumentReading) -> DateMention:
        """"Today" inside a quotation of a statement made a day or more before the report
        ("the governor said on Tuesday: 'Today the shelter was hit'") counts from the day of
        the statement (rule ``<rule>-as-said``)."""
        said, counted_from = reading.statement_day, reading.counted_from
        if said is None or counted_from is None or \
                found.rule not in self.lexicon.words("statement_relative_rules") or \
                not _inside_quotation(reading.source.text, found.start):
            return found
        return replace(found, value=found.value.shifted((said - counted_from).days),
                       rule=f"{found.rule}-as-said")

    def _place_roles(self, sentence: Sentence, tokens: list[Token],
                     places: list[tuple[ToponymMention, Place]], weapons: list[PhraseMatch[str]],
                     attribution: Attribution, people: set[str] | None,
                     reading: DocumentReading, not_taken: list[NotTaken]
                     ) -> list[tuple[ToponymMention, Place, str]]:
        """The places the sentence names, each with its role in the sentence; a place not
        read as where harm happened goes to ``not_taken`` with its role and the rule."""
        roles: list[tuple[ToponymMention, Place, str]] = []
        for toponym, place in places:
            if not (sentence.start <= toponym.start and toponym.end <= sentence.end):
                continue
            named = reading.decide(NAME_TABLE, NameContext(sentence, toponym, weapons),
                                   toponym.start, toponym.end)
            if named.outcome == "not_a_place":
                not_taken.append(_place_set_aside(NAME_TABLE, named.rule, toponym, place,
                                                  None))
                continue
            levelled = reading.relevelled.get(toponym.start)
            if levelled is not None:
                # "Russia's Kursk" for the Kursk region: the town is not taken
                not_taken.append(_place_set_aside(LEVEL_TABLE, levelled[0], toponym,
                                                  levelled[1], "region"))
            decision = self.place_role(tokens, toponym, place, attribution, reading, people)
            table, rule, role = PLACE_ROLE_TABLE, decision.rule, decision.outcome
            segment = reading.segment_at(toponym.start, toponym.end)
            if segment is not None and segment.kind == "dateline" and role != "dateline":
                # "Pokrovsk" alone on the first line, "Odesa (AP) —": where it was filed
                not_taken.append(_place_set_aside(SEGMENT_TABLE, segment.rule, toponym, place,
                                                  "dateline"))
                roles.append((toponym, place, "dateline"))
                continue
            if roles:
                previous, _, previous_role = roles[-1]
                listed = reading.decide(LIST_TABLE, ListContext.of(
                    sentence, previous, previous_role, toponym, role), toponym.start,
                    toponym.end)
                if listed.outcome == "shared":
                    table, rule, role = LIST_TABLE, listed.rule, previous_role
            if role != "event":
                not_taken.append(_place_set_aside(table, rule, toponym, place, role))
            roles.append((toponym, place, role))
        return roles

    def place_role(self, tokens: list[Token], toponym: ToponymMention, place: Place | None,
                   attribution: Attribution, reading: DocumentReading,
                   people: set[str] | None = None) -> Decision:
        """The role of a place name in its sentence and the rule that gave it
        (vocab/rules/place_roles.toml)."""
        context = PlaceContext.of(tokens, toponym, attribution, self.lexicon, place,
                                  known_person=toponym.text in (people or set()),
                                  government=capital_as_government(tokens, toponym,
                                                                   self.vocabulary))
        return reading.decide(PLACE_ROLE_TABLE, context, toponym.start, toponym.end)

    @staticmethod
    def _round_up(context: RoundUpContext, reading: DocumentReading,
                  categories: dict[str, list[PhraseMatch[str]]], not_taken: list[NotTaken]
                  ) -> bool:
        """"Other regions, including Poltava and Sumy, were also targeted": a list of places
        with no harm of their own (vocab/rules/round_ups.toml); its places and harm words
        are set aside."""
        if context.event_places() < 2:
            return False
        s = context.sentence
        decision = reading.decide(ROUND_UP_TABLE, context, s.start, s.end)
        if decision.outcome != "round_up":
            return False
        not_taken += [_place_set_aside(ROUND_UP_TABLE, decision.rule, t, p, "round_up")
                      for t, p, role in context.places if role == "event"]
        not_taken += [NotTaken.by(ROUND_UP_TABLE, decision.rule, m.start, m.end,
                                  NotTakenCategory(words=m.phrase, category=category,
                                                   taken_as="round_up"))
                      for category, matches in categories.items() for m in matches[:1]]
        return True

    def _targets_hit(self, tokens: list[Token], reading: DocumentReading,
                     not_taken: list[NotTaken]) -> list[PhraseMatch[str]]:
        """The target types a sentence names as hit: not a hospital where victims were cared
        for ("The wounded were flown to hospitals in Moscow", "died in hospital")."""
        hit = []
        for target in self._targets.find(tokens):
            decision = reading.decide(CARE_TABLE, TargetContext.of(tokens, target, self.lexicon),
                                      target.start, target.end)
            if decision.outcome == "hit":
                hit.append(target)
            else:
                not_taken.append(NotTaken.by(CARE_TABLE, decision.rule, target.start,
                                             target.end, NotTakenTarget(
                                                 words=target.phrase,
                                                 target_type=target.payload, taken_as="care")))
        return hit


def _in_heading(toponym: ToponymMention, reading: DocumentReading) -> bool:
    """Whether the name stands in a heading of the page (a headline, a sub-headline)."""
    segment = reading.segment_at(toponym.start, toponym.end)
    return segment is not None and segment.kind == "heading"


def _inside_quotation(text: str, position: int) -> bool:
    """Whether ``position`` lies inside quotation marks opened earlier in its paragraph."""
    start = text.rfind("\n", 0, position) + 1
    before = text[start:position]
    curly = before.count("“") + before.count("«") - before.count("”") - before.count("»")
    return curly > 0 or before.count('"') % 2 == 1


def _place_set_aside(table: str, rule: str, toponym: ToponymMention, place: Place,
                     role: str | None) -> NotTaken:
    """A place name not read as where harm happened: no place at all, or another role."""
    return NotTaken.by(table, rule, toponym.start, toponym.end,
                       NotTakenPlace(words=toponym.text, gazetteer_id=place.gazetteer_id,
                                     taken_as=role))


def _outlet(source: SourceText) -> Attribution:
    """The publishing outlet's own account (what a kept-out block is read as)."""
    return Attribution(source.outlet or "the publishing outlet", "", "outlet", None, "",
                       "stated")


def _held(fact: SentenceFacts, segment: Segment) -> list[NotTaken]:
    """The values of a kept-out block's sentence, each as not taken by the segment's rule."""
    def by(start: int, end: int, value: NotTakenValue) -> NotTaken:
        return NotTaken.by(SEGMENT_TABLE, segment.rule, start, end, value)
    kind = segment.kind
    out = [by(m.start, m.end, NotTakenCategory(words=m.phrase, category=category,
                                               taken_as=kind))
           for category, matches in fact.categories.items() for m in matches[:1]]
    out += [by(t.start, t.end, NotTakenPlace(words=t.text, gazetteer_id=p.gazetteer_id,
                                             taken_as=kind))
            for t, p, _ in fact.places]
    out += [by(f.start, f.end, NotTakenFigure(words=f.text, measure=f.measure, low=f.low,
                                              high=f.high, taken_as=kind))
            for f in fact.figures]
    out += [by(d.start, d.end, NotTakenDate(words=d.expression, iso=d.value.iso(),
                                            taken_as=kind))
            for d in fact.dates]
    return sorted(out, key=lambda n: n.start)


def _source_the_sentences_before(facts: list[SentenceFacts], sentence: Sentence,
                                 attribution: Attribution) -> None:
    """"This was reported by the mayor X" after a paragraph the outlet told in its own voice:
    X is the source of that paragraph's sentences (up to three, back to one with a source of
    its own)."""
    for fact in reversed(facts[-3:]):
        if fact.attribution.kind != "outlet" or \
                sentence.paragraph - fact.sentence.paragraph > 1:
            break
        fact.attribution = replace(attribution, qualifiers=fact.attribution.qualifiers,
                                   evidentiality=attribution.evidentiality
                                   if "unverified" not in fact.attribution.qualifiers
                                   else fact.attribution.evidentiality)


def _past_dateline(sentence: Sentence, reading: DocumentReading) -> Sentence:
    """The sentence without the dateline it opens with ("#Sumy", "KHARKIV:"), so that no
    speaker's name takes the dateline's words."""
    first = sentence.tokens[0]
    segment = reading.segment_at(first.start, first.end)
    if segment is None or segment.kind != "dateline" or segment.whole:
        return sentence
    tokens = tuple(t for t in sentence.tokens if t.start >= segment.end)
    if not tokens:
        return sentence
    start, end = tokens[0].start, tokens[-1].end
    text = sentence.text[start - sentence.start : end - sentence.start]
    return Sentence(sentence.index, sentence.paragraph, start, end, text, tokens)
