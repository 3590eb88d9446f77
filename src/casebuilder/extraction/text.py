"""Splitting a document's text into paragraphs, sentences and words, with character offsets.

A blank spaCy English pipeline does the tokenising (it knows possessives, quotes, hyphens and
abbreviations such as "Gov.") and its rule-based sentencizer the sentence breaks; blank lines
count as paragraph breaks first, because headlines and datelines end without a full stop, while
single line breaks inside a paragraph are taken as wrapping. No trained
model is loaded (see docs/decisions/0006-extraction-pipeline.md): the offsets of everything the
extractor finds are offsets into the item's text exactly as stored.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Paragraphs are separated by blank lines; a single line break inside one is a hard wrap
# (e-mails, plain-text reports), not the end of a sentence.
_PARAGRAPH = re.compile(r"\S(?:.|\n(?![ \t]*\n))*")


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
        paragraphs = [piece for m in _PARAGRAPH.finditer(text) if m.group().strip()
                      for piece in _cut(m.start(), m.group(), breaks)]
        docs = self._nlp.pipe(p for _, p in paragraphs)
        for number, ((offset, _), doc) in enumerate(zip(paragraphs, docs, strict=True)):
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
