"""Page furniture: which parts of a captured page are the article's own reporting.

A saved or pasted news page carries more than its article: photo captions (often of another
day and place: "FILE PHOTO: ... in Slovyansk, August 27, 2022"), links to other articles with
figures of their own ("Read more: ..."), subscription and sharing prompts, time stamps, bylines,
tag lists and a dateline ("KYIV -", a city alone on the first line). Before mentions are read,
the text is cut into *blocks* (its lines; in a hard-wrapped text, its paragraphs) and each
block is given a kind by the rule table ``vocab/rules/page_segments.toml``:

- ``text``: the article (the default);
- ``heading``: a headline or sub-headline, read like text but never run into the sentence
  after it (so "Video: Strike on a bus" is not glued to "Seven people died ..." nor to a
  speaker's name);
- ``dateline``: where the report was filed (a whole line of place names, or the opening
  "CITY (Agency) -" of a line): its places place nothing and its dates date nothing;
- ``byline``, ``caption``, ``teaser``, ``furniture``: kept in the text with their offsets, but
  no incident, figure, date or speaker comes from them.

Each block's decision is kept in the document's trace (:class:`~casebuilder.extraction.reading
.DocumentReading`), and what a kept-out block held (its harm words, places, figures, dates)
becomes a ``not_taken`` claim naming the rule, so an analyst can see why a caption's toll was
not the incident's. One step of :mod:`casebuilder.extraction.mentions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.gazetteer import ToponymMention
from casebuilder.model.lexicon import Lexicon

SEGMENT_TABLE = "page_segments"
SEGMENT_OUTCOMES = ("text", "heading", "dateline", "byline", "caption", "teaser", "furniture")

#: A line of a hard-wrapped text is at most this long, and most such lines run on.
_WRAP_WIDTH = 100
_SENTENCE_MARKS = ".!?…"
_CLOSERS = "\"'”’»)]"


@dataclass(frozen=True, slots=True)
class Segment:
    """A span of the text of one kind (see the module doc) and the rule that gave it."""

    start: int
    end: int
    kind: str
    rule: str
    whole: bool = True  # the whole block, not the dateline a line opens with

    def covers(self, start: int, end: int) -> bool:
        return self.start <= start and end <= self.end


@dataclass(slots=True)
class BlockContext:
    """One block of the page and what the table's predicates look at."""

    text: str  # the block, stripped
    start: int
    end: int
    number: int  # its place among the blocks, from 0
    last: bool  # no block follows
    wrapped: bool  # the document is hard-wrapped
    repeated: bool  # an earlier block is word for word the same
    words: list[str]  # its words, lower-case, without the punctuation around them
    place_spans: list[tuple[int, int]]  # place names in it (offsets into the text)
    lexicon: Lexicon
    #: The rule that decided the block before (set as the blocks are decided in order).
    previous_rule: str = ""

    @property
    def ends_sentence(self) -> bool:
        return self.text.rstrip(_CLOSERS)[-1:] in _SENTENCE_MARKS


def _words(text: str) -> list[str]:
    found = (w.strip(".,;:!?()[]{}\"'“”‘’«»|—–-#*").lower() for w in text.split())
    return [w for w in found if w]


def _only_words_of(c: BlockContext, words: frozenset[str]) -> bool:
    letters = [w for w in c.words if any(ch.isalpha() for ch in w)]
    return bool(letters) and all(w.strip("0123456789.:/-") in words or
                                 w.strip("0123456789.:/-") == "" for w in letters)


def _place_names_only(c: BlockContext, wanted: bool) -> bool:
    """The block is place names alone, joined by commas or @place_name_joiners."""
    if not c.place_spans:
        return wanted is False
    rest = c.text
    for start, end in sorted(c.place_spans, reverse=True):
        a, b = start - c.start, end - c.start
        rest = rest[:a] + " " + rest[b:]
    joiners = c.lexicon.words("place_name_joiners")
    found = all(w in joiners for w in _words(rest))
    return found is wanted



