"""Golden files: what the extractor finds in each development report, value by value.

A change in extraction shows up here as a diff a reviewer can read. When a change is meant,
regenerate with ``CASEBUILDER_UPDATE_GOLDEN=1 pytest tests/extraction/test_golden_extraction.py``
and review the diff of tests/golden/extraction/ like code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from casebuilder.extraction.claims import NOT_TAKEN, Claim
from casebuilder.extraction.mentions import IncidentMention, SourceText
from casebuilder.extraction.run import parse_published
from conftest import DEV_REPORTS, REPO

GOLDEN = REPO / "tests" / "golden" / "extraction"


def summarise(mention: IncidentMention) -> dict[str, object]:
    date, expression, _ = mention.event_date()

    def values(kind: str, key: str) -> list[object]:
        return sorted({str(getattr(c.value, key)) for c in mention.claims if c.kind == kind})

    return {
        "place": mention.place.name if mention.place else mention.place_name,
        "gazetteer_id": mention.place.gazetteer_id if mention.place else None,
        "situation": mention.situation,
        "categories": mention.categories,
        "event_date": date.iso() if date else None,
        "date_expression": expression,
        "killed": sorted({(c.value.low, c.value.high, c.value.qualifier)
                          for c in mention.claims if c.kind == "killed"},
                         key=lambda t: (t[0] is None, t[0] or 0, str(t))),
        "injured": sorted({(c.value.low, c.value.high, c.value.qualifier)
                           for c in mention.claims if c.kind == "injured"},
                          key=lambda t: (t[0] is None, t[0] or 0, str(t))),
        "weapons": values("weapon", "weapon"),
        "targets": values("target", "target_type"),
        "perpetrators": sorted({f"{c.value.party}{' (counter)' if c.value.competing else ''}"
                                f" <- {c.attribution.speaker}" for c in mention.claims
                                if c.kind == "perpetrator"}),
        "denials": sorted({c.attribution.speaker for c in mention.claims if c.kind == "denial"}),
        "speakers": sorted({f"{c.attribution.speaker} [{c.attribution.kind}, "
                            f"{c.attribution.evidentiality}]" for c in mention.claims
                            if c.kind != NOT_TAKEN}),
        # what the rules set aside in the mention's sentences, and which rule
        "not_taken": sorted({not_taken(c) for c in mention.claims if c.kind == NOT_TAKEN}),
    }


def not_taken(claim: Claim) -> str:
    """"place 'Ukraine' as dateline <- place_roles/dateline"."""
    value = claim.value
    taken_as = getattr(value, "taken_as", None)
    role = f" as {taken_as}" if taken_as else ""
    return f"{value.what} {value.words!r}{role} <- {claim.rule}"


def source_for(path: Path) -> SourceText:
    if path.suffix == ".html":
        import re

        html = path.read_text()
        published = re.search(r'article:published_time" content="([^"]+)"', html)
        article = html.split("<article>")[1].split("</article>")[0]
        text = re.sub(r"<[^>]+>", "", article).replace("&middot;", "·").strip()
        return SourceText(1, text, "", "", parse_published(published.group(1)
                                                           if published else None))
    meta = json.loads(path.with_name(path.stem + ".meta.json").read_text())
    return SourceText(1, path.read_text(), meta.get("title", ""), meta.get("outlet", ""),
                      parse_published(meta.get("published")))


DOCUMENTS = sorted(p.name for p in DEV_REPORTS.glob("*") if not p.name.endswith(".meta.json")) \
    if DEV_REPORTS.is_dir() else []


@pytest.mark.parametrize("name", DOCUMENTS)
def test_extraction_matches_golden_file(name, extraction_tools, dev_reports):
    mentions = extraction_tools.extractor.extract(source_for(dev_reports / name))
    found = json.loads(json.dumps([summarise(m) for m in mentions]))
    golden = GOLDEN / f"{name}.json"
    if os.environ.get("CASEBUILDER_UPDATE_GOLDEN"):
        golden.write_text(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    if not golden.exists():
        pytest.fail(f"no golden file {golden}; run with CASEBUILDER_UPDATE_GOLDEN=1")
    assert found == json.loads(golden.read_text())
