"""Where a place name stands in its document: its sentence, its paragraph, a dateline, a list
of regions.

Part of the gazetteer, the reference layer below the stages. After the scanner has found the
names in a text, :meth:`casebuilder.gazetteer.Gazetteer.find_toponyms` calls
:func:`mark_region_lists` (before the locators are linked) and :func:`with_layout` (last), so
that :meth:`casebuilder.gazetteer.Gazetteer.resolve_mentions` can weigh the regions and places
named in a mention's own sentence and paragraph before those named elsewhere in the document,
and the extractor can tell the place a report was filed from (its dateline) from the places
where things happened.

* **Sentences** end at ".", "!" or "?" before a space (not after an initial or an abbreviation
  such as "St.", "obl.", "vul.") and at every line break (headlines, titles and datelines end
  without a full stop; a hard-wrapped paragraph is still one paragraph).
* **Paragraphs** (or records, as in a monitor's log: "Province: Zaporizhzhia Oblast.
  Town/city: Zaporizhia.") are the blocks between blank lines; in a text without blank lines,
  its lines.
* A **dateline** is a name written in capitals at the start of a line and followed by a comma
  or a dash, possibly after a parenthesis ("KYIV —", "MOSCOW, 2 March 2023 —", "KRAMATORSK,
  Ukraine (April 8) -", "LVIV (Reuters) -"). The names after it on the same line, up to the
  dash that ends the dateline, complete it ("Ukraine").
* A **list of regions** ("the Kyiv, Cherkasy and Zhytomyr regions", "Kharkiv and Sumy oblasts",
  "the regions of Kyiv and Chernihiv") names an oblast with every item, not its city: each
  item that is an oblast's name gets the oblast as its first candidate.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from casebuilder.gazetteer.lexicon import alternatives, gazetteer_lexicon
from casebuilder.gazetteer.model import Place, ToponymMention

_BLANK_LINE = re.compile(r"\n[ \t\u00a0\r]*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+")
_LEXICON = gazetteer_lexicon()  # the word classes named below: data/lexicon/layout.toml
_ABBREVIATIONS = _LEXICON.words("abbreviations")
_DATELINE_AFTER = re.compile(r"[ \t\u00a0]*(?:\([^()\n]{1,40}\)[ \t\u00a0]*)?(?:,|[-–—])")
_DATELINE_DASH = re.compile(r"[ \t\u00a0][-–—][ \t\u00a0]|[–—]")
_DATELINE_CHARS = 80  # a dateline's names and date fit in this many characters
_PLURAL_AFTER = re.compile(
    rf"[ \t\u00a0]+{alternatives(_LEXICON.words('plural_region_words'))}\b", re.IGNORECASE
)
_REGIONS_OF = re.compile(
    rf"\b({alternatives(_LEXICON.words('region_list_heads'))})[ \t\u00a0]+of"
    r"[ \t\u00a0]+(?:the[ \t\u00a0]+)?$",
    re.IGNORECASE,
)
_CONJUNCTION = alternatives(_LEXICON.words("list_conjunctions"))  # data/lexicon/locators.toml
_JOINER = alternatives(_LEXICON.words("region_list_joiners"))
_LIST_GAP = re.compile(rf"[ \t\u00a0]*(?:,[ \t\u00a0]*(?:{_CONJUNCTION}[ \t\u00a0]+)?|"
                       rf"[ \t\u00a0]+{_JOINER}[ \t\u00a0]+)", re.IGNORECASE)  # fmt: skip

OblastOf = Callable[[ToponymMention], Place | None]
"""The oblast (or other first-level region) a bare name names ("Kyiv" -> Kyiv Oblast), None
when it names none."""


def mark_region_lists(
    text: str, mentions: Sequence[ToponymMention], oblast_of: OblastOf
) -> list[ToponymMention]:
    """The mentions, with every item of a list of regions that names an oblast reading as that
    oblast first (see the module doc). A list is names joined by commas, "and" or "or" and
    followed by "regions", "oblasts" or "provinces", or following "regions of" ("the regions
    of Kyiv and Chernihiv"; also one name after "the region of")."""
    found = list(mentions)
    listed: set[int] = set()
    for last, mention in enumerate(found):
        if not _PLURAL_AFTER.match(text, mention.end):
            continue
        first = last
        while first > 0 and _LIST_GAP.fullmatch(text, found[first - 1].end, found[first].start):
            first -= 1
        if first < last:  # "Kyiv regions" alone is no list
            listed.update(range(first, last + 1))
    for first, mention in enumerate(found):
        before = _REGIONS_OF.search(text[max(0, mention.start - 40) : mention.start])
        if before is None:
            continue
        last = first
        plural = before.group(1).lower().endswith("s")  # "the region of Kherson, Mykolaiv ...": one
        while plural and last + 1 < len(found) and _LIST_GAP.fullmatch(
            text, found[last].end, found[last + 1].start
        ):
            last += 1
        listed.update(range(first, last + 1))
    for number in sorted(listed):
        mention = found[number]
        if mention.kind == "region":
            continue
        oblast = oblast_of(mention)
        if oblast is not None:
            rest = tuple(p for p in mention.candidates if p != oblast)
            found[number] = replace(mention, candidates=(oblast, *rest))
    return found


def with_layout(text: str, mentions: Sequence[ToponymMention]) -> list[ToponymMention]:
    """The mentions with :attr:`ToponymMention.sentence`, :attr:`ToponymMention.paragraph`
    and :attr:`ToponymMention.dateline` set (see the module doc)."""
    sentences = sentence_starts(text)
    paragraphs = paragraph_starts(text)
    datelines = _dateline_spans(text, mentions)
    result = []
    for mention in mentions:
        result.append(
            replace(
                mention,
                sentence=bisect.bisect_right(sentences, mention.start) - 1,
                paragraph=bisect.bisect_right(paragraphs, mention.start) - 1,
                dateline=any(start <= mention.start < end for start, end in datelines),
            )
        )
    return result


def paragraph_starts(text: str) -> list[int]:
    """Offsets where the paragraphs of ``text`` start (the first is 0)."""
    starts = [0]
    if _BLANK_LINE.search(text):
        starts += [m.end() for m in _BLANK_LINE.finditer(text)]
    else:
        starts += [m.end() for m in re.finditer(r"\n", text)]
    return starts


def sentence_starts(text: str) -> list[int]:
    """Offsets where the sentences of ``text`` start (the first is 0); every line starts a
    sentence too (a headline or a record's title line ends without a full stop)."""
    starts = {0, *(m.end() for m in re.finditer(r"\n", text))}
    for match in _SENTENCE_END.finditer(text):
        before = re.search(r"([^\W\d_]+)\W*$", text[max(0, match.start() - 12) : match.start()])
        word = before.group(1) if before else ""
        if len(word) == 1 or word.lower() in _ABBREVIATIONS:
            continue  # "O. Syniehubov", "St. Petersburg", "obl. Kharkiv"
        starts.add(match.end())
    return sorted(starts)


def _dateline_spans(text: str, mentions: Sequence[ToponymMention]) -> list[tuple[int, int]]:
    """The spans of datelines: from a name in capitals at the start of a line, followed by a
    comma or a dash, to the dash that ends the dateline (or the end of that name)."""
    spans = []
    for mention in mentions:
        line_start = text.rfind("\n", 0, mention.start) + 1
        if text[line_start : mention.start].strip() or not _capitals(mention.text):
            continue
        if not _DATELINE_AFTER.match(text, mention.end):
            continue
        line_end = text.find("\n", mention.end)
        line_end = len(text) if line_end < 0 else line_end
        window = text[mention.end : min(line_end, mention.end + _DATELINE_CHARS)]
        stop = re.search(r"[.!?][ \t\u00a0]", window)
        if stop:
            window = window[: stop.start()]
        dash = _DATELINE_DASH.search(window)
        spans.append((mention.start, mention.end + dash.start() if dash else mention.end))
    return spans


def _capitals(name: str) -> bool:
    letters = [ch for ch in name if ch.isalpha()]
    return len(letters) >= 3 and all(ch.isupper() for ch in letters)