PREDICATES: dict[str, Predicate[BlockContext]] = {p.name: p for p in (
    Predicate("matches", "the block matches the pattern", "pattern",
              lambda c, pattern: bool(pattern.search(c.text))),
    Predicate("ends_sentence", "the block ends with a full stop, '!', '?' or '…' (past "
              "closing quotes or brackets)", "bool", flag(lambda c: c.ends_sentence)),
    Predicate("words_at_most", "the block has at most this many words", "int",
              lambda c, count: len(c.words) <= count),
    Predicate("words_at_least", "the block has at least this many words", "int",
              lambda c, count: len(c.words) >= count),
    Predicate("capitals", "the block has a capital letter", "bool",
              flag(lambda c: any(ch.isupper() for ch in c.text))),
    Predicate("digits", "the block has a digit", "bool",
              flag(lambda c: any(ch.isdigit() for ch in c.text))),
    Predicate("only_words_of", "every word of the block, numbers aside, is one of", "words",
              _only_words_of),
    Predicate("first_word_in", "the block's first word is one of", "words",
              lambda c, words: bool(c.words) and c.words[0] in words),
    Predicate("marks_below", "the block has fewer punctuation marks (. , ; : ! ?) than "
              "this", "int", lambda c, count: sum(c.text.count(m) for m in ".,;:!?") < count),
    Predicate("place_names_only", "the block is place names alone (and commas, "
              "@place_name_joiners)", "bool", _place_names_only),
    Predicate("block_number_below", "fewer blocks than this come before it", "int",
              lambda c, count: c.number < count),
    Predicate("repeated", "an earlier block of the page is word for word the same", "bool",
              flag(lambda c: c.repeated)),
    Predicate("hard_wrapped", "the text is hard-wrapped (short lines that run on), so a "
              "block is a paragraph", "bool", flag(lambda c: c.wrapped)),
    Predicate("last_block", "no block follows it", "bool", flag(lambda c: c.last)),
    Predicate("previous_rule", "the block before was decided by one of these rules", "words",
              lambda c, rules: c.previous_rule in rules),
)}


def load_segment_table(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    rules = vocabulary.directory / "rules"
    return {SEGMENT_TABLE: load_rule_table(rules / f"{SEGMENT_TABLE}.toml", PREDICATES,
                                           SEGMENT_OUTCOMES, vocabulary.lexicon)}


# -- cutting the page into blocks ---------------------------------------------------------------

def hard_wrapped(text: str) -> bool:
    """Short lines that mostly run on into the next: an e-mail or a plain-text report wrapped
    at a fixed width, whose lines are not blocks of their own."""
    lines = [line.strip() for line in text.splitlines()]
    if any(len(line) > _WRAP_WIDTH for line in lines):
        return False
    running = [a for a, b in pairwise(lines) if a and b]
    runs_on = [a for a in running if a.rstrip(_CLOSERS)[-1:] not in _SENTENCE_MARKS]
    return len(runs_on) >= 3 and 2 * len(runs_on) >= len(running)


def blocks(text: str, wrapped: bool) -> list[tuple[int, int]]:
    """The spans of the blocks of ``text``: its non-empty lines, or, hard-wrapped, the runs of
    lines between blank lines (stripped of the spaces around them)."""
    spans: list[tuple[int, int]] = []
    offset = 0
    current: tuple[int, int] | None = None
    for line in text.splitlines(keepends=True):
        body = line.strip()
        if body:
            start = offset + line.index(body[0])
            end = start + len(body)
            if wrapped and current is not None:
                current = (current[0], end)
            else:
                if current is not None:
                    spans.append(current)
                current = (start, end)
        elif current is not None:
            spans.append(current)
            current = None
        offset += len(line)
    if current is not None:
        spans.append(current)
    return spans


class PageReader:
    """Gives each block of a page its kind. Build once, reuse."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.lexicon = vocabulary.lexicon

    def contexts(self, text: str, toponyms: Sequence[ToponymMention]) -> list[BlockContext]:
        wrapped = hard_wrapped(text)
        spans = blocks(text, wrapped)
        seen: set[str] = set()
        out = []
        for number, (start, end) in enumerate(spans):
            body = text[start:end]
            words = _words(body)
            key = " ".join(words)
            out.append(BlockContext(
                body, start, end, number, number == len(spans) - 1, wrapped,
                len(words) >= 4 and key in seen, words,
                [(t.start, t.end) for t in toponyms if start <= t.start and t.end <= end],
                self.lexicon))
            seen.add(key)
        return out

    def segment(self, context: BlockContext, outcome: str, rule: str) -> Segment | None:
        """The span a decision marks: the whole block, or only the dateline it opens with."""
        if outcome == "text":
            return None
        if outcome == "dateline":
            opening = self.lexicon.pattern("dateline_prefix").match(context.text)
            if opening is not None and opening.end() < len(context.text):
                end = context.start + len(context.text[: opening.end()].rstrip())
                return Segment(context.start, end, outcome, rule, whole=False)
        return Segment(context.start, context.end, outcome, rule)


def breaks(segments: Sequence[Segment]) -> list[int]:
    """Where the text must break between sentences: around every block that is not running
    text (a dateline inside a line stays in its sentence)."""
    out: set[int] = set()
    for segment in segments:
        if segment.whole:
            out.update((segment.start, segment.end))
    return sorted(out)
