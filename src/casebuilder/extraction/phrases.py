"""Finding vocabulary phrases in tokenised sentences: longest match first, by first word.

Phrases are tokenised with the same tokenizer as the text, so "Tochka-U" in a vocabulary file
and in a report become the same words. Matching is on lower-case words only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from casebuilder.extraction.text import TextAnalyser, Token

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PhraseMatch(Generic[T]):
    first: int  # index of the first token
    last: int  # index after the last token
    start: int  # character offsets
    end: int
    phrase: str
    payload: T


class PhraseMatcher(Generic[T]):
    def __init__(self, analyser: TextAnalyser, entries: Iterable[tuple[str, T]]) -> None:
        self._index: dict[str, list[tuple[tuple[str, ...], str, T]]] = {}
        for phrase, payload in entries:
            words = tuple(t.lower for t in analyser.tokenize(phrase))
            if words:
                self._index.setdefault(words[0], []).append((words, phrase, payload))
        for options in self._index.values():
            options.sort(key=lambda o: -len(o[0]))

    def find(self, tokens: Sequence[Token], *, overlapping: bool = False) -> list[PhraseMatch[T]]:
        found: list[PhraseMatch[T]] = []
        words = [t.lower for t in tokens]
        i = 0
        while i < len(words):
            matched = None
            for option, phrase, payload in self._index.get(words[i], ()):
                if tuple(words[i : i + len(option)]) == option:
                    matched = PhraseMatch(i, i + len(option), tokens[i].start,
                                          tokens[i + len(option) - 1].end, phrase, payload)
                    break
            if matched is not None:
                found.append(matched)
                i = i + 1 if overlapping else matched.last
            else:
                i += 1
        return found
