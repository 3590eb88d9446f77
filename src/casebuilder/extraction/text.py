"""Splitting a document's text into paragraphs, sentences and words, with character offsets.

A blank spaCy English pipeline does the tokenising (it knows possessives, quotes, hyphens and
abbreviations such as "Gov.") and its rule-based sentencizer the sentence breaks; blank lines
count as paragraph breaks first, because headlines and datelines end without a full stop, while
single line breaks inside a paragraph are taken as wrapping. No trained
model is loaded (see docs/decisions/0006-extraction-pipeline.md): the offsets of everything the
extractor finds are offsets into the item's text exactly as stored.

Texts of any length: spaCy refuses a text over ``nlp.max_length`` (a million characters), and the
extractor's work per sentence grows with what the document has said so far. So a paragraph
longer than :data:`MAX_PIECE_CHARS` is handed to spaCy in sentence-safe pieces, and
:func:`sections` cuts a long text into paragraph-safe (failing that, sentence-safe) sections that
the extractor reads one at a time, with every offset still counted from the start of the text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Paragraphs are separated by blank lines; a single line break inside one is a hard wrap
# (e-mails, plain-text reports), not the end of a sentence. The break is searched for rather
# than the paragraph matched: a pattern that matches a paragraph character by character keeps
# backtracking state per character (about 120 bytes each: 6 GB for a 50 MB line).
_PARAGRAPH_BREAK = re.compile(r"\n(?=[ \t]*\n)")
_NOT_SPACE = re.compile(r"\S")
# Where a sentence may end: terminal punctuation, closing quotes or brackets, then white space.
_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*\s+")
_SPACE_RUN = re.compile(r"\s+")

#: The longest stretch handed to spaCy at once (its own limit is a million characters).
MAX_PIECE_CHARS = 100_000
#: The longest section the extractor reads as one document (see :func:`sections`).
SECTION_CHARS = 100_000


def paragraphs(text: str) -> list[tuple[int, str]]:
    """The paragraphs of ``text`` with their offsets: each runs from a character that is not
    white space to the line break before the next blank line (or the end of the text)."""
    out: list[tuple[int, str]] = []
    position = 0
    for brk in [*(m.start() for m in _PARAGRAPH_BREAK.finditer(text)), len(text)]:
        start = _NOT_SPACE.search(text, position, brk)
        if start is not None:
            out.append((start.start(), text[start.start():brk]))
        position = brk
    return out


def safe_cut(text: str, start: int, limit: int) -> int:
    """Where to end a piece of ``text`` that begins at ``start`` and may hold at most ``limit``
    characters: after the last paragraph break in reach, else after the last sentence end,
    else at the last white space, else (one unbroken word) at the limit itself."""
    end = start + limit
    if end >= len(text):
        return len(text)
    floor = start + limit // 4  # never a sliver: a cut that far back is no better than a hard one
    for pattern in (_PARAGRAPH_BREAK, _SENTENCE_END, _SPACE_RUN):
        last = None
        for match in pattern.finditer(text, floor, end):
            last = match
        if last is not None:
            return last.end()
    return end


def sections(text: str, limit: int = SECTION_CHARS) -> list[tuple[int, int]]:
    """``(start, end)`` of consecutive sections of at most ``limit`` characters that cover
    ``text``, each ending at a paragraph break where there is one, else at a sentence end.
    A text within the limit is one section, so it is read exactly as a whole document."""
    bounds: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = safe_cut(text, start, limit)
        bounds.append((start, end))
        start = end
    return bounds or [(0, 0)]


@dataclass(frozen=True, slots=True)
class Token:
    start: int
    end: int
    text: str
    lower: str
    is_title: bool
    is_punct: bool


@dataclass(frozen=True, slots=True)
class Sentence:
    index: int
    paragraph: int
    start: int
    end: int
    text: str
    tokens: tuple[Token, ...]

    def words(self) -> list[str]:
        return [t.lower for t in self.tokens]


class TextAnalyser:
    """Holds the spaCy tokenizer and sentencizer; build once and pass in."""

    def __init__(self) -> None:
        import spacy

        self._nlp: Any = spacy.blank("en")
        self._nlp.add_pipe("sentencizer")

    def tokenize(self, text: str) -> list[Token]:
        return [
            Token(t.idx, t.idx + len(t.text), t.text, t.text.lower(), t.text[:1].isupper(),
                  t.is_punct)
            for t in self._nlp.tokenizer(text)
            if not t.is_space
        ]

    def sentences(self, text: str, breaks: Sequence[int] = ()) -> list[Sentence]:
        """The sentences of ``text``; ``breaks`` are further offsets where a paragraph ends
        (a heading or a caption on a line of its own, see
        :mod:`~casebuilder.extraction.page_segments`)."""
        out: list[Sentence] = []
        cut = [piece for offset, paragraph in paragraphs(text)
               for piece in _cut(offset, paragraph, breaks)]
        chunks = [(number, offset + start, piece[start:end])
                  for number, (offset, piece) in enumerate(cut)
                  for start, end in sections(piece, MAX_PIECE_CHARS)]
        docs = self._nlp.pipe(chunk for _, _, chunk in chunks)
        for (number, offset, _), doc in zip(chunks, docs, strict=True):
            pieces: list[tuple[Token, ...]] = []
            for sent in doc.sents:
                tokens = tuple(
                    Token(offset + t.idx, offset + t.idx + len(t.text), t.text, t.text.lower(),
                          t.text[:1].isupper(), t.is_punct)
                    for t in sent
                    if not t.is_space
                )
                if not tokens:
                    continue
                if pieces and _inside_a_word(text, pieces[-1][-1].end, tokens[0].start):
                    # "According to Censor.NET, ...": no sentence ends inside a word
                    pieces[-1] = pieces[-1] + tokens
                else:
                    pieces.append(tokens)
            for tokens in pieces:
                start, end = tokens[0].start, tokens[-1].end
                out.append(Sentence(len(out), number, start, end, text[start:end], tokens))
        return out


def _cut(offset: int, paragraph: str, breaks: Sequence[int]) -> list[tuple[int, str]]:
    """``paragraph`` (at ``offset``) cut at the ``breaks`` inside it, each piece stripped."""
    end = offset + len(paragraph)
    inside = breaks[bisect.bisect_right(breaks, offset) : bisect.bisect_left(breaks, end)]
    pieces = []
    for start, stop in zip([offset, *inside], [*inside, end], strict=True):
        piece = paragraph[start - offset : stop - offset]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            pieces.append((start + lead, piece.strip()))
    return pieces


def _inside_a_word(text: str, end: int, start: int) -> bool:
    """A full stop with a letter or digit at once on both sides ("Censor.NET")."""
    return end == start and end >= 2 and text[end - 1] == "." and \
        text[end - 2].isalnum() and text[start : start + 1].isalnum()
