"""Category benchmark on the CIR Russia-Ukraine Monitor events (evaluation only).

Every Ukrainian row with a description becomes a short report: the row's own words (the
description, or the title when the description is only a label such as "Image 3"), given to the
extractor with the row's date as the publication date, in three variants:

    bare     the words as the monitor wrote them
    placed   the words followed by "in <town/city>, <province>."
    dated    "On <day Month year>, <words> in <town/city>, <province>." (an ACLED-like note)

The monitor's ``event_group`` says what to expect (``EXPECTATIONS``): an explosive attack or a
destruction for infrastructure damage, an explosive attack for bombings, a harm for civilian
casualties, and no civilian-harm incident for military presence, losses, munitions, ground
battles and "other". The script prints, per variant:

* the share of expected-harm rows where any incident is produced, and where one of the
  expected categories is produced (category agreement);
* the share of military-only rows where an incident is produced anyway, with its categories and
  the trigger words responsible;
* the distance from the monitor's point to the nearest placed incident;
* for the dated variant, how often the incident's date is the row's date.

It then explains the misses of the placed variant (no harm word at all; a harm word the rules
set aside as too weak; a category but no usable place) and lists the most common words and
two-word phrases of the missed descriptions, flagged with what the vocabulary knows of them.

The data set is read from ../shared/datasets/cir-monitor/events.csv relative to the repository
root and is never copied into the repository.

    /work/venv/bin/python benchmarks/categories_cir_monitor.py [--limit N] [--top N]
        [--examples N] [--cache DIR]
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVENTS = REPO.parent / "shared" / "datasets" / "cir-monitor" / "events.csv"
sys.path.insert(0, str(REPO / "src"))

from casebuilder.extraction.figures import find_figures  # noqa: E402
from casebuilder.extraction.mentions import SourceText  # noqa: E402
from casebuilder.extraction.reading import DocumentReading  # noqa: E402
from casebuilder.extraction.run import ExtractionTools, cache_dir  # noqa: E402
from casebuilder.gazetteer import distance_km  # noqa: E402
from casebuilder.model.claim_values import CategoryValue  # noqa: E402

HARM = "harm"
NO_HARM = "no harm"
OTHER = "not scored"

# event_group prefix -> (kind, categories that count as agreement)
EXPECTATIONS: list[tuple[str, str, frozenset[str]]] = [
    ("Civilian Infrastructure Damage", HARM, frozenset({"explosive_attack", "destruction"})),
    ("Bombing or Explosion", HARM, frozenset({"explosive_attack"})),
    ("Civilian Casualty", HARM, frozenset({"explosive_attack", "killing"})),
    ("Russian Military Presence", NO_HARM, frozenset()),
    ("Russian Military Losses", NO_HARM, frozenset()),
    ("Munitions", NO_HARM, frozenset()),
    ("Ground Battle", NO_HARM, frozenset()),
    ("Other", NO_HARM, frozenset()),
]
VARIANTS = ("bare", "placed", "dated")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

_DATE_PREFIX = re.compile(r"^\s*\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\s*")
_LABEL = re.compile(r"^\s*(?:images?|videos?|pictures?|photos?)\s*[\d/,&\s-]*(?::\s*|$)", re.I)
_CLOCK = re.compile(r"^\s*\d{1,2}:\d{2}\s*(?:-\s*\d{1,2}:\d{2})?\s*:?\s*")
_WORD = re.compile(r"[a-z][a-z'’\-]*[a-z]|[a-z]")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "by",
        "for",
        "from",
        "with",
        "and",
        "or",
        "but",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "their",
        "there",
        "after",
        "before",
        "during",
        "near",
        "into",
        "over",
        "under",
        "via",
        "between",
        "while",
        "which",
        "who",
        "what",
        "where",
        "when",
        "one",
        "two",
        "three",
        "more",
        "most",
        "some",
        "several",
        "possible",
        "possibly",
        "likely",
        "reportedly",
        "allegedly",
        "appears",
        "appear",
        "seen",
        "showing",
        "shows",
        "show",
        "also",
        "very",
        "image",
        "images",
        "video",
        "videos",
        "picture",
        "photo",
        "footage",
    ]
)


def expectation(group: str) -> tuple[str, frozenset[str]]:
    for prefix, kind, cats in EXPECTATIONS:
        if group.startswith(prefix):
            return kind, cats
    return OTHER, frozenset()


def clean(text: str) -> str:
    text = _DATE_PREFIX.sub("", text.strip())
    text = _CLOCK.sub("", text)
    text = _LABEL.sub("", text)
    return text.strip().strip('"').strip()


def words_of(row: dict[str, str]) -> str:
    """The row's most informative words: the description, or the title when the
    description is a bare label or a truncated copy."""
    description = clean(row["brief description"])
    title = clean(row["title"])
    return title if len(title) > len(description) else description


def locator(row: dict[str, str]) -> str:
    parts = [row["town/city"].strip(), row["province"].strip()]
    return ", ".join(p for p in parts if p)


def variant_text(row: dict[str, str], variant: str) -> str:
    words = words_of(row).rstrip(" .")
    where = locator(row)
    body = words if variant == "bare" or not where else f"{words} in {where}"
    day = published_of(row)
    if variant == "dated" and day is not None:
        body = f"On {day.day} {MONTHS[day.month - 1]} {day.year}, {body[:1].lower()}{body[1:]}"
    return body + "."


def ukrainian_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            row
            for row in csv.DictReader(handle)
            if row["country"].strip() == "Ukraine" and row["brief description"].strip()
        ]


def published_of(row: dict[str, str]) -> date | None:
    try:
        return date.fromisoformat(row["date"][:10])
    except ValueError:
        return None


class Stats:
    """Counts for one variant."""

    def __init__(self) -> None:
        self.rows: Counter[str] = Counter()  # kind -> rows
        self.any: Counter[str] = Counter()  # kind -> rows with any incident
        self.agree: Counter[str] = Counter()  # kind -> rows with an expected category
        self.group_rows: Counter[str] = Counter()
        self.group_any: Counter[str] = Counter()
        self.group_agree: Counter[str] = Counter()
        self.group_cats: dict[str, Counter[str]] = defaultdict(Counter)
        self.spurious_triggers: Counter[str] = Counter()
        self.spurious_examples: list[str] = []
        self.distances: list[float] = []
        self.multi = 0  # expected-harm rows (one event each) with more than one incident
        self.unplaced = 0
        self.date_rows = 0
        self.date_exact = 0
        self.date_none = 0
        self.killed_rows = 0
        self.killed_found = 0


_DEATH_WORDS = re.compile(
    r"\b(?:killed|dead|died|deceased|bodies|body|corpses?|casualt\w*)\b", re.I
)


def short_group(group: str) -> str:
    return re.sub(r"\s+(?:(?:Feb|July)\s*-\s*(?:June|Now)|[A-Z][a-z]+\s+2022)$", "", group)


def run_variant(
    tools: ExtractionTools,
    rows: list[dict[str, str]],
    variant: str,
    stats: Stats,
    misses: list[tuple[dict[str, str], str]] | None,
) -> None:
    for number, row in enumerate(rows):
        kind, expected = expectation(row["event_group"])
        group = short_group(row["event_group"])
        text = variant_text(row, variant)
        mentions = tools.extractor.extract(
            SourceText(
                item_id=number, text=text, title="", outlet="monitor", published=published_of(row)
            )
        )
        mentions = [m for m in mentions if m.categories]
        cats = {c for m in mentions for c in m.categories}
        stats.rows[kind] += 1
        stats.group_rows[group] += 1
        if mentions:
            stats.any[kind] += 1
            stats.group_any[group] += 1
        for cat in cats:
            stats.group_cats[group][cat] += 1
        if not cats:
            stats.group_cats[group]["(none)"] += 1
        if kind == HARM and cats & expected:
            stats.agree[kind] += 1
            stats.group_agree[group] += 1
        if kind == HARM and misses is not None and not cats & expected:
            misses.append((row, text))
        if kind == NO_HARM and mentions:
            for m in mentions:
                for c in m.claims:
                    if isinstance(c.value, CategoryValue):
                        stats.spurious_triggers[
                            f"{c.value.trigger} -> {c.value.category}"
                        ] += 1
            stats.spurious_examples.append(f"[{group}] {text} -> {sorted(cats)}")
        if kind == HARM and len(mentions) > 1:
            stats.multi += 1
        if kind == HARM and mentions:
            placed = [m.place for m in mentions if m.place is not None]
            if placed:
                point = (float(row["lat"]), float(row["lon"]))
                stats.distances.append(min(distance_km(p, point) for p in placed))
            else:
                stats.unplaced += 1
        if kind == HARM and variant == "dated" and mentions:
            stats.date_rows += 1
            values = [
                v for v in (m.event_date()[0] for m in mentions if not m.situation) if v is not None
            ]
            if not values:
                stats.date_none += 1
            elif any(v.start == v.end == published_of(row) for v in values):
                stats.date_exact += 1
        if kind == HARM and _DEATH_WORDS.search(words_of(row)):
            stats.killed_rows += 1
            if any(c.kind == "killed" for m in mentions for c in m.claims):
                stats.killed_found += 1


def share(part: int, whole: int) -> str:
    return f"{part / whole:6.1%} ({part}/{whole})" if whole else "   n/a"


def report_variant(variant: str, stats: Stats, examples: int) -> None:
    print(f"\n=== variant: {variant} ===")
    print(f"expected-harm rows with any incident:      {share(stats.any[HARM], stats.rows[HARM])}")
    print(
        f"expected-harm rows with expected category: {share(stats.agree[HARM], stats.rows[HARM])}"
    )
    print(
        f"  category agreement when an incident is produced: "
        f"{share(stats.agree[HARM], stats.any[HARM])}"
    )
    print(
        f"military-only rows with an incident:       "
        f"{share(stats.any[NO_HARM], stats.rows[NO_HARM])}"
    )
    print(
        f"rows of other groups (not scored) with an incident: "
        f"{share(stats.any[OTHER], stats.rows[OTHER])}"
    )
    if stats.distances:
        d = sorted(stats.distances)

        def within(km: float) -> int:
            return sum(1 for x in d if x <= km)

        print(
            f"placed harm incidents: {len(d)}, unplaced {stats.unplaced}; nearest-incident "
            f"distance median {statistics.median(d):.1f} km, "
            f"<=10 km {within(10) / len(d):.1%}, <=25 km {within(25) / len(d):.1%}, "
            f"<=50 km {within(50) / len(d):.1%}, >100 km {sum(1 for x in d if x > 100)}"
        )
    print(
        f"expected-harm rows (one event each) giving more than one incident: "
        f"{share(stats.multi, stats.any[HARM])}"
    )
    if stats.date_rows:
        print(
            f"dated variant: incident date == row date {share(stats.date_exact, stats.date_rows)}"
            f", undated {stats.date_none}"
        )
    print(
        f"harm rows whose words name a death/casualty: {stats.killed_rows}; with a killed "
        f"figure extracted: {share(stats.killed_found, stats.killed_rows)}"
    )
    print("per event group (rows | any incident | expected category | categories produced):")
    for group, count in stats.group_rows.most_common():
        cats = ", ".join(f"{c} {n}" for c, n in stats.group_cats[group].most_common(5))
        print(
            f"  {group[:38]:<38} {count:5d} | {stats.group_any[group] / count:6.1%} | "
            f"{stats.group_agree[group] / count:6.1%} | {cats}"
        )
    if stats.spurious_triggers:
        print("triggers of incidents on military-only rows (most common 15):")
        for trigger, n in stats.spurious_triggers.most_common(15):
            print(f"  {n:5d}  {trigger}")
        for line in stats.spurious_examples[:examples]:
            print(f"    e.g. {line}")


def vocabulary_flags(tools: ExtractionTools) -> dict[str, str]:
    """What the vocabulary knows of a word or phrase."""
    flags: dict[str, str] = {}
    v = tools.vocabulary
    for target in v.targets.values():
        for alias in (*target.aliases, target.name.lower()):
            flags[alias] = "target"
    for weapon in v.weapons.values():
        for alias in (*weapon.aliases, weapon.name.lower()):
            flags[alias] = f"weapon({weapon.category})"
    for cat in v.categories.values():
        for trigger in cat.triggers:
            notes = []
            if trigger in cat.weak:
                notes.append("weak")
            if cat.requires_harm:
                notes.append("needs harm")
            flags[trigger] = f"TRIGGER {cat.key}" + (f" [{', '.join(notes)}]" if notes else "")
    for phrase in v.ignore_phrases:
        flags[phrase] = "ignored"
    return flags


def why_missed(tools: ExtractionTools, text: str, published: date | None) -> str:
    """Why a text gave no expected incident: no harm word, only words the rules set aside,
    or harm words without a usable place."""
    ex = tools.extractor
    sentences = tools.analyser.sentences(text)
    tokens = [t for s in sentences for t in s.tokens]
    raw = ex.harm.find(tokens)
    if not raw:
        return "no harm word"
    weapons = [w for w in ex._weapons.find(tokens) if w.payload]
    targets = ex._targets.find(tokens)
    lexicon = tools.vocabulary.lexicon
    figures = [f for s in sentences for f in find_figures(s.text, lexicon, base=s.start)]
    reading = DocumentReading(SourceText(item_id=0, text=text, published=published), ex.tables)
    found = ex.harm.categories_of(tokens, weapons, targets, figures, reading)
    if not found:
        return "harm word set aside (weak / needs harm)"
    mentions = ex.extract(SourceText(item_id=0, text=text, published=published))
    if not mentions:
        return "category found, no usable place"
    return "wrong category"


def ngram_table(
    tools: ExtractionTools, misses: list[tuple[dict[str, str], str]], hits_text: list[str], top: int
) -> None:
    flags = vocabulary_flags(tools)

    def grams(text: str, row: dict[str, str] | None) -> set[str]:
        place_words = set()
        if row is not None:
            for key in ("town/city", "province", "district"):
                place_words |= set(_WORD.findall(row[key].lower()))
        words = [w.strip("'’-") for w in _WORD.findall(text.lower())]
        out: set[str] = set()
        for i, w in enumerate(words):
            if w in place_words or w in {"oblast", "region", "city", "ukraine"}:
                continue
            if w not in STOPWORDS and len(w) > 2:
                out.add(w)
            if i + 1 < len(words):
                nxt = words[i + 1]
                if nxt in place_words:
                    continue
                # "damage to", "fire at", "strike on": a content word and its preposition, or
                # two content words
                if w not in STOPWORDS and (
                    nxt not in STOPWORDS or nxt in {"to", "at", "on", "in", "of", "by", "after"}
                ):
                    out.add(f"{w} {nxt}")
        return out

    missed_df: Counter[str] = Counter()
    for row, _ in misses:
        missed_df.update(grams(words_of(row), row))
    hit_df: Counter[str] = Counter()
    for text in hits_text:
        hit_df.update(grams(text, None))
    n_miss, n_hit = max(1, len(misses)), max(1, len(hits_text))
    print(
        f"\nmost common words/phrases in the {len(misses)} expected-harm descriptions we miss "
        f"(placed variant), with their rate in the {len(hits_text)} we get right:"
    )
    print(f"  {'phrase':<24} {'missed':>7} {'share':>6} {'in hits':>7}  vocabulary")
    for phrase, n in missed_df.most_common(top):
        rate_hit = hit_df[phrase] / n_hit
        print(f"  {phrase:<24} {n:7d} {n / n_miss:6.1%} {rate_hit:7.1%}  {flags.get(phrase, '-')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="casebuilder cache directory (default: $CASEBUILDER_CACHE or ~/.cache/casebuilder)",
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N rows")
    parser.add_argument("--top", type=int, default=40, help="phrases listed for the misses")
    parser.add_argument("--examples", type=int, default=5, help="examples of each kind of miss")
    args = parser.parse_args()
    if not EVENTS.is_file():
        print(f"data set not found: {EVENTS}")
        return 2
    rows = ukrainian_rows(EVENTS)
    if args.limit:
        rows = rows[: args.limit]
    started = time.perf_counter()
    tools = ExtractionTools.build(args.cache or cache_dir(dict(os.environ)))
    print(
        f"Ukrainian rows with a description: {len(rows)} "
        f"(tools built in {time.perf_counter() - started:.1f} s)"
    )
    kinds = Counter(expectation(r["event_group"])[0] for r in rows)
    print(
        f"  expected harm {kinds[HARM]}, military-only {kinds[NO_HARM]}, not scored {kinds[OTHER]}"
    )
    misses: list[tuple[dict[str, str], str]] = []
    for variant in VARIANTS:
        stats = Stats()
        started = time.perf_counter()
        run_variant(tools, rows, variant, stats, misses if variant == "placed" else None)
        elapsed = time.perf_counter() - started
        report_variant(variant, stats, args.examples)
        print(f"({elapsed:.1f} s, {elapsed / max(1, len(rows)) * 1e3:.1f} ms/row)")

    reasons: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    for row, text in misses:
        reason = why_missed(tools, text, published_of(row))
        reasons[reason] += 1
        examples[reason].append(f"[{short_group(row['event_group'])}] {text}")
    print(f"\nwhy expected-harm rows are missed (placed variant, {len(misses)} rows):")
    for reason, n in reasons.most_common():
        print(f"  {n:5d} {n / max(1, len(misses)):6.1%}  {reason}")
        for line in examples[reason][: args.examples]:
            print(f"          e.g. {line}")
    missed_ids = {id(r) for r, _ in misses}
    hits_text = [
        words_of(r)
        for r in rows
        if expectation(r["event_group"])[0] == HARM and id(r) not in missed_ids
    ]
    ngram_table(tools, misses, hits_text, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
