"""Time to render a 500-incident report to PDF, against the 60 s the issue allows.

Each incident section: a heading, ten paragraphs citing three spans each, a table of eight
rows and two small SVG drawings. Prints limit / time (above 1 is within the limit).

    PYTHONPATH=src python benchmarks/report_render.py [--incidents 500]
"""

from __future__ import annotations

import argparse
import time

from casebuilder.reporting.casefile.document import (
    Cite,
    Document,
    Figure,
    Heading,
    Paragraph,
    Span,
    Table,
    Text,
)
from casebuilder.reporting.casefile.pdf import render_pdf

LIMIT_S = 60.0
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 60" width="120" height="60">'
       '<rect width="120" height="60" fill="#eef0f3"/><circle cx="{x}" cy="30" r="4" '
       'fill="#8a2d2d"/><text x="8" y="14" font-size="8">{label}</text></svg>')


def build(incidents: int) -> Document:
    blocks: list = []
    for i in range(1, incidents + 1):
        blocks.append(Heading(2, f"Incident {i}: strike reported in district {i % 37}",
                              anchor=f"inc-{i}"))
        for p in range(10):
            spans = tuple(Span(item_id=i * 10 + k, start=p * 100, end=p * 100 + 40,
                               quote=f"the source says item {i} part {p} figure {k}",
                               document=f"source-{i}-{k}.html", sha256="0" * 64)
                          for k in range(3))
            blocks.append(Paragraph((Text(f"Paragraph {p} of incident {i}: a source reported "
                                          "the event and gave a figure for the dead and the "
                                          "injured, which another source disputed."),
                                     Cite(spans)), number=f"{i}.{p + 1}"))
        blocks.append(Table(columns=("Source", "Grade", "Killed", "Injured"),
                            rows=tuple(((Text(f"source {r}"),), (Text("B2"),),
                                        (Text(str(r)),), (Text(str(r * 2)),))
                                       for r in range(8)), caption=f"Sources of incident {i}"))
        blocks.append(Figure(SVG.format(x=20 + i % 80, label=f"locator {i}"),
                             f"Locator of incident {i}", incidents=(str(i),), width_mm=60))
        blocks.append(Figure(SVG.format(x=60, label=f"close-up {i}"),
                             f"Close-up of incident {i}", incidents=(str(i),), width_mm=60))
    return Document(title="Case file", subtitle="benchmark", case_name="Benchmark case",
                    as_of="2024-06-01T00:00:00Z", state_digest="f" * 64, blocks=tuple(blocks))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--incidents", type=int, default=500)
    args = parser.parse_args()
    document = build(args.incidents)
    start = time.perf_counter()
    pdf = render_pdf(document)
    elapsed = time.perf_counter() - start
    print(f"{args.incidents} incidents: {len(pdf) / 1e6:.1f} MB PDF in {elapsed:.1f} s; "
          f"ratio limit/time = {LIMIT_S / elapsed:.2f}")


if __name__ == "__main__":
    main()
