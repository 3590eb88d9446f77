"""Dates and casualty figures, sentence by sentence, over the development reports.

Both run on every sentence the extractor reads, so their speed bounds the extractor's. The
script reads the dev corpus (``../shared/corpus/dev/reports`` beside the project), splits each
report into rough sentences, and times the date resolver and the figure finder of the shipped
vocabulary over them ``--rounds`` times. It prints characters per second (this measurement
was once a test that only printed; performance is measured here, never by a timed test).

    python benchmarks/dates_figures_speed.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from datetime import date
from pathlib import Path

from casebuilder.extraction.dates import DateResolver
from casebuilder.extraction.figures import find_figures
from casebuilder.extraction.vocabulary import load_vocabulary

REPORTS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "dev" / "reports"
SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)", re.M)


def documents() -> list[tuple[str, date]]:
    out = []
    for path in sorted(REPORTS.iterdir()):
        if path.suffix == ".txt":
            meta = json.loads(path.with_suffix(".meta.json").read_text(encoding="utf-8"))
            out.append((path.read_text(encoding="utf-8"), date.fromisoformat(
                meta["published"][:10])))
        elif path.suffix == ".html":
            raw = path.read_text(encoding="utf-8")
            published = re.search(r'article:published_time" content="([^"]+)"', raw)
            body = re.sub(r"<[^>]+>", " ", raw.split("<body>", 1)[1])
            out.append((body, date.fromisoformat(published.group(1)[:10]) if published
                        else date(2022, 1, 1)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    vocabulary = load_vocabulary()
    resolver, lexicon = DateResolver.of(vocabulary), vocabulary.lexicon
    texts = documents()
    characters, started = 0, time.perf_counter()
    for _ in range(args.rounds):
        for text, published in texts:
            for match in SENTENCE.finditer(text):
                resolver.find(match.group(), published, base=match.start())
                find_figures(match.group(), lexicon, base=match.start())
            characters += len(text)
    elapsed = time.perf_counter() - started
    print(f"dates + figures, sentence by sentence: {characters / elapsed:,.0f} characters per "
          f"second ({characters:,} characters in {elapsed:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
