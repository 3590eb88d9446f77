"""Checks a case file PDF against the case it was made from, as a reviewer would with standard
tools: the PDF opens (pypdf reads every page; pdfinfo, if installed, finds no error), its text
(pdftotext) names every incident of the case or of the selection, and every footnote names an
item of the case and a character span of that item's text which holds the words it quotes.

    python scripts/check_case_file.py --home CASE FILE.pdf [--incidents-json FILE]

The item texts are read through ``casebuilder text ID --json`` (each read is logged in the
case's custody log, as every read is). Prints one line per failure and a summary; the exit
status is 0 when everything holds, 1 when something does not, 2 when it cannot check.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

# "file, item N, [line L, ]characters A–B[ (bytes C–D)]: “words”", as the renderer writes it;
# what follows the opening quotation mark is looked at (not consumed: the next note may be
# within reach) as far as a long quote can reach
FOOTNOTE = re.compile(r"item (\d+), (?:line \d+, )?characters (\d+)[–-](\d+)"
                      r"(?: \(bytes \d+[–-]\d+\))?(?=(?:: “(.{0,400}))?)")
COMPARED = 60  # characters of the text at the span that the note must begin with


def letters(text: str) -> str:
    """Text without spaces and hyphens: pdftotext adds a space, or drops a hyphen, where a
    line of the PDF breaks, so only the rest is compared."""
    return re.sub(r"[\s\-‐-―]", "", text)


def casebuilder(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "casebuilder", "--home", str(home), *args],
                          capture_output=True, text=True, check=False)


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--incidents-json", type=Path, default=None,
                        help="the incidents expected (output of 'incidents --json'); default: "
                             "every incident of the case")
    parser.add_argument("pdf", type=Path)
    args = parser.parse_args()
    if shutil.which("pdftotext") is None:
        print("cannot check: pdftotext (poppler-utils) is not installed", file=sys.stderr)
        return 2
    failures: list[str] = []

    from pypdf import PdfReader

    reader = PdfReader(str(args.pdf), strict=True)
    pages = len(reader.pages)
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", str(args.pdf)], capture_output=True, text=True,
                              check=False)
        if info.returncode != 0:
            failures.append(f"pdfinfo: {info.stderr.strip()}")
    text = flat(subprocess.run(["pdftotext", str(args.pdf), "-"], capture_output=True,
                               text=True, check=True).stdout)

    listing = (args.incidents_json.read_text(encoding="utf-8") if args.incidents_json
               else casebuilder(args.home, "incidents", "--json").stdout)
    expected = [p["id"] for p in json.loads(listing)["incidents"]]
    missing = [i for i in expected if f"Incident {i}" not in text]
    failures += [f"incident {i} is not in the text" for i in missing]

    notes = {(item, start, end): words for item, start, end, words in FOOTNOTE.findall(text)}
    texts: dict[int, str] = {}
    for (item, start, end), words in sorted(notes.items()):
        item_id, a, b = int(item), int(start), int(end)
        if item_id not in texts:
            done = casebuilder(args.home, "text", str(item_id), "--json")
            if done.returncode != 0:
                failures.append(f"footnote names item {item_id}, which the case cannot show: "
                                f"{done.stderr.strip()[:200]}")
                texts[item_id] = ""
                continue
            texts[item_id] = json.loads(done.stdout)["text"]
        body = texts[item_id]
        if not 0 <= a < b <= len(body):
            failures.append(f"item {item_id}: characters {a}–{b} lie outside its text "
                            f"({len(body)} characters)")
            continue
        held = letters(body[a:b])[:COMPARED]
        if words and not letters(words).startswith(held):
            failures.append(f"item {item_id}, characters {a}–{b}: the footnote quotes "
                            f"“{flat(words)[:80]}”, the text there is “{flat(body[a:b])[:80]}”")
    for line in failures[:50]:
        print(line)
    print(f"{args.pdf}: {pages} pages; {len(expected)} incidents expected, {len(missing)} "
          f"missing; {len(notes)} footnotes checked against {len(texts)} items; "
          f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
